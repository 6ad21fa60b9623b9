import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { stablecoinUsdWad } from '../../src/lending/debt.js';
import { decodeKaminoObligation, KAMINO_OBLIGATION_SIZE } from '../../src/lending/kamino.js';
import { decodeMarginfiAccount, decodeMarginfiBank, hasLiability } from '../../src/lending/marginfi.js';
import { decodeSaveObligation, SAVE_OBLIGATION_SIZE } from '../../src/lending/save.js';
import { usdFromScaledFraction, WAD } from '../../src/lending/usd.js';
import { formatFixed } from '../../src/lib/fixed.js';

/** Real mainnet account dumps (getAccountInfo shape): packages/localnet/fixtures/lending/README.md says where each was read. */
const lendingDir = fileURLToPath(new URL('../../packages/localnet/fixtures/lending', import.meta.url));

function dump(name: string): { pubkey: string; owner: string; data: Buffer } {
  const json = JSON.parse(readFileSync(resolve(lendingDir, `${name}.json`), 'utf8'));
  return { pubkey: json.pubkey, owner: json.account.owner, data: Buffer.from(json.account.data[0], 'base64') };
}

const usd = (wad: bigint) => Number(formatFixed(wad, 18));

function writeU128(data: Buffer, offset: number, value: bigint): void {
  data.writeBigUInt64LE(value & 0xffff_ffff_ffff_ffffn, offset);
  data.writeBigUInt64LE(value >> 64n, offset + 8);
}

describe('Kamino obligation (mainnet dump)', () => {
  const obligation = decodeKaminoObligation(dump('kamino_usdc_obligation').data);

  it('reads the owner and market', () => {
    expect(obligation.owner).toBe('HRpCJaTjXMgxsDAHSLHTQigUmezEitySEf6SWWmLsiNY');
    expect(obligation.lendingMarket).toBe('7u3HeHxYDLhnCoErrtycNokbQYbWGzLs6JSDqGAv5PfF');
  });

  it('has no debt: has_debt 0, no borrows, zero borrowed value', () => {
    expect(obligation.hasDebt).toBe(false);
    expect(obligation.borrows).toEqual([]);
    expect(obligation.borrowedAssetsMarketValueSf).toBe(0n);
  });

  it('reads the deposited value of about $175,536.77', () => {
    expect(usd(usdFromScaledFraction(obligation.depositedValueSf))).toBeCloseTo(175_536.77, 2);
  });

  it('rejects data of another size or discriminator', () => {
    const data = dump('kamino_usdc_obligation').data;
    expect(() => decodeKaminoObligation(data.subarray(0, KAMINO_OBLIGATION_SIZE - 8))).toThrow(/3344/);
    const reserve = dump('kamino_usdc_reserve').data;
    expect(() => decodeKaminoObligation(Buffer.concat([reserve.subarray(0, 8), data.subarray(8)]))).toThrow(/discriminator/);
  });

  it('reads a borrow slot and the borrowed value when present', () => {
    const data = Buffer.from(dump('kamino_usdc_obligation').data);
    const slot1 = 1208 + 200;
    data.fill(7, slot1, slot1 + 32); // borrow_reserve
    writeU128(data, slot1 + 88, 3n << 60n); // borrowed_amount_sf = 3.0
    writeU128(data, 2224, 1234n << 56n); // borrowed_assets_market_value_sf = 1234 / 16
    data[2287] = 1;
    const decoded = decodeKaminoObligation(data);
    expect(decoded.hasDebt).toBe(true);
    expect(decoded.borrows).toHaveLength(1);
    expect(decoded.borrows[0]!.borrowedAmountSf).toBe(3n << 60n);
    expect(usdFromScaledFraction(decoded.borrowedAssetsMarketValueSf)).toBe((1234n * WAD) / 16n);
  });
});

describe('MarginFi account and banks (mainnet dumps)', () => {
  const account = decodeMarginfiAccount(dump('marginfi_account_sample_1').data);

  it('finds 7 active balances, 3 of them with liability shares', () => {
    expect(account.authority).toBe('Dq7wypbedtaqQK9QqEFvfrxc4ppfRGXCeTVd7ee7n2jw');
    expect(account.group).toBe('4qp6Fx6tnZkY5Wropq9wUYgtFxXKwE6viZxFHg3rdAG8');
    expect(account.balances).toHaveLength(7);
    expect(account.balances.filter(hasLiability).map((b) => b.index)).toEqual([1, 4, 5]);
  });

  it('reads bank_sample_3 as the USDT bank: 6 decimals, liability share value ≈ 1.1209', () => {
    const bankDump = dump('bank_sample_3');
    const bank = decodeMarginfiBank(bankDump.data);
    expect(bank.mint).toBe('Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB');
    expect(bank.mintDecimals).toBe(6);
    expect(Number(bank.liabilityShareValue) / 2 ** 48).toBeCloseTo(1.1209, 4);
    const usdtLiability = account.balances.find((b) => b.bank === bankDump.pubkey);
    expect(usdtLiability && hasLiability(usdtLiability)).toBe(true);
  });

  it('prices the USDT liability as shares × share value / 10^decimals dollars', () => {
    const bank = decodeMarginfiBank(dump('bank_sample_3').data);
    const balance = account.balances.find((b) => b.bank === dump('bank_sample_3').pubkey)!;
    const expected = ((Number(balance.liabilityShares) / 2 ** 48) * (Number(bank.liabilityShareValue) / 2 ** 48)) / 1e6;
    expect(expected).toBeGreaterThan(600); // ≈ 605,992,072 shares × 1.1209 / 1e6 ≈ $679
    expect(usd(stablecoinUsdWad(balance, bank))).toBeCloseTo(expected, 6);
  });

  it('reads the PYUSD bank and other banks of the dumps', () => {
    expect(decodeMarginfiBank(dump('pyusd_bank').data).mint).toBe('2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo');
    expect(decodeMarginfiBank(dump('bank_sample_1').data)).toMatchObject({ mint: 'J1toso1uCk3RLmjorhTtrVwY9HJ7X8V9yYac6Y7kGCPn', mintDecimals: 9 });
    expect(decodeMarginfiBank(dump('bonk_bank').data)).toMatchObject({ mint: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263', mintDecimals: 5 });
  });

  it('keeps reading past inactive slots (balances with gaps)', () => {
    const gappy = decodeMarginfiAccount(dump('gappy_user3').data);
    expect(gappy.balances.map((b) => b.index)).toEqual([0, 2, 4]);
    expect(gappy.balances.filter(hasLiability).map((b) => b.index)).toEqual([4]);
  });

  it('sees no liability in an account with assets only, and none in an empty one', () => {
    expect(decodeMarginfiAccount(dump('marginfi_account_sample_2').data).balances.filter(hasLiability)).toEqual([]);
    expect(decodeMarginfiAccount(dump('marginfi_account_sample_3').data).balances).toEqual([]);
  });

  it('rejects a bank where an account is expected, and the other way round', () => {
    expect(() => decodeMarginfiAccount(dump('bank_sample_1').data)).toThrow(/2312/);
    expect(() => decodeMarginfiBank(dump('marginfi_account_sample_1').data)).toThrow(/1864/);
  });
});

describe('Save obligation (built to the program layout)', () => {
  function saveObligation(fields: { version?: number; owner: Buffer; unweighted: bigint; weighted: bigint; borrows: number }): Buffer {
    const data = Buffer.alloc(SAVE_OBLIGATION_SIZE);
    data[0] = fields.version ?? 1;
    fields.owner.copy(data, 42);
    writeU128(data, 90, fields.weighted);
    writeU128(data, 171, fields.unweighted);
    data[203] = fields.borrows;
    return data;
  }
  const owner = Buffer.alloc(32, 9);

  it('reads unweighted and weighted borrowed values (WAD) and the borrow count', () => {
    const decoded = decodeSaveObligation(saveObligation({ owner, unweighted: 2_500n * WAD, weighted: 3_000n * WAD + 1n, borrows: 2 }))!;
    expect(decoded.unweightedBorrowedValueWad).toBe(2_500n * WAD);
    expect(decoded.borrowedValueWad).toBe(3_000n * WAD + 1n);
    expect(decoded.borrowsLen).toBe(2);
  });

  it('keeps u128 values exact beyond 64 bits', () => {
    const big = (1n << 100n) + 12345n;
    expect(decodeSaveObligation(saveObligation({ owner, unweighted: big, weighted: 0n, borrows: 1 }))!.unweightedBorrowedValueWad).toBe(big);
  });

  it('returns null for an uninitialized obligation and rejects unknown versions and sizes', () => {
    expect(decodeSaveObligation(saveObligation({ version: 0, owner, unweighted: 0n, weighted: 0n, borrows: 0 }))).toBeNull();
    expect(() => decodeSaveObligation(saveObligation({ version: 7, owner, unweighted: 0n, weighted: 0n, borrows: 0 }))).toThrow(/version/);
    expect(() => decodeSaveObligation(Buffer.alloc(1299))).toThrow(/1300/);
  });
});

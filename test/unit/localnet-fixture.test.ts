/**
 * The demo fixture means what its catalogue says, in real byte layouts: ATAs at the addresses an
 * independent PDA derivation gives, token and Token-2022 bytes, histories for timelock/age, and
 * lending obligations decodable as the protocols lay them out.
 */
import { createHash } from 'node:crypto';
import * as ed from '@noble/ed25519';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoState, demoAddress, demoMint, demoWallet } from 'x404-localnet/fixture.js';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';
import { ChainState } from 'x404-localnet/state.js';

const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const TOKEN_2022 = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
const ATA_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';

let chain: LocalnetHandle;
beforeAll(async () => {
  chain = await startLocalnet({ port: 0 });
});
afterAll(async () => {
  await chain.close();
});

async function rpc(method: string, params?: unknown[]): Promise<any> {
  const res = await fetch(chain.url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const reply = (await res.json()) as { result?: unknown; error?: unknown };
  expect(reply.error).toBeUndefined();
  return reply.result;
}

async function accountBytes(address: string): Promise<{ owner: string; data: Buffer } | null> {
  const { value } = await rpc('getAccountInfo', [address, { encoding: 'base64' }]);
  return value ? { owner: value.owner, data: Buffer.from(value.data[0], 'base64') } : null;
}

/** PDA derivation written from the spec (sha256 of seeds‖bump‖program‖marker, first off-curve), not web3.js. */
function independentAta(owner: string, mint: string, tokenProgram: string): string {
  for (let bump = 255; bump >= 0; bump -= 1) {
    const hash = createHash('sha256')
      .update(bs58.decode(owner))
      .update(bs58.decode(tokenProgram))
      .update(bs58.decode(mint))
      .update(Uint8Array.of(bump))
      .update(bs58.decode(ATA_PROGRAM))
      .update('ProgramDerivedAddress')
      .digest();
    try {
      ed.Point.fromBytes(hash);
    } catch {
      return bs58.encode(hash);
    }
  }
  throw new Error('no bump');
}

const wallet = (name: string) => demoWallet(name).publicKey;
const u128 = (data: Buffer, at: number) => data.readBigUInt64LE(at) + (data.readBigUInt64LE(at + 8) << 64n);
const i128 = (data: Buffer, at: number) => BigInt.asIntN(128, u128(data, at));

describe('demo wallets', () => {
  it('are Solana keypairs: 64-byte secret = seed ‖ public key, signing verifies', async () => {
    const { publicKey, secretKey } = demoWallet('clean');
    expect(secretKey).toHaveLength(64);
    expect(bs58.encode(secretKey.subarray(32))).toBe(publicKey);
    const message = new TextEncoder().encode('CHALLENGE::n::/x404_auth/blacklist::SERVICE404_BLACKLIST');
    const signature = await ed.signAsync(message, secretKey.subarray(0, 32));
    expect(await ed.verifyAsync(signature, message, bs58.decode(publicKey))).toBe(true);
  });

  it('and the whole state are deterministic', () => {
    const now = Date.UTC(2030, 0, 1);
    const a = buildDemoState({ now, lendingDumpsDir: null });
    const b = buildDemoState({ now, lendingDumpsDir: null });
    const page = (s: ChainState) => s.signaturesFor(wallet('active'), { limit: 1000 }).map((t) => `${t.signature}@${t.slot}/${t.blockTime}`);
    expect(page(a)).toEqual(page(b));
    expect(a.getAccount(demoAddress('save:debtor-save'))?.base64Json).toBe(b.getAccount(demoAddress('save:debtor-save'))?.base64Json);
  });
});

describe('token holdings', () => {
  it('put ATAs at the PDA of [owner, token program, mint] under the ATA program', async () => {
    const cases: [string, string, string][] = [
      ['clean', demoMint('usdc'), TOKEN],
      ['banned-holder', demoMint('banned'), TOKEN],
      ['t22-holder', demoMint('t22'), TOKEN_2022],
      ['banned-t22', demoMint('banned-t22'), TOKEN_2022],
    ];
    for (const [name, mint, program] of cases) {
      const { value } = await rpc('getTokenAccountsByOwner', [wallet(name), { mint }, { encoding: 'base64' }]);
      expect(value.map((v: any) => v.pubkey)).toEqual([independentAta(wallet(name), mint, program)]);
      expect(value[0].account.owner).toBe(program);
    }
  });

  it('store SPL Token accounts in the 165-byte layout', async () => {
    const account = await accountBytes(independentAta(wallet('whale'), demoMint('usdc'), TOKEN));
    expect(account!.owner).toBe(TOKEN);
    expect(account!.data).toHaveLength(165);
    expect(bs58.encode(account!.data.subarray(0, 32))).toBe(demoMint('usdc'));
    expect(bs58.encode(account!.data.subarray(32, 64))).toBe(wallet('whale'));
    expect(account!.data.readBigUInt64LE(64)).toBe(5_000_000n * 1_000_000n);
    expect(account!.data[108]).toBe(1);
  });

  it('store Token-2022 accounts with the account type byte and TLV extensions', async () => {
    const account = await accountBytes(independentAta(wallet('t22-holder'), demoMint('t22'), TOKEN_2022));
    const data = account!.data;
    expect(data.readBigUInt64LE(64)).toBe(42_500_000n);
    expect(data[165]).toBe(2);
    expect([data.readUInt16LE(166), data.readUInt16LE(168)]).toEqual([7, 0]); // ImmutableOwner
    expect([data.readUInt16LE(170), data.readUInt16LE(172)]).toEqual([2, 8]); // TransferFeeAmount
    expect(data.readBigUInt64LE(174)).toBe(1234n);
    expect(data).toHaveLength(182);

    const mint = (await accountBytes(demoMint('t22')))!.data;
    expect(mint[44]).toBe(6);
    expect(mint[165]).toBe(1);
    expect([mint.readUInt16LE(166), mint.readUInt16LE(168)]).toEqual([1, 108]); // TransferFeeConfig
  });

  it('keep a banned token only in a non-ATA account for banned-nonata, and zero amounts for zero-balance', async () => {
    const nonAta = await accountBytes(demoAddress('banned-nonata:token-account'));
    expect(bs58.encode(nonAta!.data.subarray(32, 64))).toBe(wallet('banned-nonata'));
    expect(await accountBytes(independentAta(wallet('banned-nonata'), demoMint('banned'), TOKEN))).toBeNull();
    const zero = await accountBytes(independentAta(wallet('zero-balance'), demoMint('banned'), TOKEN));
    expect(zero!.data.readBigUInt64LE(64)).toBe(0n);
  });
});

describe('histories', () => {
  /** The wallet's balance of `mint` after each of its transactions within `days`, newest first. */
  async function balancesWithin(name: string, mint: string, days: number): Promise<bigint[]> {
    const since = Date.now() / 1000 - days * 86_400;
    const sigs = await rpc('getSignaturesForAddress', [wallet(name), { limit: 1000 }]);
    const balances: bigint[] = [];
    for (const s of sigs.filter((x: any) => x.blockTime >= since)) {
      const tx = await rpc('getTransaction', [s.signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }]);
      for (const b of tx.meta.postTokenBalances) if (b.mint === mint && b.owner === wallet(name)) balances.push(BigInt(b.uiTokenAmount.amount));
    }
    return balances;
  }

  it('timelock: lock-steady never dipped below 1,000 in 30 days, lock-rebought did, lock-new started 3 days ago', async () => {
    const lock = demoMint('lock');
    const threshold = 1_000_000_000n;
    expect((await balancesWithin('lock-steady', lock, 30)).every((b) => b >= threshold)).toBe(true);
    expect((await balancesWithin('lock-rebought', lock, 30)).some((b) => b < threshold)).toBe(true);
    const firstOfNew = (await rpc('getSignaturesForAddress', [wallet('lock-new'), { limit: 10 }])).at(-1);
    expect(Math.round((Date.now() / 1000 - firstOfNew.blockTime) / 86_400)).toBe(3);
  });

  it('age: old wallet first transaction has token balances without owner; young wallet began 2 days ago', async () => {
    let before: string | undefined;
    let last: any;
    for (let pages = 0; pages < 10; pages += 1) {
      const page = await rpc('getSignaturesForAddress', [wallet('old'), { limit: 1000, ...(before ? { before } : {}) }]);
      if (page.length === 0) break;
      last = page.at(-1);
      before = last.signature;
    }
    const first = await rpc('getTransaction', [last.signature, { encoding: 'json' }]);
    expect(first.meta.postTokenBalances.length).toBeGreaterThan(0);
    for (const b of first.meta.postTokenBalances) expect('owner' in b).toBe(false);
    const young = await rpc('getSignaturesForAddress', [wallet('young'), { limit: 1000 }]);
    expect(Math.round((Date.now() / 1000 - young.at(-1).blockTime) / 86_400)).toBe(2);
  });

  it('activity: active has failed transactions and calls Jupiter, Metaplex and Stake programs; quiet has 2', async () => {
    const sigs = await rpc('getSignaturesForAddress', [wallet('active'), { limit: 1000 }]);
    expect(sigs.some((s: any) => s.err !== null)).toBe(true);
    const programs = new Set<string>();
    for (const s of sigs) {
      const tx = await rpc('getTransaction', [s.signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }]);
      const keys = [...tx.transaction.message.accountKeys, ...tx.meta.loadedAddresses.writable, ...tx.meta.loadedAddresses.readonly];
      for (const ix of tx.transaction.message.instructions) programs.add(keys[ix.programIdIndex]);
    }
    expect(programs).toContain('JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4');
    expect(programs).toContain('metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s');
    expect(programs).toContain('Stake11111111111111111111111111111111111111');
    expect(await rpc('getSignaturesForAddress', [wallet('quiet'), { limit: 1000 }])).toHaveLength(2);
  });
});

describe('lending obligations', () => {
  async function find(program: string, size: number, ownerOffset: number, name: string) {
    const list = await rpc('getProgramAccounts', [
      program,
      { encoding: 'base64', filters: [{ dataSize: size }, { memcmp: { offset: ownerOffset, bytes: wallet(name) } }] },
    ]);
    return list.map((a: any) => Buffer.from(a.account.data[0], 'base64')) as Buffer[];
  }

  it('Save: debtor-save owes $2,500 (borrowed_value /1e18, one borrow); no-debt owes nothing', async () => {
    const [debtor] = await find('So1endDq2YkqhipRh3WViPa8hdiSpxWy6z3Z6tMCpAo', 1300, 42, 'debtor-save');
    expect(debtor![0]).toBe(1);
    expect(u128(debtor!, 90) / 10n ** 18n).toBe(2500n);
    expect(u128(debtor!, 171) / 10n ** 18n).toBe(2500n);
    expect(debtor![203]).toBe(1);
    const [clean] = await find('So1endDq2YkqhipRh3WViPa8hdiSpxWy6z3Z6tMCpAo', 1300, 42, 'no-debt');
    expect([u128(clean!, 90), clean![203]]).toEqual([0n, 0]);
  });

  it('Kamino: debtor-kamino owes $800 (/2^60) with has_debt set', async () => {
    const [debtor] = await find('KLend2g3cP87fffoy8q1mQqGKjrxjC8boSyAYavgmjD', 3344, 64, 'debtor-kamino');
    expect(debtor!.subarray(0, 8).toString('hex')).toBe('a8ce8d6a584caca7');
    expect(u128(debtor!, 2224) >> 60n).toBe(800n);
    expect(debtor![2287]).toBe(1);
    const [clean] = await find('KLend2g3cP87fffoy8q1mQqGKjrxjC8boSyAYavgmjD', 3344, 64, 'no-debt');
    expect([u128(clean!, 2224), clean![2287]]).toEqual([0n, 0]);
  });

  it('MarginFi: debtor-marginfi owes 525 USDC = liability shares × bank liability_share_value / 10^decimals', async () => {
    const [account] = await find('MFv2hWf31Z9kbCa1snEPYctwafyhdvnV7FZnsebVacA', 2312, 40, 'debtor-marginfi');
    expect(account!.subarray(0, 8).toString('hex')).toBe('43b2826d7e721c2a');
    let owed = 0;
    for (let i = 0; i < 16; i += 1) {
      const at = 72 + 104 * i;
      if (account![at] !== 1) continue;
      const shares = Number(i128(account!, at + 56)) / 2 ** 48;
      if (shares === 0) continue;
      const bank = (await accountBytes(bs58.encode(account!.subarray(at + 1, at + 33))))!.data;
      owed += (shares * (Number(i128(bank, 96)) / 2 ** 48)) / 10 ** bank[40]!;
    }
    expect(owed).toBeCloseTo(525, 6);
  });
});

describe('ChainState', () => {
  it('re-indexes a token account whose owner changes', () => {
    const state = new ChainState({ now: Date.now() });
    const mint = state.addMint({ decimals: 2, program: 'token' });
    const address = state.addTokenAccount({ owner: wallet('clean'), mint, amount: 5, program: 'token', address: demoAddress('moving') });
    expect([...state.tokenAccountsOf(wallet('clean'))]).toEqual([address]);
    state.addTokenAccount({ owner: wallet('quiet'), mint, amount: 5, program: 'token', address });
    expect([...state.tokenAccountsOf(wallet('clean'))]).toEqual([]);
    expect([...state.tokenAccountsOf(wallet('quiet'))]).toEqual([address]);
  });
});

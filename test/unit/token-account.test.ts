import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../../src/chain/programs.js';
import { TokenAccountError, decodeTokenAccount, readTokenAccountHead } from '../../src/chain/token-account.js';

/** A token account as the SPL programs lay it out (docs/solana-wire-format.md), built byte by byte. */
function tokenAccountBytes(options: { mint: Buffer; owner: Buffer; amount: bigint; state?: number }): Buffer {
  const data = Buffer.alloc(165);
  options.mint.copy(data, 0);
  options.owner.copy(data, 32);
  data.writeBigUInt64LE(options.amount, 64);
  data[108] = options.state ?? 1;
  return data;
}

function tlv(type: number, value: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt16LE(type, 0);
  header.writeUInt16LE(value.length, 2);
  return Buffer.concat([header, value]);
}

const mint = randomBytes(32);
const owner = randomBytes(32);

describe('SPL Token account decoding', () => {
  it('reads mint, owner, the full u64 amount and the state', () => {
    const account = decodeTokenAccount(tokenAccountBytes({ mint, owner, amount: 0xffff_ffff_ffff_ffffn, state: 2 }), TOKEN_PROGRAM_ID);
    expect(account).toEqual({
      mint: bs58.encode(mint),
      owner: bs58.encode(owner),
      amount: 18_446_744_073_709_551_615n,
      state: 'frozen',
      extensions: [],
    });
  });

  it('reads the head of a 72-byte slice', () => {
    const head = readTokenAccountHead(tokenAccountBytes({ mint, owner, amount: 25_000_000n }).subarray(0, 72));
    expect(head.mint.equals(mint)).toBe(true);
    expect(head.owner.equals(owner)).toBe(true);
    expect(head.amount).toBe(25_000_000n);
  });

  it('rejects short data, a longer SPL Token account and an unknown state', () => {
    const good = tokenAccountBytes({ mint, owner, amount: 1n });
    expect(() => decodeTokenAccount(good.subarray(0, 164), TOKEN_PROGRAM_ID)).toThrow(TokenAccountError);
    expect(() => decodeTokenAccount(Buffer.concat([good, Buffer.of(2)]), TOKEN_PROGRAM_ID)).toThrow(/expected 165/);
    expect(() => decodeTokenAccount(tokenAccountBytes({ mint, owner, amount: 1n, state: 3 }), TOKEN_PROGRAM_ID)).toThrow(/state 3/);
    expect(() => readTokenAccountHead(good.subarray(0, 71))).toThrow(TokenAccountError);
  });
});

describe('Token-2022 account decoding', () => {
  const base = tokenAccountBytes({ mint, owner, amount: 42_500_000n });

  it('accepts a plain 165-byte account', () => {
    expect(decodeTokenAccount(base, TOKEN_2022_PROGRAM_ID).amount).toBe(42_500_000n);
  });

  it('parses TLV extensions, keeps unknown types and stops at padding', () => {
    const withheld = Buffer.alloc(8);
    withheld.writeBigUInt64LE(1_234n);
    const data = Buffer.concat([
      base,
      Buffer.of(2), // account type: account
      tlv(7, Buffer.alloc(0)), // ImmutableOwner
      tlv(2, withheld), // TransferFeeAmount
      tlv(999, Buffer.from('abc')), // not a type this code knows
      Buffer.alloc(2), // Uninitialized type: end of the list (realloc space)
    ]);
    const account = decodeTokenAccount(data, TOKEN_2022_PROGRAM_ID);
    expect(account.amount).toBe(42_500_000n);
    expect(account.owner).toBe(bs58.encode(owner));
    expect(account.extensions.map((e) => e.type)).toEqual([7, 2, 999]);
    expect(account.extensions[1]!.data.readBigUInt64LE(0)).toBe(1_234n);
    expect(account.extensions[2]!.data.toString()).toBe('abc');
  });

  it('tolerates a single trailing byte (too short for a type)', () => {
    const data = Buffer.concat([base, Buffer.of(2), tlv(7, Buffer.alloc(0)), Buffer.of(0)]);
    expect(decodeTokenAccount(data, TOKEN_2022_PROGRAM_ID).extensions).toHaveLength(1);
  });

  it('rejects an extension whose value runs past the end', () => {
    const cut = tlv(2, Buffer.alloc(8)).subarray(0, 10);
    expect(() => decodeTokenAccount(Buffer.concat([base, Buffer.of(2), cut]), TOKEN_2022_PROGRAM_ID)).toThrow(/declares 8 bytes/);
  });

  it('rejects a truncated extension header', () => {
    const data = Buffer.concat([base, Buffer.of(2), tlv(7, Buffer.alloc(0)), Buffer.of(8, 0, 1)]);
    expect(() => decodeTokenAccount(data, TOKEN_2022_PROGRAM_ID)).toThrow(/header truncated/);
  });

  it('rejects a mint (account type 1)', () => {
    const data = Buffer.concat([base, Buffer.of(1), tlv(3, Buffer.alloc(32))]);
    expect(() => decodeTokenAccount(data, TOKEN_2022_PROGRAM_ID)).toThrow(/account type is 1/);
  });
});

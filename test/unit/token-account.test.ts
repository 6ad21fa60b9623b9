import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../../src/chain/token-programs.js';
import { TOKEN_ACCOUNT_SLICE, TokenAccountError, decodeTokenAccount, readHeldTokenAccount, readTokenAccountHead } from '../../src/chain/token-account.js';

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

/** What a node answers for dataSlice {0, 166}: at most 166 bytes of the account. */
const sliced = (data: Buffer): Buffer => data.subarray(TOKEN_ACCOUNT_SLICE.offset, TOKEN_ACCOUNT_SLICE.offset + TOKEN_ACCOUNT_SLICE.length);

describe('a token account to count (readHeldTokenAccount, on the 0..166 slice)', () => {
  const plain = tokenAccountBytes({ mint, owner, amount: 7n });
  const extended = Buffer.concat([plain, Buffer.of(2), tlv(7, Buffer.alloc(0))]); // account type 2, ImmutableOwner

  it('slices 0..166: a 165-byte account shows its length, a longer one its account type byte', () => {
    expect(TOKEN_ACCOUNT_SLICE).toEqual({ offset: 0, length: 166 });
    expect(sliced(plain)).toHaveLength(165);
    expect(sliced(extended)).toHaveLength(166);
    expect(sliced(extended)[165]).toBe(2);
  });

  it('counts a 165-byte account under either program, and an extended one under Token-2022', () => {
    for (const program of [TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID]) {
      const held = readHeldTokenAccount(sliced(plain), program, 165);
      expect(held.mint.equals(mint) && held.owner.equals(owner)).toBe(true);
      expect(held).toMatchObject({ amount: 7n, frozen: false });
    }
    expect(readHeldTokenAccount(sliced(extended), TOKEN_2022_PROGRAM_ID, extended.length)).toMatchObject({ amount: 7n });
    // Without `space` (optional in the node's answer) the slice alone decides.
    expect(readHeldTokenAccount(sliced(extended), TOKEN_2022_PROGRAM_ID)).toMatchObject({ amount: 7n });
    // The whole account works too.
    expect(readHeldTokenAccount(extended, TOKEN_2022_PROGRAM_ID, extended.length)).toMatchObject({ amount: 7n });
  });

  it('a frozen account still holds its tokens', () => {
    expect(readHeldTokenAccount(tokenAccountBytes({ mint, owner, amount: 1n, state: 2 }), TOKEN_PROGRAM_ID)).toMatchObject({ amount: 1n, frozen: true });
  });

  it.each([
    ['cut short', sliced(plain).subarray(0, 164), TOKEN_PROGRAM_ID, undefined, /164 bytes, expected at least 165/],
    ['a mint (82 bytes)', Buffer.alloc(82), TOKEN_PROGRAM_ID, undefined, /82 bytes/],
    ['longer than 165 under the Token program', sliced(extended), TOKEN_PROGRAM_ID, undefined, /SPL Token account is longer/],
    ['a Token-2022 mint (account type 1)', Buffer.concat([plain, Buffer.of(1)]), TOKEN_2022_PROGRAM_ID, undefined, /account type is 1/],
    ['account type 0', Buffer.concat([plain, Buffer.of(0)]), TOKEN_2022_PROGRAM_ID, undefined, /account type is 0/],
    ['uninitialized', tokenAccountBytes({ mint, owner, amount: 5n, state: 0 }), TOKEN_PROGRAM_ID, undefined, /uninitialized/],
    ['state 3', tokenAccountBytes({ mint, owner, amount: 5n, state: 3 }), TOKEN_PROGRAM_ID, undefined, /state 3/],
    ['165 bytes back, space says 170', sliced(plain), TOKEN_2022_PROGRAM_ID, 170, /contradicts/],
    ['166 bytes back, space says 165', sliced(extended), TOKEN_2022_PROGRAM_ID, 165, /contradicts/],
  ] as const)('refuses %s', (_what, data, program, space, message) => {
    expect(() => readHeldTokenAccount(Buffer.from(data), program, space)).toThrow(TokenAccountError);
    expect(() => readHeldTokenAccount(Buffer.from(data), program, space)).toThrow(message);
  });
});

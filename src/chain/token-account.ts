import { encodeAddress } from './address.js';
import { TOKEN_2022_PROGRAM_ID } from './token-programs.js';

/** SPL Token account layout (docs/solana-wire-format.md): the same first 165 bytes under both token programs. */
export const TOKEN_ACCOUNT_SIZE = 165;
/** mint 0..32, owner 32..64, amount u64 LE 64..72. */
export const TOKEN_ACCOUNT_HEAD_SIZE = 72;
const STATE_OFFSET = 108;
/** Token-2022: byte 165 says what the account is; 2 = token account (1 = mint). */
const ACCOUNT_TYPE_OFFSET = 165;
const ACCOUNT_TYPE_ACCOUNT = 2;
export const TLV_START = 166;

/**
 * The bytes the gate asks for when it counts a token account: 0..166. The slice hides the
 * account's length, so it is chosen to show what the length would: a Token or plain Token-2022
 * account (165 bytes) comes back as exactly 165 bytes; a Token-2022 account with extensions comes
 * back as 166, its last byte the account type, which must be 2 (account); anything shorter is cut
 * short. The state at byte 108 is inside it. 94 more bytes per account than the 72 that hold the
 * mint, owner and amount (~125 more characters of base64), and it does not depend on the reply's
 * optional `space` field (docs/solana-wire-format.md, "Token accounts": checked when present).
 */
export const TOKEN_ACCOUNT_SLICE = { offset: 0, length: TOKEN_ACCOUNT_SIZE + 1 } as const;

export type TokenAccountState = 'uninitialized' | 'initialized' | 'frozen';
const STATES: readonly TokenAccountState[] = ['uninitialized', 'initialized', 'frozen'];

export interface TokenExtension {
  /** Token-2022 ExtensionType number (e.g. 7 ImmutableOwner); unknown numbers are kept as they are. */
  type: number;
  data: Buffer;
}

export interface TokenAccount {
  mint: string;
  owner: string;
  amount: bigint;
  state: TokenAccountState;
  extensions: TokenExtension[];
}

export interface TokenAccountHead {
  mint: Buffer;
  owner: Buffer;
  amount: bigint;
}

/** The same with mint and owner as raw bytes (no base58 encoding: cheap to compare). */
export interface RawTokenAccount extends TokenAccountHead {
  state: TokenAccountState;
  extensions: TokenExtension[];
}

export class TokenAccountError extends Error {
  override name = 'TokenAccountError';
}

/** The first 72 bytes (what a `dataSlice {offset 0, length 72}` read returns); views, no copies. */
export function readTokenAccountHead(data: Buffer): TokenAccountHead {
  if (data.length < TOKEN_ACCOUNT_HEAD_SIZE) throw new TokenAccountError(`token account head needs 72 bytes, got ${data.length}`);
  return { mint: data.subarray(0, 32), owner: data.subarray(32, 64), amount: data.readBigUInt64LE(64) };
}

/** An account the gate counts: initialized or frozen (a frozen account still holds its tokens). */
export interface HeldTokenAccount extends TokenAccountHead {
  frozen: boolean;
}

/**
 * The token account at the start of `data` (TOKEN_ACCOUNT_SLICE of it, or all of it) as the token
 * program `program` lays it out, or TokenAccountError: shorter than 165 bytes; longer under the
 * Token program; longer under Token-2022 without account type 2 at byte 165; a state other than
 * initialized (1) or frozen (2) — an uninitialized account holds nothing and names no owner, so a
 * reply counting it is wrong; or a `space` (the reply's account length, when it gives one) that
 * contradicts the bytes. Mint and owner are views, for the caller to compare with what it asked.
 */
export function readHeldTokenAccount(data: Buffer, program: string, space?: number): HeldTokenAccount {
  const length = data.length;
  if (length < TOKEN_ACCOUNT_SIZE) throw new TokenAccountError(`token account data is ${length} bytes, expected at least 165`);
  if (length > TOKEN_ACCOUNT_SIZE) {
    if (program !== TOKEN_2022_PROGRAM_ID) throw new TokenAccountError(`SPL Token account is longer than 165 bytes`);
    if (data[ACCOUNT_TYPE_OFFSET] !== ACCOUNT_TYPE_ACCOUNT) throw new TokenAccountError(`Token-2022 account type is ${data[ACCOUNT_TYPE_OFFSET]}, expected 2 (account)`);
  }
  // 165 bytes back from a 166-byte slice: the account is exactly 165 bytes. Longer data was sliced (or is whole).
  if (space !== undefined && (length === TOKEN_ACCOUNT_SIZE ? space !== TOKEN_ACCOUNT_SIZE : space < length)) {
    throw new TokenAccountError(`account length (space) ${space} contradicts its ${length} bytes of data`);
  }
  const stateByte = data[STATE_OFFSET]!;
  if (stateByte !== 1 && stateByte !== 2) {
    throw new TokenAccountError(stateByte === 0 ? 'token account is uninitialized' : `token account state ${stateByte} is not 1 (initialized) or 2 (frozen)`);
  }
  return { mint: data.subarray(0, 32), owner: data.subarray(32, 64), amount: data.readBigUInt64LE(64), frozen: stateByte === 2 };
}

/**
 * A whole token account of `program`. SPL Token accounts are exactly 165 bytes; Token-2022 accounts
 * are 165 bytes, or longer with account type 2 at byte 165 and TLV extensions after it. Throws
 * TokenAccountError for anything else (a mint, a multisig, a truncated extension).
 */
export function decodeTokenAccount(data: Buffer, program: string): TokenAccount {
  const account = readTokenAccount(data, program);
  return { ...account, mint: encodeAddress(account.mint), owner: encodeAddress(account.owner) };
}

/** The same checks as decodeTokenAccount; mint and owner stay bytes. */
export function readTokenAccount(data: Buffer, program: string): RawTokenAccount {
  if (data.length < TOKEN_ACCOUNT_SIZE) throw new TokenAccountError(`token account is ${data.length} bytes, expected at least 165`);
  let extensions: TokenExtension[] = [];
  if (data.length > TOKEN_ACCOUNT_SIZE) {
    if (program !== TOKEN_2022_PROGRAM_ID) throw new TokenAccountError(`SPL Token account is ${data.length} bytes, expected 165`);
    if (data[ACCOUNT_TYPE_OFFSET] !== ACCOUNT_TYPE_ACCOUNT) {
      throw new TokenAccountError(`Token-2022 account type is ${data[ACCOUNT_TYPE_OFFSET]}, expected 2 (account)`);
    }
    extensions = readExtensions(data.subarray(TLV_START));
  }
  const stateByte = data[STATE_OFFSET]!;
  const state = STATES[stateByte];
  if (state === undefined) throw new TokenAccountError(`token account state ${stateByte} is not 0, 1 or 2`);
  return { ...readTokenAccountHead(data), state, extensions };
}

/**
 * Token-2022 TLV entries: u16 type, u16 length, value. As the program itself reads them, a type of
 * 0 (Uninitialized) or fewer than 2 bytes left end the list (space kept for a later realloc); a
 * header or value running past the end is corrupt. The same walk reads a Token-2022 mint's
 * extensions (src/collection/token-group.ts).
 */
export function readExtensions(tlv: Buffer): TokenExtension[] {
  const extensions: TokenExtension[] = [];
  let offset = 0;
  while (tlv.length - offset >= 2) {
    const type = tlv.readUInt16LE(offset);
    if (type === 0) break;
    if (tlv.length - offset < 4) throw new TokenAccountError(`extension ${type} header truncated at byte ${TLV_START + offset}`);
    const length = tlv.readUInt16LE(offset + 2);
    const valueStart = offset + 4;
    if (valueStart + length > tlv.length) {
      throw new TokenAccountError(`extension ${type} declares ${length} bytes, only ${tlv.length - valueStart} left`);
    }
    extensions.push({ type, data: tlv.subarray(valueStart, valueStart + length) });
    offset = valueStart + length;
  }
  return extensions;
}

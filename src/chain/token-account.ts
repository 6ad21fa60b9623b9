import { encodeAddress } from './address.js';
import { TOKEN_2022_PROGRAM_ID } from './programs.js';

/** SPL Token account layout (docs/solana-wire-format.md): the same first 165 bytes under both token programs. */
export const TOKEN_ACCOUNT_SIZE = 165;
/** mint 0..32, owner 32..64, amount u64 LE 64..72: all a holdings check needs. */
export const TOKEN_ACCOUNT_HEAD_SIZE = 72;
const STATE_OFFSET = 108;
/** Token-2022: byte 165 says what the account is; 2 = token account (1 = mint). */
const ACCOUNT_TYPE_OFFSET = 165;
const ACCOUNT_TYPE_ACCOUNT = 2;
export const TLV_START = 166;

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

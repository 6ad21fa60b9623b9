import { encodeAddress } from '../chain/address.js';
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../chain/token-programs.js';
import { readExtensions, TLV_START, TokenAccountError } from '../chain/token-account.js';

/**
 * A mint as the collection check reads it (docs/solana-wire-format.md, "Collections"): supply u64
 * at 36, decimals at 44, is_initialized at 45; a Token-2022 mint longer than 82 bytes has account
 * type 1 at byte 165 and TLV extensions from 166. Of the extensions, the token-group member:
 *
 * - GroupMemberPointer (type 22): authority 0..32, member_address 32..64 (all zeros = none).
 * - TokenGroupMember (type 23): mint 0..32, group 32..64, member_number u64 at 64.
 *
 * Token-2022 writes a TokenGroupMember only into the member mint itself, and only when the group's
 * update authority signs and the group is a Token-2022 account holding a TokenGroup
 * (program/src/extension/token_group/processor.rs, process_initialize_member). So a TokenGroupMember
 * inside the mint, naming that mint, is the group's own word. A pointer to another account is not
 * followed: no account but the mint can hold Token-2022's member record for it, and what another
 * program keeps there was not checked by Token-2022.
 */
const MINT_SIZE = 82;
const SUPPLY_OFFSET = 36;
const DECIMALS_OFFSET = 44;
const INITIALIZED_OFFSET = 45;
const ACCOUNT_TYPE_OFFSET = 165;
const ACCOUNT_TYPE_MINT = 1;
export const GROUP_MEMBER_POINTER = 22;
export const TOKEN_GROUP_MEMBER = 23;

export interface MintFacts {
  supply: bigint;
  decimals: number;
  /** The group of a Token-2022 member mint (see above), or null. */
  group: string | null;
}

/** The mint's facts, or null for bytes that are not an initialized mint of `program`. */
export function readMint(data: Buffer, program: string, mint: Buffer): MintFacts | null {
  if (data.length < MINT_SIZE || data[INITIALIZED_OFFSET] !== 1) return null;
  const facts: MintFacts = { supply: data.readBigUInt64LE(SUPPLY_OFFSET), decimals: data[DECIMALS_OFFSET]!, group: null };
  if (data.length === MINT_SIZE) return facts;
  if (program === TOKEN_PROGRAM_ID || program !== TOKEN_2022_PROGRAM_ID) return null;
  if (data.length <= ACCOUNT_TYPE_OFFSET || data[ACCOUNT_TYPE_OFFSET] !== ACCOUNT_TYPE_MINT) return null;
  let extensions;
  try {
    extensions = readExtensions(data.subarray(TLV_START));
  } catch (error) {
    if (error instanceof TokenAccountError) return null;
    throw error;
  }
  const pointer = extensions.find((extension) => extension.type === GROUP_MEMBER_POINTER)?.data;
  const member = extensions.find((extension) => extension.type === TOKEN_GROUP_MEMBER)?.data;
  if (pointer?.length === 64 && member?.length === 72 && pointer.subarray(32, 64).equals(mint) && member.subarray(0, 32).equals(mint)) {
    facts.group = encodeAddress(member.subarray(32, 64));
  }
  return facts;
}

import bs58 from 'bs58';
import { decodeBase58, MAX_BASE58_LENGTH } from '../lib/base58.js';
import { addressBytes } from './address.js';
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_IDS } from './token-programs.js';
import { isCount, malformed, parseKeyedAccounts } from './replies.js';
import type { RpcClient } from './rpc.js';
import type { Config } from '../config.js';
import type { AccountInfo, DataSlice, KeyedAccount, ProgramAccountsFilter, ProgramAccountsQuery } from './types.js';

const METHOD = 'getProgramAccounts';
/** Program ids already checked: a handful of constants, scanned on every nodebt login. */
const validPrograms = new Set<string>();

/**
 * getProgramAccounts with filters (at most 4, docs/solana-wire-format.md), base64, optional dataSlice. Every
 * returned account must be owned by the program, match every filter as far as the bytes that came
 * back show it, and pass the caller's `layout` check: a wrong answer is a malformed reply (retried
 * at another endpoint, then a 503), never someone else's account.
 *
 * With a slice, a memcmp filter is checked on the part of it inside the slice, and dataSize by the
 * slice's length (the node cuts `data[offset..offset+length]`, shorter at the end, so an account of
 * `dataSize` bytes comes back with exactly min(length, dataSize - offset) of them) and by `space`
 * when given. The bytes of a filter outside the slice are not shown, so not checked.
 */
export async function readProgramAccounts(
  rpc: Pick<RpcClient, 'call'>,
  commitment: Config['rpcCommitment'],
  programId: string,
  query: Pick<ProgramAccountsQuery, 'filters' | 'dataSlice' | 'layout'>,
  deadlineMs = Infinity,
  minSlot = 0,
): Promise<KeyedAccount[]> {
  if (!validPrograms.has(programId)) {
    addressBytes(programId);
    if (validPrograms.size < 1024) validPrograms.add(programId);
  }
  const { filters, dataSlice, layout } = query;
  if (dataSlice !== undefined && !(isCount(dataSlice.offset) && isCount(dataSlice.length))) {
    throw new TypeError('dataSlice offset and length must be whole numbers');
  }
  const checks = filters.map((filter) => filterCheck(filter, dataSlice));
  checkTokenIndexShape(programId, filters);
  const config: Record<string, unknown> = { encoding: 'base64', commitment, filters };
  if (dataSlice !== undefined) config.dataSlice = dataSlice;
  // The reply (a bare list) carries no slot: `minContextSlot` has the node refuse if it is older.
  if (minSlot > 0) config.minContextSlot = minSlot;
  return rpc.call(METHOD, [programId, config], (result) => {
    const accounts = parseKeyedAccounts(result, METHOD, dataSlice);
    for (const keyed of accounts) {
      const { pubkey, account } = keyed;
      if (account.owner !== programId) throw malformed(METHOD, `account ${pubkey} is not owned by the program`);
      for (const check of checks) if (!check(account)) throw malformed(METHOD, `account ${pubkey} does not match the filters`);
      const wrong = layout?.(keyed);
      if (wrong !== undefined) throw malformed(METHOD, `account ${pubkey} ${wrong}`);
    }
    return accounts;
  }, deadlineMs, minSlot);
}

/**
 * A local predicate equal to the node's filter, on what a reply with `slice` shows of an account;
 * TypeError for a filter the node would refuse.
 */
function filterCheck(filter: ProgramAccountsFilter, slice: DataSlice | undefined): (account: AccountInfo) => boolean {
  const sliceStart = slice?.offset ?? 0;
  const sliceEnd = slice === undefined ? Infinity : slice.offset + slice.length;
  if ('dataSize' in filter) {
    const size = filter.dataSize;
    if (!isCount(size)) throw new TypeError('dataSize must be a whole number');
    if (slice === undefined) return (account) => account.data.length === size;
    const shown = Math.max(0, Math.min(slice.length, size - slice.offset));
    return (account) => account.data.length === shown && (account.space === undefined || account.space === size);
  }
  const { offset, bytes } = filter.memcmp;
  const decoded = typeof bytes !== 'string' ? undefined : bytes.length <= MAX_BASE58_LENGTH ? decodeBase58(bytes) : bs58.decodeUnsafe(bytes);
  if (decoded === undefined) throw new TypeError('memcmp bytes must be base58');
  const expected = Buffer.from(decoded.buffer, decoded.byteOffset, decoded.length);
  if (!isCount(offset) || expected.length > 128) throw new TypeError('memcmp needs a whole offset and at most 128 bytes');
  // The part of the compared bytes the slice shows; all of them without a slice.
  const from = Math.max(offset, sliceStart);
  const to = Math.min(offset + expected.length, sliceEnd);
  if (from >= to) return () => true;
  const shownPart = expected.subarray(from - offset, to - offset);
  const at = from - sliceStart;
  const end = at + shownPart.length;
  // An account too short to hold the compared bytes does not match at the node either. compare()
  // reads in place (a subarray per account and filter would double the cost of a large scan's check).
  if (shownPart.length === 1) {
    const byte = shownPart[0];
    return (account) => account.data[at] === byte;
  }
  return (account) => account.data.length >= end && account.data.compare(shownPart, 0, shownPart.length, at, end) === 0;
}

const TOKEN_ACCOUNT_SIZE = 165;
const ACCOUNT_TYPE_OFFSET = 165;
/** bs58 of [2], Token-2022's AccountType::Account. */
const ACCOUNT_TYPE_ACCOUNT_BS58 = bs58.encode(Buffer.of(2));

/**
 * A scan of token accounts by owner (memcmp at 32) or mint (memcmp at 0) is answered from a node's
 * secondary index only when its filters also say "token account" the way agave checks it
 * (`get_spl_token_owner_filter` / `get_spl_token_mint_filter`): dataSize 165, or for Token-2022
 * memcmp [2] (AccountType::Account) at 165. Without, a node reads every account of the program —
 * hundreds of millions under Token — or refuses (-32010). Such a scan is a bug here (TypeError),
 * never sent (docs/solana-wire-format.md, "Program scans"). The gate sends none today: token
 * accounts are read by owner with getTokenAccountsByOwner, which the node answers from its index.
 * Note the two Token-2022 shapes each miss accounts: dataSize 165 the accounts with extensions,
 * memcmp [2] at 165 the plain 165-byte ones; every account by owner takes both scans.
 */
function checkTokenIndexShape(programId: string, filters: readonly ProgramAccountsFilter[]): void {
  if (!(TOKEN_PROGRAM_IDS as readonly string[]).includes(programId)) return;
  const byOwnerOrMint = filters.some((filter) => 'memcmp' in filter && (filter.memcmp.offset === 0 || filter.memcmp.offset === 32) && decodedLength(filter.memcmp.bytes) === 32);
  if (!byOwnerOrMint) return;
  const accountShape = filters.some(
    (filter) =>
      ('dataSize' in filter && filter.dataSize === TOKEN_ACCOUNT_SIZE) ||
      (programId === TOKEN_2022_PROGRAM_ID && 'memcmp' in filter && filter.memcmp.offset === ACCOUNT_TYPE_OFFSET && filter.memcmp.bytes === ACCOUNT_TYPE_ACCOUNT_BS58),
  );
  if (!accountShape) {
    throw new TypeError(
      `a token-account scan of ${programId} by owner or mint needs dataSize 165${programId === TOKEN_2022_PROGRAM_ID ? ' or memcmp [2] at 165' : ''} too, or a node scans every account of the program`,
    );
  }
}

function decodedLength(bytes: string): number {
  return bs58.decodeUnsafe(bytes)?.length ?? -1;
}

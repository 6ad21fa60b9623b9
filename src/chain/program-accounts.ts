import bs58 from 'bs58';
import { decodeBase58, MAX_BASE58_LENGTH } from '../lib/base58.js';
import { addressBytes } from './address.js';
import { isCount, malformed, parseKeyedAccounts } from './replies.js';
import type { RpcClient } from './rpc.js';
import type { Config } from '../config.js';
import type { DataSlice, KeyedAccount, ProgramAccountsFilter } from './types.js';

const METHOD = 'getProgramAccounts';
/** Program ids already checked: a handful of constants, scanned on every nodebt login. */
const validPrograms = new Set<string>();

/**
 * getProgramAccounts with filters (at most 4, docs/solana-wire-format.md), base64, optional dataSlice. Every
 * returned account must be owned by the program and, when the whole data came back, satisfy the
 * filters itself: a wrong answer is a 503, not someone else's account.
 */
export async function readProgramAccounts(
  rpc: Pick<RpcClient, 'call'>,
  commitment: Config['rpcCommitment'],
  programId: string,
  options: { filters: ProgramAccountsFilter[]; dataSlice?: DataSlice },
  deadlineMs = Infinity,
  minSlot = 0,
): Promise<KeyedAccount[]> {
  if (!validPrograms.has(programId)) {
    addressBytes(programId);
    if (validPrograms.size < 1024) validPrograms.add(programId);
  }
  const { filters, dataSlice } = options;
  const checks = filters.map(filterCheck);
  if (dataSlice !== undefined && !(isCount(dataSlice.offset) && isCount(dataSlice.length))) {
    throw new TypeError('dataSlice offset and length must be whole numbers');
  }
  const config: Record<string, unknown> = { encoding: 'base64', commitment, filters };
  if (dataSlice !== undefined) config.dataSlice = dataSlice;
  // The reply (a bare list) carries no slot: `minContextSlot` has the node refuse if it is older.
  if (minSlot > 0) config.minContextSlot = minSlot;
  return rpc.call(METHOD, [programId, config], (result) => {
    const accounts = parseKeyedAccounts(result, METHOD, dataSlice);
    for (const { account } of accounts) {
      if (account.owner !== programId) throw malformed(METHOD, 'an account is not owned by the program');
      if (dataSlice === undefined && !checks.every((check) => check(account.data))) {
        throw malformed(METHOD, 'an account does not match the filters');
      }
    }
    return accounts;
  }, deadlineMs, minSlot);
}

/** A local predicate equal to the node's filter; TypeError for a filter the node would refuse. */
function filterCheck(filter: ProgramAccountsFilter): (data: Buffer) => boolean {
  if ('dataSize' in filter) {
    if (!isCount(filter.dataSize)) throw new TypeError('dataSize must be a whole number');
    return (data) => data.length === filter.dataSize;
  }
  const { offset, bytes } = filter.memcmp;
  const decoded = typeof bytes !== 'string' ? undefined : bytes.length <= MAX_BASE58_LENGTH ? decodeBase58(bytes) : bs58.decodeUnsafe(bytes);
  if (decoded === undefined) throw new TypeError('memcmp bytes must be base58');
  const expected = Buffer.from(decoded.buffer, decoded.byteOffset, decoded.length);
  if (!isCount(offset) || expected.length > 128) throw new TypeError('memcmp needs a whole offset and at most 128 bytes');
  return (data) => data.length >= offset + expected.length && data.subarray(offset, offset + expected.length).equals(expected);
}

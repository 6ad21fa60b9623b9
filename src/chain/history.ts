import bs58 from 'bs58';
import { addressBytes, looksLikeAddress, looksLikeSignature } from './address.js';
import { isCount, isObject, malformed } from './replies.js';
import type { RpcClient } from './rpc.js';
import type { RpcEndpoint } from './rpc-endpoint.js';
import type { ChainInstruction, ChainTransaction, SignatureInfo, TokenBalance } from './types.js';

/** History reads refuse `processed` (docs/solana-wire-format.md); the reader passes `confirmed` instead. */
export type HistoryCommitment = 'confirmed' | 'finalized';

const MAX_SIGNATURES_PER_PAGE = 1000;

/**
 * One page of signatures and the endpoint that answered it (whose history horizon says whether the
 * page's end is the end of the history). `minSlot` > 0 is sent as `minContextSlot`: a node whose
 * slot (at `commitment`) is below it refuses with -32016 and another is asked. The reply carries no
 * slot of its own, so a node that ignored the parameter could not be told apart: only nodes that
 * honour it (the validator does) make the guarantee.
 */
export async function readSignatures(
  rpc: Pick<RpcClient, 'call'>,
  commitment: HistoryCommitment,
  address: string,
  options: { limit: number; before?: string; until?: string },
  deadlineMs = Infinity,
  minSlot = 0,
): Promise<{ signatures: SignatureInfo[]; endpoint: RpcEndpoint }> {
  addressBytes(address);
  const { limit, before, until } = options;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SIGNATURES_PER_PAGE) throw new TypeError('limit must be 1–1000');
  for (const bound of [before, until]) {
    if (bound !== undefined && !looksLikeSignature(bound)) throw new TypeError('before/until must be base58 signatures');
  }
  const config: Record<string, unknown> = { limit, commitment };
  if (before !== undefined) config.before = before;
  if (until !== undefined) config.until = until;
  if (minSlot > 0) config.minContextSlot = minSlot;
  return rpc.call(
    'getSignaturesForAddress',
    [address, config],
    (result, { endpoint }) => ({ signatures: parseSignatures(result, limit), endpoint }),
    deadlineMs,
    minSlot,
  );
}

function parseSignatures(result: unknown, limit: number): SignatureInfo[] {
  const method = 'getSignaturesForAddress';
  if (!Array.isArray(result) || result.length > limit) throw malformed(method, `expected an array of at most ${limit} items`);
  return result.map((item: unknown): SignatureInfo => {
    if (!isObject(item) || !looksLikeSignature(item.signature) || !isCount(item.slot) || !('err' in item)) {
      throw malformed(method, 'item without signature, slot or err');
    }
    const blockTime = item.blockTime ?? null;
    const memo = item.memo ?? null;
    if ((blockTime !== null && !Number.isInteger(blockTime)) || (memo !== null && typeof memo !== 'string')) {
      throw malformed(method, 'blockTime or memo of the wrong type');
    }
    return { signature: item.signature, slot: item.slot, err: item.err, blockTime: blockTime as number | null, memo: memo as string | null };
  });
}

/**
 * One JSON-RPC batch (split by the RPC client as needed); any failed read fails the whole call.
 * getTransaction takes no `minContextSlot`: the signatures come from a page that had one, and a node
 * that does not have a transaction answers null (a 503 for the history features).
 */
export async function readTransactions(
  rpc: RpcClient,
  commitment: HistoryCommitment,
  signatures: readonly string[],
  deadlineMs = Infinity,
): Promise<(ChainTransaction | null)[]> {
  for (const signature of signatures) {
    if (!looksLikeSignature(signature)) throw new TypeError('not a base58 signature');
  }
  const config = { encoding: 'json', maxSupportedTransactionVersion: 0, commitment };
  const outcomes = await rpc.batch(
    signatures.map((signature) => ({
      method: METHOD,
      params: [signature, config],
      parse: (result: unknown) => (result === null ? null : flattenTransaction(result, signature)),
    })),
    deadlineMs,
  );
  return outcomes.map((outcome) => {
    if (!outcome.ok) throw outcome.error;
    return outcome.result;
  });
}

const METHOD = 'getTransaction';

/**
 * getTransaction (json encoding) → ChainTransaction. A transaction without `meta` (possible for
 * very old ones) gets `err: {metaMissing: true}` and no balances: callers count only err === null.
 */
export function flattenTransaction(raw: unknown, signature: string): ChainTransaction {
  if (!isObject(raw) || !isCount(raw.slot) || !isObject(raw.transaction) || !isObject(raw.transaction.message)) {
    throw malformed(METHOD, 'expected {slot, transaction: {message}}');
  }
  const { transaction } = raw;
  const message = transaction.message as Record<string, unknown>;
  if (!Array.isArray(transaction.signatures) || transaction.signatures[0] !== signature) {
    throw malformed(METHOD, 'the reply is for another transaction');
  }
  const blockTime = raw.blockTime ?? null;
  if (blockTime !== null && !Number.isInteger(blockTime)) throw malformed(METHOD, 'blockTime is not a whole number');
  let meta: Record<string, unknown> | null = null;
  if (raw.meta !== null && raw.meta !== undefined) {
    if (!isObject(raw.meta)) throw malformed(METHOD, 'meta is not an object');
    meta = raw.meta;
  }

  const loaded = meta?.loadedAddresses ?? { writable: [], readonly: [] };
  if (!isObject(loaded)) throw malformed(METHOD, 'loadedAddresses is not an object');
  const accountKeys = [
    ...addresses(message.accountKeys, 'accountKeys'),
    ...addresses(loaded.writable ?? [], 'loaded writable'),
    ...addresses(loaded.readonly ?? [], 'loaded readonly'),
  ];

  const instructions = instructionList(message.instructions, accountKeys);
  const base = { signature, slot: raw.slot, blockTime: blockTime as number | null, accountKeys, instructions };
  if (meta === null) {
    return { ...base, err: { metaMissing: true }, preBalances: [], postBalances: [], preTokenBalances: [], postTokenBalances: [] };
  }
  if (!('err' in meta)) throw malformed(METHOD, 'meta without err');
  const inner = meta.innerInstructions ?? [];
  if (!Array.isArray(inner)) throw malformed(METHOD, 'innerInstructions is not an array');
  for (const group of inner) {
    if (!isObject(group) || !isCount(group.index)) throw malformed(METHOD, 'inner instruction group without index');
    instructions.push(...instructionList(group.instructions, accountKeys));
  }
  return {
    ...base,
    err: meta.err,
    preBalances: lamportList(meta.preBalances, accountKeys.length),
    postBalances: lamportList(meta.postBalances, accountKeys.length),
    preTokenBalances: tokenBalanceList(meta.preTokenBalances, accountKeys.length),
    postTokenBalances: tokenBalanceList(meta.postTokenBalances, accountKeys.length),
  };
}

function addresses(raw: unknown, what: string): string[] {
  if (!Array.isArray(raw) || !raw.every(looksLikeAddress)) throw malformed(METHOD, `${what} is not a list of addresses`);
  return raw;
}

/** Lamports, one per account key; JSON numbers above 2^53 arrive rounded (still whole). */
function lamportList(raw: unknown, keyCount: number): bigint[] {
  if (!Array.isArray(raw) || raw.length !== keyCount || !raw.every(isCount)) {
    throw malformed(METHOD, 'balances are not one whole number per account key');
  }
  return raw.map((lamports: number) => BigInt(lamports));
}

function tokenBalanceList(raw: unknown, keyCount: number): TokenBalance[] {
  if (raw === null || raw === undefined) return [];
  if (!Array.isArray(raw)) throw malformed(METHOD, 'token balances are not an array');
  return raw.map((item: unknown): TokenBalance => {
    if (!isObject(item) || !isCount(item.accountIndex) || item.accountIndex >= keyCount || !looksLikeAddress(item.mint)) {
      throw malformed(METHOD, 'token balance without a valid accountIndex or mint');
    }
    const owner = item.owner ?? undefined;
    const programId = item.programId ?? undefined;
    if ((owner !== undefined && !looksLikeAddress(owner)) || (programId !== undefined && !looksLikeAddress(programId))) {
      throw malformed(METHOD, 'token balance owner or programId is not an address');
    }
    const ui = item.uiTokenAmount;
    if (!isObject(ui) || typeof ui.amount !== 'string' || !/^\d{1,20}$/.test(ui.amount) || !isCount(ui.decimals) || ui.decimals > 255) {
      throw malformed(METHOD, 'uiTokenAmount without an integer amount string and decimals');
    }
    return { accountIndex: item.accountIndex, mint: item.mint, owner, programId, amount: BigInt(ui.amount), decimals: ui.decimals };
  });
}

function instructionList(raw: unknown, accountKeys: string[]): ChainInstruction[] {
  if (!Array.isArray(raw)) throw malformed(METHOD, 'instructions is not an array');
  return raw.map((item: unknown): ChainInstruction => {
    if (!isObject(item) || !isCount(item.programIdIndex) || !Array.isArray(item.accounts) || typeof item.data !== 'string') {
      throw malformed(METHOD, 'instruction without programIdIndex, accounts or data');
    }
    const key = (index: unknown): string => {
      const found = isCount(index) ? accountKeys[index] : undefined;
      if (found === undefined) throw malformed(METHOD, 'instruction account index out of range');
      return found;
    };
    let data: Uint8Array;
    try {
      data = bs58.decode(item.data);
    } catch {
      throw malformed(METHOD, 'instruction data is not base58');
    }
    return { programId: key(item.programIdIndex), accounts: item.accounts.map(key), data: Buffer.from(data.buffer, data.byteOffset, data.length) };
  });
}

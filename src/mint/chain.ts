import type { Config } from '../config.js';
import { CallCoalescer } from '../chain/call-coalescer.js';
import { RpcClient } from '../chain/rpc.js';
import { contextValue, isCount, isObject, malformed } from '../chain/replies.js';
import { looksLikeSignature } from '../chain/address.js';
import { type FetchLike, keepAliveFetch } from '../chain/transport.js';
import type { ChainObserver } from '../chain/types.js';
import type { ReplySource } from '../chain/rpc-request.js';

/**
 * The transaction side of the chain, which a sign-in never needs: blockhash validity, simulation,
 * sending, signature statuses. Its own RpcClient over SOLANA_RPC_URL (retries, failover, hedging,
 * 503 on failure, as every read), so a launch's sends do not queue behind sign-ins' reads. The
 * calls of concurrent co-signs are merged into JSON-RPC batches (CallCoalescer, the window the
 * sign-ins' scans use): at 64 connections a co-sign's four calls cost a fraction of an HTTP request
 * each instead of one (bench/mint.ts), and the blockhash calls concurrent co-signs make alike go
 * out once per batch. Each call still gets its own answer or its own 503.
 * Every reply is checked against the documented wire format (docs/minting.md, "What the gate asks
 * the RPC"); one that does not match is retried and finally a 503, never a guess.
 */
export interface MintChain {
  /** Whether `blockhash` can still land a transaction, at `commitment`, and the slot of the bank that answered. */
  isBlockhashValid(blockhash: string, commitment: Commitment, deadlineMs?: number): Promise<{ valid: boolean; slot: number }>;
  /**
   * The latest blockhash's lastValidBlockHeight at `commitment` (no transaction whose blockhash that
   * bank knows can land after it), and the slot of the bank that answered.
   */
  latestBound(commitment: Commitment, deadlineMs?: number): Promise<{ lastValidBlockHeight: number; slot: number }>;
  /**
   * The `confirmed` bank's block height and slot, from one answer: getLatestBlockhash at
   * `confirmed`, whose lastValidBlockHeight is that bank's block height + MAX_PROCESSING_AGE (150,
   * agave `get_blockhash_last_valid_block_height` for the bank's own latest blockhash), and whose
   * context.slot is the bank's slot. (getBlockHeight answers without a slot, so a later read could
   * not ask a node to be at least as new as the bank that gave the height.)
   */
  confirmedHeight(deadlineMs?: number): Promise<{ height: number; slot: number }>;
  simulate(transactionBase64: string, deadlineMs?: number): Promise<Simulation>;
  /** Resolves to the signature the node reports. */
  send(transactionBase64: string, deadlineMs?: number): Promise<string>;
  /** One entry per signature, from the status cache only: null when the node does not know it. */
  signatureStatuses(signatures: readonly string[]): Promise<(SignatureStatus | null)[]>;
  /**
   * One entry per signature, searching the node's whole history (`searchTransactionHistory`), with
   * the first slot the answering node keeps (getFirstAvailableBlock): a null proves absence only
   * for transactions after that slot.
   */
  historyStatuses(signatures: readonly string[], minSlot: number): Promise<{ status: SignatureStatus | null; historyFrom: number }[]>;
  /**
   * One page of `address`'s history at `confirmed`, newest first, from a node at `minSlot` at
   * least (minContextSlot), and the first slot the answering node keeps.
   */
  signaturesPage(address: string, before: string | undefined, limit: number, minSlot: number): Promise<{ entries: HistoryEntry[]; historyFrom: number }>;
  /** The landed transactions (getTransaction base64 at `confirmed`), null for one the node does not have. */
  transactions(signatures: readonly string[]): Promise<(LandedTransaction | null)[]>;
}

export interface HistoryEntry {
  signature: string;
  slot: number;
  /** null: it succeeded. */
  err: unknown;
  blockTime: number | null;
}

export interface LandedTransaction {
  /** The wire transaction. */
  bytes: Uint8Array;
  /** null: it succeeded. */
  err: unknown;
  blockTime: number | null;
}

export type Commitment = 'processed' | 'confirmed' | 'finalized';

export interface Simulation {
  /** null: it succeeded. */
  err: unknown;
  logs: string[];
  unitsConsumed: number | undefined;
}

export interface SignatureStatus {
  /** null: it succeeded. */
  err: unknown;
  confirmationStatus: Commitment | undefined;
}

/** MAX_PROCESSING_AGE (solana-clock): a blockhash's lastValidBlockHeight is its block's height + this. */
export const MAX_PROCESSING_AGE = 150;
/** getSignatureStatuses takes at most 256 signatures per call (agave rpc MAX_GET_SIGNATURE_STATUSES_QUERY_ITEMS). */
export const MAX_STATUSES_PER_CALL = 256;
const MAX_LOG_LINES = 100;
const MAX_LOG_LINE = 400;

export function createMintChain(config: Config, options: { fetch?: FetchLike; observer?: ChainObserver } = {}): MintChain {
  const rpc = new RpcClient(config, options.fetch ?? keepAliveFetch(2 * config.rpcConcurrencyMax, config.rpcMaxResponseBytes), options.observer);
  const calls = new CallCoalescer(rpc, config);
  const isBlockhashValid = (blockhash: string, commitment: Commitment) => ({
    method: 'isBlockhashValid',
    params: [blockhash, { commitment }],
    parse: (result: unknown) => {
      const value = contextValue(result, 'isBlockhashValid');
      const slot = contextSlot(result);
      if (typeof value !== 'boolean' || slot === undefined) throw malformed('isBlockhashValid', 'expected {context: {slot}, value: boolean}');
      return { valid: value, slot };
    },
  });
  /** getSignatureStatuses in calls of at most 256, one JSON-RPC batch; each chunk with the endpoint that answered it. */
  const statusChunks = async (signatures: readonly string[], searchTransactionHistory: boolean, minSlot?: number) => {
    const chunks: string[][] = [];
    for (let i = 0; i < signatures.length; i += MAX_STATUSES_PER_CALL) chunks.push(signatures.slice(i, i + MAX_STATUSES_PER_CALL));
    const outcomes = await rpc.batch(
      chunks.map((chunk) => ({
        method: 'getSignatureStatuses',
        params: [chunk, { searchTransactionHistory }],
        ...(minSlot === undefined ? {} : { minSlot }),
        parse: (result: unknown, source: ReplySource) => {
          const value = contextValue(result, 'getSignatureStatuses');
          if (!Array.isArray(value) || value.length !== chunk.length) throw malformed('getSignatureStatuses', 'expected one status per signature');
          return { statuses: value.map(parseStatus), endpoint: source.endpoint };
        },
      })),
    );
    return outcomes.map((outcome) => {
      if (!outcome.ok) throw outcome.error;
      return outcome.result;
    });
  };
  return {
    isBlockhashValid: (blockhash, commitment, deadlineMs) => {
      const request = isBlockhashValid(blockhash, commitment);
      return calls.call(request.method, request.params, request.parse, deadlineMs, 0, true);
    },

    latestBound: (commitment, deadlineMs) =>
      calls.call(
        'getLatestBlockhash',
        [{ commitment }],
        (result) => {
          const value = contextValue(result, 'getLatestBlockhash');
          const slot = contextSlot(result);
          if (!isObject(value) || typeof value.blockhash !== 'string' || !isCount(value.lastValidBlockHeight) || slot === undefined) throw malformed('getLatestBlockhash', 'expected {context: {slot}, value: {blockhash, lastValidBlockHeight}}');
          return { lastValidBlockHeight: value.lastValidBlockHeight, slot };
        },
        deadlineMs,
        0,
        true,
      ),

    confirmedHeight: (deadlineMs) =>
      rpc.call(
        'getLatestBlockhash',
        [{ commitment: 'confirmed' }],
        (result) => {
          const value = contextValue(result, 'getLatestBlockhash');
          const slot = contextSlot(result);
          if (!isObject(value) || !isCount(value.lastValidBlockHeight) || value.lastValidBlockHeight < MAX_PROCESSING_AGE || slot === undefined) {
            throw malformed('getLatestBlockhash', 'expected {context: {slot}, value: {lastValidBlockHeight}}');
          }
          return { height: value.lastValidBlockHeight - MAX_PROCESSING_AGE, slot };
        },
        deadlineMs,
      ),

    simulate: (transaction, deadlineMs) =>
      calls.call(
        'simulateTransaction',
        // Before the gate signs: signatures are not checked here (the gate verified every one but
        // its own), so no RPC node ever holds a co-signed transaction the gate did not decide to send.
        [transaction, { encoding: 'base64', sigVerify: false, replaceRecentBlockhash: false, commitment: 'processed' }],
        (result) => {
          const value = contextValue(result, 'simulateTransaction');
          if (!isObject(value) || !('err' in value)) throw malformed('simulateTransaction', 'expected {err, logs}');
          const logs = Array.isArray(value.logs) ? value.logs.filter((line): line is string => typeof line === 'string').slice(0, MAX_LOG_LINES).map((line) => line.slice(0, MAX_LOG_LINE)) : [];
          return { err: value.err ?? null, logs, unitsConsumed: isCount(value.unitsConsumed) ? value.unitsConsumed : undefined };
        },
        deadlineMs,
      ),

    send: (transaction, deadlineMs) =>
      calls.call(
        'sendTransaction',
        // Simulated just before: the node's own preflight would repeat it.
        [transaction, { encoding: 'base64', skipPreflight: true }],
        (result) => {
          if (!looksLikeSignature(result)) throw malformed('sendTransaction', 'result is not a signature');
          return result;
        },
        deadlineMs,
      ),

    async signatureStatuses(signatures) {
      return (await statusChunks(signatures, false)).flatMap((chunk) => chunk.statuses);
    },

    async historyStatuses(signatures, minSlot) {
      // A node behind `minSlot` (the bank the caller read the height at) answers again elsewhere.
      const out: { status: SignatureStatus | null; historyFrom: number }[] = [];
      for (const { statuses, endpoint } of await statusChunks(signatures, true, minSlot)) {
        const { firstSlot } = await rpc.historyHorizon(endpoint);
        for (const status of statuses) out.push({ status, historyFrom: firstSlot });
      }
      return out;
    },

    async signaturesPage(address, before, limit, minSlot) {
      const { entries, endpoint } = await rpc.call(
        'getSignaturesForAddress',
        [address, { limit, commitment: 'confirmed', minContextSlot: minSlot, ...(before === undefined ? {} : { before }) }],
        (result, source) => {
          if (!Array.isArray(result) || result.length > limit) throw malformed('getSignaturesForAddress', 'expected at most `limit` entries');
          return { entries: result.map(parseHistoryEntry), endpoint: source.endpoint };
        },
        Infinity,
        minSlot,
      );
      const { firstSlot } = await rpc.historyHorizon(endpoint);
      return { entries, historyFrom: firstSlot };
    },

    async transactions(signatures) {
      const outcomes = await rpc.batch(
        signatures.map((signature) => ({
          method: 'getTransaction',
          params: [signature, { encoding: 'base64', commitment: 'confirmed', maxSupportedTransactionVersion: 0 }],
          parse: parseLanded,
        })),
      );
      return outcomes.map((outcome) => {
        if (!outcome.ok) throw outcome.error;
        return outcome.result;
      });
    },
  };
}

function contextSlot(result: unknown): number | undefined {
  const context = isObject(result) ? result.context : undefined;
  return isObject(context) && isCount(context.slot) ? context.slot : undefined;
}

function parseHistoryEntry(raw: unknown): HistoryEntry {
  if (!isObject(raw) || !looksLikeSignature(raw.signature) || !isCount(raw.slot) || !('err' in raw)) throw malformed('getSignaturesForAddress', 'entry is not {signature, slot, err, blockTime}');
  return { signature: raw.signature, slot: raw.slot, err: raw.err ?? null, blockTime: isCount(raw.blockTime) ? raw.blockTime : null };
}

function parseLanded(raw: unknown): LandedTransaction | null {
  if (raw === null) return null;
  const transaction = isObject(raw) ? raw.transaction : undefined;
  const meta = isObject(raw) ? raw.meta : undefined;
  if (!Array.isArray(transaction) || typeof transaction[0] !== 'string' || transaction[1] !== 'base64' || !isObject(meta) || !('err' in meta)) {
    throw malformed('getTransaction', 'expected {transaction: [base64, "base64"], meta: {err}}');
  }
  return { bytes: new Uint8Array(Buffer.from(transaction[0], 'base64')), err: meta.err ?? null, blockTime: isObject(raw) && isCount(raw.blockTime) ? raw.blockTime : null };
}

function parseStatus(raw: unknown): SignatureStatus | null {
  if (raw === null) return null;
  if (!isObject(raw) || !('err' in raw)) throw malformed('getSignatureStatuses', 'status is not null or {err, confirmationStatus}');
  const status = raw.confirmationStatus;
  // Nodes that predate confirmationStatus say "finalized" with `confirmations: null`.
  const confirmationStatus = status === 'processed' || status === 'confirmed' || status === 'finalized' ? status : raw.confirmations === null ? 'finalized' : undefined;
  return { err: raw.err ?? null, confirmationStatus };
}

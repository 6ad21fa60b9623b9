import type { Config } from '../config.js';
import { GateError, upstreamUnavailable } from '../errors.js';
import { addressBytes } from './address.js';
import { contextValue, isCount, malformed, parseAccountInfo } from './replies.js';
import { BatchWindow, untilDeadlines, type WindowConfig } from './batch-window.js';
import type { RpcClient } from './rpc.js';
import type { RpcOutcome, RpcRequest } from './rpc-request.js';
import type { AccountInfo, ChainObserver, DataSlice } from './types.js';

/** The validator refuses more keys per getMultipleAccounts (-32602, docs/solana-wire-format.md). */
export const MAX_KEYS_PER_CALL = 100;

interface Waiter {
  keys: readonly string[];
  /** performance.now() ms by which this caller gets an answer (Infinity: none). */
  deadline: number;
  /** Set once the caller has its answer (it may have given up at its deadline before the call ended). */
  settled: boolean;
  resolve(accounts: (AccountInfo | null)[]): void;
  reject(error: unknown): void;
}

/** Callers asking for the same data slice (or none) share calls. */
interface SliceGroup {
  slice: DataSlice | undefined;
  keys: Set<string>;
  waiters: Waiter[];
  /** The highest of its callers' minimum slots (0: none): the shared calls are at least that new. */
  minSlot: number;
}

/**
 * Merges concurrent getMultipleAccounts callers. Keys asked for within one window are
 * deduplicated, split into calls of at most 100 keys per data slice, and all calls go out as
 * JSON-RPC batches through the RPC client (which packs them into as few HTTP bodies as the size
 * limit allows, under its adaptive concurrency limit).
 *
 * When a batch leaves: src/chain/batch-window.ts (a window that follows the provider's round trip,
 * ended early by 20 callers, held while the provider cannot take a request).
 *
 * Each caller gets exactly its keys' accounts in its order. If a call carrying any of its keys
 * fails (or its reply is malformed), the caller's promise rejects with the 503: fail closed, no
 * partial answers. Callers whose keys all landed in calls that succeeded are unaffected.
 *
 * Deadlines: callers with different deadlines share one request. The request runs until the
 * latest of them (the RPC client's deadline); each caller whose own deadline comes first is
 * rejected with a 503 at that moment, while the request goes on for the others.
 *
 * Minimum slots (one login's view of the chain, src/chain/reader.ts): callers with a minimum share
 * calls among themselves, which carry the highest of their minimums as `minContextSlot`, so each is
 * at least as new as every one of them needs. Callers without one (a login's first read, the hot
 * path) never share a call with them: a node a slot or two short of someone else's minimum
 * (-32016, retried after a pause) never holds up their answer. Both kinds still travel in one HTTP
 * request, as separate calls.
 */
export class AccountBatcher {
  private groups = new Map<string, SliceGroup>();
  private readonly window: BatchWindow;
  private keysSent = 0;

  constructor(
    private readonly rpc: RpcClient,
    private readonly config: WindowConfig & Pick<Config, 'rpcCommitment'>,
    private readonly observer: ChainObserver = {},
  ) {
    this.window = new BatchWindow(rpc, config, () => void this.flush(), () => this.earliestDeadline());
  }

  /**
   * Keys must be base58 addresses (TypeError otherwise, so one caller's bad key cannot fail a shared
   * call). `keysAreDerived`: the caller computed the keys from bytes (ATA derivation), so they are
   * addresses. `deadlineMs`: performance.now() ms by which the caller wants its answer or a 503.
   * `minSlot`: the oldest slot the answer may be read at (0: any).
   */
  load(keys: readonly string[], slice?: DataSlice, keysAreDerived = false, deadlineMs = Infinity, minSlot = 0): Promise<(AccountInfo | null)[]> {
    if (!keysAreDerived) for (const key of keys) addressBytes(key);
    if (slice !== undefined && !(isCount(slice.offset) && isCount(slice.length))) {
      throw new TypeError('dataSlice offset and length must be whole numbers');
    }
    if (keys.length === 0) return Promise.resolve([]);
    const sliceKey = slice === undefined ? 'whole' : `${slice.offset}:${slice.length}`;
    const groupKey = minSlot > 0 ? `${sliceKey}:min` : sliceKey;
    let group = this.groups.get(groupKey);
    if (group === undefined) {
      group = { slice, keys: new Set(), waiters: [], minSlot: 0 };
      this.groups.set(groupKey, group);
    }
    if (minSlot > group.minSlot) group.minSlot = minSlot;
    for (const key of keys) group.keys.add(key);
    const promise = new Promise<(AccountInfo | null)[]>((resolve, reject) =>
      group.waiters.push({ keys: [...keys], deadline: deadlineMs, settled: false, resolve, reject }),
    );
    this.window.joined();
    return promise;
  }

  /** Keys sent in getMultipleAccounts calls (after deduplication). */
  batchedKeys(): number {
    return this.keysSent;
  }

  /** Sends whatever is queued now (used on shutdown). */
  async flushNow(): Promise<void> {
    await this.flush();
  }

  private earliestDeadline(): number {
    let earliest = Infinity;
    for (const group of this.groups.values()) for (const { deadline } of group.waiters) if (deadline < earliest) earliest = deadline;
    return earliest;
  }

  private async flush(): Promise<void> {
    this.window.close();
    const groups = [...this.groups.values()];
    this.groups = new Map();
    try {
      await this.send(groups);
    } catch (error) {
      // A bug must not leave callers waiting forever.
      for (const group of groups) for (const waiter of group.waiters) settle(waiter, error);
    }
  }

  private async send(groups: SliceGroup[]): Promise<void> {
    if (groups.length === 0) return;
    const calls: { group: SliceGroup; keys: string[] }[] = [];
    for (const group of groups) {
      const unique = [...group.keys];
      for (let start = 0; start < unique.length; start += MAX_KEYS_PER_CALL) {
        calls.push({ group, keys: unique.slice(start, start + MAX_KEYS_PER_CALL) });
      }
    }
    const requests: RpcRequest<(AccountInfo | null)[]>[] = calls.map(({ group, keys }) => {
      this.keysSent += keys.length;
      this.observer.accountsBatch?.(keys.length);
      const options: Record<string, unknown> = { encoding: 'base64', commitment: this.config.rpcCommitment };
      if (group.slice !== undefined) options.dataSlice = group.slice;
      if (group.minSlot > 0) options.minContextSlot = group.minSlot;
      return { method: 'getMultipleAccounts', params: [keys, options], parse: (result) => parseAccountList(result, keys.length, group.slice), minSlot: group.minSlot };
    });
    const outcomes = await this.sendUntilDeadlines(requests, groups);

    // Per group: each key's account (or null), or the error of the call that carried it.
    const answers = new Map(groups.map((group) => [group, new Map<string, AccountInfo | null | GateError>()]));
    calls.forEach(({ group, keys }, i) => {
      const outcome = outcomes[i]!;
      const answer = answers.get(group)!;
      keys.forEach((key, k) => answer.set(key, outcome.ok ? outcome.result[k]! : outcome.error));
    });
    for (const group of groups) {
      const answer = answers.get(group)!;
      for (const waiter of group.waiters) {
        if (waiter.settled) continue;
        const values = waiter.keys.map((key) => answer.get(key) as AccountInfo | null | GateError);
        const error = values.find((value) => value instanceof GateError);
        settle(waiter, error, values as (AccountInfo | null)[]);
      }
    }
  }

  /** The batch, bounded by the latest caller's deadline; earlier callers are let go at theirs. */
  private sendUntilDeadlines(requests: RpcRequest<(AccountInfo | null)[]>[], groups: SliceGroup[]): Promise<RpcOutcome<(AccountInfo | null)[]>[]> {
    return untilDeadlines(
      groups.flatMap((group) => group.waiters),
      (latest) => this.rpc.batch(requests, latest),
      (waiter) => settle(waiter, deadlinePassed()),
    );
  }
}

function settle(waiter: Waiter, error: unknown, accounts?: (AccountInfo | null)[]): void {
  if (waiter.settled) return;
  waiter.settled = true;
  if (error !== undefined) waiter.reject(error);
  else waiter.resolve(accounts!);
}

function deadlinePassed(): GateError {
  return upstreamUnavailable("getMultipleAccounts: no answer within the login's time budget (LOGIN_TIMEOUT_MS)");
}

/** `value` must hold exactly one entry (account or null) per requested key. */
function parseAccountList(result: unknown, expected: number, slice: DataSlice | undefined): (AccountInfo | null)[] {
  const value = contextValue(result, 'getMultipleAccounts');
  if (!Array.isArray(value) || value.length !== expected) {
    throw malformed('getMultipleAccounts', `expected ${expected} accounts`);
  }
  return value.map((raw: unknown) => (raw === null ? null : parseAccountInfo(raw, 'getMultipleAccounts', slice)));
}

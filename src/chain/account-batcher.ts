import type { Config } from '../config.js';
import { GateError, upstreamUnavailable } from '../errors.js';
import { addressBytes } from './address.js';
import { contextValue, isCount, malformed, parseAccountInfo } from './replies.js';
import type { RpcClient, RpcOutcome, RpcRequest } from './rpc.js';
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
}

/**
 * A provider answering in RTT ms gets about this many batches per round trip from a steady stream
 * of callers: the window is RTT ÷ this (within RPC_BATCH_WINDOW_MS..RPC_BATCH_WINDOW_MAX_MS). At
 * 80 ms that is a 10 ms window, ~100 requests/s whatever the login rate, each caller waiting 5 ms
 * on average for its batch to leave.
 */
const BATCHES_PER_ROUND_TRIP = 8;
/**
 * A batch with this many callers goes out without waiting for the rest of its window: it is
 * already worth a request (at most 1/20 request per caller, the 0.05 per login a launch may cost;
 * ~0.03 measured, as windows that end on their timer carry more), and a burst — e.g. a verified
 * chunk of logins from the worker pool — is not held back.
 */
export const CALLERS_TO_SEND_EARLY = 20;

/**
 * Merges concurrent getMultipleAccounts callers. Keys asked for within one window are
 * deduplicated, split into calls of at most 100 keys per data slice, and all calls go out as
 * JSON-RPC batches through the RPC client (which packs them into as few HTTP bodies as the size
 * limit allows, under its adaptive concurrency limit).
 *
 * The window follows the provider's round trip (BATCHES_PER_ROUND_TRIP), never shorter than
 * RPC_BATCH_WINDOW_MS (0 = the next setImmediate) nor longer than RPC_BATCH_WINDOW_MAX_MS. When it
 * ends while every concurrency slot is taken, or while every endpoint cools down after a 429 (its
 * Retry-After), the batch keeps gathering until a request could go out (or the earliest caller's
 * deadline comes): one bigger request then, instead of many queued behind the limit — each waiting
 * a round trip per place in the queue — or sent all at once when the Retry-After ends.
 *
 * Each caller gets exactly its keys' accounts in its order. If a call carrying any of its keys
 * fails (or its reply is malformed), the caller's promise rejects with the 503: fail closed, no
 * partial answers. Callers whose keys all landed in calls that succeeded are unaffected.
 *
 * Deadlines: callers with different deadlines share one request. The request runs until the
 * latest of them (the RPC client's deadline); each caller whose own deadline comes first is
 * rejected with a 503 at that moment, while the request goes on for the others.
 */
export class AccountBatcher {
  private groups = new Map<string, SliceGroup>();
  private flushScheduled = false;
  /** The pending window's timer; undefined once the window is over (or sent early). */
  private windowTimer: NodeJS.Timeout | undefined;
  private callers = 0;
  private keysSent = 0;

  constructor(
    private readonly rpc: RpcClient,
    private readonly config: Pick<Config, 'rpcBatchWindowMs' | 'rpcCommitment'> & Partial<Pick<Config, 'rpcBatchWindowMaxMs'>>,
    private readonly observer: ChainObserver = {},
  ) {}

  /**
   * Keys must be base58 addresses (TypeError otherwise, so one caller's bad key cannot fail a shared
   * call). `keysAreDerived`: the caller computed the keys from bytes (ATA derivation), so they are
   * addresses. `deadlineMs`: performance.now() ms by which the caller wants its answer or a 503.
   */
  load(keys: readonly string[], slice?: DataSlice, keysAreDerived = false, deadlineMs = Infinity): Promise<(AccountInfo | null)[]> {
    if (!keysAreDerived) for (const key of keys) addressBytes(key);
    if (slice !== undefined && !(isCount(slice.offset) && isCount(slice.length))) {
      throw new TypeError('dataSlice offset and length must be whole numbers');
    }
    if (keys.length === 0) return Promise.resolve([]);
    const groupKey = slice === undefined ? 'whole' : `${slice.offset}:${slice.length}`;
    let group = this.groups.get(groupKey);
    if (group === undefined) {
      group = { slice, keys: new Set(), waiters: [] };
      this.groups.set(groupKey, group);
    }
    for (const key of keys) group.keys.add(key);
    const promise = new Promise<(AccountInfo | null)[]>((resolve, reject) =>
      group.waiters.push({ keys: [...keys], deadline: deadlineMs, settled: false, resolve, reject }),
    );
    this.callers++;
    this.scheduleFlush();
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

  /** How long the next batch gathers keys: an eighth of the provider's round trip, within the bounds. */
  windowMs(): number {
    const shortest = this.config.rpcBatchWindowMs;
    const longest = Math.max(shortest, this.config.rpcBatchWindowMaxMs ?? shortest);
    const rtt = this.rpc.minRttMs();
    const window = rtt === undefined ? shortest : Math.min(longest, Math.max(shortest, Math.round(rtt / BATCHES_PER_ROUND_TRIP)));
    // After a 429 (or other overload) the batches are spaced further apart, for a while.
    return Math.max(window, Math.round(this.rpc.spacingMs()));
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) {
      if (this.windowTimer !== undefined && this.callers >= CALLERS_TO_SEND_EARLY && this.rpc.spacingMs() === 0) {
        // Still this turn's callers may join: the batch leaves on the next setImmediate.
        clearTimeout(this.windowTimer);
        this.windowTimer = undefined;
        setImmediate(() => this.afterWindow());
      }
      return;
    }
    this.flushScheduled = true;
    const window = this.windowMs();
    if (window === 0) setImmediate(() => this.afterWindow());
    else this.windowTimer = setTimeout(() => this.afterWindow(), window);
  }

  /** The window is over: send as soon as a request could go out, or at the earliest caller's deadline. */
  private afterWindow(): void {
    this.windowTimer = undefined;
    let fired = false;
    let deadlineTimer: NodeJS.Timeout | undefined;
    const fire = (): void => {
      if (fired) return;
      fired = true;
      clearTimeout(deadlineTimer);
      void this.flush();
    };
    const earliest = this.earliestDeadline();
    if (Number.isFinite(earliest)) deadlineTimer = setTimeout(fire, Math.max(0, earliest - performance.now()));
    this.rpc.whenSlotFree(fire);
  }

  private earliestDeadline(): number {
    let earliest = Infinity;
    for (const group of this.groups.values()) for (const { deadline } of group.waiters) if (deadline < earliest) earliest = deadline;
    return earliest;
  }

  private async flush(): Promise<void> {
    this.flushScheduled = false;
    clearTimeout(this.windowTimer);
    this.windowTimer = undefined;
    this.callers = 0;
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
      return { method: 'getMultipleAccounts', params: [keys, options], parse: (result) => parseAccountList(result, keys.length, group.slice) };
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
  private async sendUntilDeadlines(
    requests: RpcRequest<(AccountInfo | null)[]>[],
    groups: SliceGroup[],
  ): Promise<RpcOutcome<(AccountInfo | null)[]>[]> {
    let earliest = Infinity;
    let latest = -Infinity;
    for (const group of groups) {
      for (const { deadline } of group.waiters) {
        if (deadline < earliest) earliest = deadline;
        if (deadline > latest) latest = deadline;
      }
    }
    if (earliest === latest) return this.rpc.batch(requests, latest);
    let timer: NodeJS.Timeout | undefined;
    const releaseExpired = (): void => {
      const at = performance.now();
      let next = Infinity;
      for (const group of groups) {
        for (const waiter of group.waiters) {
          if (waiter.settled) continue;
          if (waiter.deadline <= at) settle(waiter, deadlinePassed());
          else if (waiter.deadline < next) next = waiter.deadline;
        }
      }
      timer = next < latest ? setTimeout(releaseExpired, next - at) : undefined;
    };
    timer = setTimeout(releaseExpired, earliest - performance.now());
    try {
      return await this.rpc.batch(requests, latest);
    } finally {
      clearTimeout(timer);
    }
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
  return value.map((raw: unknown) => (raw === null ? null : parseAccountInfo(raw, 'getMultipleAccounts', slice?.length)));
}

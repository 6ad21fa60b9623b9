import type { Config } from '../config.js';
import { upstreamUnavailable } from '../errors.js';
import { AdaptiveLimit } from './adaptive-limit.js';
import { type BatchLimits, MAX_BODY_BYTES, packBodies } from './batch-limits.js';
import { type ExchangeContext, sendExchange } from './exchange.js';
import { Failover, MAX_WAIT_MS } from './failover.js';
import { hedge } from './hedge.js';
import { HistoryHorizons, HORIZON_TTL_MS } from './history-horizons.js';
import type { AttemptResult } from './reply-verdict.js';
import { type EndpointLimits, REPROBE_MS, type RpcEndpoint } from './rpc-endpoint.js';
import type { Member, RpcOutcome, RpcRequest } from './rpc-request.js';
import { emptyStats, type RpcStats } from './rpc-stats.js';
import { type RetryContext, sendWithRetries } from './send-with-retries.js';
import { SlotView } from './slot-view.js';
import type { FetchLike } from './transport.js';
import type { ChainObserver, HistoryHorizon } from './types.js';

/**
 * Solana JSON-RPC over HTTP POST: the client the chain's readers call (call, batch). It sends each
 * set of calls until every call has an outcome — retried on other endpoints or after a cool-down,
 * within the call's deadline — and acts on what each attempt's verdict says (reply-verdict.ts).
 * Not web3.js `Connection`: that retries 429 on its own for seconds and cannot batch. Which module
 * owns which part of the client, and how it behaves: docs/architecture.md, "The RPC client". Any
 * final failure is a GateError 503 UPSTREAM_UNAVAILABLE whose message never names the URL (it
 * often carries an API key) nor quotes the provider.
 */

/**
 * A retry is worth making only with this much time left (or RPC_TIMEOUT_MS, if shorter): a
 * provider that is up answers getMultipleAccounts in tens of milliseconds; with less left, a retry
 * would mostly be aborted at the deadline, adding load for nothing.
 */
export const MIN_ATTEMPT_MS = 250;
/** RPC_MIN_RETRY_AFTER_MS's default. */
export const MIN_RETRY_AFTER_MS = 1_000;

const now = (): number => performance.now();

export class RpcClient {
  private readonly failover: Failover;
  private readonly slots = new SlotView();
  private readonly horizons: HistoryHorizons;
  private readonly limiter: AdaptiveLimit;
  private readonly counters: RpcStats = emptyStats();
  private readonly exchanges: ExchangeContext;
  private readonly retries: RetryContext;
  private nextId = 1;
  private readonly minAttemptMs: number;
  private readonly hedgeMs: number;
  private readonly reprobeMs: number;
  private readonly minRetryAfterMs: number;

  constructor(
    config: Pick<Config, 'rpcUrls' | 'rpcConcurrency' | 'rpcTimeoutMs' | 'rpcRetries'> &
      Partial<
        Pick<
          Config,
          | 'rpcHedgeMs'
          | 'rpcConcurrencyMin'
          | 'rpcConcurrencyMax'
          | 'historyHorizonTtlMs'
          | 'rpcBatch'
          | 'rpcBatchCaps'
          | 'rpcCallsPerSecond'
          | 'rpcScansPerSecond'
          | 'rpcReprobeMs'
          | 'rpcMinRetryAfterMs'
        >
      >,
    fetchImpl: FetchLike = (url, init) => fetch(url, init),
    private readonly observer: ChainObserver = {},
  ) {
    if (config.rpcUrls.length === 0) throw new TypeError('at least one RPC URL is required');
    this.reprobeMs = config.rpcReprobeMs ?? REPROBE_MS;
    this.minRetryAfterMs = config.rpcMinRetryAfterMs ?? MIN_RETRY_AFTER_MS;
    this.minAttemptMs = Math.min(config.rpcTimeoutMs, MIN_ATTEMPT_MS);
    const limits: EndpointLimits = {
      batch: config.rpcBatch ?? true,
      batchCaps: config.rpcBatchCaps ?? {},
      callsPerSecond: config.rpcCallsPerSecond ?? 0,
      scansPerSecond: config.rpcScansPerSecond ?? 0,
      reprobeMs: this.reprobeMs,
    };
    this.failover = new Failover(config.rpcUrls, limits, this.minAttemptMs);
    // Without bounds (a client of its own, e.g. the DAS API's), the limit stays at RPC_CONCURRENCY.
    this.limiter = new AdaptiveLimit({
      initial: config.rpcConcurrency,
      min: Math.min(config.rpcConcurrencyMin ?? config.rpcConcurrency, config.rpcConcurrency),
      max: Math.max(config.rpcConcurrencyMax ?? config.rpcConcurrency, config.rpcConcurrency),
    });
    this.hedgeMs = config.rpcUrls.length > 1 ? (config.rpcHedgeMs ?? 0) : 0;
    this.exchanges = {
      fetch: fetchImpl,
      limiter: this.limiter,
      stats: this.counters,
      observer,
      slots: this.slots,
      timeoutMs: config.rpcTimeoutMs,
      minAttemptMs: this.minAttemptMs,
      minRetryAfterMs: this.minRetryAfterMs,
    };
    this.retries = {
      failover: this.failover,
      attempt: (endpoint, members, deadline) => this.attempt(endpoint, members, deadline),
      maxAttempts: config.rpcUrls.length + config.rpcRetries,
      reprobeMs: this.reprobeMs,
      minRetryAfterMs: this.minRetryAfterMs,
    };
    this.horizons = new HistoryHorizons(
      { attemptOn: (...args) => this.attemptOn(...args), coolDown: (endpoint) => this.failover.failed(endpoint, 0) },
      config.historyHorizonTtlMs ?? HORIZON_TTL_MS,
    );
  }

  /**
   * One call; its parsed `result`, or a thrown 503. `deadlineMs`: performance.now() ms (default:
   * none); `minSlot`: RpcRequest.minSlot.
   */
  async call<T>(method: string, params: RpcRequest['params'], parse: RpcRequest<T>['parse'], deadlineMs = Infinity, minSlot = 0): Promise<T> {
    const [outcome] = await this.batch([{ method, params, parse, minSlot }], deadlineMs);
    if (!outcome!.ok) throw outcome!.error;
    return outcome!.result;
  }

  /**
   * Many calls in as few HTTP requests as MAX_BODY_BYTES, MAX_CALLS_PER_BODY and the endpoint's
   * batch limits (batch-limits.ts) allow, bodies sent in parallel under the concurrency limit. One
   * outcome per request, in order; never rejects.
   */
  async batch<T>(requests: readonly RpcRequest<T>[], deadlineMs = Infinity): Promise<RpcOutcome<T>[]> {
    const outcomes: RpcOutcome[] = new Array(requests.length);
    const sendable: Member[] = [];
    requests.forEach(({ method, params, parse, minSlot, paramsJson }, index) => {
      const member = this.member(index, method, params, parse, minSlot ?? 0, paramsJson);
      if (Buffer.byteLength(member.json) + 2 > MAX_BODY_BYTES) {
        outcomes[index] = { ok: false, error: upstreamUnavailable(`${method}: request over ${MAX_BODY_BYTES} bytes`) };
      } else {
        sendable.push(member);
      }
    });
    const limits = this.failover.current.batchLimits;
    await Promise.all(packBodies(sendable, limits, MAX_BODY_BYTES).map((members) => sendWithRetries(this.retries, members, outcomes, deadlineMs)));
    return outcomes as RpcOutcome<T>[];
  }

  stats(): RpcStats {
    return { ...this.counters, rpcCalls: { ...this.counters.rpcCalls } };
  }

  /** What each endpoint taught the client about its batch limits (in SOLANA_RPC_URL order; never the URL). */
  learnedBatchLimits(): ReturnType<BatchLimits['snapshot']>[] {
    return this.failover.endpoints.map((endpoint) => endpoint.batchLimits.snapshot());
  }

  /**
   * The newest slot any endpoint answered at within SLOT_MEMORY_MS (0: none): the chain has reached
   * at least this. A login's later reads ask for it (src/chain/reader.ts).
   */
  newestSlot(at = now()): number {
    return this.slots.newest(at);
  }

  /** How far back `endpoint` keeps history (history-horizons.ts); rejects with 503 when it cannot be read. */
  historyHorizon(endpoint: RpcEndpoint, deadlineMs = Infinity): Promise<HistoryHorizon> {
    return this.horizons.horizon(endpoint, deadlineMs);
  }

  /** Whether `endpoint` refuses a history read below its slot, as the validator does (history-horizons.ts). */
  honoursHistoryMinimum(endpoint: RpcEndpoint, probe: { address: string; commitment: string }, deadlineMs = Infinity): Promise<boolean> {
    return this.horizons.honoursMinimum(endpoint, probe, deadlineMs);
  }

  /** The concurrency limit now, requests in flight under it and waiting for it. */
  concurrency(): { limit: number; inFlight: number; queued: number } {
    return { limit: this.limiter.limit, inFlight: this.limiter.inFlight, queued: this.limiter.queued };
  }

  /** How long batches should be spaced after the provider refused (ms; 0 while it keeps up). */
  spacingMs(): number {
    return this.limiter.spacingMs();
  }

  /** The lowest round trip of a successful request lately (ms); undefined before the first. */
  minRttMs(): number | undefined {
    return this.limiter.minRttMs();
  }

  /**
   * Calls `watcher` once, when a request sent now would go out at once: a concurrency slot is free
   * and some endpoint is not cooling down (after a 429, its Retry-After). Callers that can merge
   * their work (the account batcher) wait here instead of queueing one request each.
   */
  whenSlotFree(watcher: () => void): void {
    const at = now();
    const soonest = this.failover.soonestUsable();
    // While the call budget is spent, batches keep gathering: one call of many keys, not many calls.
    const budgetWait = this.failover.current.budgetInForce()?.waitFor(1) ?? 0;
    if (budgetWait > 0 && budgetWait <= MAX_WAIT_MS && (soonest <= at || soonest - at > MAX_WAIT_MS)) {
      setTimeout(() => this.whenSlotFree(watcher), Math.ceil(budgetWait));
      return;
    }
    // A wait longer than any call would make fails the calls at once (Failover.choose): no holding.
    if (soonest <= at || soonest - at > MAX_WAIT_MS) this.limiter.whenSlotFree(watcher);
    else setTimeout(() => this.whenSlotFree(watcher), soonest - at);
  }

  /**
   * One attempt at `members`: an HTTP request to `primary` and, with RPC_HEDGE_MS, a hedge to the
   * next endpoint when it is slow to answer (hedge.ts). Every exchange that finished is recorded;
   * resolves with the result the caller acts on.
   */
  private attempt(primary: RpcEndpoint, members: Member[], deadline: number): Promise<AttemptResult> {
    const body = members.length === 1 ? members[0]!.json : `[${members.map((member) => member.json).join(',')}]`;
    const send = (endpoint: RpcEndpoint, limited: boolean, onSent?: () => void) => sendExchange(this.exchanges, endpoint, body, members, deadline, limited, onSent);
    if (this.hedgeMs === 0) {
      return send(primary, true).done.then((result) => {
        this.record(primary, members, result);
        return result;
      });
    }
    return hedge({
      hedgeMs: this.hedgeMs,
      deadline,
      observer: this.observer,
      sendPrimary: (onSent) => send(primary, true, onSent),
      sendHedge: () => {
        const endpoint = this.failover.nextAfter(primary, new Set(members.map((member) => member.method)));
        return endpoint === undefined ? undefined : send(endpoint, false);
      },
      finished: (exchange, result) => this.record(exchange.endpoint, members, result),
    });
  }

  /** One call to `endpoint` alone, one attempt, recorded when the caller says (history-horizons.ts). */
  private async attemptOn(endpoint: RpcEndpoint, method: string, params: unknown[], parse: (result: unknown) => unknown, minSlot: number, deadlineMs: number) {
    const member = this.member(0, method, params, parse, minSlot);
    const result = await sendExchange(this.exchanges, endpoint, member.json, [member], deadlineMs, true).done;
    return { result, record: () => this.record(endpoint, [member], result) };
  }

  /**
   * Acts on an attempt's verdict (reply-verdict.ts): counts it, learns from a refusal, and cools
   * `endpoint` down or makes it the current one.
   */
  private record(endpoint: RpcEndpoint, members: readonly Member[], result: AttemptResult): void {
    if (result.kind === 'failed') {
      if (result.blame === 'none') {
        if (result.refusal === 'array') {
          endpoint.batchLimits.refused(members.map((member) => member.method));
          this.counters.refusedCalls += members.length;
          for (const member of members) this.observer.rpcError?.(member.method, 'batch_refused');
        } else if (result.refusal === 'method') {
          for (const member of members) this.refusedMethod(endpoint, member.method);
        }
        return;
      }
      if (result.failure === 'rate_limited') {
        this.counters.rateLimitedCalls += members.length;
        endpoint.learnedBudget.refused();
      }
      this.counters.errors++;
      for (const member of members) this.observer.rpcError?.(member.method, result.failure);
      if (!result.permanent) this.failover.failed(endpoint, result.retryAfterMs);
      return;
    }
    if (members.length > 1) endpoint.batchLimits.answered(members.map((member) => member.method));
    let rateLimited = 0;
    result.verdicts.forEach((verdict, i) => {
      if (verdict.ok) return;
      const method = members[i]!.method;
      if (verdict.failure === 'rate_limited') {
        // Over a budget that counts calls: slow down as for an HTTP 429, not a failure of the node.
        this.counters.rateLimitedCalls++;
        this.observer.rpcError?.(method, 'rate_limited');
        rateLimited++;
      } else if (verdict.failure === 'method_refused') {
        this.refusedMethod(endpoint, method);
      } else {
        this.counters.errors++;
        this.observer.rpcError?.(method, verdict.failure);
      }
    });
    // What the provider accepted of this reply counts before its refusals: they measure its budget together.
    endpoint.learnedBudget.accepted(members.length - rateLimited);
    if (result.health === 'rate_limited') {
      endpoint.learnedBudget.refused();
      // Under a call budget (told, or just learned from this refusal) the budget paces the calls
      // sent again: fewer in flight, or a rest of the whole endpoint, would only leave the
      // provider's budget unused (the provider named no Retry-After).
      if (endpoint.budgetInForce() === undefined) {
        this.limiter.overloaded();
        this.failover.failed(endpoint, this.minRetryAfterMs);
      }
    } else if (result.health === 'failing') {
      this.failover.failed(endpoint, 0);
    } else {
      this.failover.answered(endpoint);
    }
  }

  /** `endpoint` refused `method` for good: not sent there again for RPC_REPROBE_MS. */
  private refusedMethod(endpoint: RpcEndpoint, method: string): void {
    endpoint.refuseMethod(method, now() + this.reprobeMs);
    this.counters.refusedCalls++;
    this.observer.rpcError?.(method, 'method_refused');
  }

  private member(index: number, method: string, params: RpcRequest['params'], parse: Member['parse'], minSlot: number, paramsJson?: string): Member {
    const id = this.nextId++;
    // The same bytes either way (the key order JSON.stringify writes).
    const json =
      paramsJson === undefined
        ? JSON.stringify({ jsonrpc: '2.0', id, method, params })
        : `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${paramsJson}}`;
    return { index, id, method, json, parse, minSlot };
  }
}

import type { Config } from '../config.js';
import { AdaptiveLimit } from './adaptive-limit.js';
import { type GateError, upstreamUnavailable } from '../errors.js';
import { MalformedReply } from './replies.js';
import type { ChainObserver } from './types.js';

/**
 * Solana JSON-RPC over plain HTTP POST (transport.ts: node:http with a keep-alive agent; any
 * fetch-like function may be given instead). Not web3.js
 * `Connection`: it retries 429 on its own for seconds and cannot batch.
 *
 * - Every HTTP attempt has its own timeout (RPC_TIMEOUT_MS) and waits for a concurrency slot;
 *   waiting for a slot does not count against the timeout. The number of slots adapts to the
 *   provider (adaptive-limit.ts): it starts at RPC_CONCURRENCY, grows while round trips stay near
 *   their minimum, halves on 429, 5xx, timeouts and network errors, always within
 *   RPC_CONCURRENCY_MIN..RPC_CONCURRENCY_MAX.
 * - Deadline: a call may carry one (a login's, see src/gate/login-deadline.ts; milliseconds on the
 *   monotonic `performance.now()` clock). Waiting for a slot, backoff and every attempt count
 *   against it: an attempt's timeout is min(RPC_TIMEOUT_MS, time left), an attempt in flight is
 *   aborted when the deadline comes, and a retry is made only when it fits — when at least
 *   min(RPC_TIMEOUT_MS, MIN_ATTEMPT_MS) is left after any wait for a cooling endpoint. The first
 *   attempt is always made while any time is left.
 * - Retryable: network errors, timeouts, non-2xx HTTP (429 and 403 are how providers rate-limit),
 *   malformed JSON, a missing answer, a result its `parse` rejects (MalformedReply), and every
 *   JSON-RPC error except PERMANENT_CODES.
 * - Failover: endpoints (SOLANA_RPC_URL, comma-separated) are used in order. The last one that
 *   answered stays current; one that fails cools down (exponential backoff with jitter, or its
 *   Retry-After if longer) and is tried again when another fails after that. A call gets one try
 *   per endpoint plus RPC_RETRIES more.
 * - Hedging (RPC_HEDGE_MS > 0, two or more endpoints): when an attempt's endpoint has not answered
 *   within RPC_HEDGE_MS of being sent, the same body also goes to the next endpoint that is not
 *   cooling down. The first clean answer (every call answered, or failed for good) wins and the
 *   other request is aborted; a failed or unclean answer waits for the other one. The hedge does
 *   not wait for a concurrency slot — the slots may all be held by requests to the stalled
 *   provider, which is exactly when a hedge is needed — so at most RPC_CONCURRENCY hedges join the
 *   RPC_CONCURRENCY requests in flight.
 * - Any final failure becomes GateError 503 UPSTREAM_UNAVAILABLE. Messages never contain the URL
 *   (it often carries an API key) nor the provider's error text.
 */

export interface RpcRequest<T = unknown> {
  method: string;
  /** Positional (Solana's methods) or named (the DAS API's searchAssets). */
  params: unknown[] | Record<string, unknown>;
  /** Checks and converts `result`; throws MalformedReply when the shape is wrong (then retried). */
  parse: (result: unknown) => T;
}

export type RpcOutcome<T = unknown> = { ok: true; result: T } | { ok: false; error: GateError };

/** What the client reads of an HTTP answer: a fetch Response is one; transport.ts makes lighter ones. */
export interface HttpReply {
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}

export type FetchLike = (url: string, init: RequestInit) => Promise<HttpReply>;

/** The validator answers larger bodies with HTTP 413 (docs/solana-wire-format.md). */
export const MAX_BODY_BYTES = 51_200;
/** Keeps one reply a manageable size (and under the batch caps some providers set); not a validator limit. */
export const MAX_CALLS_PER_BODY = 100;
/**
 * A retry is worth making only with this much time left (or RPC_TIMEOUT_MS, if shorter): a
 * provider that is up answers getMultipleAccounts in tens of milliseconds; with less left, a retry
 * would mostly be aborted at the deadline, adding load for nothing.
 */
export const MIN_ATTEMPT_MS = 250;
/** Invalid params (-32602) and an unsupported transaction version (-32015): no endpoint will answer differently. */
const PERMANENT_CODES: ReadonlySet<number> = new Set([-32602, -32015]);
const BACKOFF_BASE_MS = 100;
const BACKOFF_MAX_MS = 2_000;
/** Longest a call waits for a cooling endpoint; a longer Retry-After fails the call at once. */
const MAX_WAIT_MS = 2_000;
const NO_TIME_TO_RETRY = 'no time left for another attempt within LOGIN_TIMEOUT_MS';
const NO_ANSWER_IN_TIME = 'no answer within the login\'s time budget (LOGIN_TIMEOUT_MS)';

/** Why an attempt was aborted (passed to AbortController.abort, so fetch rejects with it). */
const ABORT_TIMEOUT = { abort: 'timeout' } as const;
const ABORT_DEADLINE = { abort: 'deadline' } as const;
const ABORT_LOST = { abort: 'lost' } as const;

const now = (): number => performance.now();

interface Member {
  index: number;
  id: number;
  method: string;
  json: string;
  parse: (result: unknown) => unknown;
}

interface Endpoint {
  url: string;
  consecutiveFailures: number;
  /** performance.now() ms before which this endpoint is not used unless every endpoint is cooling. */
  coolUntil: number;
}

type Verdict = { ok: true; result: unknown } | { ok: false; permanent: boolean; reason: string };

/**
 * What one HTTP attempt did: HTTP-level failure (all members), or per-member verdicts. `kind` of a
 * failure says whether it says anything about the endpoint: `lost` (aborted because the other
 * request of a hedge won) and `unsent` (no time left to send it) do not.
 */
type AttemptResult =
  | { kind: 'failed'; reason: string; permanent: boolean; retryAfterMs: number; blame: 'endpoint' | 'none' }
  | { kind: 'answered'; verdicts: Verdict[] };

/** An HTTP attempt under way. */
interface Exchange {
  endpoint: Endpoint;
  done: Promise<AttemptResult>;
  abort(): void;
}

export interface RpcStats {
  /** HTTP POSTs sent, retries and hedges included. */
  httpRequests: number;
  /** JSON-RPC calls sent per method, each batch member, each retry and each hedge counted. */
  rpcCalls: Record<string, number>;
  /** Failed HTTP attempts plus failed calls inside answered batches (error, no answer, wrong shape). */
  errors: number;
}

export class RpcClient {
  private readonly endpoints: Endpoint[];
  private current = 0;
  private nextId = 1;
  private readonly limiter: AdaptiveLimit;
  private readonly counters: RpcStats = { httpRequests: 0, rpcCalls: {}, errors: 0 };
  private readonly minAttemptMs: number;
  private readonly hedgeMs: number;

  constructor(
    private readonly config: Pick<Config, 'rpcUrls' | 'rpcConcurrency' | 'rpcTimeoutMs' | 'rpcRetries'> &
      Partial<Pick<Config, 'rpcHedgeMs' | 'rpcConcurrencyMin' | 'rpcConcurrencyMax'>>,
    private readonly fetchImpl: FetchLike = (url, init) => fetch(url, init),
    private readonly observer: ChainObserver = {},
  ) {
    if (config.rpcUrls.length === 0) throw new TypeError('at least one RPC URL is required');
    this.endpoints = config.rpcUrls.map((url) => ({ url, consecutiveFailures: 0, coolUntil: 0 }));
    // Without bounds (a client of its own, e.g. the DAS API's), the limit stays at RPC_CONCURRENCY.
    this.limiter = new AdaptiveLimit({
      initial: config.rpcConcurrency,
      min: Math.min(config.rpcConcurrencyMin ?? config.rpcConcurrency, config.rpcConcurrency),
      max: Math.max(config.rpcConcurrencyMax ?? config.rpcConcurrency, config.rpcConcurrency),
    });
    this.minAttemptMs = Math.min(config.rpcTimeoutMs, MIN_ATTEMPT_MS);
    this.hedgeMs = this.endpoints.length > 1 ? (config.rpcHedgeMs ?? 0) : 0;
  }

  /** One call; its parsed `result`, or a thrown 503. `deadlineMs`: performance.now() ms (default: none). */
  async call<T>(method: string, params: RpcRequest['params'], parse: (result: unknown) => T, deadlineMs = Infinity): Promise<T> {
    const [outcome] = await this.batch([{ method, params, parse }], deadlineMs);
    if (!outcome!.ok) throw outcome!.error;
    return outcome!.result;
  }

  /**
   * Many calls in as few HTTP requests as MAX_BODY_BYTES / MAX_CALLS_PER_BODY allow, bodies sent in
   * parallel under the concurrency limit. One outcome per request, in order; never rejects.
   */
  async batch<T>(requests: readonly RpcRequest<T>[], deadlineMs = Infinity): Promise<RpcOutcome<T>[]> {
    const outcomes: RpcOutcome[] = new Array(requests.length);
    const sendable: Member[] = [];
    requests.forEach(({ method, params, parse }, index) => {
      const id = this.nextId++;
      const json = JSON.stringify({ jsonrpc: '2.0', id, method, params });
      if (Buffer.byteLength(json) + 2 > MAX_BODY_BYTES) {
        outcomes[index] = { ok: false, error: upstreamUnavailable(`${method}: request over ${MAX_BODY_BYTES} bytes`) };
      } else {
        sendable.push({ index, id, method, json, parse });
      }
    });
    await Promise.all(packBodies(sendable).map((members) => this.sendWithRetries(members, outcomes, deadlineMs)));
    return outcomes as RpcOutcome<T>[];
  }

  stats(): RpcStats {
    return { ...this.counters, rpcCalls: { ...this.counters.rpcCalls } };
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
    let soonest = Infinity;
    for (const endpoint of this.endpoints) soonest = Math.min(soonest, endpoint.coolUntil);
    // A wait longer than any call would make fails the calls at once (chooseEndpoint): no holding.
    if (soonest <= at || soonest - at > MAX_WAIT_MS) this.limiter.whenSlotFree(watcher);
    else setTimeout(() => this.whenSlotFree(watcher), soonest - at);
  }

  private async sendWithRetries(members: Member[], outcomes: RpcOutcome[], deadline: number): Promise<void> {
    const maxAttempts = this.endpoints.length + this.config.rpcRetries;
    // The 503 passes on the provider's Retry-After when it gave one.
    const fail = (member: Member, reason: string, retryAfterMs = 0): void => {
      const reasonText = `${member.method}: ${reason}`;
      outcomes[member.index] = {
        ok: false,
        error: retryAfterMs > 0 ? upstreamUnavailable(reasonText, Math.ceil(retryAfterMs / 1000)) : upstreamUnavailable(reasonText),
      };
    };
    let pending = members;
    let lastReason = '';
    let lastRetryAfterMs = 0;
    for (let attempt = 1; pending.length > 0; attempt++) {
      const choice = await this.chooseEndpoint(deadline, attempt > 1);
      if ('why' in choice) {
        // "No answer in time" already says there is no time left.
        const redundant = lastReason === choice.why || (lastReason === NO_ANSWER_IN_TIME && choice.why === NO_TIME_TO_RETRY);
        const reason = lastReason === '' ? choice.why : redundant ? lastReason : `${lastReason}; ${choice.why}`;
        for (const member of pending) fail(member, reason, Math.max(choice.waitMs, lastRetryAfterMs));
        return;
      }
      const result = await this.attempt(choice.endpoint, pending, deadline);
      const retry: Member[] = [];
      if (result.kind === 'failed') {
        if (result.permanent) {
          for (const member of pending) fail(member, result.reason);
          return;
        }
        retry.push(...pending);
        lastReason = result.reason;
        lastRetryAfterMs = result.retryAfterMs;
      } else {
        result.verdicts.forEach((verdict, i) => {
          const member = pending[i]!;
          if (verdict.ok) outcomes[member.index] = { ok: true, result: verdict.result };
          else if (verdict.permanent) fail(member, verdict.reason);
          else {
            retry.push(member);
            lastReason = verdict.reason;
          }
        });
      }
      if (retry.length > 0 && attempt >= maxAttempts) {
        for (const member of retry) fail(member, lastReason, lastRetryAfterMs);
        return;
      }
      pending = retry;
    }
  }

  /**
   * The current endpoint, or the first one not cooling down, or (after a short wait) the one that
   * cools first — or why no attempt fits before the deadline.
   */
  private async chooseEndpoint(deadline: number, isRetry: boolean): Promise<{ endpoint: Endpoint } | { why: string; waitMs: number }> {
    const start = now();
    const left = deadline - start;
    if (left <= 0 || (isRetry && left < this.minAttemptMs)) return { why: NO_TIME_TO_RETRY, waitMs: 0 };
    const count = this.endpoints.length;
    let soonest: Endpoint | undefined;
    for (let step = 0; step < count; step++) {
      const endpoint = this.endpoints[(this.current + step) % count]!;
      if (endpoint.coolUntil <= start) return { endpoint };
      if (soonest === undefined || endpoint.coolUntil < soonest.coolUntil) soonest = endpoint;
    }
    const waitMs = soonest!.coolUntil - start;
    if (waitMs > MAX_WAIT_MS) return { why: 'every RPC endpoint is rate limited or failing', waitMs };
    if (waitMs + this.minAttemptMs > left) return { why: `every RPC endpoint is cooling down; ${NO_TIME_TO_RETRY}`, waitMs };
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    return { endpoint: soonest! };
  }

  /** The next endpoint after `primary` in order that is not cooling down, if any. */
  private hedgeEndpoint(primary: Endpoint): Endpoint | undefined {
    const count = this.endpoints.length;
    const start = this.endpoints.indexOf(primary);
    const at = now();
    for (let step = 1; step < count; step++) {
      const endpoint = this.endpoints[(start + step) % count]!;
      if (endpoint.coolUntil <= at) return endpoint;
    }
    return undefined;
  }

  /**
   * One attempt at `members`: an HTTP request to `primary` and, when it is slow to answer, a hedge
   * to the next endpoint. Every exchange that finished is judged (cool-down, current endpoint,
   * error counts); resolves with the result the caller acts on.
   */
  private attempt(primary: Endpoint, members: Member[], deadline: number): Promise<AttemptResult> {
    const body = members.length === 1 ? members[0]!.json : `[${members.map((member) => member.json).join(',')}]`;
    if (this.hedgeMs === 0) {
      return this.send(primary, body, members, deadline, true).done.then((result) => {
        this.judge(primary, members, result);
        return result;
      });
    }
    return new Promise<AttemptResult>((resolve) => {
      let hedge: Exchange | undefined;
      let hedgeTimer: NodeJS.Timeout | undefined;
      let inFlight = 1;
      let settled = false;
      /** The better of the results that were not clean, for when no exchange answers cleanly. */
      let fallback: AttemptResult | undefined;

      const settle = (result: AttemptResult, winner: Exchange | undefined): void => {
        settled = true;
        clearTimeout(hedgeTimer);
        if (hedge !== undefined) {
          if (winner === hedge) primaryExchange.abort();
          else if (winner !== undefined) hedge.abort();
          this.observer.rpcHedge?.(winner === undefined ? 'failed' : winner === hedge ? 'won' : 'lost');
        }
        resolve(result);
      };
      const finished = (exchange: Exchange, result: AttemptResult): void => {
        inFlight--;
        this.judge(exchange.endpoint, members, result);
        if (settled) return;
        if (isClean(result)) return settle(result, exchange);
        fallback = preferred(fallback, result);
        // Otherwise wait for the other request; with none in flight, the hedge is not needed any more.
        if (inFlight === 0) settle(fallback, undefined);
      };
      const sendHedge = (): void => {
        hedgeTimer = undefined;
        if (settled || deadline - now() <= 0) return;
        const endpoint = this.hedgeEndpoint(primary);
        if (endpoint === undefined) return;
        const sent = this.send(endpoint, body, members, deadline, false);
        hedge = sent;
        inFlight++;
        void sent.done.then((result) => finished(sent, result));
      };
      // The hedge clock starts when the request is on its way, not while it waits for a slot.
      const primaryExchange = this.send(primary, body, members, deadline, true, () => {
        hedgeTimer = setTimeout(sendHedge, this.hedgeMs);
      });
      void primaryExchange.done.then((result) => finished(primaryExchange, result));
    });
  }

  /**
   * One HTTP POST of `body` (the calls of `members`). `limited`: waits for a concurrency slot
   * first. Never rejects.
   */
  private send(endpoint: Endpoint, body: string, members: Member[], deadline: number, limited: boolean, onSent?: () => void): Exchange {
    const controller = new AbortController();
    const exchange = async (): Promise<AttemptResult | RawReply> => {
      if (controller.signal.aborted) return LOST;
      const startedAt = now();
      const left = deadline - startedAt;
      if (left <= 0) return { kind: 'failed', reason: NO_TIME_TO_RETRY, permanent: false, retryAfterMs: 0, blame: 'none' };
      this.counters.httpRequests++;
      for (const member of members) {
        this.counters.rpcCalls[member.method] = (this.counters.rpcCalls[member.method] ?? 0) + 1;
        this.observer.rpcCall?.(member.method);
      }
      onSent?.();
      const byDeadline = left < this.config.rpcTimeoutMs;
      const timer = setTimeout(() => controller.abort(byDeadline ? ABORT_DEADLINE : ABORT_TIMEOUT), byDeadline ? left : this.config.rpcTimeoutMs);
      try {
        const response = await this.fetchImpl(endpoint.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          signal: controller.signal,
        });
        // Read the body even on errors so the keep-alive connection can be reused.
        const text = await response.text();
        if (response.status === 429 || response.status >= 500) this.limiter.overloaded();
        else this.limiter.succeeded(now() - startedAt);
        return { status: response.status, retryAfterMs: parseRetryAfter(response.headers.get('retry-after')), text };
      } catch (error) {
        const why: unknown = controller.signal.aborted ? controller.signal.reason : undefined;
        if (why === ABORT_LOST) return LOST;
        if (why === ABORT_DEADLINE) {
          // A provider given too little time to answer is not to blame for it.
          const blame = now() - startedAt >= this.minAttemptMs ? 'endpoint' : 'none';
          return { kind: 'failed', reason: NO_ANSWER_IN_TIME, permanent: false, retryAfterMs: 0, blame };
        }
        const reason = why === ABORT_TIMEOUT ? 'timed out' : describeFetchError(error);
        this.limiter.overloaded();
        return { kind: 'failed', reason, permanent: false, retryAfterMs: 0, blame: 'endpoint' };
      } finally {
        clearTimeout(timer);
      }
    };
    const done = (limited ? this.limiter.run(exchange) : exchange()).then((reply) => ('kind' in reply ? reply : interpret(reply, members)));
    return { endpoint, done, abort: () => controller.abort(ABORT_LOST) };
  }

  /** What an exchange says about its endpoint: cool it down, or make it the current one. */
  private judge(endpoint: Endpoint, members: Member[], result: AttemptResult): void {
    if (result.kind === 'failed') {
      if (result.blame === 'none') return;
      this.counters.errors++;
      const kind = failureKind(result.reason);
      for (const member of members) this.observer.rpcError?.(member.method, kind);
      if (!result.permanent) this.markFailed(endpoint, result.retryAfterMs);
      return;
    }
    let retryable = false;
    result.verdicts.forEach((verdict, i) => {
      if (verdict.ok) return;
      this.counters.errors++;
      this.observer.rpcError?.(members[i]!.method, 'rpc');
      if (!verdict.permanent) retryable = true;
    });
    // An unhealthy node (-32005 behind, missing answers) is as good as down: fail over.
    if (retryable) this.markFailed(endpoint, 0);
    else this.markGood(endpoint);
  }

  private markGood(endpoint: Endpoint): void {
    endpoint.consecutiveFailures = 0;
    endpoint.coolUntil = 0;
    this.current = this.endpoints.indexOf(endpoint);
  }

  private markFailed(endpoint: Endpoint, retryAfterMs: number): void {
    endpoint.consecutiveFailures++;
    const backoff = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (endpoint.consecutiveFailures - 1));
    const jittered = backoff * (0.5 + Math.random() / 2);
    endpoint.coolUntil = now() + Math.max(jittered, retryAfterMs);
    const index = this.endpoints.indexOf(endpoint);
    if (this.current === index) this.current = (index + 1) % this.endpoints.length;
  }
}

interface RawReply {
  status: number;
  retryAfterMs: number;
  text: string;
}

/** The result of a request aborted because the other request of its hedge won. */
const LOST: AttemptResult = { kind: 'failed', reason: 'lost the hedge', permanent: false, retryAfterMs: 0, blame: 'none' };

function interpret({ status, retryAfterMs, text }: RawReply, members: Member[]): AttemptResult {
  if (status === 413) return { kind: 'failed', reason: 'HTTP 413 (request too large)', permanent: true, retryAfterMs: 0, blame: 'endpoint' };
  if (status < 200 || status > 299) return { kind: 'failed', reason: `HTTP ${status}`, permanent: false, retryAfterMs, blame: 'endpoint' };
  let reply: unknown;
  try {
    reply = JSON.parse(text);
  } catch {
    return { kind: 'failed', reason: 'malformed JSON reply', permanent: false, retryAfterMs: 0, blame: 'endpoint' };
  }
  return { kind: 'answered', verdicts: matchReplies(reply, members).map((verdict, i) => parseVerdict(verdict, members[i]!)) };
}

/** Every call answered, or failed in a way no endpoint would answer differently. */
function isClean(result: AttemptResult): boolean {
  return result.kind === 'answered' && result.verdicts.every((verdict) => verdict.ok || verdict.permanent);
}

/** Of two unclean results, the one that tells the caller more: an answer beats a failure, a failure of the endpoint beats a lost or unsent request. */
function preferred(earlier: AttemptResult | undefined, later: AttemptResult): AttemptResult {
  if (earlier === undefined) return later;
  const rank = (result: AttemptResult): number => (result.kind === 'answered' ? 2 : result.blame === 'endpoint' ? 1 : 0);
  return rank(later) >= rank(earlier) ? later : earlier;
}

/** Greedy packing in order: a body closes when the next call would pass either limit. */
function packBodies(members: Member[]): Member[][] {
  const bodies: Member[][] = [];
  let body: Member[] = [];
  let bytes = 2; // the brackets
  for (const member of members) {
    const size = Buffer.byteLength(member.json) + 1; // and its comma
    if (body.length > 0 && (bytes + size > MAX_BODY_BYTES || body.length === MAX_CALLS_PER_BODY)) {
      bodies.push(body);
      body = [];
      bytes = 2;
    }
    body.push(member);
    bytes += size;
  }
  if (body.length > 0) bodies.push(body);
  return bodies;
}

/**
 * Answers are matched by id, never by position. An error with id null (the server could not read
 * the request, or refuses batches) answers every call of the body.
 */
function matchReplies(reply: unknown, members: Member[]): Verdict[] {
  const byId = new Map<unknown, unknown>();
  if (Array.isArray(reply)) {
    for (const item of reply) if (isObject(item)) byId.set(item.id, item);
  } else if (isObject(reply)) {
    if (reply.id === null && reply.error !== undefined && reply.error !== null) return members.map(() => judge(reply));
    byId.set(reply.id, reply);
  }
  return members.map((member) => judge(byId.get(member.id)));
}

function judge(reply: unknown): Verdict {
  if (!isObject(reply)) return { ok: false, permanent: false, reason: 'no answer in the reply' };
  if (reply.error !== undefined && reply.error !== null) {
    const code = isObject(reply.error) && typeof reply.error.code === 'number' ? reply.error.code : undefined;
    return { ok: false, permanent: code !== undefined && PERMANENT_CODES.has(code), reason: `JSON-RPC error ${code ?? '(no code)'}` };
  }
  if (!('result' in reply)) return { ok: false, permanent: false, reason: 'reply without result' };
  return { ok: true, result: reply.result };
}

/** Runs the member's parse: a wrong shape is retried like any bad answer; anything else is a bug, not retried. */
function parseVerdict(verdict: Verdict, member: Member): Verdict {
  if (!verdict.ok) return verdict;
  try {
    return { ok: true, result: member.parse(verdict.result) };
  } catch (error) {
    if (error instanceof MalformedReply) return { ok: false, permanent: false, reason: error.message };
    return { ok: false, permanent: true, reason: 'unreadable reply' };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Retry-After in seconds or as an HTTP date; 0 when absent or unreadable. */
function parseRetryAfter(header: string | null): number {
  if (header === null || header.trim() === '') return 0;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? 0 : Math.max(0, date - Date.now());
}

function describeFetchError(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'timed out';
  // undici's fetch puts the system error in `cause`; node:http (transport.ts) throws it as is.
  const own = error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string' ? (error as NodeJS.ErrnoException).code : undefined;
  const code = error instanceof Error && isObject(error.cause) && typeof error.cause.code === 'string' ? error.cause.code : own;
  return code ? `network error (${code})` : 'network error';
}

/** A metrics label for why an HTTP attempt failed. */
function failureKind(reason: string): string {
  if (reason === NO_ANSWER_IN_TIME) return 'deadline';
  if (reason.includes('429')) return 'rate_limited';
  if (/timed? ?out/i.test(reason)) return 'timeout';
  if (reason.startsWith('HTTP')) return 'http';
  if (reason.includes('malformed')) return 'malformed';
  return 'network';
}

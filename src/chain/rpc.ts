import pLimit, { type LimitFunction } from 'p-limit';
import type { Config } from '../config.js';
import { type GateError, upstreamUnavailable } from '../errors.js';
import { MalformedReply } from './replies.js';
import type { ChainObserver } from './types.js';

/**
 * Solana JSON-RPC over plain HTTP POST (global fetch: undici, keep-alive). Not web3.js
 * `Connection`: it retries 429 on its own for seconds and cannot batch.
 *
 * - Every HTTP attempt has its own timeout (RPC_TIMEOUT_MS) and waits for one of RPC_CONCURRENCY
 *   slots; waiting for a slot does not count against the timeout.
 * - Retryable: network errors, timeouts, non-2xx HTTP (429 and 403 are how providers rate-limit),
 *   malformed JSON, a missing answer, a result its `parse` rejects (MalformedReply), and every
 *   JSON-RPC error except PERMANENT_CODES.
 * - Failover: endpoints (SOLANA_RPC_URL, comma-separated) are used in order. The last one that
 *   answered stays current; one that fails cools down (exponential backoff with jitter, or its
 *   Retry-After if longer) and is tried again when another fails after that. A call gets one try
 *   per endpoint plus RPC_RETRIES more.
 * - Any final failure becomes GateError 503 UPSTREAM_UNAVAILABLE. Messages never contain the URL
 *   (it often carries an API key) nor the provider's error text.
 */

export interface RpcRequest<T = unknown> {
  method: string;
  params: unknown[];
  /** Checks and converts `result`; throws MalformedReply when the shape is wrong (then retried). */
  parse: (result: unknown) => T;
}

export type RpcOutcome<T = unknown> = { ok: true; result: T } | { ok: false; error: GateError };

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** The validator answers larger bodies with HTTP 413 (SOLANA.md). */
export const MAX_BODY_BYTES = 51_200;
/** Keeps one reply a manageable size (and under the batch caps some providers set); not a validator limit. */
export const MAX_CALLS_PER_BODY = 100;
/** Invalid params (-32602) and an unsupported transaction version (-32015): no endpoint will answer differently. */
const PERMANENT_CODES: ReadonlySet<number> = new Set([-32602, -32015]);
const BACKOFF_BASE_MS = 100;
const BACKOFF_MAX_MS = 2_000;
/** Longest a call waits for a cooling endpoint; a longer Retry-After fails the call at once. */
const MAX_WAIT_MS = 2_000;

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
  /** Epoch ms before which this endpoint is not used unless every endpoint is cooling. */
  coolUntil: number;
}

type Verdict = { ok: true; result: unknown } | { ok: false; permanent: boolean; reason: string };

/** What one HTTP attempt did: HTTP-level failure (all members), or per-member verdicts. */
type AttemptResult =
  | { kind: 'failed'; reason: string; permanent: boolean; retryAfterMs: number }
  | { kind: 'answered'; verdicts: Verdict[] };

export interface RpcStats {
  /** HTTP POSTs sent, retries included. */
  httpRequests: number;
  /** JSON-RPC calls sent per method, each batch member and each retry counted. */
  rpcCalls: Record<string, number>;
  /** Failed HTTP attempts plus failed calls inside answered batches (error, no answer, wrong shape). */
  errors: number;
}

export class RpcClient {
  private readonly endpoints: Endpoint[];
  private current = 0;
  private nextId = 1;
  private readonly limit: LimitFunction;
  private readonly counters: RpcStats = { httpRequests: 0, rpcCalls: {}, errors: 0 };

  constructor(
    private readonly config: Pick<Config, 'rpcUrls' | 'rpcConcurrency' | 'rpcTimeoutMs' | 'rpcRetries'>,
    private readonly fetchImpl: FetchLike = (url, init) => fetch(url, init),
    private readonly observer: ChainObserver = {},
  ) {
    if (config.rpcUrls.length === 0) throw new TypeError('at least one RPC URL is required');
    this.endpoints = config.rpcUrls.map((url) => ({ url, consecutiveFailures: 0, coolUntil: 0 }));
    this.limit = pLimit(config.rpcConcurrency);
  }

  /** One call; its parsed `result`, or a thrown 503. */
  async call<T>(method: string, params: unknown[], parse: (result: unknown) => T): Promise<T> {
    const [outcome] = await this.batch([{ method, params, parse }]);
    if (!outcome!.ok) throw outcome!.error;
    return outcome!.result;
  }

  /**
   * Many calls in as few HTTP requests as MAX_BODY_BYTES / MAX_CALLS_PER_BODY allow, bodies sent in
   * parallel under the concurrency limit. One outcome per request, in order; never rejects.
   */
  async batch<T>(requests: readonly RpcRequest<T>[]): Promise<RpcOutcome<T>[]> {
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
    await Promise.all(packBodies(sendable).map((members) => this.sendWithRetries(members, outcomes)));
    return outcomes as RpcOutcome<T>[];
  }

  stats(): RpcStats {
    return { ...this.counters, rpcCalls: { ...this.counters.rpcCalls } };
  }

  private async sendWithRetries(members: Member[], outcomes: RpcOutcome[]): Promise<void> {
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
    for (let attempt = 1; pending.length > 0; attempt++) {
      const choice = await this.chooseEndpoint();
      if ('waitMs' in choice) {
        for (const member of pending) fail(member, 'every RPC endpoint is rate limited or failing', choice.waitMs);
        return;
      }
      const endpoint = choice.endpoint;
      const result = await this.attempt(endpoint, pending);
      const retry: Member[] = [];
      let lastReason = '';
      let lastRetryAfterMs = 0;
      if (result.kind === 'failed') {
        this.counters.errors++;
        const kind = failureKind(result.reason);
        for (const member of pending) this.observer.rpcError?.(member.method, kind);
        if (result.permanent) {
          for (const member of pending) fail(member, result.reason);
          return;
        }
        retry.push(...pending);
        lastReason = result.reason;
        lastRetryAfterMs = result.retryAfterMs;
        this.markFailed(endpoint, result.retryAfterMs);
      } else {
        result.verdicts.forEach((verdict, i) => {
          const member = pending[i]!;
          if (verdict.ok) outcomes[member.index] = { ok: true, result: verdict.result };
          else {
            this.counters.errors++;
            this.observer.rpcError?.(member.method, 'rpc');
            if (verdict.permanent) fail(member, verdict.reason);
            else {
              retry.push(member);
              lastReason = verdict.reason;
            }
          }
        });
        // An unhealthy node (-32005 behind, missing answers) is as good as down: fail over.
        if (retry.length > 0) this.markFailed(endpoint, 0);
        else this.markGood(endpoint);
      }
      if (retry.length > 0 && attempt >= maxAttempts) {
        for (const member of retry) fail(member, lastReason, lastRetryAfterMs);
        return;
      }
      pending = retry;
    }
  }

  /** The current endpoint, or the first one not cooling down, or (after a short wait) the one that cools first. */
  private async chooseEndpoint(): Promise<{ endpoint: Endpoint } | { waitMs: number }> {
    const now = Date.now();
    const count = this.endpoints.length;
    let soonest: Endpoint | undefined;
    for (let step = 0; step < count; step++) {
      const endpoint = this.endpoints[(this.current + step) % count]!;
      if (endpoint.coolUntil <= now) return { endpoint };
      if (soonest === undefined || endpoint.coolUntil < soonest.coolUntil) soonest = endpoint;
    }
    const waitMs = soonest!.coolUntil - now;
    if (waitMs > MAX_WAIT_MS) return { waitMs };
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    return { endpoint: soonest! };
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
    endpoint.coolUntil = Date.now() + Math.max(jittered, retryAfterMs);
    const index = this.endpoints.indexOf(endpoint);
    if (this.current === index) this.current = (index + 1) % this.endpoints.length;
  }

  /** One HTTP POST of `members` (a plain object body for one call, an array for several). */
  private async attempt(endpoint: Endpoint, members: Member[]): Promise<AttemptResult> {
    const body = members.length === 1 ? members[0]!.json : `[${members.map((member) => member.json).join(',')}]`;
    for (const member of members) {
      this.counters.rpcCalls[member.method] = (this.counters.rpcCalls[member.method] ?? 0) + 1;
      this.observer.rpcCall?.(member.method);
    }
    let status: number;
    let retryAfterMs = 0;
    let text: string;
    try {
      ({ status, retryAfterMs, text } = await this.limit(async () => {
        this.counters.httpRequests++;
        const response = await this.fetchImpl(endpoint.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(this.config.rpcTimeoutMs),
        });
        // Read the body even on errors so the keep-alive connection can be reused.
        return { status: response.status, retryAfterMs: parseRetryAfter(response.headers.get('retry-after')), text: await response.text() };
      }));
    } catch (error) {
      return { kind: 'failed', reason: describeFetchError(error), permanent: false, retryAfterMs: 0 };
    }
    if (status === 413) return { kind: 'failed', reason: 'HTTP 413 (request too large)', permanent: true, retryAfterMs: 0 };
    if (status < 200 || status > 299) return { kind: 'failed', reason: `HTTP ${status}`, permanent: false, retryAfterMs };
    let reply: unknown;
    try {
      reply = JSON.parse(text);
    } catch {
      return { kind: 'failed', reason: 'malformed JSON reply', permanent: false, retryAfterMs: 0 };
    }
    return { kind: 'answered', verdicts: matchReplies(reply, members).map((verdict, i) => parseVerdict(verdict, members[i]!)) };
  }
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
  const code = error instanceof Error && isObject(error.cause) && typeof error.cause.code === 'string' ? error.cause.code : undefined;
  return code ? `network error (${code})` : 'network error';
}

/** A metrics label for why an HTTP attempt failed. */
function failureKind(reason: string): string {
  if (reason.includes('429')) return 'rate_limited';
  if (/timed? ?out/i.test(reason)) return 'timeout';
  if (reason.startsWith('HTTP')) return 'http';
  if (reason.includes('malformed')) return 'malformed';
  return 'network';
}

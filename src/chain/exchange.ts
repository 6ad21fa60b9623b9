import type { AdaptiveLimit } from './adaptive-limit.js';
import { budgetWait } from './budget-wait.js';
import { isObject } from './replies.js';
import { type AttemptFailure, type AttemptResult, judgeReply, type RawReply } from './reply-verdict.js';
import type { RpcEndpoint } from './rpc-endpoint.js';
import type { Member } from './rpc-request.js';
import type { RpcStats } from './rpc-stats.js';
import type { SlotView } from './slot-view.js';
import { type FetchLike, RESPONSE_TOO_LARGE } from './transport.js';
import type { ChainObserver } from './types.js';

/**
 * One HTTP POST of one body to one endpoint, and its reply judged (reply-verdict.ts). It waits for
 * a concurrency slot first (adaptive-limit.ts) unless it is a hedge, then for the endpoint's call
 * budget (budget-wait.ts). Waiting does not count against its timeout (RPC_TIMEOUT_MS), only
 * against the call's deadline: the attempt's timeout is min(RPC_TIMEOUT_MS, time left), and it is
 * aborted when the deadline comes. Never rejects.
 */

/** An HTTP attempt under way. */
export interface Exchange {
  endpoint: RpcEndpoint;
  done: Promise<AttemptResult>;
  /** Gives it up: the other request of its hedge won. */
  abort(): void;
}

/** What every exchange of one client shares. */
export interface ExchangeContext {
  fetch: FetchLike;
  limiter: AdaptiveLimit;
  stats: RpcStats;
  observer: ChainObserver;
  slots: SlotView;
  /** RPC_TIMEOUT_MS. */
  timeoutMs: number;
  /** Below this much time left a provider is not to blame for not answering (min(RPC_TIMEOUT_MS, MIN_ATTEMPT_MS)). */
  minAttemptMs: number;
  /** RPC_MIN_RETRY_AFTER_MS. */
  minRetryAfterMs: number;
}

/** Reasons a call fails for lack of time: no attempt fits before its deadline; the attempt in flight was cut by it. */
export const NO_TIME_TO_RETRY = 'no time left for another attempt within LOGIN_TIMEOUT_MS';
export const NO_ANSWER_IN_TIME = 'no answer within the login\'s time budget (LOGIN_TIMEOUT_MS)';

/** Why an attempt was aborted (passed to AbortController.abort, so fetch rejects with it). */
const ABORT_TIMEOUT = { abort: 'timeout' } as const;
const ABORT_DEADLINE = { abort: 'deadline' } as const;
const ABORT_LOST = { abort: 'lost' } as const;

/** The result of a request aborted because the other request of its hedge won. */
const LOST: AttemptResult = { kind: 'failed', reason: 'lost the hedge', permanent: false, retryAfterMs: 0, blame: 'none' };

const now = (): number => performance.now();

/**
 * Sends `body` (the calls of `members`) to `endpoint`. `limited`: waits for a concurrency slot
 * first. `onSent`: called when the request is on its way.
 */
export function sendExchange(
  context: ExchangeContext,
  endpoint: RpcEndpoint,
  body: string,
  members: readonly Member[],
  deadline: number,
  limited: boolean,
  onSent?: () => void,
): Exchange {
  const { limiter, stats, observer } = context;
  const controller = new AbortController();
  // Paced inside the concurrency slot: the calls are booked in the budget when nothing but the
  // budget's own wait stands between them and the wire. Booked before a wait for a slot, a request
  // held there (a round trip or more) would land in the provider's next window beside the
  // requests booked for it, and a window would hold more than the budget.
  const paced = async (): Promise<AttemptResult | RawReply> => {
    const waitMs = budgetWait(endpoint, members, deadline, context.minAttemptMs);
    if (typeof waitMs !== 'number') {
      stats.budgetRefusedCalls += members.length;
      return waitMs;
    }
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    return exchange();
  };
  const exchange = async (): Promise<AttemptResult | RawReply> => {
    if (controller.signal.aborted) return LOST;
    const startedAt = now();
    const left = deadline - startedAt;
    if (left <= 0) return { kind: 'failed', reason: NO_TIME_TO_RETRY, permanent: false, retryAfterMs: 0, blame: 'none' };
    stats.httpRequests++;
    endpoint.learnedBudget.sent(members.length);
    observer.callBudget?.(endpoint.budgetInForce()?.perSecond ?? 0);
    for (const member of members) {
      stats.rpcCalls[member.method] = (stats.rpcCalls[member.method] ?? 0) + 1;
      observer.rpcCall?.(member.method);
    }
    onSent?.();
    const byDeadline = left < context.timeoutMs;
    const timer = setTimeout(() => controller.abort(byDeadline ? ABORT_DEADLINE : ABORT_TIMEOUT), byDeadline ? left : context.timeoutMs);
    try {
      const response = await context.fetch(endpoint.url, {
        method: 'POST',
        // Answers of thousands of accounts shrink several times; a provider may always answer plain.
        headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip' },
        body,
        signal: controller.signal,
      });
      // Read the body even on errors so the keep-alive connection can be reused.
      const text = await response.text();
      if (response.status === 429 || response.status >= 500) limiter.overloaded();
      else limiter.succeeded(now() - startedAt);
      return { status: response.status, retryAfter: response.headers.get('retry-after'), text };
    } catch (error) {
      const why: unknown = controller.signal.aborted ? controller.signal.reason : undefined;
      if (why === ABORT_LOST) return LOST;
      if (why === ABORT_DEADLINE) {
        // A provider given too little time to answer is not to blame for it.
        const reason = NO_ANSWER_IN_TIME;
        if (now() - startedAt < context.minAttemptMs) return { kind: 'failed', reason, permanent: false, retryAfterMs: 0, blame: 'none' };
        return { kind: 'failed', reason, permanent: false, retryAfterMs: 0, blame: 'endpoint', failure: 'deadline' };
      }
      const { reason, failure } = why === ABORT_TIMEOUT ? { reason: 'timed out', failure: 'timeout' as const } : describeFetchError(error);
      // An answer over RPC_MAX_RESPONSE_BYTES is not a sign of overload.
      if (!reason.includes(RESPONSE_TOO_LARGE)) limiter.overloaded();
      return { kind: 'failed', reason, permanent: false, retryAfterMs: 0, blame: 'endpoint', failure };
    } finally {
      clearTimeout(timer);
    }
  };
  // Whether it is paced is decided when its slot is free, not when it was queued for one: a budget
  // learned meanwhile (the first refusals of a burst) paces the requests still waiting.
  const attempt = (): Promise<AttemptResult | RawReply> => (endpoint.budgetInForce() !== undefined || endpoint.scanBudget !== undefined ? paced() : exchange());
  const done = (limited ? limiter.run(attempt) : attempt()).then((reply) =>
    'kind' in reply ? reply : judgeReply(reply, members, { endpoint, slots: context.slots, minRetryAfterMs: context.minRetryAfterMs, at: now() }),
  );
  return { endpoint, done, abort: () => controller.abort(ABORT_LOST) };
}

/** Why a fetch failed, in words that never carry the URL or the provider's text, and its metrics label. */
function describeFetchError(error: unknown): { reason: string; failure: AttemptFailure } {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return { reason: 'timed out', failure: 'timeout' };
  // undici's fetch puts the system error in `cause`; node:http (transport.ts) throws it as is.
  const own = error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string' ? (error as NodeJS.ErrnoException).code : undefined;
  const code = error instanceof Error && isObject(error.cause) && typeof error.cause.code === 'string' ? error.cause.code : own;
  if (!code) return { reason: 'network error', failure: 'network' };
  // ETIMEDOUT, UND_ERR_CONNECT_TIMEOUT, UND_ERR_HEADERS_TIMEOUT…: a timeout, not a refused connection.
  return { reason: `network error (${code})`, failure: /timed? ?out/i.test(code) ? 'timeout' : 'network' };
}

import { upstreamUnavailable } from '../errors.js';
import { MAX_BODY_BYTES, packBodies } from './batch-limits.js';
import { NO_ANSWER_IN_TIME, NO_TIME_TO_RETRY } from './exchange.js';
import type { CatchUp, Failover } from './failover.js';
import type { AttemptResult } from './reply-verdict.js';
import type { RpcEndpoint } from './rpc-endpoint.js';
import type { Member, RpcOutcome } from './rpc-request.js';

/**
 * The retry loop: a set of calls is sent until each has an outcome. A call gets one try per
 * endpoint plus RPC_RETRIES more, each on the endpoint Failover chooses, and a retry only while it
 * fits before the deadline (the first attempt is always made while any time is left). A refused
 * array is split for the endpoint's learned limits and sent again at once, without counting as a
 * try; calls of a method an endpoint refuses for good go to another one; calls no endpoint serves,
 * and calls the call budget cannot send in time, fail at once.
 */

/** A bound on how often one set of calls is split after refused arrays (each refusal lowers a limit, so it ends anyway). */
const MAX_SPLITS = 16;

export interface RetryContext {
  failover: Failover;
  /** One attempt (hedged or not), already recorded against its endpoint. */
  attempt(endpoint: RpcEndpoint, members: Member[], deadline: number): Promise<AttemptResult>;
  /** One try per endpoint plus RPC_RETRIES. */
  maxAttempts: number;
  /** RPC_REPROBE_MS: the longest Retry-After of a call no endpoint serves. */
  reprobeMs: number;
  /** RPC_MIN_RETRY_AFTER_MS: the Retry-After of a call last refused as rate limited. */
  minRetryAfterMs: number;
}

/** How far one set of calls has got: its try number, splits after refused arrays, and why the last try failed. */
interface Progress {
  attempt: number;
  splits: number;
  lastReason: string;
  lastRetryAfterMs: number;
}

const now = (): number => performance.now();

/** Sends `members` until each has its outcome in `outcomes` (an answer, or a 503 carrying the provider's Retry-After). */
export async function sendWithRetries(
  context: RetryContext,
  members: Member[],
  outcomes: RpcOutcome[],
  deadline: number,
  progress: Progress = { attempt: 1, splits: 0, lastReason: '', lastRetryAfterMs: 0 },
): Promise<void> {
  const { failover } = context;
  const fail = (member: Member, reason: string, retryAfterMs = 0): void => {
    const reasonText = `${member.method}: ${reason}`;
    outcomes[member.index] = {
      ok: false,
      error: retryAfterMs > 0 ? upstreamUnavailable(reasonText, Math.ceil(retryAfterMs / 1000)) : upstreamUnavailable(reasonText),
    };
  };
  let pending = members;
  // An endpoint a few slots short of the calls' minimum, and until when it cannot have caught up.
  let catchUp: CatchUp | undefined;
  while (pending.length > 0) {
    const at = now();
    // A method every endpoint refuses for good: answered at once, not at the deadline.
    pending = pending.filter((member) => {
      const until = failover.everyEndpointRefuses(member.method, at);
      if (until === undefined) return true;
      fail(member, 'every RPC endpoint refuses this method', Math.min(until - at, context.reprobeMs));
      return false;
    });
    if (pending.length === 0) return;
    const methods = new Set(pending.map((member) => member.method));
    if (methods.size > 1 && !failover.someServesAll(methods, at)) {
      // No endpoint takes them all: each method goes where it is served.
      const byMethod = new Map<string, Member[]>();
      for (const member of pending) byMethod.set(member.method, [...(byMethod.get(member.method) ?? []), member]);
      await Promise.all([...byMethod.values()].map((group) => sendWithRetries(context, group, outcomes, deadline, { ...progress })));
      return;
    }
    const choice = await failover.choose(deadline, progress.attempt > 1, catchUp, methods);
    catchUp = undefined;
    if ('why' in choice) {
      const { lastReason } = progress;
      // "No answer in time" already says there is no time left.
      const redundant = lastReason === choice.why || (lastReason === NO_ANSWER_IN_TIME && choice.why === NO_TIME_TO_RETRY);
      const reason = lastReason === '' ? choice.why : redundant ? lastReason : `${lastReason}; ${choice.why}`;
      for (const member of pending) fail(member, reason, Math.max(choice.waitMs, progress.lastRetryAfterMs));
      return;
    }
    if (pending.length > 1) {
      const bodies = packBodies(pending, choice.endpoint.batchLimits, MAX_BODY_BYTES);
      if (bodies.length > 1) {
        await Promise.all(bodies.map((body) => sendWithRetries(context, body, outcomes, deadline, { ...progress })));
        return;
      }
    }
    const result = await context.attempt(choice.endpoint, pending, deadline);
    const retry: Member[] = [];
    if (result.kind === 'failed') {
      const refusal = result.blame === 'none' ? result.refusal : undefined;
      if (refusal === 'array' && progress.splits < MAX_SPLITS) {
        // The endpoint learned its limit when the attempt was recorded: the same calls go again, split, not as a retry.
        progress.splits++;
        continue;
      }
      if (refusal === 'budget' || result.permanent) {
        for (const member of pending) fail(member, result.reason, result.retryAfterMs);
        return;
      }
      retry.push(...pending);
      progress.lastReason = result.reason;
      progress.lastRetryAfterMs = result.retryAfterMs;
    } else {
      result.verdicts.forEach((verdict, i) => {
        const member = pending[i]!;
        if (verdict.ok) outcomes[member.index] = { ok: true, result: verdict.result };
        else if (verdict.permanent) fail(member, verdict.reason);
        else {
          retry.push(member);
          progress.lastReason = verdict.reason;
          if (verdict.failure === 'rate_limited') progress.lastRetryAfterMs = Math.max(progress.lastRetryAfterMs, context.minRetryAfterMs);
          if (verdict.catchUpMs !== undefined) {
            const untilMs = now() + verdict.catchUpMs;
            if (catchUp === undefined || untilMs > catchUp.untilMs) catchUp = { endpoint: result.endpoint, untilMs };
          }
        }
      });
    }
    if (retry.length > 0 && progress.attempt >= context.maxAttempts) {
      for (const member of retry) fail(member, progress.lastReason, progress.lastRetryAfterMs);
      return;
    }
    progress.attempt++;
    pending = retry;
  }
}

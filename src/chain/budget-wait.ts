import type { AttemptResult } from './reply-verdict.js';
import type { RpcEndpoint } from './rpc-endpoint.js';
import type { Member } from './rpc-request.js';

/**
 * Pacing by an endpoint's call budget (call-budget.ts): RPC_CALLS_PER_SECOND and, for
 * getProgramAccounts, RPC_SCANS_PER_SECOND; without RPC_CALLS_PER_SECOND, the budget learned from
 * the endpoint's rate-limit refusals (learned-budget.ts). A request waits for its members' share
 * before it is sent, inside its concurrency slot (exchange.ts says why).
 */

/**
 * How long `members` wait for `endpoint`'s call budget, taking their share of it; or, when that
 * wait would leave less than `minAttemptMs` for the attempt before `deadline`, a refusal that fails
 * them at once with the wait as Retry-After (nothing taken).
 */
export function budgetWait(endpoint: RpcEndpoint, members: readonly Member[], deadline: number, minAttemptMs: number): number | AttemptResult {
  const { scanBudget } = endpoint;
  const callBudget = endpoint.budgetInForce();
  if (callBudget === undefined && scanBudget === undefined) return 0;
  const scans = scanBudget === undefined ? 0 : members.filter((member) => member.method === 'getProgramAccounts').length;
  const waitMs = Math.max(callBudget?.waitFor(members.length) ?? 0, scans > 0 ? scanBudget!.waitFor(scans) : 0);
  if (waitMs > 0 && performance.now() + waitMs + minAttemptMs > deadline) {
    const reason = `the RPC call budget (RPC_CALLS_PER_SECOND / RPC_SCANS_PER_SECOND, or as learned from the provider's refusals) cannot send this within LOGIN_TIMEOUT_MS (${Math.ceil(waitMs)} ms queued)`;
    return { kind: 'failed', reason, permanent: false, retryAfterMs: Math.max(waitMs, 1000), blame: 'none', refusal: 'budget' };
  }
  callBudget?.take(members.length);
  if (scans > 0) scanBudget!.take(scans);
  return waitMs;
}

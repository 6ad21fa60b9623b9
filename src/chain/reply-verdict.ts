import { errorObject, isMethodRefusal, isMethodRefusalAnswer, isRateLimitError, refusesArray } from './provider-answers.js';
import { isObject, MalformedReply } from './replies.js';
import type { RpcEndpoint } from './rpc-endpoint.js';
import type { Member } from './rpc-request.js';
import { contextSlotOf, isSlot, MIN_CONTEXT_SLOT_NOT_REACHED, type Shortfall, type SlotView } from './slot-view.js';

/**
 * The one place an RPC reply is judged: judgeReply turns an HTTP reply (status, Retry-After, body
 * text) into what the attempt came to — a failure of the whole body, or one verdict per member and
 * what the verdicts say about the endpoint. The client acts on the result without reading the reply
 * again (rpc.ts): it retries, fails or answers each call, and cools the endpoint down or keeps it.
 *
 * Retryable: non-2xx HTTP (429 is how providers rate-limit), malformed JSON, a missing answer, a
 * result its `parse` rejects (MalformedReply), a reply older than its read may be (slot-view.ts),
 * and every JSON-RPC error except PERMANENT_CODES. The shapes providers use to refuse an array, a
 * method, or calls over a budget are recognised by provider-answers.ts.
 */

/** Invalid params (-32602) and an unsupported transaction version (-32015): no endpoint will answer differently. */
const PERMANENT_CODES: ReadonlySet<number> = new Set([-32602, -32015]);
/** "Transaction history is not available from this node". */
export const TRANSACTION_HISTORY_NOT_AVAILABLE = -32011;

/**
 * Why a member failed, as metrics name it (ChainObserver.rpcError): `behind` — its node answered
 * from, or is at, a slot older than the read needs; `rate_limited` — over a budget that counts
 * calls, not a failure of the node; `method_refused` — this endpoint does not serve the method.
 */
export type MemberFailure = 'rpc' | 'behind' | 'rate_limited' | 'method_refused';

/** One member's verdict. `catchUpMs`: see Shortfall. */
export type Verdict =
  | { ok: true; result: unknown }
  | { ok: false; permanent: boolean; reason: string; failure: MemberFailure; catchUpMs?: number };

/** Why a whole attempt failed at its endpoint, as metrics name it. */
export type AttemptFailure = 'timeout' | 'deadline' | 'rate_limited' | 'http' | 'malformed' | 'network';

/**
 * A failed attempt that is not the endpoint failing: `array` — it refused the array as such (split
 * and send again); `method` — it does not serve the (single) call's method; `budget` — the call
 * budget could not send it before the deadline, so nothing was sent.
 */
export type Refusal = 'array' | 'method' | 'budget';

/**
 * What an answered attempt says about its endpoint: `rate_limited` — some member was over a budget
 * (it rests); `failing` — a member failed in a way another endpoint may not (it cools down);
 * `good` — it becomes the current endpoint.
 */
export type EndpointHealth = 'good' | 'failing' | 'rate_limited';

/**
 * What one HTTP attempt did: a failure of the whole body, or per-member verdicts. A failure's
 * `blame` says whether it says anything about the endpoint: `none` for a refusal, a request lost to
 * the other one of a hedge, or one there was no time to send.
 */
export type AttemptResult =
  | ({ kind: 'failed'; reason: string; permanent: boolean; retryAfterMs: number } & (
      | { blame: 'endpoint'; failure: AttemptFailure }
      | { blame: 'none'; refusal?: Refusal }
    ))
  | { kind: 'answered'; verdicts: Verdict[]; endpoint: RpcEndpoint; health: EndpointHealth };

/** An HTTP reply as read off the wire. */
export interface RawReply {
  status: number;
  /** The Retry-After header (null: absent). */
  retryAfter: string | null;
  text: string;
}

export interface ReplyContext {
  endpoint: RpcEndpoint;
  slots: SlotView;
  /** RPC_MIN_RETRY_AFTER_MS: the rest a 429 asks for when it names no Retry-After. */
  minRetryAfterMs: number;
  /** performance.now() ms when the reply was read. */
  at: number;
}

/** What `reply`, the answer to a body of `members`, came to; the slots it carries are recorded in `context.slots`. */
export function judgeReply({ status, retryAfter, text }: RawReply, members: readonly Member[], context: ReplyContext): AttemptResult {
  const isArray = members.length > 1;
  let reply: unknown;
  let readable = true;
  try {
    reply = JSON.parse(text);
  } catch {
    readable = false;
  }
  // Batches off, or over a cap: the endpoint is fine, the array was too much.
  if (isArray && refusesArray(status, reply)) return refused(`array of ${members.length} calls refused (HTTP ${status})`, 'array');
  if (!isArray && isMethodRefusalAnswer(status, reply)) return refused(`method refused by this endpoint (HTTP ${status})`, 'method');
  if (status === 413) return { kind: 'failed', reason: 'HTTP 413 (request too large)', permanent: true, retryAfterMs: 0, blame: 'endpoint', failure: 'http' };
  if (status < 200 || status > 299) {
    // A 429 that does not say how long to wait still asks for a rest (some providers mean 10 s).
    const retryAfterMs = status === 429 ? Math.max(parseRetryAfter(retryAfter), context.minRetryAfterMs) : parseRetryAfter(retryAfter);
    return { kind: 'failed', reason: `HTTP ${status}`, permanent: false, retryAfterMs, blame: 'endpoint', failure: status === 429 ? 'rate_limited' : 'http' };
  }
  if (!readable) return { kind: 'failed', reason: 'malformed JSON reply', permanent: false, retryAfterMs: 0, blame: 'endpoint', failure: 'malformed' };
  const verdicts = matchReplies(reply, members).map((memberReply, i) => memberVerdict(memberReply, members[i]!, context));
  return { kind: 'answered', endpoint: context.endpoint, verdicts, health: healthOf(verdicts) };
}

function refused(reason: string, refusal: Refusal): AttemptResult {
  return { kind: 'failed', reason, permanent: false, retryAfterMs: 0, blame: 'none', refusal };
}

/**
 * A member's answer: an error, a reply from a slot older than the member's minimum or than the
 * chain has reached lately, or the parsed result.
 */
function memberVerdict(reply: unknown, member: Member, context: ReplyContext): Verdict {
  if (!isObject(reply)) return retryable('no answer in the reply');
  if (reply.error !== undefined && reply.error !== null) return errorVerdict(reply.error, member, context);
  if (!('result' in reply)) return retryable('reply without result');
  const { result } = reply;
  const { endpoint, slots, at } = context;
  const slot = contextSlotOf(result);
  if (slot !== undefined) {
    const shortfall = slots.checkReply(endpoint, slot, member.minSlot, at);
    if (shortfall !== undefined) return behind(shortfall);
  }
  try {
    return { ok: true, result: member.parse(result, { endpoint, slot }) };
  } catch (error) {
    // A wrong shape is retried like any bad answer; anything else is a bug, not retried.
    if (error instanceof MalformedReply) return retryable(error.message);
    return { ok: false, permanent: true, reason: 'unreadable reply', failure: 'rpc' };
  }
}

function errorVerdict(error: unknown, member: Member, { endpoint, slots, at }: ReplyContext): Verdict {
  const code = isObject(error) && typeof error.code === 'number' ? error.code : undefined;
  if (code === MIN_CONTEXT_SLOT_NOT_REACHED) {
    const data = isObject(error) && isObject(error.data) ? error.data : undefined;
    const nodeSlot = data !== undefined && isSlot(data.contextSlot) ? data.contextSlot : undefined;
    return behind(slots.notReached(endpoint, nodeSlot, member.minSlot, at));
  }
  if (code === TRANSACTION_HISTORY_NOT_AVAILABLE) return retryable(`no transaction history on this node (${code})`);
  const described = errorObject(error);
  if (isRateLimitError(described)) return { ok: false, permanent: false, reason: `rate limited (JSON-RPC error ${code ?? '(no code)'})`, failure: 'rate_limited' };
  if (isMethodRefusal(described)) return { ok: false, permanent: false, reason: `method refused by this endpoint (JSON-RPC error ${code})`, failure: 'method_refused' };
  return { ok: false, permanent: code !== undefined && PERMANENT_CODES.has(code), reason: `JSON-RPC error ${code ?? '(no code)'}`, failure: 'rpc' };
}

/** A member's failure that another attempt, here or elsewhere, may not repeat. */
function retryable(reason: string): Verdict {
  return { ok: false, permanent: false, reason, failure: 'rpc' };
}

function behind({ reason, catchUpMs }: Shortfall): Verdict {
  return catchUpMs === undefined ? { ok: false, permanent: false, reason, failure: 'behind' } : { ok: false, permanent: false, reason, failure: 'behind', catchUpMs };
}

function healthOf(verdicts: readonly Verdict[]): EndpointHealth {
  let failing = false;
  for (const verdict of verdicts) {
    if (verdict.ok || verdict.failure === 'method_refused') continue;
    if (verdict.failure === 'rate_limited') return 'rate_limited';
    // A node a few slots short of one call's minimum is not failing: the others use it on. An
    // unhealthy node (-32005, fallen behind, missing answers) is as good as down: fail over.
    if (!verdict.permanent && verdict.catchUpMs === undefined) failing = true;
  }
  return failing ? 'failing' : 'good';
}

/**
 * Each member's reply object, matched by id, never by position. An error with id null (the server
 * could not read the request, or refuses batches) answers every call of the body.
 */
function matchReplies(reply: unknown, members: readonly Member[]): unknown[] {
  if (isObject(reply) && reply.id === null && reply.error !== undefined && reply.error !== null) return members.map(() => reply);
  const byId = new Map<unknown, unknown>();
  if (Array.isArray(reply)) {
    for (const item of reply) if (isObject(item)) byId.set(item.id, item);
  } else if (isObject(reply)) {
    byId.set(reply.id, reply);
  }
  return members.map((member) => byId.get(member.id));
}

/** Retry-After in seconds or as an HTTP date; 0 when absent or unreadable. */
function parseRetryAfter(header: string | null): number {
  if (header === null || header.trim() === '') return 0;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? 0 : Math.max(0, date - Date.now());
}

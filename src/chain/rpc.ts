import type { Config } from '../config.js';
import { AdaptiveLimit } from './adaptive-limit.js';
import { BatchLimits, packBodies } from './batch-limits.js';
import { CallBudget } from './call-budget.js';
import { LearnedBudget } from './learned-budget.js';
import { errorObject, isMethodRefusal, isMethodRefusalAnswer, isRateLimitError, refusesArray } from './provider-answers.js';
import { type GateError, upstreamUnavailable } from '../errors.js';
import { malformed, MalformedReply } from './replies.js';
import type { ChainObserver, HistoryHorizon } from './types.js';

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
 * - Retryable: network errors, timeouts, non-2xx HTTP (429 is how providers rate-limit), malformed
 *   JSON, a missing answer, a result its `parse` rejects (MalformedReply), and every JSON-RPC error
 *   except PERMANENT_CODES and the refusals below.
 * - Providers' limits (provider-answers.ts says how each is recognised):
 *   - Arrays: bodies are packed within MAX_BODY_BYTES, MAX_CALLS_PER_BODY and the endpoint's batch
 *     limits (batch-limits.ts: RPC_BATCH, RPC_BATCH_CAPS per method class of method-class.ts, and
 *     what the endpoint taught). An array the endpoint refuses (an HTTP 4xx, or one error object
 *     answering it) teaches it a lower limit and is sent again at once, split — halves, then single
 *     calls — without counting as a try or cooling the endpoint.
 *   - Rate limits counted in calls: a member answered "rate limited" inside a 200 slows the endpoint
 *     like an HTTP 429 (the concurrency limit halves; it rests RPC_MIN_RETRY_AFTER_MS, as after a
 *     429 without Retry-After) and is sent again after the rest; not counted in `errors`.
 *   - Call budgets (call-budget.ts): with RPC_CALLS_PER_SECOND (and RPC_SCANS_PER_SECOND for
 *     getProgramAccounts) each request waits for its members' share of the endpoint's budget before
 *     it is sent; when that wait leaves no time for the attempt before the deadline, its calls are
 *     answered 503 with Retry-After at once, and nothing is sent. While the budget is spent, the
 *     batch windows keep gathering (whenSlotFree). Without RPC_CALLS_PER_SECOND, an endpoint's
 *     first rate-limit refusal (an HTTP 429 or a member's error) sets a budget learned from the
 *     calls sent to it in the second before (learned-budget.ts: cut on each refusal, grown each
 *     second it was used without one, forgotten after a minute without any), paced the same way.
 *   - Methods refused for good (-32010, -32601, HTTP 410, a 403 carrying a JSON-RPC error, or 410/403
 *     as a member's error code): the method goes to the next endpoint at once and is not sent to
 *     this one for RPC_REPROBE_MS; the endpoint stays in use for other methods. A method every endpoint refuses fails at once.
 * - Answers may be gzip-encoded (transport.ts asks and decodes, bounded by RPC_MAX_RESPONSE_BYTES).
 * - Failover: endpoints (SOLANA_RPC_URL, comma-separated) are used in order. The last one that
 *   answered stays current; one that fails cools down (exponential backoff with jitter, or its
 *   Retry-After if longer — a 429 without one rests at least RPC_MIN_RETRY_AFTER_MS) and is tried
 *   again when another fails after that. A call gets one try
 *   per endpoint plus RPC_RETRIES more.
 * - Hedging (RPC_HEDGE_MS > 0, two or more endpoints): when an attempt's endpoint has not answered
 *   within RPC_HEDGE_MS of being sent, the same body also goes to the next endpoint that is not
 *   cooling down. The first clean answer (every call answered, or failed for good) wins and the
 *   other request is aborted; a failed or unclean answer waits for the other one. The hedge does
 *   not wait for a concurrency slot — the slots may all be held by requests to the stalled
 *   provider, which is exactly when a hedge is needed — so at most RPC_CONCURRENCY hedges join the
 *   RPC_CONCURRENCY requests in flight.
 * - One view of the chain (docs/solana-wire-format.md, "One view of the chain"): each endpoint's
 *   newest slot is tracked from its replies' `context.slot`. A request may carry a minimum slot
 *   (`RpcRequest.minSlot`, sent as `minContextSlot` by its caller): a reply whose context slot is
 *   below it, or a -32016 ("Minimum context slot has not been reached"), is retried. A node at most
 *   CATCH_UP_SLOTS short is only not there yet: that call alone goes to another endpoint, or waits
 *   the missing slots, and the endpoint stays in use for every other call. A node further behind,
 *   or any reply more than LAGGING_SLOTS behind the newest slot an endpoint answered at lately, is
 *   a failure of its endpoint: it cools down, so an endpoint that has fallen behind is skipped
 *   while it is behind.
 * - History horizon: historyHorizon() reads an endpoint's getFirstAvailableBlock (and that block's
 *   time), kept HISTORY_HORIZON_TTL_MS: the history features ask it of the endpoint that answered a
 *   page.
 * - Any final failure becomes GateError 503 UPSTREAM_UNAVAILABLE. Messages never contain the URL
 *   (it often carries an API key) nor the provider's error text.
 */

export interface RpcRequest<T = unknown> {
  method: string;
  /** Positional (Solana's methods) or named (the DAS API's searchAssets). */
  params: unknown[] | Record<string, unknown>;
  /**
   * Checks and converts `result`; throws MalformedReply when the shape is wrong (then retried).
   * `source` says which endpoint answered and at which slot.
   */
  parse: (result: unknown, source: ReplySource) => T;
  /**
   * The oldest slot the answer may be read at (the caller also sends it as `minContextSlot`, for
   * the node to refuse with -32016): a reply whose `context.slot` is below it is retried elsewhere.
   * 0 or absent: none beyond the LAGGING_SLOTS check every reply passes.
   */
  minSlot?: number;
}

/** Where an answer came from. */
export interface ReplySource {
  endpoint: RpcEndpoint;
  /** The reply's `context.slot`, for methods that answer `{context, value}`. */
  slot: number | undefined;
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
/** "Minimum context slot has not been reached" (agave rpc-client-api custom_error.rs); `data.contextSlot` is the node's slot. */
export const MIN_CONTEXT_SLOT_NOT_REACHED = -32016;
/** "Transaction history is not available from this node". */
export const TRANSACTION_HISTORY_NOT_AVAILABLE = -32011;
/** Solana's slot time: how long a node a few slots short of a minimum takes to get there. */
export const SLOT_MS = 400;
/**
 * A reply more than this many slots (~13 s) behind the newest slot any endpoint answered at lately
 * comes from a node that has fallen behind: it is refused like a failure (retried elsewhere, or a
 * 503) and its endpoint cools down. Providers keep their nodes within a few slots of each other;
 * the validator itself calls a node unhealthy (-32005) 128 slots behind.
 */
export const LAGGING_SLOTS = 32;
/**
 * How long an endpoint's newest slot is remembered as what the chain has reached. Past it, a slot
 * the endpoint reported once (a node stuck, or one on another cluster) stops counting.
 */
export const SLOT_MEMORY_MS = 30_000;
/** A node short of a read's minimum by at most this many slots is waited for (SLOT_MS each), not skipped. */
export const CATCH_UP_SLOTS = 4;
/** An endpoint's history horizon is read again after this long (HISTORY_HORIZON_TTL_MS's default): a pruning node's moves forward. */
export const HORIZON_TTL_MS = 60_000;
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
/** The error code transport.ts gives an answer over RPC_MAX_RESPONSE_BYTES. */
export const RESPONSE_TOO_LARGE = 'ERESPONSETOOLARGE';

interface Member {
  index: number;
  id: number;
  method: string;
  json: string;
  parse: (result: unknown, source: ReplySource) => unknown;
  /** RpcRequest.minSlot (0: none). */
  minSlot: number;
}

/** What an endpoint may be sent: the client's settings for each of its endpoints. */
export interface EndpointLimits {
  batch: boolean;
  batchCaps: Readonly<Record<string, number>>;
  callsPerSecond: number;
  scansPerSecond: number;
  reprobeMs: number;
}

/** RPC_REPROBE_MS's default: an endpoint's refusal is remembered five minutes. */
export const REPROBE_MS = 300_000;
/** RPC_MIN_RETRY_AFTER_MS's default. */
export const MIN_RETRY_AFTER_MS = 1_000;
const DEFAULT_ENDPOINT_LIMITS: EndpointLimits = { batch: true, batchCaps: {}, callsPerSecond: 0, scansPerSecond: 0, reprobeMs: REPROBE_MS };
/** A bound on how often one set of calls is split after refused arrays (each refusal lowers a limit, so it ends anyway). */
const MAX_SPLITS = 16;

/**
 * One URL of SOLANA_RPC_URL and what the client knows of it: its failures, how far its slots are,
 * how far back it keeps history. Its URL (often carrying an API key) never leaves rpc.ts.
 */
export class RpcEndpoint {
  consecutiveFailures = 0;
  /** performance.now() ms before which this endpoint is not used unless every endpoint is cooling. */
  coolUntil = 0;
  /** The highest `context.slot` it answered at within SLOT_MEMORY_MS (0: none), and when. */
  slot = 0;
  slotSeenAt = -Infinity;
  /** Its history horizon (historyHorizon), when it was read, and a read under way. */
  horizon: HistoryHorizon | undefined;
  horizonReadAt = -Infinity;
  horizonLoading: Promise<HistoryHorizon> | undefined;
  /** Whether its history honours `minContextSlot` (honoursHistoryMinimum), when that was seen, and a probe under way. */
  honoursMinimum: boolean | undefined;
  honoursCheckedAt = -Infinity;
  honoursLoading: Promise<boolean> | undefined;
  /** How many calls an array to it may carry (RPC_BATCH, RPC_BATCH_CAPS, and what its refusals taught). */
  readonly batchLimits: BatchLimits;
  /** RPC_CALLS_PER_SECOND and RPC_SCANS_PER_SECOND at this endpoint (undefined: no cap). */
  readonly callBudget: CallBudget | undefined;
  readonly scanBudget: CallBudget | undefined;
  /** Without RPC_CALLS_PER_SECOND: the budget its rate-limit refusals showed (learned-budget.ts). */
  readonly learnedBudget = new LearnedBudget();
  /** Methods it refused for good (-32010, -32601, 410, 403), and until when (performance.now() ms) they are not sent to it. */
  private readonly refusedMethods = new Map<string, number>();

  constructor(
    readonly url: string,
    limits: EndpointLimits = DEFAULT_ENDPOINT_LIMITS,
  ) {
    this.batchLimits = new BatchLimits({ enabled: limits.batch, caps: limits.batchCaps, maxCalls: MAX_CALLS_PER_BODY, reprobeMs: limits.reprobeMs });
    this.callBudget = limits.callsPerSecond > 0 ? new CallBudget(limits.callsPerSecond) : undefined;
    this.scanBudget = limits.scansPerSecond > 0 ? new CallBudget(limits.scansPerSecond) : undefined;
  }

  /** The calls-per-second budget requests to it are paced by: RPC_CALLS_PER_SECOND, or the one learned from its refusals. */
  budgetInForce(): CallBudget | undefined {
    return this.callBudget ?? this.learnedBudget.budget();
  }

  /** Whether `method` is not to be sent here now (it was refused for good less than RPC_REPROBE_MS ago). */
  refuses(method: string, at: number): boolean {
    const until = this.refusedMethods.get(method);
    if (until === undefined) return false;
    if (until > at) return true;
    this.refusedMethods.delete(method);
    return false;
  }

  /** When `method` may be sent here again (performance.now() ms; 0: it may now). */
  refusedUntil(method: string): number {
    return this.refusedMethods.get(method) ?? 0;
  }

  refuseMethod(method: string, until: number): void {
    this.refusedMethods.set(method, until);
  }

  /** Records a slot it answered at: the highest one counts, until it is older than SLOT_MEMORY_MS. */
  sawSlot(slot: number, at: number): void {
    if (slot >= this.slot || at - this.slotSeenAt > SLOT_MEMORY_MS) {
      this.slot = slot;
      this.slotSeenAt = at;
    }
  }
}

/**
 * `behind`: the node answered from, or is at, a slot older than the read needs. `catchUpMs`: it is
 * only a few slots short — the call is retried after that long (or elsewhere), and the endpoint is
 * not to blame.
 */
type Verdict =
  | { ok: true; result: unknown }
  | { ok: false; permanent: boolean; reason: string; behind?: boolean; catchUpMs?: number; rateLimited?: boolean; methodRefused?: boolean };

/**
 * What one HTTP attempt did: HTTP-level failure (all members), or per-member verdicts. `kind` of a
 * failure says whether it says anything about the endpoint: `lost` (aborted because the other
 * request of a hedge won) and `unsent` (no time left to send it) do not.
 */
type AttemptResult =
  | { kind: 'failed'; reason: string; permanent: boolean; retryAfterMs: number; blame: 'endpoint' | 'none'; refusal?: Refusal }
  | { kind: 'answered'; verdicts: Verdict[]; endpoint: RpcEndpoint };

/**
 * A failed attempt that is not the endpoint failing: `array` — it refused the array as such (split
 * and send again); `method` — it does not serve the (single) call's method; `budget` — the call
 * budget (RPC_CALLS_PER_SECOND) could not send it before the deadline, so nothing was sent.
 */
type Refusal = 'array' | 'method' | 'budget';

/** An HTTP attempt under way. */
interface Exchange {
  endpoint: RpcEndpoint;
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
  /**
   * Calls the endpoint refused without failing: members of refused arrays (sent again split) and
   * calls of a method it does not serve (sent elsewhere).
   */
  refusedCalls: number;
  /** Calls answered "rate limited" (an HTTP 429, or a member error inside a 200); sent again after the cool-down. */
  rateLimitedCalls: number;
  /** Calls answered 503 at once because the call budget could not send them within their deadline. */
  budgetRefusedCalls: number;
}

export class RpcClient {
  private readonly endpoints: RpcEndpoint[];
  private current = 0;
  private nextId = 1;
  private readonly limiter: AdaptiveLimit;
  private readonly counters: RpcStats = { httpRequests: 0, rpcCalls: {}, errors: 0, refusedCalls: 0, rateLimitedCalls: 0, budgetRefusedCalls: 0 };
  private readonly minAttemptMs: number;
  private readonly hedgeMs: number;
  private readonly horizonTtlMs: number;
  private readonly reprobeMs: number;
  private readonly minRetryAfterMs: number;

  constructor(
    private readonly config: Pick<Config, 'rpcUrls' | 'rpcConcurrency' | 'rpcTimeoutMs' | 'rpcRetries'> &
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
    private readonly fetchImpl: FetchLike = (url, init) => fetch(url, init),
    private readonly observer: ChainObserver = {},
  ) {
    if (config.rpcUrls.length === 0) throw new TypeError('at least one RPC URL is required');
    this.reprobeMs = config.rpcReprobeMs ?? REPROBE_MS;
    this.minRetryAfterMs = config.rpcMinRetryAfterMs ?? MIN_RETRY_AFTER_MS;
    const limits: EndpointLimits = {
      batch: config.rpcBatch ?? true,
      batchCaps: config.rpcBatchCaps ?? {},
      callsPerSecond: config.rpcCallsPerSecond ?? 0,
      scansPerSecond: config.rpcScansPerSecond ?? 0,
      reprobeMs: this.reprobeMs,
    };
    this.endpoints = config.rpcUrls.map((url) => new RpcEndpoint(url, limits));
    // Without bounds (a client of its own, e.g. the DAS API's), the limit stays at RPC_CONCURRENCY.
    this.limiter = new AdaptiveLimit({
      initial: config.rpcConcurrency,
      min: Math.min(config.rpcConcurrencyMin ?? config.rpcConcurrency, config.rpcConcurrency),
      max: Math.max(config.rpcConcurrencyMax ?? config.rpcConcurrency, config.rpcConcurrency),
    });
    this.minAttemptMs = Math.min(config.rpcTimeoutMs, MIN_ATTEMPT_MS);
    this.hedgeMs = this.endpoints.length > 1 ? (config.rpcHedgeMs ?? 0) : 0;
    this.horizonTtlMs = config.historyHorizonTtlMs ?? HORIZON_TTL_MS;
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
    requests.forEach(({ method, params, parse, minSlot }, index) => {
      const member = this.member(index, method, params, parse, minSlot ?? 0);
      if (Buffer.byteLength(member.json) + 2 > MAX_BODY_BYTES) {
        outcomes[index] = { ok: false, error: upstreamUnavailable(`${method}: request over ${MAX_BODY_BYTES} bytes`) };
      } else {
        sendable.push(member);
      }
    });
    const limits = this.endpoints[this.current]!.batchLimits;
    await Promise.all(packBodies(sendable, limits, MAX_BODY_BYTES).map((members) => this.sendWithRetries(members, outcomes, deadlineMs)));
    return outcomes as RpcOutcome<T>[];
  }

  stats(): RpcStats {
    return { ...this.counters, rpcCalls: { ...this.counters.rpcCalls } };
  }

  /** What each endpoint taught the client about its batch limits (in SOLANA_RPC_URL order; never the URL). */
  learnedBatchLimits(): ReturnType<BatchLimits['snapshot']>[] {
    return this.endpoints.map((endpoint) => endpoint.batchLimits.snapshot());
  }

  /**
   * The newest slot any endpoint answered at within SLOT_MEMORY_MS (0: none): the chain has reached
   * at least this. A login's later reads ask for it (src/chain/reader.ts).
   */
  newestSlot(at = now()): number {
    let newest = 0;
    for (const endpoint of this.endpoints) {
      if (endpoint.slot > newest && at - endpoint.slotSeenAt <= SLOT_MEMORY_MS) newest = endpoint.slot;
    }
    return newest;
  }

  /**
   * How far back `endpoint` keeps history: getFirstAvailableBlock, and the block time of that slot
   * when it is not 0, asked of that endpoint alone (another one's horizon says nothing about it) and
   * kept HISTORY_HORIZON_TTL_MS. Concurrent callers share one read. Rejects with 503 when it cannot
   * be read.
   */
  historyHorizon(endpoint: RpcEndpoint, deadlineMs = Infinity): Promise<HistoryHorizon> {
    if (endpoint.horizon !== undefined && now() - endpoint.horizonReadAt < this.horizonTtlMs) return Promise.resolve(endpoint.horizon);
    endpoint.horizonLoading ??= this.readHorizon(endpoint, deadlineMs).finally(() => {
      endpoint.horizonLoading = undefined;
    });
    return endpoint.horizonLoading;
  }

  /**
   * Whether `endpoint` refuses a history read below its slot, as the validator does: a
   * getSignaturesForAddress reply carries no slot, so this is the only way to know that a page it
   * gave for a `minContextSlot` is at least that new. Probed with a minimum no node can have reached
   * (-32016 expected; a list, or any other error, means it does not honour it — a provider that
   * serves history from an index of its own may ignore the parameter), kept HISTORY_HORIZON_TTL_MS.
   * An endpoint found not to honour it cools down, so the next read goes to another one.
   */
  honoursHistoryMinimum(endpoint: RpcEndpoint, probe: { address: string; commitment: string }, deadlineMs = Infinity): Promise<boolean> {
    if (endpoint.honoursMinimum !== undefined && now() - endpoint.honoursCheckedAt < this.horizonTtlMs) return Promise.resolve(endpoint.honoursMinimum);
    endpoint.honoursLoading ??= this.probeMinimum(endpoint, probe, deadlineMs).finally(() => {
      endpoint.honoursLoading = undefined;
    });
    return endpoint.honoursLoading;
  }

  private async probeMinimum(endpoint: RpcEndpoint, { address, commitment }: { address: string; commitment: string }, deadlineMs: number): Promise<boolean> {
    const member = this.member(0, 'getSignaturesForAddress', [address, { limit: 1, commitment, minContextSlot: Number.MAX_SAFE_INTEGER }], () => null, Number.MAX_SAFE_INTEGER);
    const result = await this.send(endpoint, member.json, [member], deadlineMs, true).done;
    if (result.kind === 'failed') {
      this.judge(endpoint, [member], result);
      throw upstreamUnavailable(`getSignaturesForAddress: ${result.reason}`);
    }
    const [verdict] = result.verdicts;
    // Refused as behind (-32016): the answer hoped for, not a failure of the endpoint.
    const honours = !verdict!.ok && verdict!.behind === true;
    endpoint.honoursMinimum = honours;
    endpoint.honoursCheckedAt = now();
    if (!honours) this.markFailed(endpoint, 0);
    return honours;
  }

  private async readHorizon(endpoint: RpcEndpoint, deadlineMs: number): Promise<HistoryHorizon> {
    const firstSlot = await this.callOn(endpoint, 'getFirstAvailableBlock', [], parseSlotNumber, deadlineMs);
    // The time is needed only to know whether a pruned part could fall inside a period (activity).
    const blockTime = firstSlot === 0 ? null : await this.callOn(endpoint, 'getBlockTime', [firstSlot], parseBlockTime, deadlineMs).catch(() => null);
    const horizon = { firstSlot, blockTime };
    endpoint.horizon = horizon;
    endpoint.horizonReadAt = now();
    return horizon;
  }

  /** One call to one endpoint, one attempt, no failover: for what only that endpoint can say. */
  private async callOn<T>(endpoint: RpcEndpoint, method: string, params: unknown[], parse: (result: unknown) => T, deadlineMs: number): Promise<T> {
    const member = this.member(0, method, params, parse, 0);
    const result = await this.send(endpoint, member.json, [member], deadlineMs, true).done;
    this.judge(endpoint, [member], result);
    if (result.kind === 'failed') throw upstreamUnavailable(`${method}: ${result.reason}`);
    const [verdict] = result.verdicts;
    if (!verdict!.ok) throw upstreamUnavailable(`${method}: ${verdict!.reason}`);
    return verdict!.result as T;
  }

  private member(index: number, method: string, params: RpcRequest['params'], parse: Member['parse'], minSlot: number): Member {
    const id = this.nextId++;
    return { index, id, method, json: JSON.stringify({ jsonrpc: '2.0', id, method, params }), parse, minSlot };
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
    // While the call budget is spent, batches keep gathering: one call of many keys, not many calls.
    const budgetWait = this.endpoints[this.current]!.budgetInForce()?.waitFor(1) ?? 0;
    if (budgetWait > 0 && budgetWait <= MAX_WAIT_MS && (soonest <= at || soonest - at > MAX_WAIT_MS)) {
      setTimeout(() => this.whenSlotFree(watcher), Math.ceil(budgetWait));
      return;
    }
    // A wait longer than any call would make fails the calls at once (chooseEndpoint): no holding.
    if (soonest <= at || soonest - at > MAX_WAIT_MS) this.limiter.whenSlotFree(watcher);
    else setTimeout(() => this.whenSlotFree(watcher), soonest - at);
  }

  /**
   * Sends `members` until each has an outcome: retried on other endpoints (or after a cool-down) up
   * to one try per endpoint plus RPC_RETRIES. A refused array is split for the endpoint's learned
   * limits and sent again at once, without counting as a try; calls of a method an endpoint refuses
   * for good go to another one; calls no endpoint serves fail at once.
   */
  private async sendWithRetries(members: Member[], outcomes: RpcOutcome[], deadline: number, progress: Progress = newProgress()): Promise<void> {
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
    // An endpoint a few slots short of the calls' minimum, and until when it cannot have caught up.
    let catchUp: CatchUp | undefined;
    while (pending.length > 0) {
      const at = now();
      // A method every endpoint refuses for good: answered at once, not at the deadline.
      pending = pending.filter((member) => {
        const until = this.everyEndpointRefuses(member.method, at);
        if (until === undefined) return true;
        fail(member, 'every RPC endpoint refuses this method', Math.min(until - at, this.reprobeMs));
        return false;
      });
      if (pending.length === 0) return;
      const methods = new Set(pending.map((member) => member.method));
      if (methods.size > 1 && !this.endpoints.some((endpoint) => servesAll(endpoint, methods, at))) {
        // No endpoint takes them all: each method goes where it is served.
        const byMethod = new Map<string, Member[]>();
        for (const member of pending) byMethod.set(member.method, [...(byMethod.get(member.method) ?? []), member]);
        await Promise.all([...byMethod.values()].map((group) => this.sendWithRetries(group, outcomes, deadline, { ...progress })));
        return;
      }
      const choice = await this.chooseEndpoint(deadline, progress.attempt > 1, catchUp, methods);
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
          await Promise.all(bodies.map((body) => this.sendWithRetries(body, outcomes, deadline, { ...progress })));
          return;
        }
      }
      const result = await this.attempt(choice.endpoint, pending, deadline);
      const retry: Member[] = [];
      if (result.kind === 'failed') {
        if (result.refusal === 'array' && progress.splits < MAX_SPLITS) {
          // The endpoint learned its limit (judge): the same calls go again, split, not as a retry.
          progress.splits++;
          continue;
        }
        if (result.refusal === 'budget' || result.permanent) {
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
            if (verdict.rateLimited) progress.lastRetryAfterMs = Math.max(progress.lastRetryAfterMs, this.minRetryAfterMs);
            if (verdict.catchUpMs !== undefined) {
              const untilMs = now() + verdict.catchUpMs;
              if (catchUp === undefined || untilMs > catchUp.untilMs) catchUp = { endpoint: result.endpoint, untilMs };
            }
          }
        });
      }
      if (retry.length > 0 && progress.attempt >= maxAttempts) {
        for (const member of retry) fail(member, progress.lastReason, progress.lastRetryAfterMs);
        return;
      }
      progress.attempt++;
      pending = retry;
    }
  }

  /** When the first endpoint will serve `method` again, if every endpoint refuses it now (undefined: one serves it). */
  private everyEndpointRefuses(method: string, at: number): number | undefined {
    let soonest = Infinity;
    for (const endpoint of this.endpoints) {
      if (!endpoint.refuses(method, at)) return undefined;
      soonest = Math.min(soonest, endpoint.refusedUntil(method));
    }
    return soonest;
  }

  /**
   * The current endpoint, or the first one not cooling down, or (after a short wait) the one that
   * cools first — or why no attempt fits before the deadline. `catchUp`: an endpoint these calls
   * should not be sent to again before it can have reached their minimum slot.
   */
  private async chooseEndpoint(
    deadline: number,
    isRetry: boolean,
    catchUp: CatchUp | undefined,
    methods: ReadonlySet<string>,
  ): Promise<{ endpoint: RpcEndpoint } | { why: string; waitMs: number }> {
    const start = now();
    const left = deadline - start;
    if (left <= 0 || (isRetry && left < this.minAttemptMs)) return { why: NO_TIME_TO_RETRY, waitMs: 0 };
    const count = this.endpoints.length;
    const usableAt = (endpoint: RpcEndpoint): number => (endpoint === catchUp?.endpoint ? Math.max(endpoint.coolUntil, catchUp.untilMs) : endpoint.coolUntil);
    let soonest: RpcEndpoint | undefined;
    for (let step = 0; step < count; step++) {
      const endpoint = this.endpoints[(this.current + step) % count]!;
      if (!servesAll(endpoint, methods, start)) continue;
      if (usableAt(endpoint) <= start) return { endpoint };
      if (soonest === undefined || usableAt(endpoint) < usableAt(soonest)) soonest = endpoint;
    }
    if (soonest === undefined) return { why: 'every RPC endpoint refuses this method', waitMs: 0 };
    const waitMs = usableAt(soonest) - start;
    if (waitMs > MAX_WAIT_MS) return { why: 'every RPC endpoint is rate limited or failing', waitMs };
    if (waitMs + this.minAttemptMs > left) return { why: `every RPC endpoint is cooling down; ${NO_TIME_TO_RETRY}`, waitMs };
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    return { endpoint: soonest };
  }

  /** The next endpoint after `primary` in order that is not cooling down and serves `members`' methods, if any. */
  private hedgeEndpoint(primary: RpcEndpoint, members: Member[]): RpcEndpoint | undefined {
    const methods = new Set(members.map((member) => member.method));
    const count = this.endpoints.length;
    const start = this.endpoints.indexOf(primary);
    const at = now();
    for (let step = 1; step < count; step++) {
      const endpoint = this.endpoints[(start + step) % count]!;
      if (endpoint.coolUntil <= at && servesAll(endpoint, methods, at)) return endpoint;
    }
    return undefined;
  }

  /**
   * One attempt at `members`: an HTTP request to `primary` and, when it is slow to answer, a hedge
   * to the next endpoint. Every exchange that finished is judged (cool-down, current endpoint,
   * error counts); resolves with the result the caller acts on.
   */
  private attempt(primary: RpcEndpoint, members: Member[], deadline: number): Promise<AttemptResult> {
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
        const endpoint = this.hedgeEndpoint(primary, members);
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
  private send(endpoint: RpcEndpoint, body: string, members: Member[], deadline: number, limited: boolean, onSent?: () => void): Exchange {
    const controller = new AbortController();
    // Paced inside the concurrency slot: the calls are booked in the budget when nothing but the
    // budget's own wait stands between them and the wire. Booked before a wait for a slot, a request
    // held there (a round trip or more) would land in the provider's next window beside the
    // requests booked for it, and a window would hold more than the budget.
    const paced = async (): Promise<AttemptResult | RawReply> => {
      const waitMs = this.budgetWait(endpoint, members, deadline);
      if (typeof waitMs !== 'number') return waitMs;
      if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
      return exchange();
    };
    const exchange = async (): Promise<AttemptResult | RawReply> => {
      if (controller.signal.aborted) return LOST;
      const startedAt = now();
      const left = deadline - startedAt;
      if (left <= 0) return { kind: 'failed', reason: NO_TIME_TO_RETRY, permanent: false, retryAfterMs: 0, blame: 'none' };
      this.counters.httpRequests++;
      endpoint.learnedBudget.sent(members.length);
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
          // Answers of thousands of accounts shrink several times; a provider may always answer plain.
          headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip' },
          body,
          signal: controller.signal,
        });
        // Read the body even on errors so the keep-alive connection can be reused.
        const text = await response.text();
        if (response.status === 429 || response.status >= 500) this.limiter.overloaded();
        else this.limiter.succeeded(now() - startedAt);
        const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
        // A 429 that does not say how long to wait still asks for a rest (some providers mean 10 s).
        return { status: response.status, retryAfterMs: response.status === 429 ? Math.max(retryAfterMs, this.minRetryAfterMs) : retryAfterMs, text };
      } catch (error) {
        const why: unknown = controller.signal.aborted ? controller.signal.reason : undefined;
        if (why === ABORT_LOST) return LOST;
        if (why === ABORT_DEADLINE) {
          // A provider given too little time to answer is not to blame for it.
          const blame = now() - startedAt >= this.minAttemptMs ? 'endpoint' : 'none';
          return { kind: 'failed', reason: NO_ANSWER_IN_TIME, permanent: false, retryAfterMs: 0, blame };
        }
        const reason = why === ABORT_TIMEOUT ? 'timed out' : describeFetchError(error);
        // An answer over RPC_MAX_RESPONSE_BYTES is not a sign of overload.
        if (!reason.includes(RESPONSE_TOO_LARGE)) this.limiter.overloaded();
        return { kind: 'failed', reason, permanent: false, retryAfterMs: 0, blame: 'endpoint' };
      } finally {
        clearTimeout(timer);
      }
    };
    // Without a call budget the request goes straight to the concurrency limit (no extra turns).
    const budgeted = endpoint.budgetInForce() !== undefined || endpoint.scanBudget !== undefined;
    const attempt = budgeted ? paced : exchange;
    const done = (limited ? this.limiter.run(attempt) : attempt()).then((reply) => ('kind' in reply ? reply : this.interpret(reply, members, endpoint)));
    return { endpoint, done, abort: () => controller.abort(ABORT_LOST) };
  }

  /**
   * How long `members` wait for the endpoint's call budget (RPC_CALLS_PER_SECOND, and
   * RPC_SCANS_PER_SECOND for getProgramAccounts), taking their share of it; or, when that wait would
   * leave no time for the attempt before the deadline, a refusal that fails them at once with the
   * wait as Retry-After (nothing taken).
   */
  private budgetWait(endpoint: RpcEndpoint, members: Member[], deadline: number): number | AttemptResult {
    const { scanBudget } = endpoint;
    const callBudget = endpoint.budgetInForce();
    if (callBudget === undefined && scanBudget === undefined) return 0;
    const scans = scanBudget === undefined ? 0 : members.filter((member) => member.method === 'getProgramAccounts').length;
    const waitMs = Math.max(callBudget?.waitFor(members.length) ?? 0, scans > 0 ? scanBudget!.waitFor(scans) : 0);
    if (waitMs > 0 && now() + waitMs + this.minAttemptMs > deadline) {
      this.counters.budgetRefusedCalls += members.length;
      const reason = `the RPC call budget (RPC_CALLS_PER_SECOND / RPC_SCANS_PER_SECOND, or as learned from the provider's refusals) cannot send this within LOGIN_TIMEOUT_MS (${Math.ceil(waitMs)} ms queued)`;
      return { kind: 'failed', reason, permanent: false, retryAfterMs: Math.max(waitMs, 1000), blame: 'none', refusal: 'budget' };
    }
    callBudget?.take(members.length);
    if (scans > 0) scanBudget!.take(scans);
    return waitMs;
  }

  private interpret({ status, retryAfterMs, text }: RawReply, members: Member[], endpoint: RpcEndpoint): AttemptResult {
    const isArray = members.length > 1;
    let reply: unknown;
    let readable = true;
    try {
      reply = JSON.parse(text);
    } catch {
      readable = false;
    }
    // Batches off, or over a cap: the endpoint is fine, the array was too much (provider-answers.ts).
    if (isArray && refusesArray(status, reply)) return { kind: 'failed', reason: `array of ${members.length} calls refused (HTTP ${status})`, permanent: false, retryAfterMs: 0, blame: 'none', refusal: 'array' };
    if (!isArray && isMethodRefusalAnswer(status, reply)) return { kind: 'failed', reason: `method refused by this endpoint (HTTP ${status})`, permanent: false, retryAfterMs: 0, blame: 'none', refusal: 'method' };
    if (status === 413) return { kind: 'failed', reason: 'HTTP 413 (request too large)', permanent: true, retryAfterMs: 0, blame: 'endpoint' };
    if (status < 200 || status > 299) return { kind: 'failed', reason: `HTTP ${status}`, permanent: false, retryAfterMs, blame: 'endpoint' };
    if (!readable) return { kind: 'failed', reason: 'malformed JSON reply', permanent: false, retryAfterMs: 0, blame: 'endpoint' };
    const at = now();
    return { kind: 'answered', endpoint, verdicts: matchReplies(reply, members).map((reply, i) => this.verdictOn(reply, members[i]!, endpoint, at)) };
  }

  /**
   * A member's answer, judged: an error (retryable or not), a reply from a slot older than the
   * member's minimum or than the chain has reached lately (retried elsewhere), or the parsed result.
   */
  private verdictOn(reply: unknown, member: Member, endpoint: RpcEndpoint, at: number): Verdict {
    if (!isObject(reply)) return { ok: false, permanent: false, reason: 'no answer in the reply' };
    if (reply.error !== undefined && reply.error !== null) return this.errorVerdict(reply.error, member, endpoint, at);
    if (!('result' in reply)) return { ok: false, permanent: false, reason: 'reply without result' };
    const { result } = reply;
    const slot = contextSlotOf(result);
    if (slot !== undefined) {
      const newest = this.newestSlot(at);
      endpoint.sawSlot(slot, at);
      if (slot < member.minSlot) return behind(slot, member.minSlot);
      if (slot + LAGGING_SLOTS < newest) return behind(slot, newest);
    }
    try {
      return { ok: true, result: member.parse(result, { endpoint, slot }) };
    } catch (error) {
      // A wrong shape is retried like any bad answer; anything else is a bug, not retried.
      if (error instanceof MalformedReply) return { ok: false, permanent: false, reason: error.message };
      return { ok: false, permanent: true, reason: 'unreadable reply' };
    }
  }

  private errorVerdict(error: unknown, member: Member, endpoint: RpcEndpoint, at: number): Verdict {
    const code = isObject(error) && typeof error.code === 'number' ? error.code : undefined;
    if (code === MIN_CONTEXT_SLOT_NOT_REACHED) {
      const data = isObject(error) && isObject(error.data) ? error.data : undefined;
      const nodeSlot = data !== undefined && isSlot(data.contextSlot) ? data.contextSlot : undefined;
      if (nodeSlot !== undefined) endpoint.sawSlot(nodeSlot, at);
      return behind(nodeSlot, member.minSlot);
    }
    if (code === TRANSACTION_HISTORY_NOT_AVAILABLE) return { ok: false, permanent: false, reason: `no transaction history on this node (${code})` };
    const described = errorObject(error);
    if (isRateLimitError(described)) return { ok: false, permanent: false, reason: `rate limited (JSON-RPC error ${code ?? '(no code)'})`, rateLimited: true };
    if (isMethodRefusal(described)) return { ok: false, permanent: false, reason: `method refused by this endpoint (JSON-RPC error ${code})`, methodRefused: true };
    return { ok: false, permanent: code !== undefined && PERMANENT_CODES.has(code), reason: `JSON-RPC error ${code ?? '(no code)'}` };
  }

  /** What an exchange says about its endpoint: cool it down, or make it the current one. */
  private judge(endpoint: RpcEndpoint, members: Member[], result: AttemptResult): void {
    if (result.kind === 'failed') {
      if (result.refusal === 'array') {
        endpoint.batchLimits.refused(members.map((member) => member.method));
        this.counters.refusedCalls += members.length;
        for (const member of members) this.observer.rpcError?.(member.method, 'batch_refused');
        return;
      }
      if (result.refusal === 'method') {
        for (const member of members) this.refusedMethod(endpoint, member.method);
        return;
      }
      if (result.blame === 'none') return;
      if (result.reason.includes('429')) {
        this.counters.rateLimitedCalls += members.length;
        endpoint.learnedBudget.refused(members.length);
      }
      this.counters.errors++;
      const kind = failureKind(result.reason);
      for (const member of members) this.observer.rpcError?.(member.method, kind);
      if (!result.permanent) this.markFailed(endpoint, result.retryAfterMs);
      return;
    }
    if (members.length > 1) endpoint.batchLimits.answered(members.map((member) => member.method));
    let retryable = false;
    let rateLimited = 0;
    result.verdicts.forEach((verdict, i) => {
      if (verdict.ok) return;
      const method = members[i]!.method;
      if (verdict.rateLimited) {
        // Over a budget that counts calls: slow down as for an HTTP 429, not a failure of the node.
        this.counters.rateLimitedCalls++;
        this.observer.rpcError?.(method, 'rate_limited');
        rateLimited++;
        return;
      }
      if (verdict.methodRefused) {
        this.refusedMethod(endpoint, method);
        return;
      }
      this.counters.errors++;
      this.observer.rpcError?.(method, verdict.behind ? 'behind' : 'rpc');
      // A node a few slots short of one call's minimum is not failing: the others use it on.
      if (!verdict.permanent && verdict.catchUpMs === undefined) retryable = true;
    });
    if (rateLimited > 0) {
      endpoint.learnedBudget.refused(rateLimited);
      this.limiter.overloaded();
      this.markFailed(endpoint, this.minRetryAfterMs);
    } else if (retryable) {
      // An unhealthy node (-32005, fallen behind, missing answers) is as good as down: fail over.
      this.markFailed(endpoint, 0);
    } else {
      this.markGood(endpoint);
    }
  }

  /** `endpoint` refused `method` for good: not sent there again for RPC_REPROBE_MS. */
  private refusedMethod(endpoint: RpcEndpoint, method: string): void {
    endpoint.refuseMethod(method, now() + this.reprobeMs);
    this.counters.refusedCalls++;
    this.observer.rpcError?.(method, 'method_refused');
  }

  private markGood(endpoint: RpcEndpoint): void {
    endpoint.consecutiveFailures = 0;
    endpoint.coolUntil = 0;
    this.current = this.endpoints.indexOf(endpoint);
  }

  private markFailed(endpoint: RpcEndpoint, retryAfterMs: number): void {
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

/** How far one set of calls has got: its try number, splits after refused arrays, and why the last try failed. */
interface Progress {
  attempt: number;
  splits: number;
  lastReason: string;
  lastRetryAfterMs: number;
}

function newProgress(): Progress {
  return { attempt: 1, splits: 0, lastReason: '', lastRetryAfterMs: 0 };
}

/** Whether `endpoint` serves every one of `methods` now (refused none of them for good lately). */
function servesAll(endpoint: RpcEndpoint, methods: ReadonlySet<string>, at: number): boolean {
  for (const method of methods) if (endpoint.refuses(method, at)) return false;
  return true;
}

/** The result of a request aborted because the other request of its hedge won. */
const LOST: AttemptResult = { kind: 'failed', reason: 'lost the hedge', permanent: false, retryAfterMs: 0, blame: 'none' };

/** Calls that found `endpoint` a few slots short: not sent there again before `untilMs`. */
interface CatchUp {
  endpoint: RpcEndpoint;
  untilMs: number;
}

/**
 * A reply from `slot` where `needed` is required (the node's slot may be unknown for a -32016):
 * retried — after the missing slots, or elsewhere, when the node is nearly there; otherwise the
 * node has fallen behind and its endpoint is to blame.
 */
function behind(slot: number | undefined, needed: number): Verdict {
  const short = slot === undefined ? undefined : needed - slot;
  const reason = slot === undefined ? 'the node has not reached the slot already read (-32016)' : `the node is at slot ${slot}, behind slot ${needed} already read`;
  if (short !== undefined && short > 0 && short <= CATCH_UP_SLOTS) return { ok: false, permanent: false, reason, behind: true, catchUpMs: short * SLOT_MS };
  return { ok: false, permanent: false, reason, behind: true };
}

function isSlot(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** `context.slot` of a `{context: {slot}, value}` result; undefined for other shapes (parse checks those). */
function contextSlotOf(result: unknown): number | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const context = (result as { context?: unknown }).context;
  if (typeof context !== 'object' || context === null) return undefined;
  const slot = (context as { slot?: unknown }).slot;
  return isSlot(slot) ? slot : undefined;
}

function parseSlotNumber(result: unknown): number {
  if (!isSlot(result)) throw malformed('getFirstAvailableBlock', 'expected a slot number');
  return result;
}

function parseBlockTime(result: unknown): number | null {
  if (result === null) return null;
  if (!(typeof result === 'number' && Number.isSafeInteger(result))) throw malformed('getBlockTime', 'expected unix seconds or null');
  return result;
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

/**
 * Each member's reply object, matched by id, never by position. An error with id null (the server
 * could not read the request, or refuses batches) answers every call of the body.
 */
function matchReplies(reply: unknown, members: Member[]): unknown[] {
  if (isObject(reply) && reply.id === null && reply.error !== undefined && reply.error !== null) return members.map(() => reply);
  const byId = new Map<unknown, unknown>();
  if (Array.isArray(reply)) {
    for (const item of reply) if (isObject(item)) byId.set(item.id, item);
  } else if (isObject(reply)) {
    byId.set(reply.id, reply);
  }
  return members.map((member) => byId.get(member.id));
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

import { BatchLimits, MAX_CALLS_PER_BODY } from './batch-limits.js';
import { CallBudget } from './call-budget.js';
import { LearnedBudget } from './learned-budget.js';

/**
 * One URL of SOLANA_RPC_URL and what the client may send it: how many calls an array may carry,
 * its call budgets, the methods it refused for good, and its cool-down after failures. Its URL
 * (often carrying an API key) stays inside the client: errors, logs and stats never name it.
 */

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
const DEFAULT_ENDPOINT_LIMITS: EndpointLimits = { batch: true, batchCaps: {}, callsPerSecond: 0, scansPerSecond: 0, reprobeMs: REPROBE_MS };
/** A failing endpoint cools down exponentially from this, with jitter, to at most BACKOFF_MAX_MS. */
const BACKOFF_BASE_MS = 100;
const BACKOFF_MAX_MS = 2_000;

export class RpcEndpoint {
  consecutiveFailures = 0;
  /** performance.now() ms before which this endpoint is not used unless every endpoint is cooling. */
  coolUntil = 0;
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

  /** Whether it serves every one of `methods` now (refused none of them for good lately). */
  servesAll(methods: ReadonlySet<string>, at: number): boolean {
    for (const method of methods) if (this.refuses(method, at)) return false;
    return true;
  }

  /** When `method` may be sent here again (performance.now() ms; 0: it may now). */
  refusedUntil(method: string): number {
    return this.refusedMethods.get(method) ?? 0;
  }

  refuseMethod(method: string, until: number): void {
    this.refusedMethods.set(method, until);
  }

  /** It answered well: usable again at once. */
  recovered(): void {
    this.consecutiveFailures = 0;
    this.coolUntil = 0;
  }

  /** It failed at `at`: it cools down for its backoff (exponential, with jitter) or `retryAfterMs`, whichever is longer. */
  failed(retryAfterMs: number, at: number): void {
    this.consecutiveFailures++;
    const backoff = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (this.consecutiveFailures - 1));
    const jittered = backoff * (0.5 + Math.random() / 2);
    this.coolUntil = at + Math.max(jittered, retryAfterMs);
  }
}

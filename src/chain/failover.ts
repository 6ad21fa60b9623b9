import { NO_TIME_TO_RETRY } from './exchange.js';
import { type EndpointLimits, RpcEndpoint } from './rpc-endpoint.js';

/**
 * Which endpoint a call goes to. The endpoints of SOLANA_RPC_URL are used in order: the last one
 * that answered stays current; one that fails cools down (rpc-endpoint.ts) and is tried again when
 * another fails after that. A call goes only where its methods are served (an endpoint may refuse a
 * method for good, for RPC_REPROBE_MS), and waits for a cooling endpoint only as long as its
 * deadline and MAX_WAIT_MS allow.
 */

/** Longest a call waits for a cooling endpoint; a longer Retry-After fails the call at once. */
export const MAX_WAIT_MS = 2_000;

/** Calls that found `endpoint` a few slots short: not sent there again before `untilMs`. */
export interface CatchUp {
  endpoint: RpcEndpoint;
  untilMs: number;
}

const now = (): number => performance.now();

export class Failover {
  readonly endpoints: readonly RpcEndpoint[];
  private currentIndex = 0;

  constructor(
    urls: readonly string[],
    limits: EndpointLimits,
    /** A retry is made only with this much time left (min(RPC_TIMEOUT_MS, MIN_ATTEMPT_MS)). */
    private readonly minAttemptMs: number,
  ) {
    this.endpoints = urls.map((url) => new RpcEndpoint(url, limits));
  }

  /** The endpoint calls go to first: the last one that answered well, unless it failed since. */
  get current(): RpcEndpoint {
    return this.endpoints[this.currentIndex]!;
  }

  /**
   * The current endpoint, or the first one not cooling down, or (after a short wait) the one that
   * cools first — or why no attempt fits before the deadline. `catchUp`: an endpoint these calls
   * should not be sent to again before it can have reached their minimum slot.
   */
  async choose(
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
      const endpoint = this.endpoints[(this.currentIndex + step) % count]!;
      if (!endpoint.servesAll(methods, start)) continue;
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

  /** The next endpoint after `primary` in order that is not cooling down and serves `methods`, if any. */
  nextAfter(primary: RpcEndpoint, methods: ReadonlySet<string>): RpcEndpoint | undefined {
    const count = this.endpoints.length;
    const start = this.endpoints.indexOf(primary);
    const at = now();
    for (let step = 1; step < count; step++) {
      const endpoint = this.endpoints[(start + step) % count]!;
      if (endpoint.coolUntil <= at && endpoint.servesAll(methods, at)) return endpoint;
    }
    return undefined;
  }

  /** Whether some endpoint serves every one of `methods` now. */
  someServesAll(methods: ReadonlySet<string>, at: number): boolean {
    return this.endpoints.some((endpoint) => endpoint.servesAll(methods, at));
  }

  /** When the first endpoint will serve `method` again, if every endpoint refuses it now (undefined: one serves it). */
  everyEndpointRefuses(method: string, at: number): number | undefined {
    let soonest = Infinity;
    for (const endpoint of this.endpoints) {
      if (!endpoint.refuses(method, at)) return undefined;
      soonest = Math.min(soonest, endpoint.refusedUntil(method));
    }
    return soonest;
  }

  /** When the first endpoint stops cooling down (performance.now() ms). */
  soonestUsable(): number {
    let soonest = Infinity;
    for (const endpoint of this.endpoints) soonest = Math.min(soonest, endpoint.coolUntil);
    return soonest;
  }

  /** `endpoint` answered well: it is usable at once, and the current one. */
  answered(endpoint: RpcEndpoint): void {
    endpoint.recovered();
    this.currentIndex = this.endpoints.indexOf(endpoint);
  }

  /** `endpoint` failed: it cools down (at least `retryAfterMs`), and the next one becomes current if it was. */
  failed(endpoint: RpcEndpoint, retryAfterMs: number): void {
    endpoint.failed(retryAfterMs, now());
    const index = this.endpoints.indexOf(endpoint);
    if (this.currentIndex === index) this.currentIndex = (index + 1) % this.endpoints.length;
  }
}

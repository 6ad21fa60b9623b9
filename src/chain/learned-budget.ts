import { CallBudget } from './call-budget.js';

/**
 * A provider's budget in calls per second, learned from its refusals, for an endpoint without
 * RPC_CALLS_PER_SECOND. Providers that sell calls count every batch member and refuse the overflow
 * (HTTP 429, or rate-limit errors inside a 200); an unpaced client keeps sending at its own rate,
 * rests, and sends a burst again, so a share of every second's calls is refused and retried. Here
 * the first refusal sets a budget from what was sent in the second before it (the provider's budget
 * is below that), and pacing (call-budget.ts) keeps the client under it:
 *
 * - a refusal with no learned budget: the calls the provider accepted in the last second (sent,
 *   less those it refused), which is its budget when the client sent more than it;
 * - a refusal under a learned budget: CUT of it (at most once per CUT_INTERVAL_MS, since one
 *   overflowing window refuses many calls at once);
 * - each second without a refusal while the budget was used, from GROWTH_AFTER_MS after the last
 *   refusal: + GROWTH of it (a plan may be larger than the first guess, or the provider's other
 *   clients quieter); sooner, growth would take it back over the provider's budget within a few
 *   seconds of each cut;
 * - FORGET_MS without any refusal: the budget is dropped, and the client sends unpaced again.
 *
 * An additive-increase, multiplicative-decrease loop, as TCP does for a path's capacity: refusals
 * come once per climb instead of every second.
 */
export class LearnedBudget {
  static readonly CUT = 0.8;
  static readonly CUT_INTERVAL_MS = 1000;
  static readonly GROWTH = 0.05;
  static readonly GROWTH_AFTER_MS = 5000;
  static readonly FORGET_MS = 60_000;
  /** Calls sent per BUCKET_MS over the last WINDOW_MS. */
  private static readonly WINDOW_MS = 1000;
  private static readonly BUCKET_MS = 100;

  private current: CallBudget | undefined;
  private readonly buckets = new Float64Array(LearnedBudget.WINDOW_MS / LearnedBudget.BUCKET_MS);
  /** Calls refused for their rate per BUCKET_MS, over the same window. */
  private readonly refusedBuckets = new Float64Array(LearnedBudget.WINDOW_MS / LearnedBudget.BUCKET_MS);
  private bucketAt = 0;
  private lastRefusalAt = -Infinity;
  private grownAt = -Infinity;
  /** Calls sent since the budget last grew (whether it was used enough to grow). */
  private sentSinceGrowth = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** The budget in force (undefined: none learned, or forgotten). */
  budget(): CallBudget | undefined {
    const current = this.current;
    if (current === undefined) return undefined;
    const at = this.now();
    if (at - this.lastRefusalAt > LearnedBudget.FORGET_MS) {
      this.current = undefined;
      return undefined;
    }
    if (at - this.lastRefusalAt < LearnedBudget.GROWTH_AFTER_MS) {
      this.grownAt = at;
      this.sentSinceGrowth = 0;
    } else if (at - this.grownAt >= 1000) {
      const seconds = Math.floor((at - this.grownAt) / 1000);
      // Grow only a budget that was used: an idle second says nothing about the provider's.
      if (this.sentSinceGrowth >= current.perSecond * CallBudget.HEADROOM * 0.8 * seconds) {
        current.perSecond = Math.ceil(current.perSecond * (1 + LearnedBudget.GROWTH) ** seconds);
      }
      this.grownAt = at;
      this.sentSinceGrowth = 0;
    }
    return this.current;
  }

  /** The calls per second in force (0: none). */
  perSecond(): number {
    return this.budget()?.perSecond ?? 0;
  }

  /** `calls` calls were sent now. */
  sent(calls: number): void {
    this.advance(this.now());
    this.buckets[this.bucketAt % this.buckets.length]! += calls;
    this.sentSinceGrowth += calls;
  }

  /** The provider refused `calls` calls for their rate (HTTP 429, or rate-limit errors inside a 200). */
  refused(calls: number): void {
    const at = this.now();
    this.advance(at);
    this.refusedBuckets[this.bucketAt % this.refusedBuckets.length]! += calls;
    const sinceLast = at - this.lastRefusalAt;
    this.lastRefusalAt = at;
    if (this.current !== undefined && sinceLast < LearnedBudget.CUT_INTERVAL_MS) return;
    const sum = (buckets: Float64Array): number => buckets.reduce((total, n) => total + n, 0);
    const accepted = sum(this.buckets) - sum(this.refusedBuckets);
    const next = Math.max(1, Math.floor(this.current === undefined ? accepted : this.current.perSecond * LearnedBudget.CUT));
    // A budget changes in place: its bookings stay, so the new rate counts what was just sent.
    if (this.current === undefined) {
      // What was sent unpaced in the last second still fills the provider's window.
      this.current = new CallBudget(next, this.now);
      const count = this.buckets.length;
      for (let back = count - 1; back >= 0; back--) {
        const calls = this.buckets[(this.bucketAt - back) % count]!;
        if (calls > 0) this.current.record((this.bucketAt - back) * LearnedBudget.BUCKET_MS, calls);
      }
    } else {
      this.current.perSecond = next;
    }
    this.grownAt = at;
    this.sentSinceGrowth = 0;
  }

  /** Moves the ring to the bucket of `at`, clearing the buckets passed over. */
  private advance(at: number): void {
    const bucket = Math.floor(at / LearnedBudget.BUCKET_MS);
    if (bucket === this.bucketAt) return;
    const steps = Math.min(this.buckets.length, bucket - this.bucketAt);
    for (let step = 1; step <= steps; step++) {
      this.buckets[(this.bucketAt + step) % this.buckets.length] = 0;
      this.refusedBuckets[(this.bucketAt + step) % this.refusedBuckets.length] = 0;
    }
    this.bucketAt = bucket;
  }
}

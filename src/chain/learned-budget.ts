import { CallBudget } from './call-budget.js';

/**
 * A provider's budget in calls per second, learned from its refusals, for an endpoint without
 * RPC_CALLS_PER_SECOND. Providers that sell calls count every batch member in a window of a second
 * and refuse the overflow (HTTP 429, or rate-limit errors inside a 200). When a provider refuses,
 * its window is full: the calls it accepted in the second before the refusal ARE its budget. So
 * each refusal is a measurement, not a signal to cut by a factor:
 *
 * - the ceiling: the calls the provider accepted (answered without a rate limit) in the WINDOW_MS
 *   before a refusal arrived. The refusals of one overflowing window arrive together: every
 *   refusal within EPISODE_MS of an episode's first belongs to it and the episode keeps its
 *   highest measurement, answers arriving during it included (the replies of one window arrive
 *   spread out: a later one counts more of them), so one burst is one measurement, never many
 *   cuts;
 * - a refusal sets the budget to the episode's ceiling (the first one: no budget yet), never
 *   raises it, and lowers it by at most MAX_CUT per episode (a refusal after an idle spell
 *   measures little: several episodes must agree before the budget falls far);
 * - from QUIET_MS after the last refusal, each second the budget was used and is below the
 *   ceiling, it closes RECOVERY of the gap (back to what the provider showed it accepts, in a few
 *   seconds);
 * - each second it was used at or above the ceiling, it grows by PROBE: a plan may be larger than
 *   measured, or the provider's other clients quieter. A probe ends in a refusal (a measurement
 *   again) when the budget was right, and a refusal costs a retry and, for an HTTP 429, the
 *   provider's Retry-After: so once a paced client's refusal confirmed the ceiling, probes start
 *   PROBE_AFTER_MS after the last refusal. The first ceiling comes from an unpaced burst (answers
 *   bunched, a loaded client's event loop late to count them) and may be low: from it, probes
 *   start QUIET_MS after;
 * - FORGET_MS without any refusal: the budget is dropped, and the client sends unpaced again.
 *
 * Pacing (call-budget.ts) plans HEADROOM of the budget, so a budget at the ceiling sends ~86 % of
 * the provider's rate and refusals come only when a probe passes it.
 */
export class LearnedBudget {
  static readonly EPISODE_MS = 1000;
  static readonly MAX_CUT = 0.5;
  static readonly QUIET_MS = 2000;
  static readonly RECOVERY = 0.5;
  static readonly PROBE = 0.05;
  static readonly PROBE_AFTER_MS = 10_000;
  static readonly FORGET_MS = 60_000;
  static readonly USED = 0.6;
  /** Calls sent, and accepted, per BUCKET_MS over the last WINDOW_MS. */
  static readonly WINDOW_MS = 1000;
  private static readonly BUCKET_MS = 50;

  private current: CallBudget | undefined;
  private readonly sentBuckets = new Float64Array(LearnedBudget.WINDOW_MS / LearnedBudget.BUCKET_MS);
  /** Over twice WINDOW_MS: the busiest window of the last two seconds is the measurement. */
  private readonly acceptedBuckets = new Float64Array((2 * LearnedBudget.WINDOW_MS) / LearnedBudget.BUCKET_MS + 2);
  private bucketAt = 0;
  private lastRefusalAt = -Infinity;
  private episodeAt = -Infinity;
  /** The budget before the episode under way (Infinity: there was none). */
  private episodePrior = Infinity;
  /** The provider's rate as the last episode measured it (calls accepted per WINDOW_MS). */
  private ceilingCalls = 0;
  /** Whether the ceiling was measured while the client was paced (not from its first, unpaced burst). */
  private confirmed = false;
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
    if (at - this.lastRefusalAt < LearnedBudget.QUIET_MS) {
      this.grownAt = at;
      this.sentSinceGrowth = 0;
    } else if (at - this.grownAt >= 1000) {
      const seconds = Math.floor((at - this.grownAt) / 1000);
      // Grow only a budget that was used: an idle second says nothing about the provider's.
      // (Used: the client sent at least USED of what pacing lets through; pacing in windows of
      // bursts of batches seldom sends all of it.)
      if (this.sentSinceGrowth >= current.perSecond * CallBudget.HEADROOM * LearnedBudget.USED * seconds) {
        const probing = at - this.lastRefusalAt >= (this.confirmed ? LearnedBudget.PROBE_AFTER_MS : LearnedBudget.QUIET_MS);
        let rate = current.perSecond;
        for (let second = 0; second < Math.min(seconds, 60); second++) {
          if (rate < this.ceilingCalls) rate += Math.ceil((this.ceilingCalls - rate) * LearnedBudget.RECOVERY);
          else if (probing) rate = Math.ceil(rate * (1 + LearnedBudget.PROBE));
        }
        current.perSecond = rate;
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

  /** The provider's rate the last refusals measured (0: none yet). */
  ceiling(): number {
    return this.ceilingCalls;
  }

  /** `calls` calls were sent now. */
  sent(calls: number): void {
    this.advance(this.now());
    this.sentBuckets[this.bucketAt % this.sentBuckets.length]! += calls;
    this.sentSinceGrowth += calls;
  }

  /**
   * The provider answered `calls` calls now without refusing them for their rate (it counted them).
   * Within an episode, answers still arriving belong to the window that overflowed (a loaded
   * client reads the refusing reply before others the provider sent earlier): they raise its
   * measurement.
   */
  accepted(calls: number): void {
    if (calls <= 0) return;
    const at = this.now();
    this.advance(at);
    this.acceptedBuckets[this.bucketAt % this.acceptedBuckets.length]! += calls;
    if (this.current === undefined || at - this.episodeAt >= LearnedBudget.EPISODE_MS) return;
    const measured = this.busiestWindow();
    if (measured <= this.ceilingCalls) return;
    this.ceilingCalls = measured;
    this.current.perSecond = this.settled();
  }

  /**
   * The provider refused calls for their rate (HTTP 429, or rate-limit errors inside a 200). The
   * calls it accepted in the same reply are told first (accepted()), so they count.
   */
  refused(): void {
    const at = this.now();
    this.advance(at);
    this.lastRefusalAt = at;
    const measured = Math.max(1, this.busiestWindow());
    if (at - this.episodeAt >= LearnedBudget.EPISODE_MS) {
      this.episodeAt = at;
      this.episodePrior = this.current?.perSecond ?? Infinity;
      this.confirmed = this.current !== undefined;
      this.ceilingCalls = measured;
    } else {
      this.ceilingCalls = Math.max(this.ceilingCalls, measured);
    }
    const next = this.settled();
    // A budget changes in place: its bookings stay, so the new rate counts what was just sent.
    if (this.current === undefined) {
      // What was sent unpaced in the last second still fills the provider's window.
      this.current = new CallBudget(next, this.now);
      const count = this.sentBuckets.length;
      for (let back = count - 1; back >= 0; back--) {
        const calls = this.sentBuckets[(this.bucketAt - back) % count]!;
        if (calls > 0) this.current.record((this.bucketAt - back) * LearnedBudget.BUCKET_MS, calls);
      }
    } else {
      this.current.perSecond = next;
    }
    this.grownAt = at;
    this.sentSinceGrowth = 0;
  }

  /** The budget an episode leaves: its measurement, never above the budget before it nor below MAX_CUT of it. */
  private settled(): number {
    const prior = this.episodePrior;
    return Math.floor(prior === Infinity ? this.ceilingCalls : Math.min(prior, Math.max(prior * LearnedBudget.MAX_CUT, this.ceilingCalls)));
  }

  /**
   * The most calls accepted in WINDOW_MS (and one bucket: the provider's window does not start on
   * a bucket's edge) ending in the last WINDOW_MS. Answers reach the client spread by their round
   * trips and its event loop: the window just before a refusal may miss some of the provider's
   * full window, a neighbouring one holds them.
   */
  private busiestWindow(): number {
    const ring = this.acceptedBuckets;
    const width = LearnedBudget.WINDOW_MS / LearnedBudget.BUCKET_MS + 1;
    const at = (back: number): number => ring[(((this.bucketAt - back) % ring.length) + ring.length) % ring.length]!;
    let sum = 0;
    for (let back = 0; back < width; back++) sum += at(back);
    let busiest = sum;
    for (let end = 1; end < width; end++) {
      sum += at(end + width - 1) - at(end - 1);
      busiest = Math.max(busiest, sum);
    }
    return busiest;
  }

  /** Moves the rings to the bucket of `at`, clearing the buckets passed over. */
  private advance(at: number): void {
    const bucket = Math.floor(at / LearnedBudget.BUCKET_MS);
    if (bucket === this.bucketAt) return;
    for (const ring of [this.sentBuckets, this.acceptedBuckets]) {
      const steps = Math.min(ring.length, bucket - this.bucketAt);
      for (let step = 1; step <= steps; step++) ring[(this.bucketAt + step) % ring.length] = 0;
    }
    this.bucketAt = bucket;
  }
}

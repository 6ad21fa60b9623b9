/**
 * A budget of calls per second at one endpoint (RPC_CALLS_PER_SECOND; RPC_SCANS_PER_SECOND for
 * getProgramAccounts alone), every member of a batch counted, as providers that sell calls count
 * them. The client paces what it sends to fit, so the provider's budget goes to calls it answers
 * instead of to calls it refuses (each refusal also costs a round trip and a retry).
 *
 * A token bucket: `burst` calls may go at once, then the refill. Burst plus refill stay under
 * HEADROOM of the budget in any one second: the provider counts arrivals in its own window, and a
 * request held a few milliseconds (the event loop, a concurrency slot, the network) lands in the
 * next one beside requests sent on time — with batches of tens of calls, one late batch would
 * otherwise push a window over and have its members refused. Reservations are first come, first served: a sender takes its tokens and waits
 * out the debt (take()), and a later sender waits behind it; waitFor() tells a caller with a
 * deadline how long that would be before it commits, so a login that cannot be served in time is
 * answered at once (503 with Retry-After), not at its deadline.
 */
export class CallBudget {
  private tokens: number;
  private updatedAt: number;
  private readonly burst: number;
  private readonly refillPerMs: number;
  /** The share of the budget the client plans to use (the rest absorbs timing jitter). */
  static readonly HEADROOM = 0.9;

  constructor(
    readonly perSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(perSecond > 0)) throw new RangeError('a call budget needs a positive rate');
    // A tenth of a second's worth at once; the refill makes up the rest of the second.
    const planned = perSecond * CallBudget.HEADROOM;
    this.burst = Math.max(1, Math.ceil(planned / 10));
    this.refillPerMs = Math.max(planned - this.burst, planned / 2) / 1000;
    this.tokens = this.burst;
    this.updatedAt = this.now();
  }

  /** How long `calls` calls taken now would wait, in ms (0: they may go at once). */
  waitFor(calls: number): number {
    this.refill();
    const short = calls - this.tokens;
    return short <= 0 ? 0 : short / this.refillPerMs;
  }

  /** Takes `calls` calls' worth, returning how long to wait before sending them (ms). */
  take(calls: number): number {
    const wait = this.waitFor(calls);
    this.tokens -= calls;
    return wait;
  }

  /** Gives back calls taken but not sent (their sender gave up before its turn). */
  giveBack(calls: number): void {
    this.refill();
    this.tokens = Math.min(this.burst, this.tokens + calls);
  }

  private refill(): void {
    const at = this.now();
    this.tokens = Math.min(this.burst, this.tokens + (at - this.updatedAt) * this.refillPerMs);
    this.updatedAt = at;
  }
}

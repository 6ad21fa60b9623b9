/**
 * A rolling-window rate limit: at most `limit` admissions in any `windowMs` (the form providers
 * document: "100 requests per 10 seconds", Triton's "rolling 10-second window"). Remembers the
 * times of the last `limit` admissions in a ring, so a check is O(1) and memory is O(limit).
 */
export class RollingWindow {
  private readonly times: Float64Array;
  /** The slot of the oldest remembered admission (the next one to be overwritten). */
  private oldest = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error('a rolling window needs a limit of at least 1');
    // -Infinity: a slot never used frees nothing to wait for.
    this.times = new Float64Array(limit).fill(-Infinity);
  }

  /** Milliseconds until `n` more admissions fit (0: they fit now; Infinity: `n` is over the limit). */
  waitFor(n: number, now: number): number {
    if (n <= 0) return 0;
    if (n > this.limit) return Infinity;
    // The n-th oldest admission has to have left the window.
    const nth = this.times[(this.oldest + n - 1) % this.limit]!;
    return Math.max(0, nth + this.windowMs - now);
  }

  /** Records one admission at `now` (the caller checked waitFor first). */
  take(now: number): void {
    this.times[this.oldest] = now;
    this.oldest = (this.oldest + 1) % this.limit;
  }
}

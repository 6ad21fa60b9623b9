/**
 * How many RPC HTTP requests may be in flight, learned from the provider's answers instead of
 * fixed: a fixed low cap queues a launch's batches behind it (each waiting a whole round trip per
 * place in the queue), a fixed high one lets a struggling provider drown.
 *
 * - Grow while the provider keeps up: an answer whose round trip stays within `tolerance` × the
 *   lowest round trip seen lately, arriving while the limit was in use (requests queued, or every
 *   slot taken), adds 1 (doubling per round trip) until the first sign of trouble, then 1 ÷ limit
 *   (one per round trip): additive increase.
 * - Shrink on trouble: HTTP 429, 5xx, a timeout or a network error halve the limit (multiplicative
 *   decrease), at most once per round trip, so one burst of failures of requests sent together
 *   counts once. A slow round trip alone only stops the growth: measured from the gate, it also
 *   holds the gate's own event-loop delay, and shrinking for that would hold batches back (the
 *   account batcher waits for a free slot) when the provider is fine.
 * - After overload, batches are also spaced (spacingMs): fewer in flight is not fewer per second.
 * - Always within [min, max] (RPC_CONCURRENCY_MIN, RPC_CONCURRENCY_MAX); starts at `initial`
 *   (RPC_CONCURRENCY).
 *
 * The lowest round trip is kept over two rotating windows of MIN_RTT_WINDOW_MS, so a provider
 * that becomes slower for good is learned within 20 s and an old fast answer does not make every
 * later one look slow forever.
 */
export interface AdaptiveLimitOptions {
  initial: number;
  min: number;
  max: number;
  /** A round trip up to this multiple of the minimum counts as "keeping up" (default 2). */
  tolerance?: number;
  /** performance.now() by default; tests drive their own clock. */
  now?: () => number;
}

const MIN_RTT_WINDOW_MS = 10_000;
const OVERLOAD_DECREASE = 0.5;
/**
 * Fewer requests in flight does not mean fewer per second: at the minimum limit a provider 80 ms
 * away still gets ~25 a second. So overload also spaces batches (spacingMs, which the account
 * batcher waits at least between sends): doubled per overload from one round trip up to
 * MAX_SPACING_MS, 5 % less per answer after.
 */
const MAX_SPACING_MS = 1_000;
const SPACING_DECAY = 0.95;

export class AdaptiveLimit {
  private current: number;
  private active = 0;
  private readonly queue: (() => void)[] = [];
  private readonly slotWatchers: (() => void)[] = [];
  private readonly min: number;
  private readonly max: number;
  private readonly tolerance: number;
  private readonly now: () => number;
  /** Until the first decrease the limit doubles per round trip (slow start), then grows by one. */
  private slowStart = true;
  private lastDecreaseAt = -Infinity;
  private windowStart: number;
  private windowMin = Infinity;
  private previousWindowMin = Infinity;
  private lastRtt = 0;
  private spacing = 0;

  constructor(options: AdaptiveLimitOptions) {
    if (!(options.min >= 1 && options.max >= options.min)) throw new RangeError('need 1 ≤ min ≤ max');
    this.min = options.min;
    this.max = options.max;
    this.current = clamp(options.initial, options.min, options.max);
    this.tolerance = options.tolerance ?? 2;
    this.now = options.now ?? (() => performance.now());
    this.windowStart = this.now();
  }

  /** The number of requests that may be in flight now (a whole number within [min, max]). */
  get limit(): number {
    return Math.floor(this.current);
  }

  get inFlight(): number {
    return this.active;
  }

  get queued(): number {
    return this.queue.length;
  }

  /** The lowest round trip seen in the last 10–20 s, in ms; undefined before the first answer. */
  minRttMs(): number | undefined {
    this.rotate();
    const lowest = Math.min(this.windowMin, this.previousWindowMin);
    return Number.isFinite(lowest) ? lowest : undefined;
  }

  /** Whether a request started now would be sent at once. */
  hasFreeSlot(): boolean {
    return this.active < this.limit && this.queue.length === 0;
  }

  /** Calls `watcher` once, as soon as a slot is free (at once when one is). */
  whenSlotFree(watcher: () => void): void {
    if (this.hasFreeSlot()) watcher();
    else this.slotWatchers.push(watcher);
  }

  /** Runs `task` when a slot is free; the slot is held until it settles. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit || this.queue.length > 0) await new Promise<void>((resolve) => this.queue.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.release();
    }
  }

  /** The provider answered within `rttMs`. */
  succeeded(rttMs: number): void {
    this.rotate();
    this.lastRtt = rttMs;
    this.spacing = this.spacing * SPACING_DECAY < 1 ? 0 : this.spacing * SPACING_DECAY;
    if (rttMs < this.windowMin) this.windowMin = rttMs;
    const minimum = Math.min(this.windowMin, this.previousWindowMin);
    if (rttMs > minimum * this.tolerance) return;
    // Only a limit in use is known to be too low: the answer came back while every slot was taken
    // (this request's own slot is still held) or while others waited.
    if (this.active < this.limit && this.queue.length === 0) return;
    this.current = Math.min(this.max, this.current + (this.slowStart ? 1 : 1 / this.current));
    this.release();
  }

  /** The provider refused or failed (429, 5xx, timeout, network error). */
  overloaded(): void {
    const at = this.now();
    // Requests sent together fail together: one decrease per round trip.
    if (at - this.lastDecreaseAt < Math.max(this.lastRtt, 1)) return;
    this.lastDecreaseAt = at;
    this.slowStart = false;
    this.current = Math.max(this.min, this.current * OVERLOAD_DECREASE);
    this.spacing = Math.min(MAX_SPACING_MS, Math.max(2 * this.spacing, this.minRttMs() ?? this.lastRtt, 1));
  }

  /** How long batches should be spaced after overload (0 while the provider keeps up). */
  spacingMs(): number {
    return this.spacing;
  }

  /** Starts queued tasks while slots are free, then tells a watcher. */
  private release(): void {
    while (this.active < this.limit && this.queue.length > 0) {
      this.active++;
      this.queue.shift()!();
    }
    while (this.active < this.limit && this.slotWatchers.length > 0) this.slotWatchers.shift()!();
  }

  private rotate(): void {
    const at = this.now();
    if (at - this.windowStart < MIN_RTT_WINDOW_MS) return;
    // Skipped windows (no traffic) hold no samples.
    this.previousWindowMin = at - this.windowStart < 2 * MIN_RTT_WINDOW_MS ? this.windowMin : Infinity;
    this.windowMin = Infinity;
    this.windowStart = at;
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

/**
 * A budget of calls per second at one endpoint (RPC_CALLS_PER_SECOND; RPC_SCANS_PER_SECOND for
 * getProgramAccounts alone; or learned-budget.ts), every member of a batch counted, as providers
 * that sell calls count them. The client paces what it sends to fit, so the provider's budget goes
 * to calls it answers instead of to calls it refuses (each refusal also costs a round trip and a
 * retry).
 *
 * Counted the way providers count: calls arriving in any window of WINDOW_MS. A request is sent
 * only when the calls sent (or booked to be sent) in the WINDOW_MS before it, plus its own, stay
 * within HEADROOM of the budget. A token bucket is not enough: it refills for the next request
 * while the previous one is still inside the provider's window, so two large batches (a launch
 * merges tens of calls into one) land in one window with up to a batch more than the budget
 * (measured: 600 of 2,601 calls refused at 150 calls/s with 67-call batches). The rest of the
 * budget absorbs timing jitter: a request held a few milliseconds (the event loop, a concurrency
 * slot, the network) arrives later than booked.
 *
 * Bookings are first come, first served: take() books the calls at the earliest time that fits
 * after every earlier booking and returns how long to wait for it; waitFor() tells a caller with a
 * deadline that wait before it commits, so a login that cannot be served in time is answered at
 * once (503 with Retry-After), not at its deadline.
 */
export class CallBudget {
  /** The share of the budget the client plans to use (the rest absorbs timing jitter). */
  static readonly HEADROOM = 0.9;
  static readonly WINDOW_MS = 1000;
  /**
   * Bookings are kept apart by a window this much longer than the provider's: a request booked
   * the moment an earlier one leaves the window would otherwise race it to the provider (the
   * earlier one held a few milliseconds on its way lands in the same window), and with batches of
   * tens of calls one such race is a batch refused.
   */
  static readonly JITTER_MS = 50;
  private static readonly SPAN_MS = CallBudget.WINDOW_MS + CallBudget.JITTER_MS;

  /** Calls planned per window. */
  private planned: number;
  /** Bookings in send-time order: [time (ms), calls], none older than WINDOW_MS before the newest. */
  private readonly times: number[] = [];
  private readonly calls: number[] = [];
  /** Index of the oldest booking still kept. */
  private head = 0;

  constructor(
    private rate: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.planned = CallBudget.plannedOf(rate);
  }

  get perSecond(): number {
    return this.rate;
  }

  /** Changes the rate; what was booked stays booked (a new budget would let a second window's worth go at once). */
  set perSecond(rate: number) {
    this.planned = CallBudget.plannedOf(rate);
    this.rate = rate;
  }

  private static plannedOf(rate: number): number {
    if (!(rate > 0)) throw new RangeError('a call budget needs a positive rate');
    return Math.max(1, Math.floor(rate * CallBudget.HEADROOM));
  }

  /** How long `calls` calls booked now would wait, in ms (0: they may go at once). */
  waitFor(calls: number): number {
    const at = this.now();
    return this.slotFor(calls, at) - at;
  }

  /** Books `calls` calls, returning how long to wait before sending them (ms). */
  take(calls: number): number {
    const at = this.now();
    const sendAt = this.slotFor(calls, at);
    this.times.push(sendAt);
    this.calls.push(calls);
    return sendAt - at;
  }

  /** Records `calls` sent at `time`, before this budget existed (in time order, before any booking). */
  record(time: number, calls: number): void {
    this.times.push(time);
    this.calls.push(calls);
  }

  /**
   * The earliest time ≥ `at`, and not before the last booking, at which the calls booked in the
   * SPAN_MS before it leave room for `calls` more. A request larger than the whole plan goes
   * alone, once the window before it is empty.
   */
  private slotFor(calls: number, at: number): number {
    this.forget(at);
    const last = this.times.length > this.head ? this.times[this.times.length - 1]! : -Infinity;
    let candidate = Math.max(at, last);
    let inWindow = 0;
    for (let i = this.head; i < this.times.length; i++) inWindow += this.calls[i]!;
    const room = Math.min(calls, this.planned);
    // Drop the oldest bookings out of the window until the calls fit.
    for (let i = this.head; i < this.times.length; i++) {
      if (this.times[i]! > candidate - CallBudget.SPAN_MS && inWindow + room <= this.planned) break;
      if (this.times[i]! <= candidate - CallBudget.SPAN_MS) {
        inWindow -= this.calls[i]!;
        continue;
      }
      candidate = this.times[i]! + CallBudget.SPAN_MS;
      inWindow -= this.calls[i]!;
    }
    return candidate;
  }

  /** Drops bookings that can no longer share a window with a request sent at `at` or later. */
  private forget(at: number): void {
    while (this.head < this.times.length && this.times[this.head]! <= at - CallBudget.SPAN_MS) this.head++;
    if (this.head > 64 && this.head * 2 > this.times.length) {
      this.times.splice(0, this.head);
      this.calls.splice(0, this.head);
      this.head = 0;
    }
  }
}

import type { Config } from '../config.js';
import type { RpcClient } from './rpc.js';

/**
 * A provider answering in RTT ms gets about this many batches per round trip from a steady stream
 * of callers: the window is RTT ÷ this (within RPC_BATCH_WINDOW_MS..RPC_BATCH_WINDOW_MAX_MS). At
 * 80 ms that is a 10 ms window, ~100 requests/s whatever the login rate, each caller waiting 5 ms
 * on average for its batch to leave.
 */
const BATCHES_PER_ROUND_TRIP = 8;
/**
 * A batch with this many callers goes out without waiting for the rest of its window: it is
 * already worth a request (at most 1/20 request per caller, the 0.05 per login a launch allows),
 * and a burst — e.g. a verified chunk of logins from the worker pool — is not held back.
 */
export const CALLERS_TO_SEND_EARLY = 20;

export type WindowConfig = Pick<Config, 'rpcBatchWindowMs'> & Partial<Pick<Config, 'rpcBatchWindowMaxMs'>>;

/**
 * When a batch of merged reads leaves (AccountBatcher, CallCoalescer). The window follows the
 * provider's round trip (BATCHES_PER_ROUND_TRIP), never shorter than RPC_BATCH_WINDOW_MS (0 = the
 * next setImmediate) nor longer than RPC_BATCH_WINDOW_MAX_MS. When it ends while every concurrency
 * slot is taken, or while every endpoint cools down after a 429 (its Retry-After), the batch keeps
 * gathering until a request could go out (or the earliest caller's deadline comes): one bigger
 * request then, instead of many queued behind the limit — each waiting a round trip per place in
 * the queue — or sent all at once when the Retry-After ends.
 */
export class BatchWindow {
  private open = false;
  /** The pending window's timer; undefined once the window is over (or sent early). */
  private timer: NodeJS.Timeout | undefined;
  private callers = 0;

  constructor(
    private readonly rpc: Pick<RpcClient, 'minRttMs' | 'spacingMs' | 'whenSlotFree'>,
    private readonly config: WindowConfig,
    /** Sends the batch gathered so far (and calls close()). */
    private readonly send: () => void,
    /** performance.now() ms of the earliest deadline among the gathered callers (Infinity: none). */
    private readonly earliestDeadline: () => number,
  ) {}

  /** How long the next batch gathers: an eighth of the provider's round trip, within the bounds. */
  windowMs(): number {
    const shortest = this.config.rpcBatchWindowMs;
    const longest = Math.max(shortest, this.config.rpcBatchWindowMaxMs ?? shortest);
    const rtt = this.rpc.minRttMs();
    const window = rtt === undefined ? shortest : Math.min(longest, Math.max(shortest, Math.round(rtt / BATCHES_PER_ROUND_TRIP)));
    // After a 429 (or other overload) the batches are spaced further apart, for a while.
    return Math.max(window, Math.round(this.rpc.spacingMs()));
  }

  /** A caller joined the batch being gathered: opens a window, or ends it early once the batch is big enough. */
  joined(): void {
    this.callers++;
    if (this.open) {
      if (this.timer !== undefined && this.callers >= CALLERS_TO_SEND_EARLY && this.rpc.spacingMs() === 0) {
        // Still this turn's callers may join: the batch leaves on the next setImmediate.
        clearTimeout(this.timer);
        this.timer = undefined;
        setImmediate(() => this.afterWindow());
      }
      return;
    }
    this.open = true;
    const window = this.windowMs();
    if (window === 0) setImmediate(() => this.afterWindow());
    else this.timer = setTimeout(() => this.afterWindow(), window);
  }

  /** The batch is leaving: the next caller opens a new window. */
  close(): void {
    this.open = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.callers = 0;
  }

  /** The window is over: send as soon as a request could go out, or at the earliest caller's deadline. */
  private afterWindow(): void {
    this.timer = undefined;
    let fired = false;
    let deadlineTimer: NodeJS.Timeout | undefined;
    const fire = (): void => {
      if (fired) return;
      fired = true;
      clearTimeout(deadlineTimer);
      this.send();
    };
    const earliest = this.earliestDeadline();
    if (Number.isFinite(earliest)) deadlineTimer = setTimeout(fire, Math.max(0, earliest - performance.now()));
    this.rpc.whenSlotFree(fire);
  }
}

/** A caller waiting on a shared request, with its own deadline (performance.now() ms). */
export interface DeadlinedWaiter {
  deadline: number;
  settled: boolean;
}

/**
 * Runs `send` (one request shared by `waiters`) until the latest waiter's deadline, calling
 * `expire` for each unsettled waiter at its own deadline when that comes first.
 */
export async function untilDeadlines<W extends DeadlinedWaiter, T>(waiters: Iterable<W>, send: (latestMs: number) => Promise<T>, expire: (waiter: W) => void): Promise<T> {
  let earliest = Infinity;
  let latest = -Infinity;
  for (const { deadline } of waiters) {
    if (deadline < earliest) earliest = deadline;
    if (deadline > latest) latest = deadline;
  }
  if (earliest === latest) return send(latest);
  let timer: NodeJS.Timeout | undefined;
  const releaseExpired = (): void => {
    const at = performance.now();
    let next = Infinity;
    for (const waiter of waiters) {
      if (waiter.settled) continue;
      if (waiter.deadline <= at) expire(waiter);
      else if (waiter.deadline < next) next = waiter.deadline;
    }
    timer = next < latest ? setTimeout(releaseExpired, next - at) : undefined;
  };
  timer = setTimeout(releaseExpired, earliest - performance.now());
  try {
    return await send(latest);
  } finally {
    clearTimeout(timer);
  }
}

import type { Config } from '../config.js';
import { upstreamUnavailable } from '../errors.js';
import type { RpcClient, RpcRequest } from './rpc.js';

interface Waiter {
  request: RpcRequest;
  /** performance.now() ms by which this caller gets an answer (Infinity: none). */
  deadline: number;
  settled: boolean;
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

/**
 * Merges the single JSON-RPC calls of concurrent logins (a history page, a program scan, a wallet's
 * token-account list) into JSON-RPC batches, as AccountBatcher merges getMultipleAccounts keys:
 * calls made within one window (RPC_BATCH_WINDOW_MS; 0 = the next setImmediate) go out together
 * through RpcClient.batch, which packs them into as few HTTP bodies as its size and call limits
 * allow. A thousand logins of a rule with three scans each cost a few dozen HTTP requests instead
 * of three thousand; each call still gets its own answer or its own 503 (a failed member fails
 * only its caller). Batches are standard JSON-RPC 2.0 (docs/solana-wire-format.md).
 *
 * Deadlines as in AccountBatcher: the batch runs until the latest caller's deadline, and a caller
 * whose own deadline comes first is rejected with a 503 at that moment.
 */
export class CallCoalescer {
  private queue: Waiter[] = [];
  private flushScheduled = false;

  constructor(
    private readonly rpc: Pick<RpcClient, 'batch'>,
    private readonly config: Pick<Config, 'rpcBatchWindowMs'>,
  ) {}

  call<T>(method: string, params: RpcRequest['params'], parse: (result: unknown) => T, deadlineMs = Infinity): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ request: { method, params, parse }, deadline: deadlineMs, settled: false, resolve: resolve as (result: unknown) => void, reject });
      this.scheduleFlush();
    });
  }

  /** Sends whatever is queued now (used on shutdown). */
  async flushNow(): Promise<void> {
    await this.flush();
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    const run = (): void => void this.flush();
    if (this.config.rpcBatchWindowMs === 0) setImmediate(run);
    else setTimeout(run, this.config.rpcBatchWindowMs);
  }

  private async flush(): Promise<void> {
    this.flushScheduled = false;
    const waiters = this.queue;
    this.queue = [];
    if (waiters.length === 0) return;
    try {
      const outcomes = await this.sendUntilDeadlines(waiters);
      waiters.forEach((waiter, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) settle(waiter, undefined, outcome.result);
        else settle(waiter, outcome.error);
      });
    } catch (error) {
      // A bug must not leave callers waiting forever.
      for (const waiter of waiters) settle(waiter, error);
    }
  }

  private sendUntilDeadlines(waiters: Waiter[]) {
    const requests = waiters.map((waiter) => waiter.request);
    return untilDeadlines(waiters, (latest) => this.rpc.batch(requests, latest), (waiter) =>
      settle(waiter, upstreamUnavailable(`${waiter.request.method}: no answer within the login's time budget (LOGIN_TIMEOUT_MS)`)),
    );
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

function settle(waiter: Waiter, error: unknown, result?: unknown): void {
  if (waiter.settled) return;
  waiter.settled = true;
  if (error !== undefined) waiter.reject(error);
  else waiter.resolve(result);
}

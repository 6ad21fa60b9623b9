import { upstreamUnavailable } from '../errors.js';
import { BatchWindow, untilDeadlines, type WindowConfig } from './batch-window.js';
import type { RpcClient } from './rpc.js';
import type { RpcRequest } from './rpc-request.js';

interface Waiter {
  request: RpcRequest;
  /** Callers of the same window with the same key share one call (see CallCoalescer.call). */
  shareKey: string | undefined;
  /** performance.now() ms by which this caller gets an answer (Infinity: none). */
  deadline: number;
  settled: boolean;
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

/**
 * Merges the single JSON-RPC calls of concurrent logins (a history page, a program scan, a wallet's
 * token-account list) into JSON-RPC batches, as AccountBatcher merges getMultipleAccounts keys:
 * calls made within one window (src/chain/batch-window.ts: it follows the provider's round trip)
 * go out together through RpcClient.batch, which packs them into as few HTTP bodies as its size and call limits
 * allow. A thousand logins of a rule with three scans each cost a few dozen HTTP requests instead
 * of three thousand; each call still gets its own answer or its own 503 (a failed member fails
 * only its caller). Batches are standard JSON-RPC 2.0 (docs/solana-wire-format.md).
 *
 * Deadlines as in AccountBatcher: the batch runs until the latest caller's deadline, and a caller
 * whose own deadline comes first is rejected with a 503 at that moment.
 */
export class CallCoalescer {
  private queue: Waiter[] = [];
  private readonly window: BatchWindow;

  constructor(
    private readonly rpc: Pick<RpcClient, 'batch' | 'minRttMs' | 'spacingMs' | 'whenSlotFree'>,
    config: WindowConfig,
  ) {
    this.window = new BatchWindow(rpc, config, () => void this.flush(), () => this.queue.reduce((earliest, waiter) => Math.min(earliest, waiter.deadline), Infinity));
  }

  /**
   * As RpcClient.call: `minSlot` is the oldest slot its answer may be read at (RpcRequest.minSlot).
   * `shared`: calls of one window with the same method, params and minSlot go out once and all get
   * its answer, as they would from one node at one moment (the caller's `parse` must not depend on
   * who asked: the first caller's is used). For the co-signs' blockhash calls, which a launch's
   * concurrent co-signs make alike. `paramsJson`: `params` already serialized (RpcRequest.paramsJson).
   */
  call<T>(method: string, params: RpcRequest['params'], parse: RpcRequest<T>['parse'], deadlineMs = Infinity, minSlot = 0, shared = false, paramsJson?: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const shareKey = shared ? `${method} ${minSlot} ${paramsJson ?? JSON.stringify(params)}` : undefined;
      const request: RpcRequest = paramsJson === undefined ? { method, params, parse, minSlot } : { method, params, parse, minSlot, paramsJson };
      this.queue.push({ request, shareKey, deadline: deadlineMs, settled: false, resolve: resolve as (result: unknown) => void, reject });
      this.window.joined();
    });
  }

  /** Sends whatever is queued now (used on shutdown). */
  async flushNow(): Promise<void> {
    await this.flush();
  }

  private async flush(): Promise<void> {
    this.window.close();
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

  /** One outcome per waiter; waiters sharing a key share one request's outcome. */
  private async sendUntilDeadlines(waiters: Waiter[]) {
    const requests: RpcRequest[] = [];
    const requestOf = new Array<number>(waiters.length);
    let firstOfKey: Map<string, number> | undefined;
    waiters.forEach((waiter, i) => {
      if (waiter.shareKey !== undefined) {
        const shared = (firstOfKey ??= new Map()).get(waiter.shareKey);
        if (shared !== undefined) {
          requestOf[i] = shared;
          return;
        }
        firstOfKey.set(waiter.shareKey, requests.length);
      }
      requestOf[i] = requests.push(waiter.request) - 1;
    });
    const outcomes = await untilDeadlines(waiters, (latest) => this.rpc.batch(requests, latest), (waiter) =>
      settle(waiter, upstreamUnavailable(`${waiter.request.method}: no answer within the login's time budget (LOGIN_TIMEOUT_MS)`)),
    );
    return firstOfKey === undefined ? outcomes : requestOf.map((index) => outcomes[index]!);
  }
}

function settle(waiter: Waiter, error: unknown, result?: unknown): void {
  if (waiter.settled) return;
  waiter.settled = true;
  if (error !== undefined) waiter.reject(error);
  else waiter.resolve(result);
}

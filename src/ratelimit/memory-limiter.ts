import type { RateDecision, RateLimiter } from './limiter.js';

export interface MemoryRateLimiterOptions {
  limit: number;
  windowMs?: number;
  /**
   * Most client keys remembered at once. A flood of distinct addresses evicts the keys whose windows
   * started first (closest to resetting anyway) instead of growing memory.
   */
  maxKeys?: number;
  /** Monotonic milliseconds; injected by tests. */
  now?: () => number;
}

export interface MemoryRateLimiter extends RateLimiter {
  /** Client keys currently remembered (for tests and metrics). */
  size(): number;
  /** Forget every client. */
  reset(): void;
}

/** ~150 bytes per key: the default caps the limiter near 15 MB. */
export const DEFAULT_MAX_KEYS = 100_000;

interface Window {
  key: string;
  startedAt: number;
  count: number;
}

/**
 * Fixed-window counter per client key, the same semantics as the Redis limiter: a window opens at
 * a key's first request and lasts `windowMs`.
 *
 * Every live window is in `byKey` and, in the order the windows opened, in `queue`. Windows leave
 * only from the front of the queue, when they expire or to make room, so sweeping and eviction cost
 * O(1) per request (amortised) and memory never exceeds `maxKeys` windows.
 */
export function createMemoryRateLimiter(options: MemoryRateLimiterOptions): MemoryRateLimiter {
  const { limit } = options;
  const windowMs = options.windowMs ?? 60_000;
  const maxKeys = Math.max(1, options.maxKeys ?? DEFAULT_MAX_KEYS);
  const now = options.now ?? (() => performance.now());
  const byKey = new Map<string, Window>();
  let queue: Window[] = [];
  let head = 0;

  function reset(): void {
    byKey.clear();
    queue = [];
    head = 0;
  }

  function dropOldest(): boolean {
    const oldest = queue[head];
    if (oldest === undefined) return false;
    queue[head] = undefined as unknown as Window; // let it be collected before the compaction
    head += 1;
    if (byKey.get(oldest.key) === oldest) byKey.delete(oldest.key);
    if (head > 1024 && head * 2 > queue.length) {
      queue = queue.slice(head);
      head = 0;
    }
    return true;
  }

  function sweepExpired(at: number): void {
    for (let oldest = queue[head]; oldest !== undefined && at - oldest.startedAt >= windowMs; oldest = queue[head]) {
      dropOldest();
    }
  }

  return {
    async hit(clientKey: string): Promise<RateDecision> {
      const at = now();
      sweepExpired(at);
      let window = byKey.get(clientKey);
      if (window === undefined) {
        while (byKey.size >= maxKeys && dropOldest());
        window = { key: clientKey, startedAt: at, count: 0 };
        byKey.set(clientKey, window);
        queue.push(window);
      }
      window.count += 1;
      return {
        allowed: window.count <= limit,
        limit,
        remaining: Math.max(0, limit - window.count),
        resetSeconds: Math.max(1, Math.ceil((window.startedAt + windowMs - at) / 1000)),
      };
    },
    size: () => byKey.size,
    reset,
    async close() {
      reset();
    },
  };
}

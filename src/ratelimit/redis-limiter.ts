import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateDecision, RateLimiter } from './limiter.js';
import type { RedisClient } from '../redis/client.js';
import { DEFAULT_KEY_PREFIX } from '../redis/keys.js';
import { createMemoryRateLimiter } from './memory-limiter.js';

export interface RedisRateLimiterOptions {
  limit: number;
  windowSeconds?: number;
  keyPrefix?: string;
  /**
   * Told when the limiter switches to its per-instance fallback (Redis failed) and back (Redis
   * answered again): once per transition, so an outage does not flood the log.
   */
  onFallbackChange?: (usingFallback: boolean, error?: Error) => void;
}

const REDIS_RETRY_AFTER_FAILURE_MS = 1000;

/**
 * Fixed-window counters in Redis (rate-limiter-flexible's atomic INCR+expiry script), so every
 * instance sharing the Redis counts one client's requests together. Keys: `<prefix>rl:{<client>}`.
 *
 * When Redis is unreachable the limiter does not block requests and does not fail them: it counts in
 * a bounded in-memory limiter of this instance instead (the deployment-wide limit becomes, for the
 * outage, the limit per instance). Nonce issuance therefore keeps working during a Redis outage,
 * still rate limited. The Redis client is owned by the caller, who closes it.
 */
export function createRedisRateLimiter(redis: RedisClient, options: RedisRateLimiterOptions): RateLimiter {
  const { limit } = options;
  const windowSeconds = options.windowSeconds ?? 60;
  const shared = new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: `${options.keyPrefix ?? DEFAULT_KEY_PREFIX}rl`,
    points: limit,
    duration: windowSeconds,
    // Do not even try while disconnected: go straight to the fallback.
    rejectIfRedisNotReady: true,
  });
  const fallback = createMemoryRateLimiter({ limit, windowMs: windowSeconds * 1000 });
  let usingFallback = false;
  // While on the fallback, one request at a time (at most one per second) probes Redis; the others
  // stay on the fallback. A Redis that accepts connections but never answers would otherwise cost
  // every request the full command timeout.
  let retryRedisAt = 0;
  let probing = false;

  function decisionFrom(result: RateLimiterRes, allowed: boolean): RateDecision {
    return {
      allowed,
      limit,
      remaining: Math.max(0, result.remainingPoints),
      resetSeconds: Math.max(1, Math.ceil(result.msBeforeNext / 1000)),
    };
  }

  function switchTo(fallbackNow: boolean, error?: Error): void {
    if (usingFallback === fallbackNow) return;
    usingFallback = fallbackNow;
    // Counts from the outage would otherwise linger until the next one.
    if (!fallbackNow) fallback.reset();
    options.onFallbackChange?.(fallbackNow, error);
  }

  async function hitRedis(clientKey: string): Promise<RateDecision> {
    try {
      const result = await shared.consume(`{${clientKey}}`);
      switchTo(false);
      return decisionFrom(result, true);
    } catch (rejection) {
      // rate-limiter-flexible rejects with a RateLimiterRes when the limit is exceeded, and with an
      // Error when the store failed.
      if (rejection instanceof RateLimiterRes) {
        switchTo(false);
        return decisionFrom(rejection, false);
      }
      retryRedisAt = Date.now() + REDIS_RETRY_AFTER_FAILURE_MS;
      switchTo(true, rejection instanceof Error ? rejection : new Error(String(rejection)));
      return fallback.hit(clientKey);
    }
  }

  return {
    async hit(clientKey: string): Promise<RateDecision> {
      if (!usingFallback) return hitRedis(clientKey);
      if (probing || Date.now() < retryRedisAt) return fallback.hit(clientKey);
      probing = true;
      try {
        return await hitRedis(clientKey);
      } finally {
        probing = false;
      }
    },
    async close() {
      await fallback.close();
    },
  };
}

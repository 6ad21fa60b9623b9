import type { RateDecision, RateLimiter } from './limiter.js';
import { GateError } from '../errors.js';
import type { RedisClient } from '../redis/client.js';
import { createMemoryRateLimiter } from './memory-limiter.js';
import { createRedisRateLimiter } from './redis-limiter.js';

export interface RateLimitSettings {
  /** RATE_LIMIT_PER_MINUTE; 0 turns limiting off. */
  rateLimitPerMinute: number;
  /** REDIS_KEY_PREFIX (default `x404:`). */
  redisKeyPrefix?: string;
}

/**
 * The limiter for this deployment: shared in Redis when a client is given (REDIS_URL), otherwise in
 * this process's memory; undefined when RATE_LIMIT_PER_MINUTE is 0.
 */
export function createRateLimiter(
  config: RateLimitSettings,
  redis: RedisClient | undefined,
  hooks: { onFallbackChange?: (usingFallback: boolean, error?: Error) => void } = {},
): RateLimiter | undefined {
  const limit = config.rateLimitPerMinute;
  if (limit <= 0) return undefined;
  if (redis === undefined) return createMemoryRateLimiter({ limit });
  return createRedisRateLimiter(redis, { limit, keyPrefix: config.redisKeyPrefix, onFallbackChange: hooks.onFallbackChange });
}

/**
 * The standard rate-limit headers (IETF draft "RateLimit header fields"), for every response to a
 * rate-limited request, allowed or not.
 */
export function rateLimitHeaders(decision: RateDecision, windowSeconds = 60): Record<string, string> {
  return {
    'RateLimit-Limit': String(decision.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(decision.resetSeconds),
    'RateLimit-Policy': `${decision.limit};w=${windowSeconds}`,
  };
}

/** 429 RATE_LIMITED (docs/api.md §7) with Retry-After and the RateLimit headers. */
export function rateLimitedError(decision: RateDecision): GateError {
  return new GateError(
    429,
    'RATE_LIMITED',
    `Too many requests from this address: at most ${decision.limit} per minute. Retry in ${decision.resetSeconds} s.`,
    { headers: { 'Retry-After': String(decision.resetSeconds), ...rateLimitHeaders(decision) } },
  );
}

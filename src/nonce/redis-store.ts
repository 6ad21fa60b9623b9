import type { ConsumedNonceStore } from './store.js';
import type { RedisClient } from '../redis/client.js';
import { DEFAULT_KEY_PREFIX, redisKey } from '../redis/keys.js';

export interface RedisNonceStoreOptions {
  keyPrefix?: string;
  /**
   * How long past `expiresAtMs` the entry is kept. Instances compare expiry against their own clocks;
   * keeping the entry a little longer covers clocks that disagree by up to this much, so an instance
   * whose clock runs behind cannot accept a nonce another instance has already forgotten.
   */
  clockSkewGraceMs?: number;
}

const DEFAULT_CLOCK_SKEW_GRACE_MS = 60_000;

/**
 * Consumed-nonce bookkeeping in Redis, shared by every instance using the same Redis and prefix.
 * `SET key 1 NX PX ttl` is atomic on the server: of any number of concurrent consumers of one id,
 * across any number of connections, exactly one gets "OK". The expiry makes Redis forget the entry
 * once the nonce could no longer be accepted anyway, so the store never grows beyond live nonces.
 *
 * Errors (Redis unreachable, command timed out) propagate as rejections: single use cannot be
 * guaranteed, so the caller must answer 503. The Redis client is owned by the caller, who closes it.
 */
export function createRedisNonceStore(redis: RedisClient, options: RedisNonceStoreOptions = {}): ConsumedNonceStore {
  const keyPrefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
  const graceMs = options.clockSkewGraceMs ?? DEFAULT_CLOCK_SKEW_GRACE_MS;

  return {
    async consume(nonceId, expiresAtMs) {
      // A relative TTL (PX) depends only on this instance's clock, not on the Redis server's.
      const ttlMs = Math.max(1, Math.ceil(expiresAtMs - Date.now()) + graceMs);
      const reply = await redis.set(redisKey(keyPrefix, 'nonce', nonceId), '1', 'PX', ttlMs, 'NX');
      return reply === 'OK';
    },

    async health() {
      if (redis.status !== 'ready') return `redis ${redis.status}`;
      try {
        await redis.ping();
        return 'ok';
      } catch (error) {
        return `redis unreachable: ${(error as Error).message}`;
      }
    },

    async close() {
      // The client is shared with the rate limiter; whoever created it closes it (closeRedisClient).
    },
  };
}

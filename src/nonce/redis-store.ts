import { randomBytes } from 'node:crypto';
import { NonceStoreUnavailable, type ConsumedNonceStore } from './store.js';
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

/** Deletes the key only while it holds this instance's value: one instance never releases another's spend. */
const RELEASE_SCRIPT = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

/**
 * Consumed-nonce bookkeeping in Redis, shared by every instance using the same Redis and prefix.
 * `SET key <instance> NX PX ttl` is atomic on the server: of any number of concurrent consumers of
 * one id, across any number of connections, exactly one gets "OK". The expiry makes Redis forget
 * the entry once the nonce could no longer be accepted anyway, so the store never grows beyond
 * live nonces. The value names the instance (random per store), so release() — a compare-and-delete
 * script — removes only an entry this instance wrote; within the instance, only the request that
 * won the SET releases, before it answers and long before the entry's TTL (nonce lifetime plus the
 * grace) could let another request write the key again.
 *
 * Errors (Redis unreachable, command timed out) propagate as rejections: single use cannot be
 * guaranteed, so the caller must answer 503. They are NonceStoreUnavailable, whose `mayHaveSpent`
 * is false only when the client was not connected (the command was never sent). The Redis client is
 * owned by the caller, who closes it.
 */
export function createRedisNonceStore(redis: RedisClient, options: RedisNonceStoreOptions = {}): ConsumedNonceStore {
  const keyPrefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
  const graceMs = options.clockSkewGraceMs ?? DEFAULT_CLOCK_SKEW_GRACE_MS;
  const instance = randomBytes(12).toString('base64url');

  return {
    async consume(nonceId, expiresAtMs) {
      // With the offline queue off, a client that is not ready refuses commands without sending them.
      if (redis.status !== 'ready') throw new NonceStoreUnavailable(`redis ${redis.status}`, false);
      // A relative TTL (PX) depends only on this instance's clock, not on the Redis server's.
      const ttlMs = Math.max(1, Math.ceil(expiresAtMs - Date.now()) + graceMs);
      let reply: string | null;
      try {
        reply = await redis.set(redisKey(keyPrefix, 'nonce', nonceId), instance, 'PX', ttlMs, 'NX');
      } catch (error) {
        // Sent, then timed out or cut off: Redis may have applied it.
        throw new NonceStoreUnavailable((error as Error).message, true);
      }
      return reply === 'OK';
    },

    async release(nonceId) {
      if (redis.status !== 'ready') throw new NonceStoreUnavailable(`redis ${redis.status}`, true);
      await redis.eval(RELEASE_SCRIPT, 1, redisKey(keyPrefix, 'nonce', nonceId), instance);
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

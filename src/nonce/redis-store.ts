import { randomBytes } from 'node:crypto';
import { DEFAULT_MAX_CLOCK_SKEW_MS } from './codec.js';
import { EPOCH_BUCKETS, EPOCH_KEEP_MS, type RedisNonceEpochs } from './redis-epochs.js';
import { RELEASE_LEGACY, SPEND, SPEND_LEGACY } from './redis-scripts.js';
import { NonceStoreUnavailable, type ConsumedNonceStore, type SpendOutcome } from './store.js';
import type { RedisClient } from '../redis/client.js';
import { DEFAULT_KEY_PREFIX, redisKey } from '../redis/keys.js';

export interface RedisNonceStoreOptions {
  keyPrefix?: string;
  /**
   * MAX_CLOCK_SKEW_MS. Twice it is the grace: how far ahead of Redis's clock a nonce's issue time
   * may be (instances each within it of Redis are within twice it of each other), and how long a
   * record outlives its nonce on Redis's clock (so that a Redis clock set back by less than that
   * cannot make a forgotten nonce young again).
   */
  maxClockSkewMs?: number;
}

const OUTCOMES: ReadonlySet<string> = new Set<SpendOutcome>(['spent', 'reused', 'expired', 'superseded', 'future']);

/**
 * Consumed-nonce bookkeeping in Redis, shared by every instance using the same Redis and prefix.
 * One script per spend (src/nonce/redis-scripts.ts) checks the nonce's epoch and age on Redis's
 * clock and records it (ZADD NX) atomically on the server: of any number of concurrent consumers of
 * one nonce, across any number of connections, exactly one gets `spent`, and a nonce whose record
 * Redis lost (flush, restart, failover, eviction) is refused as `superseded`. The records expire
 * once the nonce could no longer be accepted anyway, so the store never grows beyond live nonces.
 *
 * Errors (Redis unreachable, command timed out) propagate as rejections: single use cannot be
 * guaranteed, so the caller must answer 503. They are NonceStoreUnavailable, whose `mayHaveSpent`
 * is false only when the client was not connected (the command was never sent). The Redis client is
 * owned by the caller, who closes it.
 */
export function createRedisNonceStore(redis: RedisClient, epochs: RedisNonceEpochs, options: RedisNonceStoreOptions = {}): ConsumedNonceStore {
  const keyPrefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
  const graceMs = 2 * (options.maxClockSkewMs ?? DEFAULT_MAX_CLOCK_SKEW_MS);
  /** Names this instance's spends of earlier-format nonces, so that release() removes only its own. */
  const instance = randomBytes(12).toString('base64url');

  return {
    async consume(nonce) {
      // With the offline queue off, a client that is not ready refuses commands without sending them.
      if (redis.status !== 'ready') throw new NonceStoreUnavailable(`redis ${redis.status}`, false);
      const lifetimeMs = nonce.expiresAtMs - nonce.issuedAtMs;
      const record = nonce.legacy ? undefined : recordOf(nonce.id);
      let reply: unknown;
      try {
        reply = record
          ? await SPEND.run(redis, [epochs.bucketKey(record.bucket)], [epochs.freshName(), EPOCH_KEEP_MS, nonce.epoch, record.member, nonce.issuedAtMs, lifetimeMs, graceMs])
          : await SPEND_LEGACY.run(redis, [redisKey(keyPrefix, 'nonce', nonce.id)], [instance, nonce.issuedAtMs, lifetimeMs, graceMs]);
      } catch (error) {
        // Sent, then timed out or cut off: Redis may have applied it.
        throw new NonceStoreUnavailable((error as Error).message, true);
      }
      const [outcome, epoch] = Array.isArray(reply) ? (reply as unknown[]) : [];
      if (typeof outcome !== 'string' || !OUTCOMES.has(outcome)) throw new NonceStoreUnavailable(`unexpected reply from Redis: ${String(reply)}`, true);
      if (record && typeof epoch === 'string') {
        epochs.adopt(record.bucket, epoch);
        if (outcome === 'superseded') epochs.requestRefresh();
      }
      return outcome as SpendOutcome;
    },

    async release(nonceId) {
      if (redis.status !== 'ready') throw new NonceStoreUnavailable(`redis ${redis.status}`, true);
      const record = recordOf(nonceId);
      // No owner check needed here: only the winner of the ZADD releases, before its login answers,
      // and until then nobody else can have written the record (ZADD NX) — it cannot have expired
      // (the nonce would be too old to spend again) or been lost (the epoch would have ended).
      if (record) await redis.zrem(epochs.bucketKey(record.bucket), record.member);
      else await RELEASE_LEGACY.run(redis, [redisKey(keyPrefix, 'nonce', nonceId)], [instance]);
    },

    async health() {
      if (redis.status !== 'ready') return `redis ${redis.status}`;
      if (!epochs.checkedSinceConnect) return 'redis connected; reading the nonce epochs';
      try {
        await redis.ping();
        return 'ok';
      } catch (error) {
        return `redis unreachable: ${(error as Error).message}`;
      }
    },

    async close() {
      // The client is shared with the rate limiter; whoever created it closes it (closeRedisClient).
      epochs.close();
    },
  };
}

/** `<bucket>.<random part>` (AcceptedNonce.id of the current format); undefined for an earlier format's id. */
function recordOf(nonceId: string): { bucket: number; member: string } | undefined {
  const dot = nonceId.indexOf('.');
  if (dot < 0) return undefined;
  const bucket = Number(nonceId.slice(0, dot));
  if (!Number.isInteger(bucket) || bucket < 0 || bucket >= EPOCH_BUCKETS) return undefined;
  return { bucket, member: nonceId.slice(dot + 1) };
}

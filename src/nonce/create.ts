import type { Config } from '../config.js';
import type { RedisClient } from '../redis/client.js';
import { NonceCodec } from './codec.js';
import { ProcessEpochs } from './epoch.js';
import { MemoryNonceStore } from './memory-store.js';
import { RedisNonceEpochs } from './redis-epochs.js';
import { createRedisNonceStore } from './redis-store.js';
import { StoreClockWatch } from './store-clock.js';
import type { ConsumedNonceStore } from './store.js';

/** Nonces as configured: the codec that issues and accepts them, and the store that spends them. */
export interface NonceBookkeeping {
  codec: NonceCodec;
  store: ConsumedNonceStore;
  /** For /health: `nonceStore`, and with Redis `clock`: 'ok' or what is wrong. */
  checks(): Promise<Record<string, string>>;
  /** This instance's clock minus the store's (ms); undefined without Redis or before the first measurement. */
  clockOffsetMs(): number | undefined;
  close(): Promise<void>;
}

export interface NonceBookkeepingOptions {
  now: () => number;
  /** Told when the store is found to have lost spent nonces (their epochs were replaced). */
  onEpochsRenewed?: (buckets: number) => void;
  /** Without Redis: told when the wall clock was set back by more than MAX_CLOCK_SKEW_MS (a new epoch began). */
  onClockSetBack?: (stepMs: number) => void;
}

/**
 * Without Redis: the process is the epoch (a restart, or the wall clock set back by more than
 * MAX_CLOCK_SKEW_MS, begins a new one) and earlier-format nonces are refused. With Redis: the
 * store's epochs, read before the gate serves, and this instance's clock watched against Redis's.
 */
export async function createNonceBookkeeping(
  config: Pick<Config, 'jwtSecret' | 'nonceTtlSeconds' | 'maxClockSkewMs' | 'redisKeyPrefix'>,
  redis: RedisClient | undefined,
  { now, onEpochsRenewed, onClockSetBack }: NonceBookkeepingOptions,
): Promise<NonceBookkeeping> {
  const { jwtSecret, nonceTtlSeconds, maxClockSkewMs } = config;
  if (redis === undefined) {
    const codec = new NonceCodec(jwtSecret, nonceTtlSeconds, { now, maxClockSkewMs, epochs: new ProcessEpochs(maxClockSkewMs, now(), onClockSetBack), legacy: 'refuse' });
    const store = new MemoryNonceStore(10_000, now, maxClockSkewMs);
    return {
      codec,
      store,
      checks: async () => ({ nonceStore: await store.health() }),
      clockOffsetMs: () => undefined,
      close: () => store.close(),
    };
  }

  const epochs = new RedisNonceEpochs(redis, { keyPrefix: config.redisKeyPrefix, onRenewed: onEpochsRenewed });
  const clock = new StoreClockWatch(redis, maxClockSkewMs, now);
  await Promise.all([epochs.start(), clock.start()]);
  const codec = new NonceCodec(jwtSecret, nonceTtlSeconds, { now, maxClockSkewMs, epochs, legacy: 'accept', unavailable: () => clock.problem() });
  const store = createRedisNonceStore(redis, epochs, { keyPrefix: config.redisKeyPrefix, maxClockSkewMs });
  return {
    codec,
    store,
    async checks() {
      const nonceStore = await store.health().catch((error: Error) => error.message);
      return { nonceStore, clock: clock.describe() };
    },
    clockOffsetMs: () => clock.offsetMs,
    async close() {
      clock.close();
      await store.close();
    },
  };
}

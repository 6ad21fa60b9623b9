import type { Logger } from 'pino';
import { createChainReader } from './chain/reader.js';
import type { Config } from './config.js';
import { startServer, type GateServer } from './http/server.js';
import { NonceCodec } from './nonce/codec.js';
import { MemoryNonceStore } from './nonce/memory-store.js';
import { createRedisNonceStore } from './nonce/redis-store.js';
import type { ConsumedNonceStore } from './nonce/store.js';
import { createRateLimiter } from './ratelimit/create.js';
import { closeRedisClient, createRedisClient, type RedisClient } from './redis/client.js';
import { createSignatureVerifier } from './signature/verifier.js';
import { createTokenService } from './token/jwt.js';

/** The whole gate, wired from one Config: what `npm start`, `npm run dev` and the tests run. */
export interface RunningGate {
  port: number;
  /** Graceful: stop accepting, finish in-flight requests (bounded), close the pool and Redis. */
  stop(): Promise<void>;
}

export async function startGate(config: Config, logger: Logger): Promise<RunningGate> {
  const redis: RedisClient | undefined = config.redisUrl
    ? createRedisClient(config.redisUrl, {
        cluster: config.redisCluster,
        onError: (error) => logger.warn({ err: error.message }, 'redis connection problem'),
      })
    : undefined;
  const consumedNonces: ConsumedNonceStore = redis
    ? createRedisNonceStore(redis, { keyPrefix: config.redisKeyPrefix })
    : new MemoryNonceStore();
  const rateLimiter = createRateLimiter(config, redis);
  const signatures = createSignatureVerifier({ threads: config.workerThreads, maxBatch: config.verifyBatchSize });
  const chain = createChainReader(config);
  const now = Date.now;

  const server: GateServer = await startServer(
    config,
    {
      config,
      nonces: new NonceCodec(config.jwtSecret, config.nonceTtlSeconds, now),
      consumedNonces,
      signatures,
      tokens: createTokenService(config.jwtSecret, config.jwtExpirySeconds, now),
      chain,
      now,
    },
    {
      logger,
      rateLimiter,
      hooks: {
        async health() {
          const nonceStore = await consumedNonces.health().catch((error: Error) => error.message);
          return { checks: { nonceStore } };
        },
      },
    },
  );

  return {
    port: server.port,
    async stop() {
      await server.shutdown(config.shutdownTimeoutMs);
      await Promise.allSettled([signatures.close(), chain.close(), consumedNonces.close(), rateLimiter?.close()]);
      if (redis) await closeRedisClient(redis);
    },
  };
}

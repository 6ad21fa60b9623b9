import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { createChainReader } from './chain/reader.js';
import type { Config } from './config.js';
import { openApiDocument } from './http/openapi.js';
import { startServer, type GateServer } from './http/server.js';
import { Metrics } from './metrics/metrics.js';
import { NonceCodec } from './nonce/codec.js';
import { MemoryNonceStore } from './nonce/memory-store.js';
import { createRedisNonceStore } from './nonce/redis-store.js';
import type { ConsumedNonceStore } from './nonce/store.js';
import { createRateLimiter } from './ratelimit/create.js';
import { closeRedisClient, createRedisClient, waitForRedis, type RedisClient } from './redis/client.js';
import { createSignatureVerifier } from './signature/verifier.js';
import { createTokenService } from './token/jwt.js';

/** The whole gate, wired from one Config: what `npm start`, `npm run dev` and the tests run. */
export interface RunningGate {
  port: number;
  /**
   * Test seam: the verify pool's worker threads as they are now (none with WORKER_THREADS=0), so
   * a test can terminate one mid-login and watch the pool recover (test/e2e/worker-crash.test.ts).
   */
  verifyWorkers(): readonly Worker[];
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
  if (redis && !(await waitForRedis(redis, 5000))) {
    logger.warn('redis not reachable yet; logins answer 503 until it is');
  }
  const consumedNonces: ConsumedNonceStore = redis
    ? createRedisNonceStore(redis, { keyPrefix: config.redisKeyPrefix })
    : new MemoryNonceStore();
  const rateLimiter = createRateLimiter(config, redis, {
    onFallbackChange: (fallback, error) =>
      logger.warn({ err: error?.message }, fallback ? 'rate limiter: Redis unavailable, limiting per instance' : 'rate limiter: back on Redis'),
  });
  const signatures = createSignatureVerifier({ threads: config.workerThreads, maxBatch: config.verifyBatchSize });
  const metrics = new Metrics();
  metrics.setQueueDepthSource(() => signatures.queueDepth());
  const chain = createChainReader(config, {
    observer: {
      rpcCall: (method) => metrics.countRpcCall(method),
      rpcError: (method, kind) => metrics.countRpcError(method, kind),
      rpcHedge: (outcome) => metrics.countRpcHedge(outcome),
      accountsBatch: (keys) => metrics.observeMultipleAccountsBatch(keys),
    },
  });
  const openApiJson = JSON.stringify(openApiDocument);
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
      metrics,
    },
    {
      logger,
      rateLimiter,
      hooks: {
        onResponse: (route, status, startedAtNs) => metrics.onResponse(route, status, startedAtNs),
        routes: {
          '/metrics': async () => ({ body: await metrics.render(), contentType: metrics.contentType }),
          '/openapi.json': async () => ({ body: openApiJson, contentType: 'application/json; charset=utf-8' }),
        },
        async health() {
          const nonceStore = await consumedNonces.health().catch((error: Error) => error.message);
          return { checks: { nonceStore } };
        },
      },
    },
  );

  return {
    port: server.port,
    verifyWorkers: () => signatures.workers?.() ?? [],
    async stop() {
      await server.shutdown(config.shutdownTimeoutMs);
      await Promise.allSettled([signatures.close(), chain.close(), consumedNonces.close(), rateLimiter?.close()]);
      if (redis) await closeRedisClient(redis);
    },
  };
}

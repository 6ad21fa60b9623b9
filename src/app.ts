import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { createChainReader } from './chain/reader.js';
import type { Config } from './config.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { startServer, type ExtraRoute, type GateServer } from './http/server.js';
import { Metrics } from './metrics/metrics.js';
import { createNonceBookkeeping } from './nonce/create.js';
import { createRateLimiter } from './ratelimit/create.js';
import { closeRedisClient, createRedisClient, waitForRedis, type RedisClient } from './redis/client.js';
import { createSignatureVerifier } from './signature/verifier.js';
import { loadPolicyFile } from './policy/load.js';
import { readListsOffThread } from './rules/read-lists.js';
import type { PolicySet } from './policy/types.js';
import { createTokenService, type TokenService } from './token/jwt.js';
import { loadTokenKeys } from './token/keys.js';
import type { GateDependencies } from './gate/pipeline.js';
import { createMintChain } from './mint/chain.js';
import { MintService } from './mint/cosign.js';
import { MemoryReservationStore } from './mint/memory-store.js';
import { createRedisReservationStore } from './mint/redis-store.js';
import { MAX_MINT_BODY_BYTES } from './contract/mint.js';
import { startReservationTracker } from './mint/tracker.js';
import { Recounts } from './mint/recount.js';
import { MintAuthorityWatch } from './mint/authority.js';

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
  /**
   * SIGHUP: re-read POLICIES_FILE and JWT_PRIVATE_KEYS_FILE. Each is swapped in whole once it
   * validated; a file that does not keeps what was loaded before, and the log says why.
   */
  reload(): Promise<void>;
}

/** Tokens as configured (JWT_ALG); throws ConfigError naming the key file when it is unusable. */
async function loadTokens(config: Config, now: () => number): Promise<TokenService> {
  const keys = config.jwtAlg === 'HS256' ? undefined : await loadTokenKeys(config.jwtPrivateKeysFile as string, config.jwtAlg);
  return createTokenService({
    alg: config.jwtAlg,
    secret: config.jwtSecret,
    keys,
    issuer: config.jwtIssuer,
    audience: config.jwtAudience,
    expirySeconds: config.jwtExpirySeconds,
    now,
  });
}

const loadPolicies = (config: Config): PolicySet | undefined => (config.policiesFile ? loadPolicyFile(config.policiesFile, config.policyMode) : undefined);

function policySummary(policies: PolicySet | undefined): Record<string, unknown> {
  if (!policies) return { policyMode: 'open', policies: 0 };
  const byFeature = Object.fromEntries(Object.entries(policies.names).filter(([, names]) => names.length > 0));
  const rules = Object.fromEntries([...policies.rules.values()].map((rule) => [rule.name, { leaves: rule.leaves.length, pol: rule.digest }]));
  // A mint's signer by its address only: the key itself never reaches a log line.
  const mints = Object.fromEntries([...policies.mints.values()].map((mint) => [mint.name, { program: mint.program, signer: mint.signer.address }]));
  return { policyMode: policies.mode, policiesFile: policies.source, policies: byFeature, rules, ...(policies.mints.size > 0 ? { mints } : {}) };
}

function keySummary(tokens: TokenService): Record<string, unknown> {
  if (!tokens.jwks) return { jwtAlg: tokens.alg };
  return { jwtAlg: tokens.alg, kids: (JSON.parse(tokens.jwks) as { keys: { kid: string }[] }).keys.map((key) => key.kid) };
}

export interface GateOptions {
  /**
   * More GET routes by exact path: the watch page of `npm run dev` (packages/devpage). Only packages/devpage/src/dev.ts
   * passes them; `npm start` (src/main.ts) never does, so a deployed gate answers `/` with 404.
   */
  devRoutes?: Record<string, ExtraRoute>;
}

export async function startGate(config: Config, logger: Logger, options: GateOptions = {}): Promise<RunningGate> {
  const now = Date.now;
  // The files first: a bad one stops start-up (ConfigError) before anything is opened.
  const tokens = await loadTokens(config, now);
  const policies = loadPolicies(config);

  const redis: RedisClient | undefined = config.redisUrl
    ? createRedisClient(config.redisUrl, {
        cluster: config.redisCluster,
        onError: (error) => logger.warn({ err: error.message }, 'redis connection problem'),
      })
    : undefined;
  if (redis && !(await waitForRedis(redis, 5000))) {
    logger.warn('redis not reachable yet; logins answer 503 until it is');
  }
  const nonces = await createNonceBookkeeping(config, redis, {
    now,
    onEpochsRenewed: (buckets) =>
      logger.warn({ buckets }, 'nonce store lost spent nonces (flush, restart, failover or eviction): new epochs begun; nonces issued before answer NONCE_EXPIRED'),
    onClockSetBack: (stepMs) => logger.warn({ stepMs }, 'wall clock set back beyond MAX_CLOCK_SKEW_MS: new nonce epoch; nonces issued before answer NONCE_EXPIRED'),
  });
  const consumedNonces = nonces.store;
  const rateLimiter = createRateLimiter(config, redis, {
    onFallbackChange: (fallback, error) =>
      logger.warn({ err: error?.message }, fallback ? 'rate limiter: Redis unavailable, limiting per instance' : 'rate limiter: back on Redis'),
  });
  const signatures = createSignatureVerifier({ threads: config.workerThreads, maxBatch: config.verifyBatchSize, inlineUpTo: config.verifyInlineUpTo });
  const metrics = new Metrics();
  metrics.setQueueDepthSource(() => signatures.queueDepth());
  metrics.setClockOffsetSource(() => nonces.clockOffsetMs());
  const chain = createChainReader(config, {
    observer: {
      rpcCall: (method) => metrics.countRpcCall(method),
      rpcError: (method, kind) => metrics.countRpcError(method, kind),
      rpcHedge: (outcome) => metrics.countRpcHedge(outcome),
      accountsBatch: (keys) => metrics.observeMultipleAccountsBatch(keys),
      callBudget: (perSecond) => metrics.setRpcCallBudget(perSecond),
    },
  });
  const deps: GateDependencies = {
    config,
    nonces: nonces.codec,
    consumedNonces,
    signatures,
    tokens,
    policies,
    chain,
    now,
    metrics,
  };
  // Mints (POLICIES_FILE "mints"): reservations in Redis when configured, as nonces are.
  const reservations = redis ? createRedisReservationStore(redis, { keyPrefix: config.redisKeyPrefix }) : new MemoryReservationStore();
  const mintChain = createMintChain(config, {
    observer: { rpcCall: (method) => metrics.countRpcCall(method), rpcError: (method, kind) => metrics.countRpcError(method, kind), rpcHedge: (outcome) => metrics.countRpcHedge(outcome) },
  });
  // Each mint's on-chain role, known before the first request (a chain that does not answer: 503 until it does).
  const authority = new MintAuthorityWatch({
    chain,
    mints: () => deps.policies?.mints.values() ?? [],
    readTimeoutMs: config.loginTimeoutMs,
    intervalMs: 30_000,
    retryMs: 3_000,
    onProblem: (mint, problem, error) =>
      error ? logger.warn({ mint, err: error.message }, 'mint authority: the chain could not be read; the mint answers 503 until it can') : problem ? logger.error({ mint, problem }, 'mint authority: the on-chain role is not the signer\'s; the mint answers 500 MINT_MISCONFIGURED') : logger.info({ mint }, 'mint authority: the signer holds the on-chain role'),
  });
  // Bounded: a chain that does not answer must not hold the gate's start; the watch keeps trying.
  await Promise.race([authority.start(), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
  const recounts = new Recounts({
    store: reservations,
    chain: mintChain,
    mints: () => deps.policies?.mints ?? new Map(),
    events: {
      lost: (mint) => logger.warn({ mint }, 'mint counts lost (restart without Redis, Redis flushed or failed over): POST answers 503 MINT_RECOUNTING until they are rebuilt from the chain'),
      rebuilt: (mint, issued, wallets) => logger.info({ mint, issued, wallets }, 'mint counts rebuilt from the chain'),
      error: (mint, error) => logger.warn({ mint, err: error.message }, 'mint counts: the rebuild could not read the chain or the store; it tries again'),
    },
  });
  if (!redis && (policies?.mints.size ?? 0) > 0) {
    logger.warn(
      { mints: [...policies!.mints.keys()] },
      'mints without REDIS_URL: counts live in this process and are rebuilt from the chain at start (POST answers 503 MINT_RECOUNTING meanwhile); several instances without Redis would each count alone and over-sell',
    );
  }
  const mints = new MintService({ config, chain, mintChain, signatures, store: reservations, policies: () => deps.policies, now, metrics, authority, recounts });
  void recounts.checkAll().catch((error: Error) => logger.warn({ err: error.message }, 'mint counts: the store could not be read at start'));
  const tracker = startReservationTracker({
    store: reservations,
    chain: mintChain,
    recounts,
    mints: () => [...(deps.policies?.mints.keys() ?? [])],
    events: {
      confirmed: (mint, count) => metrics.countMintSettled(mint, 'confirmed', count),
      released: (mint, count, why) => metrics.countMintSettled(mint, why, count),
      pending: (mint, count) => metrics.setMintPending(mint, count),
      error: (mint, error) => logger.warn({ mint, err: error.message }, 'mint reservations: the tracker could not read the chain or the store; it tries again'),
    },
  });

  const openApi = (): string =>
    JSON.stringify(
      buildOpenApiDocument({ policyNames: deps.policies?.names, policyMode: config.policyMode, jwtAlg: config.jwtAlg, cookieName: config.cookieName, rules: deps.policies?.rules, mintNames: [...(deps.policies?.mints.keys() ?? [])].sort() }),
    );
  let openApiJson = openApi();
  logger.info({ ...keySummary(tokens), ...policySummary(policies) }, 'tokens and policies loaded');

  const server: GateServer = await startServer(
    config,
    deps,
    {
      logger,
      rateLimiter,
      hooks: {
        onResponse: (route, status, startedAtNs) => metrics.onResponse(route, status, startedAtNs),
        routes: {
          ...options.devRoutes,
          '/metrics': async () => ({ body: await metrics.render(), contentType: metrics.contentType }),
          '/openapi.json': async () => ({ body: openApiJson, contentType: 'application/json; charset=utf-8' }),
        },
        mint: { maxBodyBytes: MAX_MINT_BODY_BYTES, describe: (name, wallet) => mints.describe(name, wallet), cosign: (name, body, headers) => mints.cosign(name, body, headers) },
        async health() {
          return { checks: await nonces.checks() };
        },
      },
    },
  );

  return {
    port: server.port,
    async reload() {
      if (config.policiesFile) {
        try {
          // Wallet lists first, in a worker: a big list must not stall the logins being served.
          const lists = await readListsOffThread(config.policiesFile);
          const loaded = loadPolicyFile(config.policiesFile, config.policyMode, lists);
          // The new mints' on-chain roles are read before they are served.
          await authority.check(loaded.mints.values());
          deps.policies = loaded;
          openApiJson = openApi();
          void recounts.checkAll().catch(() => undefined);
          logger.info(policySummary(deps.policies), 'policies reloaded');
        } catch (error) {
          logger.error({ err: (error as Error).message }, 'policy reload failed; keeping the previous policies');
        }
      }
      if (config.jwtAlg !== 'HS256') {
        try {
          const reloaded = await loadTokens(config, now);
          // The same public keys mean the same private keys: keep the service and its verify caches.
          if (reloaded.jwks !== deps.tokens.jwks) deps.tokens = reloaded;
          logger.info(keySummary(deps.tokens), reloaded === deps.tokens ? 'token keys reloaded' : 'token keys reloaded (unchanged)');
        } catch (error) {
          logger.error({ err: (error as Error).message }, 'token key reload failed; keeping the previous keys');
        }
      }
    },
    verifyWorkers: () => signatures.workers?.() ?? [],
    async stop() {
      tracker.stop();
      authority.stop();
      await server.shutdown(config.shutdownTimeoutMs);
      await Promise.allSettled([signatures.close(), chain.close(), nonces.close(), rateLimiter?.close()]);
      if (redis) await closeRedisClient(redis);
    },
  };
}

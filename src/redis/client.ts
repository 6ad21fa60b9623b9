import { Redis, Cluster, type RedisOptions, type ClusterOptions } from 'ioredis';

/** What the gate's Redis-backed parts need: a standalone client or a cluster client. */
export type RedisClient = Redis | Cluster;

export interface RedisClientOptions {
  /**
   * Treat REDIS_URL as one seed node of a Redis Cluster (or Valkey cluster) and discover the rest.
   * Selected by REDIS_CLUSTER=true; a standalone server, Valkey or a managed single endpoint leaves it off.
   */
  cluster?: boolean;
  /** Longest a command may wait for its reply before it rejects (a hung server must not hang logins). */
  commandTimeoutMs?: number;
  /** Longest one connection attempt may take. */
  connectTimeoutMs?: number;
  /** Called for connection errors; ioredis keeps reconnecting on its own. */
  onError?: (error: Error) => void;
}

export const DEFAULT_COMMAND_TIMEOUT_MS = 1000;
const DEFAULT_CONNECT_TIMEOUT_MS = 2000;

/** Reconnect forever: quickly at first, then every 2 s, so the gate recovers by itself when Redis returns. */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(50 * 2 ** Math.min(attempt, 10), 2000);
}

/**
 * Creates the one Redis connection an instance shares between the nonce store and the rate limiter.
 *
 * Fail fast rather than queue: while disconnected, commands reject at once (`enableOfflineQueue:
 * false`); a command already sent when the connection drops is rejected, never re-sent (a re-sent
 * `SET NX` would answer "already used" for the request that actually spent the nonce); and a command
 * the server does not answer rejects after `commandTimeoutMs`. Reconnection never gives up.
 */
export function createRedisClient(url: string, options: RedisClientOptions = {}): RedisClient {
  const shared = {
    commandTimeout: options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    connectTimeout: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
  } satisfies RedisOptions;

  let client: RedisClient;
  if (options.cluster) {
    const seed = new URL(url);
    const clusterOptions: ClusterOptions = {
      enableOfflineQueue: false,
      clusterRetryStrategy: reconnectDelayMs,
      // A cluster that lost a shard answers CLUSTERDOWN; retry that once quickly instead of waiting.
      retryDelayOnClusterDown: 100,
      redisOptions: {
        ...shared,
        username: seed.username ? decodeURIComponent(seed.username) : undefined,
        password: seed.password ? decodeURIComponent(seed.password) : undefined,
        tls: seed.protocol === 'rediss:' ? {} : undefined,
      },
    };
    client = new Cluster([{ host: seed.hostname, port: Number(seed.port || 6379) }], clusterOptions);
  } else {
    client = new Redis(url, { ...shared, enableOfflineQueue: false, retryStrategy: reconnectDelayMs });
  }
  // Without a listener ioredis prints every reconnect failure to stderr; route them to the caller.
  client.on('error', (error: Error) => options.onError?.(error));
  return client;
}

/** Closes the client at shutdown: a polite QUIT when connected, otherwise drop the socket. */
export async function closeRedisClient(client: RedisClient): Promise<void> {
  if (client.status === 'ready') {
    try {
      await client.quit();
      return;
    } catch {
      // fall through to a hard disconnect
    }
  }
  client.disconnect();
}

/**
 * Resolves true once the client is connected, false after `timeoutMs`. Start-up awaits this so the
 * first logins do not meet a still-connecting client; false is not fatal (the gate starts degraded
 * and the client keeps reconnecting).
 */
export async function waitForRedis(client: RedisClient, timeoutMs: number): Promise<boolean> {
  if (client.status === 'ready') return true;
  return new Promise((resolve) => {
    const done = (ready: boolean): void => {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ready);
    };
    const onReady = (): void => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    client.on('ready', onReady);
  });
}

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from 'ioredis';
import { createRedisClient, closeRedisClient, waitForRedis, type RedisClient } from '../../src/redis/client.js';
import { createRedisNonceStore } from '../../src/nonce/redis-store.js';
import { createRedisRateLimiter } from '../../src/ratelimit/redis-limiter.js';
import { startPrivateRedisCluster, type PrivateRedisCluster } from '../helpers/private-redis.js';

// REDIS_CLUSTER=true: the same store and limiter over a three-shard Redis Cluster.
describe('Redis Cluster mode (private three-node cluster)', () => {
  let cluster: PrivateRedisCluster;
  let instanceA: RedisClient;
  let instanceB: RedisClient;

  beforeAll(async () => {
    cluster = await startPrivateRedisCluster();
    instanceA = createRedisClient(cluster.url, { cluster: true });
    instanceB = createRedisClient(cluster.url, { cluster: true });
    expect(await waitForRedis(instanceA, 10_000)).toBe(true);
    expect(await waitForRedis(instanceB, 10_000)).toBe(true);
  });
  afterAll(async () => {
    await Promise.all([instanceA, instanceB].filter(Boolean).map(closeRedisClient));
    await cluster?.stop();
  });

  it('creates a cluster client that spreads nonce keys over every shard', async () => {
    expect(instanceA).toBeInstanceOf(Cluster);
    const store = createRedisNonceStore(instanceA);
    const ids = Array.from({ length: 60 }, () => randomBytes(16).toString('base64url'));
    expect(await Promise.all(ids.map((id) => store.consume(id, Date.now() + 60_000)))).toEqual(ids.map(() => true));
    const perNode = await Promise.all((instanceA as Cluster).nodes('master').map((node) => node.dbsize()));
    expect(perNode.filter((count) => count > 0).length).toBe(3);
    expect(await store.health()).toBe('ok');
  });

  it('spends a nonce exactly once across two cluster clients', async () => {
    const a = createRedisNonceStore(instanceA);
    const b = createRedisNonceStore(instanceB);
    for (let round = 0; round < 5; round += 1) {
      const id = randomBytes(16).toString('base64url');
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).consume(id, Date.now() + 60_000)));
      expect(results.filter(Boolean)).toHaveLength(1);
    }
  });

  it('shares the rate limit across two cluster clients (script on a hash-tagged key)', async () => {
    const a = createRedisRateLimiter(instanceA, { limit: 3 });
    const b = createRedisRateLimiter(instanceB, { limit: 3 });
    const decisions = [await a.hit('198.51.100.3'), await b.hit('198.51.100.3'), await a.hit('198.51.100.3'), await b.hit('198.51.100.3')];
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
  });
});

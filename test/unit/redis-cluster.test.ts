import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from 'ioredis';
import { createRedisClient, closeRedisClient, waitForRedis, type RedisClient } from '../../src/redis/client.js';
import { NonceCodec, type AcceptedNonce } from '../../src/nonce/codec.js';
import { EPOCH_BUCKETS, RedisNonceEpochs } from '../../src/nonce/redis-epochs.js';
import { createRedisNonceStore } from '../../src/nonce/redis-store.js';
import { StoreClockWatch } from '../../src/nonce/store-clock.js';
import { createRedisRateLimiter } from '../../src/ratelimit/redis-limiter.js';
import { startPrivateRedisCluster, type PrivateRedisCluster } from '../helpers/private-redis.js';

const SECRET = 'cluster-test-secret-0123456789abcdefghij';

/** A gate instance's nonce bookkeeping on a cluster client, as src/nonce/create.ts wires it. */
async function nonceInstance(redis: RedisClient, epochsToClose: RedisNonceEpochs[]) {
  const epochs = new RedisNonceEpochs(redis);
  epochsToClose.push(epochs);
  await epochs.start();
  const store = createRedisNonceStore(redis, epochs);
  const codec = new NonceCodec(SECRET, 300, { epochs, legacy: 'accept' });
  return { epochs, store, codec, spend: async (nonce: string) => store.consume((await codec.accept(nonce, 'age')) as AcceptedNonce) };
}

// REDIS_CLUSTER=true: the same store and limiter over a three-shard Redis Cluster.
describe('Redis Cluster mode (private three-node cluster)', () => {
  let cluster: PrivateRedisCluster;
  let instanceA: RedisClient;
  let instanceB: RedisClient;
  const epochs: RedisNonceEpochs[] = [];

  beforeAll(async () => {
    cluster = await startPrivateRedisCluster();
    instanceA = createRedisClient(cluster.url, { cluster: true });
    instanceB = createRedisClient(cluster.url, { cluster: true });
    expect(await waitForRedis(instanceA, 10_000)).toBe(true);
    expect(await waitForRedis(instanceB, 10_000)).toBe(true);
  });
  afterAll(async () => {
    for (const each of epochs) each.close();
    await Promise.all([instanceA, instanceB].filter(Boolean).map(closeRedisClient));
    await cluster?.stop();
  });

  it('creates a cluster client whose nonce buckets (each with its epoch) spread over every shard', async () => {
    expect(instanceA).toBeInstanceOf(Cluster);
    const a = await nonceInstance(instanceA, epochs);
    const nonces = Array.from({ length: 60 }, () => a.codec.issue('age').nonce);
    expect(await Promise.all(nonces.map((nonce) => a.spend(nonce)))).toEqual(nonces.map(() => 'spent'));
    const perNode = await Promise.all((instanceA as Cluster).nodes('master').map((node) => node.dbsize()));
    expect(perNode.filter((count) => count > 0).length).toBe(3);
    expect(perNode.reduce((sum, count) => sum + count, 0)).toBe(EPOCH_BUCKETS);
    expect(await a.store.health()).toBe('ok');
  });

  it('spends a nonce exactly once across two cluster clients, which share every bucket\'s epoch', async () => {
    const a = await nonceInstance(instanceA, epochs);
    const b = await nonceInstance(instanceB, epochs);
    for (let bucket = 0; bucket < EPOCH_BUCKETS; bucket += 1) expect(b.epochs.current(bucket).name).toBe(a.epochs.current(bucket).name);
    for (let round = 0; round < 5; round += 1) {
      const { nonce } = (round % 2 ? a : b).codec.issue('age');
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).spend(nonce)));
      expect(results.filter((outcome) => outcome === 'spent')).toHaveLength(1);
    }
  });

  it('ends the epochs of a shard that lost its data (FLUSHALL on one master) and of that shard only', async () => {
    const a = await nonceInstance(instanceA, epochs);
    const b = await nonceInstance(instanceB, epochs);
    const masters = (instanceA as Cluster).nodes('master');
    const slotOwner = async (bucket: number): Promise<number> => {
      const slot = Number(await masters[0]!.cluster('KEYSLOT', a.epochs.bucketKey(bucket)));
      const ranges = (await masters[0]!.cluster('SLOTS')) as unknown as [number, number, [string, number]][];
      const owner = ranges.find(([from, to]) => slot >= from && slot <= to)!;
      return masters.findIndex((node) => node.options.port === owner[2][1]);
    };
    // One spent nonce in a bucket of each shard.
    const spentByShard = new Map<number, string>();
    while (spentByShard.size < masters.length) {
      const { nonce } = a.codec.issue('age');
      const accepted = (await a.codec.accept(nonce, 'age')) as AcceptedNonce;
      const shard = await slotOwner(Number(accepted.id.split('.')[0]));
      if (spentByShard.has(shard)) continue;
      expect(await a.store.consume(accepted)).toBe('spent');
      spentByShard.set(shard, nonce);
    }
    await masters[0]!.flushall();
    for (const [shard, nonce] of spentByShard) {
      const replay = await b.spend(nonce).catch((error: Error) => error.message);
      if (shard === 0) expect(replay).toBe('superseded');
      else expect(replay).toBe('reused');
    }
  });

  it('measures this instance\'s clock against the cluster\'s (TIME on any node)', async () => {
    const onTime = new StoreClockWatch(instanceA, 30_000);
    await onTime.measure();
    expect(Math.abs(onTime.offsetMs!)).toBeLessThan(1000);
    expect(onTime.describe()).toBe('ok');
    const behind = new StoreClockWatch(instanceA, 30_000, () => Date.now() - 300_000);
    await behind.measure();
    expect(behind.problem()).toMatch(/^its clock is 300\.\d s behind the nonce store's/);
  });

  it('shares the rate limit across two cluster clients (script on a hash-tagged key)', async () => {
    const a = createRedisRateLimiter(instanceA, { limit: 3 });
    const b = createRedisRateLimiter(instanceB, { limit: 3 });
    const decisions = [await a.hit('198.51.100.3'), await b.hit('198.51.100.3'), await a.hit('198.51.100.3'), await b.hit('198.51.100.3')];
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
  });
});

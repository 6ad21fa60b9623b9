import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createRedisClient, closeRedisClient, waitForRedis, type RedisClient } from '../../src/redis/client.js';
import { createRedisNonceStore } from '../../src/nonce/redis-store.js';
import { startPrivateRedis, type PrivateRedis } from '../helpers/private-redis.js';

const SHARED_REDIS = 'redis://127.0.0.1:6379';
const nonceId = (): string => randomBytes(16).toString('base64url');
const testPrefix = (): string => `x404test:${randomBytes(6).toString('hex')}:`;

async function eventually<T>(probe: () => Promise<T>, accept: (value: T) => boolean, tries = 200): Promise<T> {
  let last: T | undefined;
  for (let attempt = 0; attempt < tries; attempt += 1) {
    try {
      last = await probe();
      if (accept(last)) return last;
    } catch {
      // not yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`condition not reached; last value ${String(last)}`);
}

describe('Redis consumed-nonce store (shared Redis)', () => {
  const clients: RedisClient[] = [];
  let raw: Redis;

  beforeAll(() => {
    raw = new Redis(SHARED_REDIS);
  });
  afterAll(async () => {
    await Promise.all(clients.map(closeRedisClient));
    raw.disconnect();
  });
  const client = async (): Promise<RedisClient> => {
    const created = createRedisClient(SHARED_REDIS);
    clients.push(created);
    expect(await waitForRedis(created, 5000)).toBe(true);
    return created;
  };

  it('lets exactly one of 40 concurrent consumers over two connections spend a nonce', async () => {
    const keyPrefix = testPrefix();
    const instanceA = createRedisNonceStore(await client(), { keyPrefix });
    const instanceB = createRedisNonceStore(await client(), { keyPrefix });
    for (let round = 0; round < 5; round += 1) {
      const id = nonceId();
      const expiresAt = Date.now() + 300_000;
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? instanceA : instanceB).consume(id, expiresAt)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    }
  });

  it('keeps different nonces and different prefixes apart', async () => {
    const redis = await client();
    const deploymentOne = createRedisNonceStore(redis, { keyPrefix: testPrefix() });
    const deploymentTwo = createRedisNonceStore(redis, { keyPrefix: testPrefix() });
    const id = nonceId();
    const expiresAt = Date.now() + 60_000;
    expect(await deploymentOne.consume(id, expiresAt)).toBe(true);
    expect(await deploymentOne.consume(nonceId(), expiresAt)).toBe(true);
    expect(await deploymentTwo.consume(id, expiresAt)).toBe(true);
    expect(await deploymentOne.consume(id, expiresAt)).toBe(false);
  });

  it('writes keys under the prefix with a hash tag, and Redis forgets them after the nonce expires', async () => {
    const keyPrefix = testPrefix();
    const store = createRedisNonceStore(await client(), { keyPrefix, clockSkewGraceMs: 0 });
    const id = nonceId();
    expect(await store.consume(id, Date.now() + 400)).toBe(true);
    expect(await store.consume(id, Date.now() + 400)).toBe(false);
    const key = `${keyPrefix}nonce:{${id}}`;
    expect(await raw.exists(key)).toBe(1);
    await eventually(() => raw.exists(key), (exists) => exists === 0);
    expect(await raw.keys(`${keyPrefix}*`)).toEqual([]);
  });

  it('keeps an entry for the clock-skew grace beyond the nonce expiry by default', async () => {
    const keyPrefix = testPrefix();
    const store = createRedisNonceStore(await client(), { keyPrefix });
    const id = nonceId();
    const expiresAt = Date.now() + 1000;
    expect(await store.consume(id, expiresAt)).toBe(true);
    const ttl = await raw.pttl(`${keyPrefix}nonce:{${id}}`);
    expect(ttl).toBeGreaterThan(1000);
    expect(ttl).toBeLessThanOrEqual(61_000);
  });

  it('release() gives back only a spend of its own instance; the nonce can then be spent once more', async () => {
    const keyPrefix = testPrefix();
    const instanceA = createRedisNonceStore(await client(), { keyPrefix });
    const instanceB = createRedisNonceStore(await client(), { keyPrefix });
    const id = nonceId();
    const expiresAt = Date.now() + 60_000;
    expect(await instanceA.consume(id, expiresAt)).toBe(true);
    // Another instance cannot undo A's spend.
    await instanceB.release(id);
    expect(await raw.exists(`${keyPrefix}nonce:{${id}}`)).toBe(1);
    expect(await instanceB.consume(id, expiresAt)).toBe(false);
    // A can; then exactly one of many concurrent consumers on both instances spends it again.
    await instanceA.release(id);
    expect(await raw.exists(`${keyPrefix}nonce:{${id}}`)).toBe(0);
    const again = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? instanceA : instanceB).consume(id, expiresAt)));
    expect(again.filter(Boolean)).toHaveLength(1);
  });

  it('reports ok health while Redis answers', async () => {
    const redis = await client();
    expect(await createRedisNonceStore(redis).health()).toBe('ok');
  });
});

describe('Redis consumed-nonce store through an outage (private redis-server)', () => {
  let server: PrivateRedis;
  let redis: RedisClient;

  beforeAll(async () => {
    server = await startPrivateRedis();
    redis = createRedisClient(server.url);
    expect(await waitForRedis(redis, 5000)).toBe(true);
  });
  afterEach(async () => {
    server.thaw();
  });
  afterAll(async () => {
    await closeRedisClient(redis);
    await server.stop();
  });

  it('rejects at once while Redis is down, reports it in health, and recovers by itself', async () => {
    const store = createRedisNonceStore(redis, { keyPrefix: 'outage:' });
    const spentBefore = nonceId();
    expect(await store.consume(spentBefore, Date.now() + 60_000)).toBe(true);

    await server.stop();
    await eventually(async () => redis.status, (status) => status !== 'ready');
    // Fail closed: no answer means single use cannot be guaranteed. Nothing was sent, so nothing was spent.
    await expect(store.consume(nonceId(), Date.now() + 60_000)).rejects.toMatchObject({ name: 'NonceStoreUnavailable', mayHaveSpent: false });
    await expect(store.consume(spentBefore, Date.now() + 60_000)).rejects.toThrow();
    await expect(store.release(spentBefore)).rejects.toThrow();
    expect(await store.health()).not.toBe('ok');

    await server.start();
    // Same client object, no restart: it reconnects on its own.
    await eventually(() => store.health(), (health) => health === 'ok');
    const fresh = nonceId();
    expect(await store.consume(fresh, Date.now() + 60_000)).toBe(true);
    expect(await store.consume(fresh, Date.now() + 60_000)).toBe(false);
  });

  it('rejects instead of hanging when Redis is connected but stops answering', async () => {
    const store = createRedisNonceStore(redis, { keyPrefix: 'frozen:' });
    await eventually(() => store.health(), (health) => health === 'ok');
    server.freeze();
    // The command timeout (1 s) turns a hung server into a rejection; the test timeout bounds it.
    // Sent but unanswered: Redis may have applied it.
    await expect(store.consume(nonceId(), Date.now() + 60_000)).rejects.toMatchObject({ message: expect.stringMatching(/timed out/i), mayHaveSpent: true });
    expect(await store.health()).not.toBe('ok');
    server.thaw();
    await eventually(() => store.health(), (health) => health === 'ok');
    expect(await store.consume(nonceId(), Date.now() + 60_000)).toBe(true);
  });
});

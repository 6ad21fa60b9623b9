import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryRateLimiter, DEFAULT_MAX_KEYS } from '../../src/ratelimit/memory-limiter.js';
import { createRedisRateLimiter } from '../../src/ratelimit/redis-limiter.js';
import { createRateLimiter, rateLimitedError, rateLimitHeaders } from '../../src/ratelimit/create.js';
import { createRedisClient, closeRedisClient, waitForRedis, type RedisClient } from '../../src/redis/client.js';
import { startPrivateRedis } from '../helpers/private-redis.js';

const SHARED_REDIS = 'redis://127.0.0.1:6379';
const testPrefix = (): string => `x404test:${randomBytes(6).toString('hex')}:`;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('in-memory rate limiter', () => {
  it('allows `limit` requests per window, counting down, then refuses until the window resets', async () => {
    let now = 1_000_000;
    const limiter = createMemoryRateLimiter({ limit: 3, now: () => now });
    const first = await limiter.hit('198.51.100.7');
    expect(first).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
    now += 20_000;
    expect(await limiter.hit('198.51.100.7')).toMatchObject({ allowed: true, remaining: 1, resetSeconds: 40 });
    expect(await limiter.hit('198.51.100.7')).toMatchObject({ allowed: true, remaining: 0 });
    const refused = await limiter.hit('198.51.100.7');
    expect(refused).toMatchObject({ allowed: false, limit: 3, remaining: 0, resetSeconds: 40 });
    // Another client is not affected.
    expect(await limiter.hit('198.51.100.8')).toMatchObject({ allowed: true, remaining: 2 });
    now += 40_000;
    expect(await limiter.hit('198.51.100.7')).toMatchObject({ allowed: true, remaining: 2, resetSeconds: 60 });
  });

  it('stays bounded under a flood of 100k distinct addresses', async () => {
    let now = 0;
    const limiter = createMemoryRateLimiter({ limit: 5, maxKeys: 10_000, now: () => now });
    for (let i = 0; i < 100_000; i += 1) {
      await limiter.hit(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
      if (i % 1000 === 0) now += 1;
    }
    expect(limiter.size()).toBeLessThanOrEqual(10_000);
    // The most recent clients are still remembered and counted.
    expect(await limiter.hit('10.1.134.159')).toMatchObject({ remaining: 3 });
  });

  it('bounds itself by default too, and forgets expired windows', async () => {
    let now = 0;
    const limiter = createMemoryRateLimiter({ limit: 5, now: () => now });
    for (let i = 0; i < DEFAULT_MAX_KEYS + 20_000; i += 1) await limiter.hit(`key-${i}`);
    expect(limiter.size()).toBeLessThanOrEqual(DEFAULT_MAX_KEYS);
    now += 60_000;
    await limiter.hit('late-comer');
    expect(limiter.size()).toBe(1);
  });
});

describe('Redis rate limiter (shared Redis)', () => {
  const clients: RedisClient[] = [];
  afterAll(async () => {
    await Promise.all(clients.map(closeRedisClient));
  });
  const client = async (): Promise<RedisClient> => {
    const created = createRedisClient(SHARED_REDIS);
    clients.push(created);
    expect(await waitForRedis(created, 5000)).toBe(true);
    return created;
  };

  it('shares one budget between two instances on separate connections', async () => {
    const keyPrefix = testPrefix();
    const instanceA = createRedisRateLimiter(await client(), { limit: 5, keyPrefix });
    const instanceB = createRedisRateLimiter(await client(), { limit: 5, keyPrefix });
    const decisions = [];
    for (let i = 0; i < 7; i += 1) decisions.push(await (i % 2 === 0 ? instanceA : instanceB).hit('203.0.113.9'));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0]);
    for (const decision of decisions) {
      expect(decision.limit).toBe(5);
      expect(decision.resetSeconds).toBeGreaterThanOrEqual(1);
      expect(decision.resetSeconds).toBeLessThanOrEqual(60);
    }
    expect((await instanceB.hit('203.0.113.10')).allowed).toBe(true);
    // One key per client under the prefix, hash-tagged, expiring with the window.
    const ttl = await clients[0]!.pttl(`${keyPrefix}rl:{203.0.113.9}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('counts concurrent hits atomically', async () => {
    const keyPrefix = testPrefix();
    const instances = [await client(), await client()].map((redis) => createRedisRateLimiter(redis, { limit: 10, keyPrefix }));
    const decisions = await Promise.all(Array.from({ length: 40 }, (_, i) => instances[i % 2]!.hit('2001:db8::1')));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
  });

  it('opens a new window once the old one expires', async () => {
    const limiter = createRedisRateLimiter(await client(), { limit: 1, windowSeconds: 1, keyPrefix: testPrefix() });
    expect((await limiter.hit('192.0.2.1')).allowed).toBe(true);
    expect((await limiter.hit('192.0.2.1')).allowed).toBe(false);
    await sleep(1100);
    expect((await limiter.hit('192.0.2.1')).allowed).toBe(true);
  });
});

describe('Redis rate limiter when Redis goes away (private redis-server)', () => {
  it('falls back to a per-instance limit during the outage and returns to Redis afterwards', async () => {
    const server = await startPrivateRedis();
    const redis = createRedisClient(server.url);
    try {
      expect(await waitForRedis(redis, 5000)).toBe(true);
      const transitions: boolean[] = [];
      const limiter = createRedisRateLimiter(redis, { limit: 2, onFallbackChange: (usingFallback) => transitions.push(usingFallback) });
      expect((await limiter.hit('192.0.2.50')).allowed).toBe(true);

      await server.stop();
      for (let i = 0; i < 50 && redis.status === 'ready'; i += 1) await sleep(20);
      // Not blocked, not failing: counted locally, still limited.
      expect(await limiter.hit('192.0.2.50')).toMatchObject({ allowed: true, remaining: 1 });
      expect(await limiter.hit('192.0.2.50')).toMatchObject({ allowed: true, remaining: 0 });
      expect(await limiter.hit('192.0.2.50')).toMatchObject({ allowed: false });
      expect(transitions).toEqual([true]);

      await server.start();
      expect(await waitForRedis(redis, 10_000)).toBe(true);
      // After a failure the limiter leaves Redis alone for a moment, then goes back to it.
      for (let i = 0; i < 100 && transitions.length < 2; i += 1) {
        await limiter.hit(`probe-${i}`);
        await sleep(50);
      }
      // The restarted Redis is empty: a fresh shared window.
      expect(await limiter.hit('192.0.2.50')).toMatchObject({ allowed: true, remaining: 1 });
      expect(transitions).toEqual([true, false]);
    } finally {
      await closeRedisClient(redis);
      await server.stop();
    }
  });
});

describe('Redis rate limiter when Redis hangs (private redis-server, frozen)', () => {
  it('keeps answering from the fallback instead of waiting on every request', async () => {
    const server = await startPrivateRedis();
    const redis = createRedisClient(server.url);
    try {
      expect(await waitForRedis(redis, 5000)).toBe(true);
      const limiter = createRedisRateLimiter(redis, { limit: 1000 });
      expect((await limiter.hit('192.0.2.60')).remaining).toBe(999);
      server.freeze();
      // Only the first hit waits for the command timeout (1 s); the rest go straight to the
      // fallback. Waiting on each would take 200 s, far past this test's timeout.
      const decisions = [];
      for (let i = 0; i < 200; i += 1) decisions.push(await limiter.hit('192.0.2.60'));
      expect(decisions.every((d) => d.allowed)).toBe(true);
      expect(decisions.at(-1)!.remaining).toBe(800);
    } finally {
      server.thaw();
      await closeRedisClient(redis);
      await server.stop();
    }
  }, 20_000);
});

describe('createRateLimiter and the 429 answer', () => {
  it('is off at 0, in memory without Redis, shared with Redis', async () => {
    expect(createRateLimiter({ rateLimitPerMinute: 0 }, undefined)).toBeUndefined();
    const memory = createRateLimiter({ rateLimitPerMinute: 2 }, undefined)!;
    expect(await memory.hit('a')).toMatchObject({ allowed: true, limit: 2 });

    const keyPrefix = testPrefix();
    const redisA = createRedisClient(SHARED_REDIS);
    const redisB = createRedisClient(SHARED_REDIS);
    try {
      await Promise.all([waitForRedis(redisA, 5000), waitForRedis(redisB, 5000)]);
      const a = createRateLimiter({ rateLimitPerMinute: 2, redisKeyPrefix: keyPrefix }, redisA)!;
      const b = createRateLimiter({ rateLimitPerMinute: 2, redisKeyPrefix: keyPrefix }, redisB)!;
      expect((await a.hit('c')).allowed).toBe(true);
      expect((await b.hit('c')).allowed).toBe(true);
      expect((await a.hit('c')).allowed).toBe(false);
    } finally {
      await Promise.all([closeRedisClient(redisA), closeRedisClient(redisB)]);
    }
  });

  it('answers 429 RATE_LIMITED with Retry-After and the RateLimit headers', () => {
    const decision = { allowed: false, limit: 600, remaining: 0, resetSeconds: 17 };
    const error = rateLimitedError(decision);
    expect(error.httpStatus).toBe(429);
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.options.headers).toEqual({
      'Retry-After': '17',
      'RateLimit-Limit': '600',
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '17',
      'RateLimit-Policy': '600;w=60',
    });
    expect(rateLimitHeaders({ allowed: true, limit: 600, remaining: 599, resetSeconds: 60 })['RateLimit-Remaining']).toBe('599');
  });
});

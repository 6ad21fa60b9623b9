import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { GateError } from '../../src/errors.js';
import { encodeBase32 } from '../../src/lib/base32.js';
import { createRedisClient, closeRedisClient, waitForRedis, type RedisClient } from '../../src/redis/client.js';
import { NonceCodec, type AcceptedNonce } from '../../src/nonce/codec.js';
import { EPOCH_BUCKETS, RedisNonceEpochs } from '../../src/nonce/redis-epochs.js';
import { createRedisNonceStore } from '../../src/nonce/redis-store.js';
import type { ConsumedNonceStore, SpendOutcome } from '../../src/nonce/store.js';
import { startPrivateRedis, type PrivateRedis } from '../helpers/private-redis.js';

const SHARED_REDIS = 'redis://127.0.0.1:6379';
const SECRET = 'redis-store-test-secret-0123456789abcdef';
const usedPrefixes: string[] = [];
/** A prefix of its own per test (deleted after the suite: every instance writes its 256 buckets, kept 2 days otherwise). */
const testPrefix = (): string => {
  const prefix = `x404test:${randomBytes(6).toString('hex')}:`;
  usedPrefixes.push(prefix);
  return prefix;
};

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

/** One gate instance's nonce bookkeeping on `redis`, as src/nonce/create.ts wires it. */
interface Instance {
  epochs: RedisNonceEpochs;
  store: ConsumedNonceStore;
  codec: NonceCodec;
  /** Accepts (as the login would) and spends a nonce issued for `age`. */
  spend(nonce: string): Promise<SpendOutcome>;
}

const instances: Instance[] = [];

async function instance(redis: RedisClient, keyPrefix: string, options: { now?: () => number; ttlSeconds?: number; maxClockSkewMs?: number } = {}): Promise<Instance> {
  const epochs = new RedisNonceEpochs(redis, { keyPrefix });
  await epochs.start();
  const store = createRedisNonceStore(redis, epochs, { keyPrefix, maxClockSkewMs: options.maxClockSkewMs });
  const codec = new NonceCodec(SECRET, options.ttlSeconds ?? 300, { epochs, legacy: 'accept', now: options.now, maxClockSkewMs: options.maxClockSkewMs });
  const created: Instance = {
    epochs,
    store,
    codec,
    spend: async (nonce) => store.consume(await codec.accept(nonce, 'age')),
  };
  instances.push(created);
  return created;
}

async function codeOf(action: () => unknown): Promise<string | undefined> {
  try {
    await action();
    return undefined;
  } catch (error) {
    return error instanceof GateError ? error.code : (error as Error).message;
  }
}

/**
 * A replay of a nonce whose spend the store lost must be refused: by the store (`superseded`), or,
 * once the instance has learnt the new epoch, by the codec (NONCE_EXPIRED). Never `spent`.
 */
async function expectRefusedReplay(at: Instance, nonce: string): Promise<void> {
  let answer: string;
  try {
    answer = await at.spend(nonce);
  } catch (error) {
    if (!(error instanceof GateError)) throw error;
    answer = error.code;
  }
  expect(['superseded', 'NONCE_EXPIRED']).toContain(answer);
}

/** A nonce of the earlier format (no epoch), as instances not upgraded yet issue it. */
function earlierFormatNonce(issuedAtMs: number): string {
  const payload = Buffer.concat([Buffer.alloc(6), randomBytes(16)]);
  payload.writeUIntBE(issuedAtMs, 0, 6);
  const key = createHmac('sha256', SECRET).update('x404 nonce key v1').digest();
  const mac = createHmac('sha256', key).update(Buffer.concat([Buffer.from('age'), Buffer.from([0]), payload])).digest().subarray(0, 16);
  return encodeBase32(Buffer.concat([payload, mac]));
}

afterAll(() => {
  for (const created of instances) created.epochs.close();
});

describe('Redis consumed-nonce store (shared Redis)', () => {
  const clients: RedisClient[] = [];
  let raw: Redis;

  beforeAll(() => {
    raw = new Redis(SHARED_REDIS);
  });
  afterAll(async () => {
    for (const created of instances) created.epochs.close();
    for (const prefix of usedPrefixes) {
      const keys = await raw.keys(`${prefix}*`);
      if (keys.length > 0) await raw.del(...keys);
    }
    await Promise.all(clients.map(closeRedisClient));
    raw.disconnect();
  });
  const client = async (): Promise<RedisClient> => {
    const created = createRedisClient(SHARED_REDIS);
    clients.push(created);
    expect(await waitForRedis(created, 5000)).toBe(true);
    return created;
  };

  it('gives every instance sharing a prefix the same epoch per bucket, and lets exactly one of 40 concurrent consumers over two connections spend a nonce', async () => {
    const keyPrefix = testPrefix();
    const [a, b] = await Promise.all([instance(await client(), keyPrefix), instance(await client(), keyPrefix)]);
    for (let bucket = 0; bucket < EPOCH_BUCKETS; bucket += 1) expect(b.epochs.current(bucket).name).toBe(a.epochs.current(bucket).name);
    for (let round = 0; round < 5; round += 1) {
      const { nonce } = (round % 2 ? a : b).codec.issue('age');
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).spend(nonce)));
      expect(results.filter((outcome) => outcome === 'spent')).toHaveLength(1);
      expect(results.filter((outcome) => outcome === 'reused')).toHaveLength(39);
    }
  });

  it('keeps different prefixes apart: another deployment on the same Redis cannot even read the nonce', async () => {
    const redis = await client();
    const one = await instance(redis, testPrefix());
    const two = await instance(redis, testPrefix());
    const { nonce } = one.codec.issue('age');
    expect(await one.spend(nonce)).toBe('spent');
    expect(await codeOf(() => two.spend(nonce))).toBe('INVALID_NONCE');
    expect(await one.spend(nonce)).toBe('reused');
  });

  it('keeps a bucket as one hash-tagged sorted set: its epoch, and each spent nonce until its expiry plus the grace on Redis\'s clock', async () => {
    const keyPrefix = testPrefix();
    const a = await instance(await client(), keyPrefix, { ttlSeconds: 1, maxClockSkewMs: 1000 });
    const { nonce } = a.codec.issue('age');
    const accepted = (await a.codec.accept(nonce, 'age')) as AcceptedNonce;
    const [bucket, member] = accepted.id.split('.') as [string, string];
    const key = `${keyPrefix}spent:{e${bucket}}`;
    expect(await a.store.consume(accepted)).toBe('spent');
    const [epochMember, runId] = [(await raw.zrange(key, -1, -1))[0]!, (await raw.info('server')).match(/run_id:(\w+)/)![1]];
    expect(epochMember).toBe(`@${a.epochs.current(Number(bucket)).name}:${runId}`);
    expect(await raw.zscore(key, epochMember)).toBe('inf');
    expect(Number(await raw.zscore(key, member))).toBe(accepted.expiresAtMs + 2000);
    expect(await raw.pttl(key)).toBeGreaterThan(86_400_000);
    expect(await a.store.consume(accepted)).toBe('reused');
    // Expired by Redis's clock (1 s lifetime): refused, then forgotten once the grace (2 s) has passed.
    await eventually(() => a.store.consume(accepted), (outcome) => outcome === 'expired');
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, accepted.expiresAtMs + 2100 - Date.now())));
    await a.epochs.refreshAll();
    expect(await raw.zscore(key, member)).toBeNull();
    expect(await raw.zcard(key)).toBe(1);
    expect(await raw.keys(`${keyPrefix}*`)).toEqual(expect.arrayContaining([key]));
    expect((await raw.keys(`${keyPrefix}*`)).every((name) => /spent:\{e\d+\}$/.test(name))).toBe(true);
  });

  it('judges age on Redis\'s clock, not the instance\'s: a nonce from a clock 10 minutes behind is expired, from one 10 minutes ahead is from the future', async () => {
    const keyPrefix = testPrefix();
    const redis = await client();
    const behind = await instance(redis, keyPrefix, { now: () => Date.now() - 600_000 });
    const ahead = await instance(redis, keyPrefix, { now: () => Date.now() + 600_000 });
    // Each instance's own clock calls its nonce young; Redis does not.
    expect(await behind.spend(behind.codec.issue('age').nonce)).toBe('expired');
    expect(await ahead.spend(ahead.codec.issue('age').nonce)).toBe('future');
    const onTime = await instance(redis, keyPrefix);
    expect(await onTime.spend(onTime.codec.issue('age').nonce)).toBe('spent');
  });

  it('release() gives a spent nonce back: it can then be spent once more, and only once', async () => {
    const keyPrefix = testPrefix();
    const [a, b] = await Promise.all([instance(await client(), keyPrefix), instance(await client(), keyPrefix)]);
    const { nonce } = a.codec.issue('age');
    const accepted = (await a.codec.accept(nonce, 'age')) as AcceptedNonce;
    expect(await a.store.consume(accepted)).toBe('spent');
    await a.store.release(accepted.id);
    const again = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).spend(nonce)));
    expect(again.filter((outcome) => outcome === 'spent')).toHaveLength(1);
  });

  it('spends an earlier-format nonce (no epoch) once, under its old key, judged on Redis\'s clock; releases only its own instance\'s spend', async () => {
    const keyPrefix = testPrefix();
    const [a, b] = await Promise.all([instance(await client(), keyPrefix), instance(await client(), keyPrefix)]);
    const nonce = earlierFormatNonce(Date.now());
    const accepted = (await a.codec.accept(nonce, 'age')) as AcceptedNonce;
    expect(accepted.legacy).toBe(true);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).spend(nonce)));
    expect(results.filter((outcome) => outcome === 'spent')).toHaveLength(1);
    const key = `${keyPrefix}nonce:{${accepted.id}}`;
    expect(await raw.exists(key)).toBe(1);
    expect(await raw.pttl(key)).toBeGreaterThan(300_000);
    expect(await raw.pttl(key)).toBeLessThanOrEqual(360_000);
    const winner = results.findIndex((outcome) => outcome === 'spent') % 2 ? a : b;
    const loser = winner === a ? b : a;
    await loser.store.release(accepted.id);
    expect(await raw.exists(key)).toBe(1);
    await winner.store.release(accepted.id);
    expect(await raw.exists(key)).toBe(0);
    // Judged on Redis's clock too: one issued 10 minutes ago by a clock that runs behind is expired.
    const stale = earlierFormatNonce(Date.now() - 600_000);
    const lenient = new NonceCodec(SECRET, 300, { legacy: 'accept', now: () => Date.now() - 600_000 });
    expect(await a.store.consume((await lenient.accept(stale, 'age')) as AcceptedNonce)).toBe('expired');
  });

  it('reports ok health while Redis answers', async () => {
    const a = await instance(await client(), testPrefix());
    expect(await a.store.health()).toBe('ok');
  });
});

describe('Redis nonce store when Redis loses what it held (private redis-server)', () => {
  let server: PrivateRedis;
  let redis: RedisClient;
  let raw: Redis;

  beforeAll(async () => {
    server = await startPrivateRedis();
    redis = createRedisClient(server.url);
    raw = new Redis(server.url, { maxRetriesPerRequest: 0, retryStrategy: () => 100 });
    raw.on('error', () => undefined);
    expect(await waitForRedis(redis, 5000)).toBe(true);
  });
  afterEach(async () => {
    server.thaw();
  });
  afterAll(async () => {
    raw?.disconnect();
    await closeRedisClient(redis);
    await server.remove();
  });

  /** Two instances; a nonce issued by `a`, spent at `b`; returns them with the nonce. */
  async function spentNonce(keyPrefix: string): Promise<{ a: Instance; b: Instance; nonce: string; bucket: number }> {
    const [a, b] = await Promise.all([instance(redis, keyPrefix), instance(redis, keyPrefix)]);
    const { nonce } = a.codec.issue('age');
    const accepted = (await b.codec.accept(nonce, 'age')) as AcceptedNonce;
    expect(await b.store.consume(accepted)).toBe('spent');
    expect(await a.spend(nonce)).toBe('reused');
    return { a, b, nonce, bucket: Number(accepted.id.split('.')[0]) };
  }

  it('after FLUSHALL: the spent nonce is refused as NONCE_EXPIRED at both instances, and new nonces spend once', async () => {
    const { a, b, nonce } = await spentNonce('flush:');
    await raw.flushall();
    await expectRefusedReplay(b, nonce);
    // b knows it now as an earlier epoch; a learns it when it spends or refreshes.
    expect(await codeOf(() => b.spend(nonce))).toBe('NONCE_EXPIRED');
    await expectRefusedReplay(a, nonce);
    await Promise.all([a.epochs.refreshAll(), b.epochs.refreshAll()]);
    for (const issuer of [a, b]) {
      const fresh = issuer.codec.issue('age').nonce;
      const results = await Promise.all([a.spend(fresh), b.spend(fresh), a.spend(fresh), b.spend(fresh)]);
      expect(results.sort()).toEqual(['reused', 'reused', 'reused', 'spent']);
    }
  });

  it('after the epoch alone is evicted or removed (DEL of the bucket, or ZREM of its epoch): refused', async () => {
    const { b, nonce, bucket } = await spentNonce('evict:');
    await raw.del(`evict:spent:{e${bucket}}`);
    await expectRefusedReplay(b, nonce);
    const again = await spentNonce('evict2:');
    const key = `evict2:spent:{e${again.bucket}}`;
    const [epochMember] = await raw.zrange(key, -1, -1);
    await raw.zrem(key, epochMember!);
    expect(await raw.zcard(key)).toBe(1);
    await expectRefusedReplay(again.a, again.nonce);
  });

  it('after an epoch is found written by another server process (a failover to a replica, or a restart that kept old data): refused', async () => {
    const { a, nonce, bucket } = await spentNonce('failover:');
    const key = `failover:spent:{e${bucket}}`;
    const [epochMember] = await raw.zrange(key, -1, -1);
    // What a replica promoted after a failover holds: the records and the epoch its old master wrote.
    await raw.zrem(key, epochMember!);
    await raw.zadd(key, 'inf', epochMember!.replace(/:\w+$/, `:${'0'.repeat(40)}`));
    await expectRefusedReplay(a, nonce);
  });

  it('after Redis restarts empty: refused, and the instances recover by themselves', async () => {
    const { a, b, nonce } = await spentNonce('restart:');
    await server.stop();
    await eventually(async () => redis.status, (status) => status !== 'ready');
    await expect(b.spend(nonce)).rejects.toMatchObject({ name: 'NonceStoreUnavailable', mayHaveSpent: false });
    expect(await b.store.health()).not.toBe('ok');
    await server.start();
    await eventually(() => b.store.health(), (health) => health === 'ok');
    await expectRefusedReplay(b, nonce);
    await expectRefusedReplay(a, nonce);
    const fresh = a.codec.issue('age').nonce;
    expect(await b.spend(fresh)).toBe('spent');
    expect(await a.spend(fresh)).toBe('reused');
  });

  it('rejects at once while Redis is down, reports it in health, and recovers by itself', async () => {
    const a = await instance(redis, 'outage:');
    const spentBefore = a.codec.issue('age').nonce;
    expect(await a.spend(spentBefore)).toBe('spent');

    await server.stop();
    await eventually(async () => redis.status, (status) => status !== 'ready');
    // Fail closed: no answer means single use cannot be guaranteed. Nothing was sent, so nothing was spent.
    await expect(a.spend(a.codec.issue('age').nonce)).rejects.toMatchObject({ name: 'NonceStoreUnavailable', mayHaveSpent: false });
    await expect(a.spend(spentBefore)).rejects.toThrow();
    await expect(a.store.release((await a.codec.accept(spentBefore, 'age') as AcceptedNonce).id)).rejects.toThrow();
    expect(await a.store.health()).not.toBe('ok');

    await server.start();
    // Same client object, no restart: it reconnects on its own.
    await eventually(() => a.store.health(), (health) => health === 'ok');
    const fresh = a.codec.issue('age').nonce;
    expect(await a.spend(fresh)).toBe('spent');
    expect(await a.spend(fresh)).toBe('reused');
  });

  it('rejects instead of hanging when Redis is connected but stops answering', async () => {
    const a = await instance(redis, 'frozen:');
    await eventually(() => a.store.health(), (health) => health === 'ok');
    const nonce = a.codec.issue('age').nonce;
    const accepted = (await a.codec.accept(nonce, 'age')) as AcceptedNonce;
    server.freeze();
    // The command timeout (1 s) turns a hung server into a rejection; the test timeout bounds it.
    // Sent but unanswered: Redis may have applied it.
    await expect(a.store.consume(accepted)).rejects.toMatchObject({ message: expect.stringMatching(/timed out/i), mayHaveSpent: true });
    expect(await a.store.health()).not.toBe('ok');
    server.thaw();
    await eventually(() => a.store.health(), (health) => health === 'ok');
    expect(await a.spend(a.codec.issue('age').nonce)).toBe('spent');
  });
});

describe('Redis nonce store across a restart that brings back older data (RDB snapshot)', () => {
  let server: PrivateRedis;
  let redis: RedisClient;
  let raw: Redis;

  beforeAll(async () => {
    server = await startPrivateRedis({ snapshots: true });
    redis = createRedisClient(server.url);
    raw = new Redis(server.url, { maxRetriesPerRequest: 0, retryStrategy: () => 100 });
    raw.on('error', () => undefined);
    expect(await waitForRedis(redis, 5000)).toBe(true);
  });
  afterAll(async () => {
    raw?.disconnect();
    await closeRedisClient(redis);
    await server.remove();
  });

  it('refuses a nonce spent after the last snapshot: its record is gone, its epoch came back, but from another server process', async () => {
    const [a, b] = await Promise.all([instance(redis, 'rdb:'), instance(redis, 'rdb:')]);
    const before = a.codec.issue('age').nonce;
    expect(await b.spend(before)).toBe('spent');
    await raw.save();
    const after = a.codec.issue('age').nonce;
    expect(await b.spend(after)).toBe('spent');
    // A crash: Redis comes back from the snapshot, with every epoch and the first record, without the second.
    await server.stop();
    await server.start();
    await eventually(() => a.store.health(), (health) => health === 'ok');
    await expectRefusedReplay(a, after);
    await expectRefusedReplay(b, after);
    await expectRefusedReplay(b, before);
    const fresh = a.codec.issue('age').nonce;
    expect(await b.spend(fresh)).toBe('spent');
  });
});

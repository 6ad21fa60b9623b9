import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryReservationStore } from '../../src/mint/memory-store.js';
import { createRedisReservationStore } from '../../src/mint/redis-store.js';
import { ReservationCountsLost, ReservationStoreUnavailable, type ReservationStore } from '../../src/mint/store.js';
import { closeRedisClient, createRedisClient, waitForRedis, type RedisClient } from '../../src/redis/client.js';

/**
 * Reservations: exact per-wallet and supply counts under concurrency, in memory and on the shared
 * Redis (a key prefix of this test's own; nothing is flushed — the test deletes its keys), with two
 * clients standing for two gate instances.
 */
const SHARED_REDIS = 'redis://127.0.0.1:6379';
const prefix = `x404test:mint:${randomBytes(6).toString('hex')}:`;
const clients: RedisClient[] = [];
let raw: Redis;

beforeAll(() => {
  raw = new Redis(SHARED_REDIS);
});
afterAll(async () => {
  const keys = await raw.keys(`${prefix}*`);
  if (keys.length > 0) await raw.del(...keys);
  await Promise.all(clients.map(closeRedisClient));
  raw.disconnect();
});

async function redisStore(): Promise<ReservationStore> {
  const client = createRedisClient(SHARED_REDIS);
  clients.push(client);
  expect(await waitForRedis(client, 5000)).toBe(true);
  return createRedisReservationStore(client, { keyPrefix: prefix });
}

const wallet = (i: number): string => `wallet${i}`;

/** A mint whose counts were rebuilt (empty, as at a launch's start) by one of the instances. */
async function freshMint(store: ReservationStore, name: string): Promise<string> {
  const mint = `${name}-${randomBytes(4).toString('hex')}`;
  expect(await store.claimRecount(mint, 'owner', 10_000)).toBe(true);
  expect(await store.install(mint, { issued: 0, wallets: new Map() }, 'owner')).toBe(true);
  return mint;
}
const id = (): string => randomBytes(32).toString('hex');

const suites: [string, () => Promise<ReservationStore[]>][] = [
  ['memory', async () => {
    const store = new MemoryReservationStore();
    return [store, store];
  }],
  ['redis, two instances', async () => [await redisStore(), await redisStore()]],
];

for (const [name, make] of suites) {
  describe(`reservations (${name})`, () => {
    it('reserves once per wallet, confirms into issued, releases back', async () => {
      const [a, b] = await make();
      const mint = await freshMint(a!, 'm');
      const first = id();
      expect(await a!.reserve(mint, { id: first, wallet: 'w', blockhash: 'bh', lastValidBlockHeight: 100, slot: 5, perWallet: 1, supply: 10 })).toEqual({ outcome: 'reserved', walletCount: 1 });
      expect(await b!.reserve(mint, { id: id(), wallet: 'w', blockhash: 'bh', lastValidBlockHeight: 100, slot: 5, perWallet: 1, supply: 10 })).toEqual({ outcome: 'limit', walletCount: 1 });
      expect(await b!.reserve(mint, { id: first, wallet: 'x', blockhash: 'bh', lastValidBlockHeight: 100, slot: 5, perWallet: 1, supply: 10 })).toEqual({ outcome: 'duplicate' });
      expect(await b!.counts(mint, 'w')).toEqual({ issued: 0, reserved: 1, wallet: 1 });
      expect((await a!.pending(mint, 10)).map((entry) => [entry.id, entry.wallet, entry.blockhash, entry.lastValidBlockHeight, entry.slot])).toEqual([[first, 'w', 'bh', 100, 5]]);

      // Released: the wallet may reserve again.
      expect(await b!.release(mint, first)).toBe(true);
      expect(await a!.release(mint, first)).toBe(false);
      expect(await a!.counts(mint, 'w')).toEqual({ issued: 0, reserved: 0, wallet: 0 });
      const second = id();
      expect((await a!.reserve(mint, { id: second, wallet: 'w', blockhash: 'bh2', lastValidBlockHeight: 100, slot: 5, perWallet: 1, supply: 10 })).outcome).toBe('reserved');
      // Confirmed: issued, and the wallet's count stays.
      expect(await b!.confirm(mint, second)).toBe(true);
      expect(await a!.confirm(mint, second)).toBe(false);
      expect(await a!.release(mint, second)).toBe(false);
      expect(await a!.counts(mint, 'w')).toEqual({ issued: 1, reserved: 0, wallet: 1 });
      expect(await a!.pending(mint, 10)).toEqual([]);
    });

    it('is exact under concurrency: 200 wallets × 5 requests, split over two instances', async () => {
      for (const supply of [undefined, 150]) {
        const [a, b] = await make();
        const mint = await freshMint(a!, 'c');
        const attempts = Array.from({ length: 1000 }, (_, i) => ({ wallet: wallet(i % 200), store: i % 2 === 0 ? a! : b! }));
        const outcomes = await Promise.all(attempts.map(({ wallet, store }) => store.reserve(mint, { id: id(), wallet, blockhash: 'bh', lastValidBlockHeight: 100, slot: 5, perWallet: 1, supply })));
        const reserved = outcomes.filter((outcome) => outcome.outcome === 'reserved').length;
        expect(reserved).toBe(supply ?? 200);
        expect(outcomes.filter((outcome) => outcome.outcome === 'limit' || outcome.outcome === 'sold_out')).toHaveLength(1000 - reserved);
        const reservedWallets = new Set(attempts.filter((_, i) => outcomes[i]!.outcome === 'reserved').map((attempt) => attempt.wallet));
        expect(reservedWallets.size).toBe(reserved);
        expect(await a!.counts(mint)).toMatchObject({ issued: 0, reserved });
      }
    });

    it('keeps per_wallet above 1 exact', async () => {
      const [a, b] = await make();
      const mint = await freshMint(b!, 'p');
      const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a! : b!).reserve(mint, { id: id(), wallet: 'w', blockhash: 'bh', lastValidBlockHeight: 100, slot: 5, perWallet: 3, supply: undefined })));
      expect(outcomes.filter((outcome) => outcome.outcome === 'reserved')).toHaveLength(3);
    });

    it('co-signs nothing on counts it does not have; rebuilt counts are what both instances count from', async () => {
      const [a, b] = await make();
      const mint = `r-${randomBytes(4).toString('hex')}`;
      const reservation = { id: id(), wallet: 'w', blockhash: 'bh', lastValidBlockHeight: 100, slot: 5, perWallet: 2, supply: 3 };
      await expect(a!.reserve(mint, reservation)).rejects.toBeInstanceOf(ReservationCountsLost);
      await expect(b!.counts(mint, 'w')).rejects.toBeInstanceOf(ReservationCountsLost);
      expect(await b!.hasCounts(mint)).toBe(false);
      expect(await a!.claimRecount(mint, 'a', 10_000)).toBe(true);
      // One instance rebuilds (Redis: the other's claim fails; memory: one process).
      if (a !== b) expect(await b!.claimRecount(mint, 'b', 10_000)).toBe(false);
      // The claimant may try again (its rebuild failed): the claim is still its own.
      expect(await a!.claimRecount(mint, 'a', 10_000)).toBe(true);
      if (a !== b) expect(await b!.install(mint, { issued: 9, wallets: new Map() }, 'b')).toBe(false);
      expect(await a!.install(mint, { issued: 2, wallets: new Map([['w', 2]]) }, 'a')).toBe(true);
      expect(await b!.hasCounts(mint)).toBe(true);
      expect(await b!.counts(mint, 'w')).toEqual({ issued: 2, reserved: 0, wallet: 2 });
      expect(await b!.reserve(mint, reservation)).toEqual({ outcome: 'limit', walletCount: 2 });
      expect((await a!.reserve(mint, { ...reservation, wallet: 'x' })).outcome).toBe('reserved');
      expect((await b!.reserve(mint, { ...reservation, id: id(), wallet: 'y' })).outcome).toBe('sold_out');
    });
  });
}

describe('reservations in Redis, lost', () => {
  it('a flush (no epoch) or a stale replica (an older epoch) is lost counts, never a count from zero or from the past', async () => {
    const [a, b] = [await redisStore(), await redisStore()];
    const mint = await freshMint(a, 'lost');
    const reservation = { id: id(), wallet: 'w', blockhash: 'bh', lastValidBlockHeight: 100, slot: 5, perWallet: 1, supply: 10 };
    expect((await a.reserve(mint, reservation)).outcome).toBe('reserved');
    const base = `${prefix}mint:{${mint}}`;
    const before = await raw.get(`${base}:e`);
    // Flushed: every key of the mint gone.
    await raw.del(`${base}:n`, `${base}:w`, `${base}:p`, `${base}:e`);
    await expect(b.reserve(mint, { ...reservation, id: id() })).rejects.toBeInstanceOf(ReservationCountsLost);
    await expect(a.counts(mint, 'w')).rejects.toBeInstanceOf(ReservationCountsLost);
    // Rebuilt by b: a counts from the new epoch.
    expect(await b.claimRecount(mint, 'b', 10_000)).toBe(true);
    expect(await b.install(mint, { issued: 1, wallets: new Map([['w', 1]]) }, 'b')).toBe(true);
    expect(await a.counts(mint, 'w')).toEqual({ issued: 1, reserved: 0, wallet: 1 });
    // A failover to a replica with the epoch before the rebuild: lost again for both.
    await raw.set(`${base}:e`, before!);
    await expect(a.reserve(mint, { ...reservation, id: id(), wallet: 'v' })).rejects.toBeInstanceOf(ReservationCountsLost);
    await expect(b.counts(mint)).rejects.toBeInstanceOf(ReservationCountsLost);
    expect(await a.hasCounts(mint)).toBe(false);
  });

  it('counts written under another server run (a restart from a snapshot, a promoted replica) are lost', async () => {
    const [a, b] = [await redisStore(), await redisStore()];
    const mint = await freshMint(a, 'run');
    expect(await b.counts(mint)).toEqual({ issued: 0, reserved: 0, wallet: 0 });
    const key = `${prefix}mint:{${mint}}:e`;
    const [ms] = (await raw.get(key))!.split(':');
    // The same epoch's time, written by a server of another run id: what a restarted or promoted node holds.
    await raw.set(key, `${Number(ms) + 1}:0123456789abcdef0123456789abcdef01234567`);
    await expect(a.counts(mint)).rejects.toBeInstanceOf(ReservationCountsLost);
    await expect(b.reserve(mint, { id: id(), wallet: 'w', blockhash: 'bh', lastValidBlockHeight: 100, slot: 5, perWallet: 1, supply: 10 })).rejects.toBeInstanceOf(ReservationCountsLost);
    expect(await b.hasCounts(mint)).toBe(false);
  });
});

describe('reservations without Redis', () => {
  it('refuse with ReservationStoreUnavailable, never a guess', async () => {
    const client = createRedisClient('redis://127.0.0.1:1', { connectTimeoutMs: 200 });
    clients.push(client);
    const store = createRedisReservationStore(client, { keyPrefix: prefix });
    await expect(store.reserve('m', { id: id(), wallet: 'w', blockhash: 'bh', lastValidBlockHeight: 100, slot: 5, perWallet: 1, supply: 1 })).rejects.toBeInstanceOf(ReservationStoreUnavailable);
    await expect(store.counts('m', 'w')).rejects.toBeInstanceOf(ReservationStoreUnavailable);
    expect(await store.health()).not.toBe('ok');
  });
});

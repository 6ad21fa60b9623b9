import type { RedisClient } from '../redis/client.js';
import { DEFAULT_KEY_PREFIX } from '../redis/keys.js';
import { decodePending, encodePending, ReservationStoreUnavailable, type MintCounts, type PendingReservation, type ReservationStore, type ReserveOutcome } from './store.js';

/**
 * Reservations in Redis, shared by every instance with the same REDIS_URL and REDIS_KEY_PREFIX, and
 * kept across restarts. A mint's three keys carry the mint's name as their hash tag, so each Lua
 * script below touches one slot and runs atomically on one node of a cluster too:
 *
 *   <prefix>mint:{<name>}:n  hash: issued, reserved
 *   <prefix>mint:{<name>}:w  hash: wallet → its issued + reserved mints
 *   <prefix>mint:{<name>}:p  hash: transaction signature → "<wallet> <blockhash> <reservedAtMs>"
 *
 * Nothing here expires by itself: counts are the launch's record. A reservation leaves `:p` only
 * through confirm() or release(), which the trackers of every instance call (idempotent scripts).
 * While Redis cannot answer, every call rejects with ReservationStoreUnavailable and nothing is co-signed.
 */
const RESERVE = `
if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 1 then return {-3, 0} end
local used = tonumber(redis.call('HGET', KEYS[2], ARGV[2]) or '0')
if used >= tonumber(ARGV[3]) then return {-1, used} end
local supply = tonumber(ARGV[4])
if supply >= 0 then
  local counts = redis.call('HMGET', KEYS[1], 'issued', 'reserved')
  if tonumber(counts[1] or '0') + tonumber(counts[2] or '0') >= supply then return {-2, used} end
end
redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
redis.call('HINCRBY', KEYS[1], 'reserved', 1)
redis.call('HSET', KEYS[3], ARGV[1], ARGV[5])
return {1, used + 1}`;

const CONFIRM = `
if redis.call('HDEL', KEYS[3], ARGV[1]) == 0 then return 0 end
redis.call('HINCRBY', KEYS[1], 'reserved', -1)
redis.call('HINCRBY', KEYS[1], 'issued', 1)
return 1`;

const RELEASE = `
local entry = redis.call('HGET', KEYS[3], ARGV[1])
if not entry then return 0 end
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('HINCRBY', KEYS[1], 'reserved', -1)
local wallet = string.match(entry, '^(%S+)')
if redis.call('HINCRBY', KEYS[2], wallet, -1) <= 0 then redis.call('HDEL', KEYS[2], wallet) end
return 1`;

const COUNTS = `
local counts = redis.call('HMGET', KEYS[1], 'issued', 'reserved')
local wallet = 0
if ARGV[1] ~= '' then wallet = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0') end
return {tonumber(counts[1] or '0'), tonumber(counts[2] or '0'), wallet}`;

type Script = (...args: (string | number)[]) => Promise<unknown>;

export function createRedisReservationStore(redis: RedisClient, options: { keyPrefix?: string } = {}): ReservationStore {
  const prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
  const keys = (mint: string): [string, string, string] => {
    const base = `${prefix}mint:{${mint}}`;
    return [`${base}:n`, `${base}:w`, `${base}:p`];
  };
  const scripts = {
    reserve: define(redis, 'x404MintReserve', RESERVE),
    confirm: define(redis, 'x404MintConfirm', CONFIRM),
    release: define(redis, 'x404MintRelease', RELEASE),
    counts: define(redis, 'x404MintCounts', COUNTS),
  };
  /** With the offline queue off, a client that is not ready refuses commands without sending them. */
  const run = async <T>(work: () => Promise<T>): Promise<T> => {
    if (redis.status !== 'ready') throw new ReservationStoreUnavailable(`redis ${redis.status}`);
    try {
      return await work();
    } catch (error) {
      throw new ReservationStoreUnavailable((error as Error).message);
    }
  };

  return {
    async counts(mint, wallet) {
      const [issued, reserved, walletCount] = (await run(() => scripts.counts(...keys(mint), wallet ?? ''))) as number[];
      return { issued: Number(issued), reserved: Number(reserved), wallet: Number(walletCount) } satisfies MintCounts;
    },

    async reserve(mint, { id, wallet, blockhash, perWallet, supply }): Promise<ReserveOutcome> {
      const entry = encodePending(wallet, blockhash, Date.now());
      const [code, used] = (await run(() => scripts.reserve(...keys(mint), id, wallet, perWallet, supply ?? -1, entry))) as number[];
      if (code === 1) return { outcome: 'reserved', walletCount: Number(used) };
      if (code === -1) return { outcome: 'limit', walletCount: Number(used) };
      if (code === -2) return { outcome: 'sold_out' };
      return { outcome: 'duplicate' };
    },

    async confirm(mint, id) {
      return Number(await run(() => scripts.confirm(...keys(mint), id))) === 1;
    },

    async release(mint, id) {
      return Number(await run(() => scripts.release(...keys(mint), id))) === 1;
    },

    async pending(mint, limit): Promise<PendingReservation[]> {
      const key = keys(mint)[2];
      const out: PendingReservation[] = [];
      let cursor = '0';
      do {
        const [next, flat] = await run(() => redis.hscan(key, cursor, 'COUNT', 500));
        for (let i = 0; i + 1 < flat.length && out.length < limit; i += 2) {
          const entry = decodePending(flat[i]!, flat[i + 1]!);
          if (entry) out.push(entry);
        }
        cursor = next;
      } while (cursor !== '0' && out.length < limit);
      return out;
    },

    async health() {
      if (redis.status !== 'ready') return `redis ${redis.status}`;
      return 'ok';
    },
  };
}

/** A Lua script as a command: EVALSHA, falling back to EVAL once per connection (ioredis defineCommand). */
function define(redis: RedisClient, name: string, lua: string): Script {
  const holder = redis as unknown as Record<string, Script | undefined>;
  if (typeof holder[name] !== 'function') redis.defineCommand(name, { numberOfKeys: 3, lua });
  return (...args) => (holder[name] as Script).apply(redis, args);
}

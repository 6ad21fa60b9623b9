import type { RedisClient } from '../redis/client.js';
import { DEFAULT_KEY_PREFIX } from '../redis/keys.js';
import { decodePending, encodePending, ReservationCountsLost, ReservationStoreUnavailable, type MintCounts, type PendingReservation, type ReservationStore, type ReserveOutcome } from './store.js';

/**
 * Reservations in Redis, shared by every instance with the same REDIS_URL and REDIS_KEY_PREFIX, and
 * kept across restarts. A mint's keys carry the mint's name as their hash tag, so each Lua script
 * below touches one slot and runs atomically on one node of a cluster too:
 *
 *   <prefix>mint:{<name>}:n  hash: issued, reserved
 *   <prefix>mint:{<name>}:w  hash: wallet → its issued + reserved mints
 *   <prefix>mint:{<name>}:p  hash: transaction signature → encodePending's text
 *   <prefix>mint:{<name>}:e  the counts' epoch: `<Redis's TIME in ms>:<run id>` of the rebuild that wrote them
 *   <prefix>mint:{<name>}:l  the rebuild's claim (SET NX PX): the instance that reads the chain
 *
 * The epoch is how a lost store is seen, as the nonce store's epochs are (src/nonce/redis-epochs.ts):
 * a FLUSHALL or a failover to an empty replica leaves no `:e`; a restart (with persistence, its data
 * may be older than what was written) or a failover to a replica gives the server another run id
 * than the epoch's; and an epoch older than one this instance saw is a store gone back in time.
 * Reserve and counts check it inside their script and answer
 * "lost" (ReservationCountsLost) rather than count on what is left; install() writes rebuilt
 * counts and a new epoch in one script. Nothing here expires by itself: counts are the launch's
 * record. A reservation leaves `:p` only through confirm() or release(), which the trackers of
 * every instance call (idempotent scripts). While Redis cannot answer, every call rejects with
 * ReservationStoreUnavailable and nothing is co-signed.
 */
/** The server's run id, as the nonce store reads it ('-' where INFO is not available to scripts). */
const RUN_ID = `
local info = redis.pcall('INFO', 'server')
local run_id = type(info) == 'string' and string.match(info, 'run_id:(%w+)') or '-'
`;

/** Sets `epoch` (its ms part) or answers lost: missing, of another server run, or older than ARGV[1]. */
const EPOCH_CHECK = `
if redis.replicate_commands then redis.replicate_commands() end
${RUN_ID}
local stored = redis.call('GET', KEYS[4])
if not stored then return {-4, 0, ''} end
local epoch, epoch_run = string.match(stored, '^(%d+):([%w%-]+)$')
if epoch == nil or epoch_run ~= run_id then return {-4, 0, ''} end
if ARGV[1] ~= '' and tonumber(epoch) < tonumber(ARGV[1]) then return {-4, 0, epoch} end
`;

const RESERVE = `${EPOCH_CHECK}
if redis.call('HEXISTS', KEYS[3], ARGV[2]) == 1 then return {-3, 0, epoch} end
local used = tonumber(redis.call('HGET', KEYS[2], ARGV[3]) or '0')
if used >= tonumber(ARGV[4]) then return {-1, used, epoch} end
local supply = tonumber(ARGV[5])
if supply >= 0 then
  local counts = redis.call('HMGET', KEYS[1], 'issued', 'reserved')
  if tonumber(counts[1] or '0') + tonumber(counts[2] or '0') >= supply then return {-2, used, epoch} end
end
redis.call('HINCRBY', KEYS[2], ARGV[3], 1)
redis.call('HINCRBY', KEYS[1], 'reserved', 1)
redis.call('HSET', KEYS[3], ARGV[2], ARGV[6])
return {1, used + 1, epoch}`;

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

const COUNTS = `${EPOCH_CHECK}
local counts = redis.call('HMGET', KEYS[1], 'issued', 'reserved')
local wallet = 0
if ARGV[2] ~= '' then wallet = tonumber(redis.call('HGET', KEYS[2], ARGV[2]) or '0') end
return {tonumber(counts[1] or '0'), tonumber(counts[2] or '0'), wallet, epoch}`;

/** ARGV: owner, issued, then wallet and count pairs. The new epoch is above any before it. */
const INSTALL = `
if redis.replicate_commands then redis.replicate_commands() end
${RUN_ID}
if redis.call('GET', KEYS[5]) ~= ARGV[1] then return '' end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('HSET', KEYS[1], 'issued', ARGV[2], 'reserved', 0)
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
local time = redis.call('TIME')
local epoch = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local old = tonumber(string.match(redis.call('GET', KEYS[4]) or '0', '^(%d+)') or '0')
if epoch <= old then epoch = old + 1 end
redis.call('SET', KEYS[4], tostring(epoch) .. ':' .. run_id)
redis.call('DEL', KEYS[5])
return tostring(epoch)`;

type Script = (...args: (string | number)[]) => Promise<unknown>;

export function createRedisReservationStore(redis: RedisClient, options: { keyPrefix?: string } = {}): ReservationStore {
  const prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
  const keys = (mint: string): [string, string, string] => {
    const base = `${prefix}mint:{${mint}}`;
    return [`${base}:n`, `${base}:w`, `${base}:p`];
  };
  const epochKey = (mint: string): string => `${prefix}mint:{${mint}}:e`;
  const claimKey = (mint: string): string => `${prefix}mint:{${mint}}:l`;
  const scripts = {
    reserve: define(redis, 'x404MintReserve3', RESERVE, 4),
    confirm: define(redis, 'x404MintConfirm', CONFIRM, 3),
    release: define(redis, 'x404MintRelease', RELEASE, 3),
    counts: define(redis, 'x404MintCounts3', COUNTS, 4),
    install: define(redis, 'x404MintInstall2', INSTALL, 5),
  };
  /** The newest epoch this instance saw per mint: an older one is a store that went back in time. */
  const seen = new Map<string, number>();
  const checkEpoch = (mint: string, code: number, epoch: unknown): void => {
    if (code === -4) throw new ReservationCountsLost(mint);
    const value = Number(epoch);
    if (Number.isFinite(value) && value > (seen.get(mint) ?? 0)) seen.set(mint, value);
  };
  const known = (mint: string): string => String(seen.get(mint) ?? '');
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
      const [issued, reserved, walletCount, epoch] = (await run(() => scripts.counts(...keys(mint), epochKey(mint), known(mint), wallet ?? ''))) as number[];
      checkEpoch(mint, Number(issued), epoch);
      return { issued: Number(issued), reserved: Number(reserved), wallet: Number(walletCount) } satisfies MintCounts;
    },

    async reserve(mint, reservation): Promise<ReserveOutcome> {
      const { id, wallet, perWallet, supply } = reservation;
      const entry = encodePending(reservation, Date.now());
      const [code, used, epoch] = (await run(() => scripts.reserve(...keys(mint), epochKey(mint), known(mint), id, wallet, perWallet, supply ?? -1, entry))) as number[];
      checkEpoch(mint, Number(code), epoch);
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

    async claimRecount(mint, owner, ttlMs) {
      if ((await run(() => redis.set(claimKey(mint), owner, 'PX', ttlMs, 'NX'))) === 'OK') return true;
      // Its own claim, from a rebuild that failed: it tries again rather than waiting the claim out.
      if ((await run(() => redis.get(claimKey(mint)))) !== owner) return false;
      await run(() => redis.pexpire(claimKey(mint), ttlMs));
      return true;
    },

    async install(mint, counts, owner) {
      const pairs = [...counts.wallets].flatMap(([wallet, count]) => [wallet, count]);
      const epoch = (await run(() => scripts.install(...keys(mint), epochKey(mint), claimKey(mint), owner, counts.issued, ...pairs))) as string;
      if (epoch === '') return false;
      seen.set(mint, Number(epoch));
      return true;
    },

    async hasCounts(mint) {
      const [code, , , epoch] = (await run(() => scripts.counts(...keys(mint), epochKey(mint), known(mint), ''))) as number[];
      if (Number(code) === -4) return false;
      checkEpoch(mint, Number(code), epoch);
      return true;
    },

    async health() {
      if (redis.status !== 'ready') return `redis ${redis.status}`;
      return 'ok';
    },
  };
}

/** A Lua script as a command: EVALSHA, falling back to EVAL once per connection (ioredis defineCommand). */
function define(redis: RedisClient, name: string, lua: string, numberOfKeys: number): Script {
  const holder = redis as unknown as Record<string, Script | undefined>;
  if (typeof holder[name] !== 'function') redis.defineCommand(name, { numberOfKeys, lua });
  return (...args) => (holder[name] as Script).apply(redis, args);
}

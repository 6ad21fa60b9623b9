import { RedisScript } from '../redis/script.js';

/**
 * The Lua the Redis nonce store runs. Every decision about a nonce is taken inside one script, on
 * one clock (the server's TIME) and against one copy of the data (the node the key lives on), so no
 * ordering of instances, clocks or failures lets a spent nonce through twice:
 *
 * - A bucket is one sorted set, `<prefix>spent:{e<bucket>}` (the braces pin it to one Cluster slot).
 *   Its member scored +inf is the epoch, `@<epoch name>:<run id of the server that began it>`;
 *   every other member is the random part of a spent nonce, scored with the time (ms, server clock)
 *   it may be forgotten: its expiry plus the grace. The spent nonces and their epoch live and die
 *   together — a FLUSHALL, an expired or evicted key, a restart without persistence take both — so
 *   there is no state where the records are gone and the epoch is not.
 * - A bucket whose epoch is missing, or was begun under another server run id (the server restarted
 *   — with persistence, its data may be older than what was written — or another node took over
 *   after a failover, which may have lost the latest writes), begins a new epoch: the set is
 *   deleted and a fresh random epoch written. Nonces of the old one are then refused (superseded).
 * - A nonce is spent only while its epoch is the bucket's, only while it is younger than its
 *   lifetime by the server's clock, and its record is kept until the same clock passes its expiry
 *   plus the grace: there is no moment at which a replay is both young enough and forgotten.
 */

/** Sets `now` (ms, server clock) and `run_id` ('-' where INFO is not available to scripts). */
const SERVER_CLOCK = `
if redis.replicate_commands then redis.replicate_commands() end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
`;
const RUN_ID = `
local info = redis.pcall('INFO', 'server')
local run_id = type(info) == 'string' and string.match(info, 'run_id:(%w+)') or '-'
`;

/**
 * KEYS[1] the bucket; ARGV[1] a fresh epoch name (used only to begin a new epoch), ARGV[2] how long
 * an idle bucket is kept (ms). Sets `epoch` and `began`.
 */
const BUCKET_EPOCH = `
local keep = tonumber(ARGV[2])
local top = redis.call('ZRANGE', KEYS[1], -1, -1)[1]
local epoch, epoch_run
if top then epoch, epoch_run = string.match(top, '^@([%w_%-]+):([%w%-]+)$') end
local began = false
if epoch == nil or epoch_run ~= run_id then
  redis.call('DEL', KEYS[1])
  epoch = ARGV[1]
  redis.call('ZADD', KEYS[1], 'inf', '@' .. epoch .. ':' .. run_id)
  redis.call('PEXPIRE', KEYS[1], keep)
  began = true
end
`;

/**
 * The bucket's current epoch, begun if need be; forgets expired records and keeps the bucket alive.
 * Returns {epoch name, 1 when it was begun now else 0}.
 */
export const ENSURE_EPOCH = new RedisScript(`${SERVER_CLOCK}${RUN_ID}${BUCKET_EPOCH}
if not began then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. now)
  if redis.call('PTTL', KEYS[1]) < keep / 2 then redis.call('PEXPIRE', KEYS[1], keep) end
end
return {epoch, began and 1 or 0}
`);

/**
 * Spends a nonce. ARGV[3] the epoch the nonce names, ARGV[4] its random part, ARGV[5] its issue
 * time (ms, issuer's clock), ARGV[6] its lifetime (ms), ARGV[7] the grace (ms): how far ahead of the
 * server's clock an issue time may be, and how long a record outlives its nonce (a server clock set
 * back by less than that cannot revive a forgotten nonce). Returns {outcome, the bucket's epoch}.
 */
export const SPEND = new RedisScript(`${SERVER_CLOCK}${RUN_ID}${BUCKET_EPOCH}
if began or epoch ~= ARGV[3] then return {'superseded', epoch} end
local issued = tonumber(ARGV[5])
local grace = tonumber(ARGV[7])
if issued > now + grace then return {'future', epoch} end
local expires = issued + tonumber(ARGV[6])
if now >= expires then return {'expired', epoch} end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. now)
if redis.call('ZADD', KEYS[1], 'NX', expires + grace, ARGV[4]) == 0 then return {'reused', epoch} end
local life = expires + grace - now
if redis.call('PTTL', KEYS[1]) < math.max(keep / 2, life) then redis.call('PEXPIRE', KEYS[1], math.max(keep, life)) end
return {'spent', epoch}
`);

/**
 * A nonce of the earlier formats (no epoch) under its old key, `<prefix>nonce:{<id>}`, as earlier
 * versions spend it (SET NX, the value naming the instance), but judged on the server's clock.
 * ARGV[1] the instance, ARGV[2] issue time, ARGV[3] lifetime, ARGV[4] grace. Returns {outcome}.
 */
export const SPEND_LEGACY = new RedisScript(`${SERVER_CLOCK}
local issued = tonumber(ARGV[2])
local grace = tonumber(ARGV[4])
if issued > now + grace then return {'future'} end
local expires = issued + tonumber(ARGV[3])
if now >= expires then return {'expired'} end
if redis.call('SET', KEYS[1], ARGV[1], 'PX', expires + grace - now, 'NX') then return {'spent'} end
return {'reused'}
`);

/** Deletes an earlier-format key only while it holds this instance's value: one instance never releases another's spend. */
export const RELEASE_LEGACY = new RedisScript("if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0");

import { randomBytesFromPool } from '../lib/random-pool.js';
import type { RedisClient } from '../redis/client.js';
import { DEFAULT_KEY_PREFIX, redisKey } from '../redis/keys.js';
import { epochFromName, type KnownEpoch, type NonceEpoch, type NonceEpochs } from './epoch.js';
import { ENSURE_EPOCH } from './redis-scripts.js';
import { NonceStoreUnavailable } from './store.js';

/**
 * Buckets of spent nonces, each with its own epoch (a nonce's bucket is its first random byte). One
 * bucket per Redis Cluster slot it hashes to: a shard that fails over to an empty or stale replica
 * ends the epochs of its own buckets only, and 256 spread them over any cluster of realistic size.
 */
export const EPOCH_BUCKETS = 256;
/**
 * How long a bucket with no spends is kept (every instance renews it every FULL_REFRESH_MS).
 * More than any nonce lives (NONCE_TTL_SECONDS ≤ 1 day), so a bucket never expires under a record;
 * if it did expire, its epoch would end with it, which only fails the logins in flight.
 */
export const EPOCH_KEEP_MS = 2 * 86_400_000;
/**
 * Every CANARY_INTERVAL_MS an instance re-reads one bucket's epoch, in turn: a flush or a restart
 * empties every bucket, so the next read finds it (a Cluster shard's loss, its own buckets' share of
 * reads later), and the instance re-reads them all. An instance that only issued nonces since (the
 * others spent them) thus stops issuing under lost epochs within about this long.
 */
const CANARY_INTERVAL_MS = 2_000;
/** Every instance re-reads every bucket's epoch this often: learns epochs others began, keeps idle buckets. */
const FULL_REFRESH_MS = 60_000;
/**
 * Least time between two reads of all buckets, and between two reads of one bucket for an unknown
 * tag: a flood of forged tags or of superseded nonces costs at most one read a second a bucket.
 */
const MIN_REREAD_MS = 1_000;
/** Earlier epochs remembered per bucket, so that their nonces answer NONCE_EXPIRED rather than INVALID_NONCE. */
const PAST_EPOCHS_KEPT = 3;

interface BucketState {
  current: NonceEpoch;
  /** `{ epoch: current, current: true }`, made once per epoch. */
  known: KnownEpoch;
  /** False while `current` is the provisional epoch, never read from the store. */
  confirmed: boolean;
  past: NonceEpoch[];
  learning: Promise<void> | undefined;
  learntAt: number;
}

export interface RedisNonceEpochsOptions {
  keyPrefix?: string;
  /** Told how many buckets' epochs one refresh found replaced (their spent nonces were lost). */
  onRenewed?: (buckets: number) => void;
}

/**
 * The epochs of the Redis nonce store, as this instance knows them: what it issues under, and what
 * it can authenticate. The store itself decides (src/nonce/redis-scripts.ts); this only follows it.
 *
 * Before the first read every bucket has a provisional random epoch, which no store ever held: a
 * nonce issued under it (Redis unreachable at start-up) is refused as superseded once Redis answers.
 * After that, an epoch is replaced only by one read from the store: at start-up, after each
 * reconnection, every FULL_REFRESH_MS, when a one-bucket read (CANARY_INTERVAL_MS) or a spend
 * found an epoch replaced, and when a nonce names a tag this instance does not know (another
 * instance began that epoch).
 */
export class RedisNonceEpochs implements NonceEpochs {
  private readonly buckets: BucketState[];
  private readonly keyPrefix: string;
  private refreshing: Promise<void> | undefined;
  private refreshStartedAt = -Infinity;
  /** A refresh asked for while one ran, or too soon after the last: when it will run. */
  private refreshAgain: NodeJS.Timeout | 'after the current one' | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ticks = 0;
  private readonly onReady = (): void => {
    this.checkedSinceConnect = false;
    // A read begun before the connection dropped does not count: read again after it.
    if (this.refreshing === undefined) void this.refreshAll().catch(() => undefined);
    else this.refreshAgain ??= 'after the current one';
  };
  /** False from a (re)connection until every bucket's epoch was read again. */
  checkedSinceConnect = false;

  constructor(
    private readonly redis: RedisClient,
    private readonly options: RedisNonceEpochsOptions = {},
  ) {
    this.keyPrefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.buckets = Array.from({ length: EPOCH_BUCKETS }, () => {
      const current = freshEpoch();
      return { current, known: { epoch: current, current: true }, confirmed: false, past: [], learning: undefined, learntAt: -Infinity };
    });
  }

  /** Reads every epoch (resolves even when Redis cannot be reached: the provisional epochs stay) and keeps them fresh. */
  async start(): Promise<void> {
    this.redis.on('ready', this.onReady);
    this.timer = setInterval(() => this.tick(), CANARY_INTERVAL_MS);
    this.timer.unref();
    await this.refreshAll().catch(() => undefined);
  }

  close(): void {
    clearInterval(this.timer);
    if (typeof this.refreshAgain === 'object') clearTimeout(this.refreshAgain);
    this.refreshAgain = undefined;
    this.redis.off('ready', this.onReady);
  }

  current(bucket: number): NonceEpoch {
    return this.buckets[bucket]!.current;
  }

  find(bucket: number, tag: number): KnownEpoch | undefined {
    const state = this.buckets[bucket]!;
    if (state.current.tag === tag) return state.known;
    for (const epoch of state.past) if (epoch.tag === tag) return { epoch, current: false };
    return undefined;
  }

  learn(bucket: number): Promise<void> {
    const state = this.buckets[bucket]!;
    if (state.learning) return state.learning;
    const now = performance.now();
    if (now - state.learntAt < MIN_REREAD_MS) return Promise.resolve();
    state.learntAt = now;
    const learning = this.ensure(bucket).then(
      (replaced) => {
        state.learning = undefined;
        // A newer epoch here: whatever ended the old one (a flush, a restart) ended the others too.
        if (replaced) this.requestRefresh();
      },
      (error: unknown) => {
        state.learning = undefined;
        throw error;
      },
    );
    state.learning = learning;
    return learning;
  }

  /** The store's reply names the bucket's current epoch: follow it. True when it replaced one read from the store before. */
  adopt(bucket: number, name: string): boolean {
    const state = this.buckets[bucket]!;
    const wasConfirmed = state.confirmed;
    state.confirmed = true;
    if (name === state.current.name) return false;
    const epoch = epochFromName(name);
    if (epoch === undefined) return false;
    state.past = [state.current, ...state.past.filter((past) => past.name !== name)].slice(0, PAST_EPOCHS_KEPT);
    state.current = epoch;
    state.known = { epoch, current: true };
    return wasConfirmed;
  }

  bucketKey(bucket: number): string {
    return redisKey(this.keyPrefix, 'spent', `e${bucket}`);
  }

  /** A name for a new epoch: 16 fresh random bytes, never one this or any instance used before. */
  freshName(): string {
    return randomBytesFromPool(16).toString('base64url');
  }

  /**
   * An epoch was found replaced (a spend found its nonce superseded): the other buckets are likely
   * to have lost their records too. Reads them all soon: now, or once the running read is done, or
   * MIN_REREAD_MS after the last one began.
   */
  requestRefresh(): void {
    if (this.refreshAgain !== undefined) return;
    if (this.refreshing !== undefined) {
      this.refreshAgain = 'after the current one';
      return;
    }
    const waitMs = this.refreshStartedAt + MIN_REREAD_MS - performance.now();
    if (waitMs <= 0) {
      void this.refreshAll().catch(() => undefined);
      return;
    }
    this.refreshAgain = setTimeout(() => {
      this.refreshAgain = undefined;
      this.requestRefresh();
    }, waitMs);
    this.refreshAgain.unref();
  }

  /** Reads (and where need be begins) every bucket's epoch; one at a time per instance. */
  refreshAll(): Promise<void> {
    if (this.refreshing) return this.refreshing;
    this.refreshStartedAt = performance.now();
    const done = (): void => {
      this.refreshing = undefined;
      if (this.refreshAgain === 'after the current one') {
        this.refreshAgain = undefined;
        this.requestRefresh();
      }
    };
    const refreshing = Promise.all(this.buckets.map((_, bucket) => this.ensure(bucket))).then(
      (replaced) => {
        done();
        this.checkedSinceConnect = true;
        const renewed = replaced.filter(Boolean).length;
        if (renewed > 0) this.options.onRenewed?.(renewed);
      },
      (error: unknown) => {
        done();
        throw error;
      },
    );
    this.refreshing = refreshing;
    return refreshing;
  }

  /** One bucket in turn (and every bucket every FULL_REFRESH_MS); a replaced epoch means a read of all. */
  private tick(): void {
    this.ticks += 1;
    if (this.ticks % (FULL_REFRESH_MS / CANARY_INTERVAL_MS) === 0) {
      void this.refreshAll().catch(() => undefined);
      return;
    }
    void this.ensure(this.ticks % EPOCH_BUCKETS).then(
      (replaced) => replaced && this.requestRefresh(),
      () => undefined,
    );
  }

  /** True when the bucket's epoch, as read before, has been replaced (by this call or another instance). */
  private async ensure(bucket: number): Promise<boolean> {
    if (this.redis.status !== 'ready') throw new NonceStoreUnavailable(`redis ${this.redis.status}`, false);
    const reply = (await ENSURE_EPOCH.run(this.redis, [this.bucketKey(bucket)], [this.freshName(), EPOCH_KEEP_MS])) as [string, number];
    return this.adopt(bucket, reply[0]);
  }
}

function freshEpoch(): NonceEpoch {
  return epochFromName(randomBytesFromPool(16).toString('base64url')) as NonceEpoch;
}

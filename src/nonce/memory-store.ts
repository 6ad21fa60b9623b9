import { DEFAULT_MAX_CLOCK_SKEW_MS } from './codec.js';
import { IdSet } from './id-set.js';
import type { ConsumedNonceStore, SpendableNonce, SpendOutcome } from './store.js';

/**
 * In-process single-use bookkeeping (one instance; set REDIS_URL to share across instances).
 * Entries are kept only until their nonce would have expired anyway, so memory is bounded by the
 * rate of successful logins × NONCE_TTL_SECONDS, at 16–32 bytes an entry (src/nonce/id-set.ts:
 * 4,000 logins/s with the default 300 s hold 1.2 M entries, ~20–40 MB; a Set of the id strings
 * took ~120 bytes an entry, ~145 MB).
 *
 * Entries are grouped by expiry into buckets of `bucketMs`, and a sweep drops whole buckets whose
 * every nonce has expired. Forgetting is then O(buckets), never O(entries): a single Map of 1.2 M
 * entries took 5–30 ms to walk on every sweep and ~170 ms when it deleted a swath of them, and
 * every growth of it rehashed all its entries at once — pauses that landed in the logins' p99
 * under a sustained launch. A nonce's id and expiry come from the same authenticated nonce
 * (src/nonce/codec.ts), so a replay always lands in the bucket of the first use.
 *
 * Forgetting is judged on the clock that judges a nonce's age (the codec's), and an entry is kept
 * `keepAfterExpiryMs` (MAX_CLOCK_SKEW_MS) beyond its nonce's expiry: a wall clock set back by up to
 * that much cannot make a forgotten nonce young again, and a larger step begins a new epoch of the
 * process (src/nonce/epoch.ts ProcessEpochs), under which the forgotten nonces answer NONCE_EXPIRED.
 * What a restart forgets is covered the same way: the new process is a new epoch.
 */
export class MemoryNonceStore implements ConsumedNonceStore {
  /** floor((expiresAtMs + keepAfterExpiryMs) / bucketMs) → ids of consumed nonces forgettable in that slot. */
  private readonly buckets = new Map<number, IdSet>();
  private readonly sweepTimer: NodeJS.Timeout;

  constructor(
    private readonly bucketMs = 10_000,
    private readonly now: () => number = Date.now,
    private readonly keepAfterExpiryMs = DEFAULT_MAX_CLOCK_SKEW_MS,
  ) {
    if (!Number.isInteger(bucketMs) || bucketMs < 1) throw new RangeError('bucketMs must be a positive integer');
    this.sweepTimer = setInterval(() => this.sweep(), bucketMs);
    this.sweepTimer.unref();
  }

  /** The codec has checked the nonce's epoch and age on the same clock; what is left is prior use. */
  async consume({ id, expiresAtMs }: SpendableNonce): Promise<SpendOutcome> {
    return this.add(id, expiresAtMs) ? 'spent' : 'reused';
  }

  /** Marks `nonceId` as used until `expiresAtMs` (plus the margin); false when it already was. */
  add(nonceId: string, expiresAtMs: number): boolean {
    const slot = Math.floor((expiresAtMs + this.keepAfterExpiryMs) / this.bucketMs);
    let ids = this.buckets.get(slot);
    if (ids === undefined) {
      ids = new IdSet();
      this.buckets.set(slot, ids);
    }
    return ids.add(nonceId);
  }

  /**
   * Only the winner of consume() releases, before its login answers, so the entry is its own. Rare
   * (a login that ran out of time), so it looks in every bucket rather than asking for the expiry.
   */
  async release(nonceId: string): Promise<void> {
    for (const ids of this.buckets.values()) {
      if (ids.delete(nonceId)) return;
    }
  }

  async health(): Promise<'ok'> {
    return 'ok';
  }

  async close(): Promise<void> {
    clearInterval(this.sweepTimer);
    this.buckets.clear();
  }

  /** Consumed nonces held (for tests and benchmarks: counts every bucket). */
  get size(): number {
    let total = 0;
    for (const ids of this.buckets.values()) total += ids.size;
    return total;
  }

  /** Drops the buckets whose slot has ended: each of their nonces has expired (and the margin passed). */
  sweep(): void {
    const now = this.now();
    for (const slot of this.buckets.keys()) {
      if ((slot + 1) * this.bucketMs <= now) this.buckets.delete(slot);
    }
  }
}

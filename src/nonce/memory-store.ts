import type { ConsumedNonceStore } from './store.js';

/**
 * In-process single-use bookkeeping (one instance; set REDIS_URL to share across instances).
 * Entries are kept only until their nonce would have expired anyway, so memory is bounded by the
 * rate of successful logins × NONCE_TTL_SECONDS. Expired entries are swept incrementally.
 */
export class MemoryNonceStore implements ConsumedNonceStore {
  private readonly expiryById = new Map<string, number>();
  private readonly sweepTimer: NodeJS.Timeout;

  constructor(
    sweepIntervalMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {
    this.sweepTimer = setInterval(() => this.sweep(), sweepIntervalMs);
    this.sweepTimer.unref();
  }

  async consume(nonceId: string, expiresAtMs: number): Promise<boolean> {
    const existing = this.expiryById.get(nonceId);
    if (existing !== undefined && existing > this.now()) return false;
    this.expiryById.set(nonceId, expiresAtMs);
    return true;
  }

  /**
   * Only the winner of consume() releases, before its login answers, so the entry is its own: a
   * later consume() of the same id can only have succeeded after the entry expired, i.e. after the
   * nonce itself expired, when no request can present it any more.
   */
  async release(nonceId: string): Promise<void> {
    this.expiryById.delete(nonceId);
  }

  async health(): Promise<'ok'> {
    return 'ok';
  }

  async close(): Promise<void> {
    clearInterval(this.sweepTimer);
    this.expiryById.clear();
  }

  get size(): number {
    return this.expiryById.size;
  }

  sweep(): void {
    const now = this.now();
    // Map iteration follows insertion order, which is close to expiry order (one TTL for all).
    for (const [id, expiresAtMs] of this.expiryById) {
      if (expiresAtMs <= now) this.expiryById.delete(id);
    }
  }
}

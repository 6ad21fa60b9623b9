/**
 * Single-use bookkeeping for nonces. Issuing a nonce stores nothing (it is self-describing and
 * authenticated); only a nonce whose signature verified is recorded here, until it would have
 * expired anyway.
 */
export interface ConsumedNonceStore {
  /**
   * Atomically mark `nonceId` as used. Resolves true for the first caller, false for every later
   * one (across every instance sharing the store). `expiresAtMs` is when the nonce stops being
   * valid, after which the entry may be forgotten. Rejects when single use cannot be guaranteed
   * (e.g. Redis unreachable): the caller answers 503 and issues no token.
   */
  consume(nonceId: string, expiresAtMs: number): Promise<boolean>;
  /** 'ok', or a short reason the store is degraded (reported by /health). */
  health(): Promise<'ok' | string>;
  close(): Promise<void>;
}

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
   * (e.g. Redis unreachable): the caller answers 503 and issues no token. A rejection is a
   * NonceStoreUnavailable when the store can tell whether the nonce may have been marked.
   */
  consume(nonceId: string, expiresAtMs: number): Promise<boolean>;
  /**
   * Un-spends a nonce whose consume() this caller won, because its login ended without a token
   * (503: the chain could not be read in time): the same signed request can then be sent again.
   * Only the winner of consume() may call it, at most once, and only once it is certain it issues
   * no token — so a nonce still yields at most one token. With a shared store it removes the entry
   * only if this instance wrote it. Resolves once the nonce is no longer marked by this caller;
   * rejects when that cannot be confirmed (the nonce must then be treated as spent).
   */
  release(nonceId: string): Promise<void>;
  /** 'ok', or a short reason the store is degraded (reported by /health). */
  health(): Promise<'ok' | string>;
  close(): Promise<void>;
}

/** The store could not answer. `mayHaveSpent`: false only when the nonce was certainly not marked (the command was never sent). */
export class NonceStoreUnavailable extends Error {
  override name = 'NonceStoreUnavailable';
  constructor(
    message: string,
    readonly mayHaveSpent: boolean,
  ) {
    super(message);
  }
}

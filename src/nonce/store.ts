/**
 * What spending a nonce came to: `spent` (this caller was first: go on), `reused` (spent before),
 * `expired` (too old by the store's clock), `superseded` (issued under an earlier epoch of the
 * store: its spend may have been forgotten, src/nonce/epoch.ts), `future` (issued ahead of the
 * store's clock by more than clocks may disagree). Only `spent` lets a login go on.
 */
export type SpendOutcome = 'spent' | 'reused' | 'expired' | 'superseded' | 'future';

/** What the store needs of an accepted nonce (src/nonce/codec.ts AcceptedNonce). */
export interface SpendableNonce {
  id: string;
  issuedAtMs: number;
  expiresAtMs: number;
  /** The store epoch the nonce names ('' for the process epoch and the earlier formats). */
  epoch: string;
  legacy: boolean;
}

/**
 * Single-use bookkeeping for nonces. Issuing a nonce stores nothing (it is self-describing and
 * authenticated); only a nonce whose signature verified is recorded here, until it would have
 * expired anyway.
 */
export interface ConsumedNonceStore {
  /**
   * Atomically mark the nonce as used. Resolves `spent` for the first caller, `reused` for every
   * later one (across every instance sharing the store), or why it cannot be spent at all. Rejects
   * when single use cannot be guaranteed (e.g. Redis unreachable): the caller answers 503 and
   * issues no token. A rejection is a NonceStoreUnavailable when the store can tell whether the
   * nonce may have been marked.
   */
  consume(nonce: SpendableNonce): Promise<SpendOutcome>;
  /**
   * Un-spends a nonce whose consume() this caller won, because its login ended without a token
   * (503: the chain could not be read in time): the same signed request can then be sent again.
   * Only the winner of consume() may call it, at most once, and only once it is certain it issues
   * no token — so a nonce still yields at most one token. Resolves once the nonce is no longer
   * marked by this caller; rejects when that cannot be confirmed (the nonce must then be treated as
   * spent). `nonceId` is AcceptedNonce.id.
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

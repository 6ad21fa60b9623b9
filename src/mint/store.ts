/**
 * A mint's counts and reservations (docs/minting.md, "Reservations"): how many mints are issued
 * (confirmed on-chain), how many are reserved (co-signed, sent, not yet confirmed or expired), each
 * wallet's share of both, and every pending reservation with the blockhash it expires with.
 *
 * reserve() is the one decision that must be exact under any concurrency and across instances: it
 * checks the wallet's count against per_wallet and issued + reserved against supply, and counts the
 * reservation, atomically (memory: one synchronous step; Redis: one Lua script on the mint's keys,
 * which share a hash slot). confirm() and release() are idempotent: whichever instance's tracker
 * gets there first moves the reservation, the others find it gone.
 */
export interface ReservationStore {
  /** The mint's counts, and `wallet`'s share (0 when not asked). */
  counts(mint: string, wallet?: string): Promise<MintCounts>;
  reserve(mint: string, reservation: NewReservation): Promise<ReserveOutcome>;
  /** Reserved → issued. True when this call moved it. */
  confirm(mint: string, id: string): Promise<boolean>;
  /** Reserved → gone: the wallet's and the supply's share come back. True when this call released it. */
  release(mint: string, id: string): Promise<boolean>;
  /** Pending reservations, at most `limit` (the tracker's work list). */
  pending(mint: string, limit: number): Promise<PendingReservation[]>;
  /**
   * Claims the rebuild of a mint's lost counts for `owner` (Redis: SET NX PX), so one instance reads
   * the chain while the others wait for the new epoch. True: this owner rebuilds now.
   */
  claimRecount(mint: string, owner: string, ttlMs: number): Promise<boolean>;
  /**
   * Replaces the mint's counts with ones rebuilt from the chain, with no pending reservation, under a
   * new epoch, atomically. False when `owner` no longer holds the claim (it expired; another rebuilt).
   */
  install(mint: string, counts: RebuiltCounts, owner: string): Promise<boolean>;
  /** Whether the mint's counts are there to be trusted (not lost); the request path learns it from counts() and reserve(). */
  hasCounts(mint: string): Promise<boolean>;
  health(): Promise<'ok' | string>;
}

/** A mint's counts as the chain shows them: its successful mints, by fee payer. */
export interface RebuiltCounts {
  issued: number;
  wallets: ReadonlyMap<string, number>;
}

/**
 * The mint's counts are not there (a restart of the memory store, a Redis flush or failover, an
 * epoch older than one this instance saw): nothing may be co-signed until they are rebuilt from the
 * chain (recount.ts).
 */
export class ReservationCountsLost extends Error {
  override name = 'ReservationCountsLost';
  constructor(readonly mint: string) {
    super(`the counts of mint ${mint} are lost`);
  }
}

export interface MintCounts {
  issued: number;
  reserved: number;
  wallet: number;
}

export interface NewReservation {
  /** The transaction's signature (its fee payer's, base58): the id the chain knows it by. */
  id: string;
  wallet: string;
  /** The recent blockhash (base58). */
  blockhash: string;
  /** The bound past which its transaction cannot land: getLatestBlockhash's at `confirmed`, read before it was accepted. */
  lastValidBlockHeight: number;
  /** The slot of that read: only a node whose history reaches back to it can prove the transaction never landed. */
  slot: number;
  perWallet: number;
  supply: number | undefined;
}

export type ReserveOutcome =
  | { outcome: 'reserved'; walletCount: number }
  | { outcome: 'limit'; walletCount: number }
  | { outcome: 'sold_out' }
  /** This very transaction is already reserved (posted twice). */
  | { outcome: 'duplicate' };

export interface PendingReservation {
  id: string;
  wallet: string;
  blockhash: string;
  reservedAtMs: number;
  lastValidBlockHeight: number;
  slot: number;
}

/** The store could not answer (Redis down or slow): the request answers 503 and nothing is co-signed. */
export class ReservationStoreUnavailable extends Error {
  override name = 'ReservationStoreUnavailable';
}

/**
 * `<wallet> <blockhash> <reservedAtMs> <lastValidBlockHeight> <slot>`: what a pending reservation
 * holds (the same text in both stores). An entry written before the last two existed has neither:
 * it is read with slot 0 and bound 0, so only a node with the whole history can release it.
 */
export function encodePending(reservation: Pick<NewReservation, 'wallet' | 'blockhash' | 'lastValidBlockHeight' | 'slot'>, reservedAtMs: number): string {
  return `${reservation.wallet} ${reservation.blockhash} ${reservedAtMs} ${reservation.lastValidBlockHeight} ${reservation.slot}`;
}

export function decodePending(id: string, text: string): PendingReservation | undefined {
  const [wallet, blockhash, at, bound, slot] = text.split(' ');
  if (wallet === undefined || blockhash === undefined || at === undefined) return undefined;
  return { id, wallet, blockhash, reservedAtMs: Number(at), lastValidBlockHeight: Number(bound ?? 0) || 0, slot: Number(slot ?? 0) || 0 };
}

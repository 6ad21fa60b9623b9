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
  health(): Promise<'ok' | string>;
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
  /** The recent blockhash (base58): the reservation is released once it is no longer valid and the transaction did not land. */
  blockhash: string;
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
}

/** The store could not answer (Redis down or slow): the request answers 503 and nothing is co-signed. */
export class ReservationStoreUnavailable extends Error {
  override name = 'ReservationStoreUnavailable';
}

/** `<wallet> <blockhash> <reservedAtMs>`: what a pending reservation holds (the same text in both stores). */
export function encodePending(wallet: string, blockhash: string, reservedAtMs: number): string {
  return `${wallet} ${blockhash} ${reservedAtMs}`;
}

export function decodePending(id: string, text: string): PendingReservation | undefined {
  const [wallet, blockhash, at] = text.split(' ');
  if (wallet === undefined || blockhash === undefined || at === undefined) return undefined;
  return { id, wallet, blockhash, reservedAtMs: Number(at) };
}

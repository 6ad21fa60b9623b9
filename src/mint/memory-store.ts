import { decodePending, encodePending, ReservationCountsLost, type MintCounts, type NewReservation, type PendingReservation, type RebuiltCounts, type ReservationStore, type ReserveOutcome } from './store.js';

/**
 * Reservations in this process (no REDIS_URL). A new process knows no counts: each mint's are
 * rebuilt from the chain (recount.ts) before it co-signs, so a restart neither forgets nor repeats a
 * mint. Exact for one instance only: several instances without Redis each count alone and together
 * over-sell (docs/minting.md, "Limits"). Every method does its work synchronously, so reserve() is
 * atomic. Memory: one small entry per wallet that holds a mint or a reservation, and one per pending
 * reservation.
 */
interface MintState {
  issued: number;
  reserved: number;
  wallets: Map<string, number>;
  pending: Map<string, string>;
}

export class MemoryReservationStore implements ReservationStore {
  private readonly mints = new Map<string, MintState>();

  /** The mint's counts; throws ReservationCountsLost until they were installed in this process. */
  private state(mint: string): MintState {
    const state = this.mints.get(mint);
    if (state === undefined) throw new ReservationCountsLost(mint);
    return state;
  }

  async counts(mint: string, wallet?: string): Promise<MintCounts> {
    const state = this.state(mint);
    return { issued: state.issued, reserved: state.reserved, wallet: wallet === undefined ? 0 : (state.wallets.get(wallet) ?? 0) };
  }

  async reserve(mint: string, reservation: NewReservation): Promise<ReserveOutcome> {
    const { id, wallet, perWallet, supply } = reservation;
    const state = this.state(mint);
    if (state.pending.has(id)) return { outcome: 'duplicate' };
    const used = state.wallets.get(wallet) ?? 0;
    if (used >= perWallet) return { outcome: 'limit', walletCount: used };
    if (supply !== undefined && state.issued + state.reserved >= supply) return { outcome: 'sold_out' };
    state.wallets.set(wallet, used + 1);
    state.reserved++;
    state.pending.set(id, encodePending(reservation, Date.now()));
    return { outcome: 'reserved', walletCount: used + 1 };
  }

  async confirm(mint: string, id: string): Promise<boolean> {
    const state = this.mints.get(mint);
    if (state === undefined || !state.pending.delete(id)) return false;
    state.reserved--;
    state.issued++;
    return true;
  }

  async release(mint: string, id: string): Promise<boolean> {
    const state = this.mints.get(mint);
    const entry = state?.pending.get(id);
    if (state === undefined || entry === undefined) return false;
    state.pending.delete(id);
    state.reserved--;
    const wallet = entry.slice(0, entry.indexOf(' '));
    const left = (state.wallets.get(wallet) ?? 1) - 1;
    if (left <= 0) state.wallets.delete(wallet);
    else state.wallets.set(wallet, left);
    return true;
  }

  async pending(mint: string, limit: number): Promise<PendingReservation[]> {
    const out: PendingReservation[] = [];
    for (const [id, text] of this.mints.get(mint)?.pending ?? []) {
      if (out.length >= limit) break;
      const entry = decodePending(id, text);
      if (entry) out.push(entry);
    }
    return out;
  }

  /** One process: its own rebuild is the only one. */
  async claimRecount(): Promise<boolean> {
    return true;
  }

  async install(mint: string, counts: RebuiltCounts): Promise<boolean> {
    const wallets = new Map(counts.wallets);
    this.mints.set(mint, { issued: counts.issued, reserved: 0, wallets, pending: new Map() });
    return true;
  }

  async hasCounts(mint: string): Promise<boolean> {
    return this.mints.has(mint);
  }

  async health(): Promise<'ok'> {
    return 'ok';
  }
}

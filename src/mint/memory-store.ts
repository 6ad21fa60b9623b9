import { decodePending, encodePending, type MintCounts, type PendingReservation, type ReservationStore, type ReserveOutcome } from './store.js';

/**
 * Reservations in this process (no REDIS_URL): exact for one instance, forgotten on restart — which
 * is why a deployment of more than one instance, or one that must survive a restart mid-launch,
 * sets REDIS_URL (docs/minting.md). Every method does its work synchronously, so reserve() is atomic.
 * Memory: one small entry per wallet that holds a mint or a reservation, and one per pending reservation.
 */
interface MintState {
  issued: number;
  reserved: number;
  wallets: Map<string, number>;
  pending: Map<string, string>;
}

export class MemoryReservationStore implements ReservationStore {
  private readonly mints = new Map<string, MintState>();

  private state(mint: string): MintState {
    let state = this.mints.get(mint);
    if (state === undefined) this.mints.set(mint, (state = { issued: 0, reserved: 0, wallets: new Map(), pending: new Map() }));
    return state;
  }

  async counts(mint: string, wallet?: string): Promise<MintCounts> {
    const state = this.state(mint);
    return { issued: state.issued, reserved: state.reserved, wallet: wallet === undefined ? 0 : (state.wallets.get(wallet) ?? 0) };
  }

  async reserve(mint: string, { id, wallet, blockhash, perWallet, supply }: { id: string; wallet: string; blockhash: string; perWallet: number; supply: number | undefined }): Promise<ReserveOutcome> {
    const state = this.state(mint);
    if (state.pending.has(id)) return { outcome: 'duplicate' };
    const used = state.wallets.get(wallet) ?? 0;
    if (used >= perWallet) return { outcome: 'limit', walletCount: used };
    if (supply !== undefined && state.issued + state.reserved >= supply) return { outcome: 'sold_out' };
    state.wallets.set(wallet, used + 1);
    state.reserved++;
    state.pending.set(id, encodePending(wallet, blockhash, Date.now()));
    return { outcome: 'reserved', walletCount: used + 1 };
  }

  async confirm(mint: string, id: string): Promise<boolean> {
    const state = this.state(mint);
    if (!state.pending.delete(id)) return false;
    state.reserved--;
    state.issued++;
    return true;
  }

  async release(mint: string, id: string): Promise<boolean> {
    const state = this.state(mint);
    const entry = state.pending.get(id);
    if (entry === undefined) return false;
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
    for (const [id, text] of this.state(mint).pending) {
      if (out.length >= limit) break;
      const entry = decodePending(id, text);
      if (entry) out.push(entry);
    }
    return out;
  }

  async health(): Promise<'ok'> {
    return 'ok';
  }
}

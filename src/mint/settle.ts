import type { MintChain, SignatureStatus } from './chain.js';
import type { PendingReservation, ReservationStore } from './store.js';

/**
 * One settling pass over a mint's pending reservations (docs/minting.md, "Reservations"). A
 * reservation becomes a mint on proof that it landed, and is given back only on proof that it
 * never will — never on a read that failed or a node that cannot see far enough:
 *
 * 1. the status cache (getSignatureStatuses): landed at `confirmed` or `finalized` without error →
 *    issued; landed there with an error → released (it minted nothing and its signature is spent);
 * 2. for the rest, the `confirmed` bank's block height and slot (chain.ts confirmedHeight): a
 *    reservation whose lastValidBlockHeight (from getLatestBlockhash at `confirmed`, read before it
 *    was accepted) is below that height can no longer land;
 * 3. for those, getSignatureStatuses with `searchTransactionHistory`, read after 2 from a node at
 *    that bank's slot at least: found → as in 1; not found → released, but only when the node that
 *    answered keeps history from before the reservation's slot (getFirstAvailableBlock): a node
 *    without that history proves nothing.
 *
 * Any read that fails throws: the pass ends and nothing more is released.
 */
export interface SettleOutcome {
  confirmed: number;
  expired: number;
  failed: number;
  /** Past their bound, not found, but no node that answered could see back to them. */
  unproven: number;
  pending: number;
}

const landed = (status: SignatureStatus | null | undefined): status is SignatureStatus =>
  status !== null && status !== undefined && (status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized');

export async function settleMint(mint: string, pending: readonly PendingReservation[], store: ReservationStore, chain: MintChain): Promise<SettleOutcome> {
  const outcome: SettleOutcome = { confirmed: 0, expired: 0, failed: 0, unproven: 0, pending: pending.length };
  if (pending.length === 0) return outcome;
  const settle = async (entry: PendingReservation, status: SignatureStatus): Promise<void> => {
    if (status.err !== null) outcome.failed += (await store.release(mint, entry.id)) ? 1 : 0;
    else outcome.confirmed += (await store.confirm(mint, entry.id)) ? 1 : 0;
  };

  const statuses = await chain.signatureStatuses(pending.map((entry) => entry.id));
  const open: PendingReservation[] = [];
  for (let i = 0; i < pending.length; i++) {
    const status = statuses[i];
    if (landed(status)) await settle(pending[i]!, status);
    else open.push(pending[i]!);
  }

  if (open.length > 0) {
    const { height, slot } = await chain.confirmedHeight();
    const past = open.filter((entry) => entry.lastValidBlockHeight < height);
    if (past.length > 0) {
      const found = await chain.historyStatuses(past.map((entry) => entry.id), slot);
      for (let i = 0; i < past.length; i++) {
        const entry = past[i]!;
        const { status, historyFrom } = found[i]!;
        if (landed(status)) await settle(entry, status);
        else if (status === null && historyFrom <= entry.slot) outcome.expired += (await store.release(mint, entry.id)) ? 1 : 0;
        else outcome.unproven += 1;
      }
    }
  }
  outcome.pending -= outcome.confirmed + outcome.expired + outcome.failed;
  return outcome;
}

import type { MintChain } from './chain.js';
import type { ReservationStore } from './store.js';

/**
 * Turns reservations into mints or gives them back (docs/minting.md, "Reservations"). Every
 * TRACK_INTERVAL_MS, for each mint with pending reservations:
 * - the transactions' statuses (getSignatureStatuses, 256 a call): one that landed at `confirmed`
 *   or `finalized` without error is a mint (confirm); one that landed with an error minted nothing
 *   and can never land again (its signature is spent), so its reservation is released;
 * - for those the node does not know, each distinct blockhash is asked isBlockhashValid at
 *   `confirmed`: once it is not, no block the cluster confirms can still take the transaction, so
 *   the reservation is released — within one interval (2 s) of the height where it expired.
 *   A transaction can land between the status read and the blockhash check, so its status is
 *   read once more before it is released.
 *
 * The state lives in the store (Redis when configured): a restarted gate, or another instance,
 * picks up where this one stopped; confirm and release are idempotent, so instances may race.
 */
export const TRACK_INTERVAL_MS = 2_000;
/** Reservations one pass looks at per mint: a pass stays a few RPC requests. */
const MAX_PER_PASS = 4_096;

export interface TrackerEvents {
  confirmed?(mint: string, count: number): void;
  released?(mint: string, count: number, why: 'expired' | 'failed'): void;
  /** Reservations still pending after the pass (for the gauge). */
  pending?(mint: string, count: number): void;
  error?(mint: string, error: Error): void;
}

export interface ReservationTracker {
  /** One pass now (tests; the timer calls it too). */
  runOnce(): Promise<void>;
  stop(): void;
}

export function startReservationTracker(options: {
  store: ReservationStore;
  chain: MintChain;
  /** The configured mints' names, read at every pass (SIGHUP may change them). */
  mints(): readonly string[];
  events?: TrackerEvents;
  intervalMs?: number;
}): ReservationTracker {
  const { store, chain, events = {} } = options;
  let running: Promise<void> | undefined;
  let stopped = false;

  const trackMint = async (mint: string): Promise<void> => {
    const pending = await store.pending(mint, MAX_PER_PASS);
    if (pending.length === 0) {
      events.pending?.(mint, 0);
      return;
    }
    const statuses = await chain.signatureStatuses(pending.map((entry) => entry.id));
    let confirmed = 0;
    let failed = 0;
    const unknown: typeof pending = [];
    for (let i = 0; i < pending.length; i++) {
      const status = statuses[i];
      const entry = pending[i]!;
      if (status === null || status === undefined) unknown.push(entry);
      else if (status.err !== null) failed += (await store.release(mint, entry.id)) ? 1 : 0;
      else if (status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized') confirmed += (await store.confirm(mint, entry.id)) ? 1 : 0;
    }
    let expired = 0;
    if (unknown.length > 0) {
      const blockhashes = [...new Set(unknown.map((entry) => entry.blockhash))];
      const valid = await chain.blockhashesValid(blockhashes, 'confirmed');
      const invalid = new Set(blockhashes.filter((_, i) => valid[i] === false));
      const candidates = unknown.filter((entry) => invalid.has(entry.blockhash));
      if (candidates.length > 0) {
        // Landed between the two reads? Then the status says so now.
        const again = await chain.signatureStatuses(candidates.map((entry) => entry.id));
        for (let i = 0; i < candidates.length; i++) {
          const status = again[i];
          const entry = candidates[i]!;
          if (status === null || status === undefined) expired += (await store.release(mint, entry.id)) ? 1 : 0;
          else if (status.err !== null) failed += (await store.release(mint, entry.id)) ? 1 : 0;
          else if (status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized') confirmed += (await store.confirm(mint, entry.id)) ? 1 : 0;
        }
      }
    }
    if (confirmed > 0) events.confirmed?.(mint, confirmed);
    if (expired > 0) events.released?.(mint, expired, 'expired');
    if (failed > 0) events.released?.(mint, failed, 'failed');
    events.pending?.(mint, pending.length - confirmed - expired - failed);
  };

  const pass = async (): Promise<void> => {
    for (const mint of options.mints()) {
      try {
        await trackMint(mint);
      } catch (error) {
        // The next pass tries again: nothing is released on a read that failed.
        events.error?.(mint, error as Error);
      }
    }
  };

  const runOnce = (): Promise<void> => {
    running ??= pass().finally(() => {
      running = undefined;
    });
    return running;
  };

  const timer = setInterval(() => {
    if (!stopped) void runOnce();
  }, options.intervalMs ?? TRACK_INTERVAL_MS);
  timer.unref();

  return {
    runOnce,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}

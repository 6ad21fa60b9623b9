import type { MintChain } from './chain.js';
import type { Recounts } from './recount.js';
import { settleMint } from './settle.js';
import type { ReservationStore } from './store.js';

/**
 * The mint's timer: every TRACK_INTERVAL_MS, each configured mint's pending reservations are
 * settled on proof (settle.ts: issued once landed, released only once past their bound and absent
 * from a history that reaches back to them), and lost counts take their next step back (recount.ts).
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
  recounts?: Recounts;
  events?: TrackerEvents;
  intervalMs?: number;
}): ReservationTracker {
  const { store, chain, events = {} } = options;
  let running: Promise<void> | undefined;
  let stopped = false;

  const trackMint = async (mint: string): Promise<void> => {
    const outcome = await settleMint(mint, await store.pending(mint, MAX_PER_PASS), store, chain);
    if (outcome.confirmed > 0) events.confirmed?.(mint, outcome.confirmed);
    if (outcome.expired > 0) events.released?.(mint, outcome.expired, 'expired');
    if (outcome.failed > 0) events.released?.(mint, outcome.failed, 'failed');
    events.pending?.(mint, outcome.pending);
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
    await options.recounts?.step();
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

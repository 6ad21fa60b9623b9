import type { DataSlice, KeyedAccount, ProgramAccountsFilter } from './types.js';

/**
 * Program scans shared across logins (docs/solana-wire-format.md, "Shared program scans"). A
 * getProgramAccounts is the call providers ration most (a few per second, or refused), and a
 * node without an index for the program reads every account of it to answer one. So a scan is
 * keyed by what it asks — program, filters, slice — and:
 *
 * - every scan: while it is in flight, a login asking the same thing waits on it instead of
 *   sending its own (two logins of one wallet at once: nodebt scans once);
 * - a scan sent with `keep` (its filters name no wallet: a Core collection's assets): its answer
 *   also serves the logins asking the same thing for PROGRAM_SCAN_SHARE_MS after it was sent, so a
 *   launch checking one collection costs the provider one scan per window, not one per login.
 *
 * What is wallet-specific is never shared between wallets: the filters are the key, and a scan
 * whose filters name a wallet serves that wallet only. PROGRAM_SCAN_SHARE_MS=0 turns both off.
 *
 * Fail closed: a failed scan fails every login waiting on it (each answers 503) and is forgotten
 * at once, so the next login scans again; nothing failed is ever served from here.
 *
 * One view of the chain (reader.ts): a login takes a shared answer only if the scan was sent with
 * a minimum slot at least the newest slot this login has already read from, so its later reads
 * never go back in time. What keeping gives up: an answer kept for the window is as old as the
 * chain was when it was sent (less the lag the client tolerates, LAGGING_SLOTS) — an asset moved
 * within the window may still count for its previous owner, and not yet for its new one.
 */
export class SharedScans {
  private readonly entries = new Map<string, Entry>();
  private shared = 0;

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * The answer to the scan `key` names: one in flight (or, kept, sent within the window) with a
   * minimum slot of at least `viewSlot`, or a new one: `start()`, sent with `minSlot`.
   */
  read(key: string, at: { viewSlot: number; minSlot: number; keep: boolean }, start: () => Promise<KeyedAccount[]>): Promise<KeyedAccount[]> {
    if (this.windowMs === 0) return start();
    const now = this.now();
    const entry = this.entries.get(key);
    if (entry !== undefined && (entry.pending || now - entry.sentAt <= this.windowMs) && entry.minSlot >= at.viewSlot) {
      this.shared++;
      return entry.answer;
    }
    if (this.entries.size >= SWEEP_FROM) this.sweep(now);
    const answer = start();
    const sent: Entry = { answer, sentAt: now, minSlot: at.minSlot, pending: true };
    this.entries.set(key, sent);
    const forget = () => {
      if (this.entries.get(key) === sent) this.entries.delete(key);
    };
    answer.then(
      () => {
        sent.pending = false;
        if (!at.keep) forget();
      },
      forget,
    );
    return answer;
  }

  /** Scans answered from another login's read (in flight or done) since the start. */
  sharedCount(): number {
    return this.shared;
  }

  /** Drops expired entries; if every entry is fresh and the map is full, the oldest go (memory stays bounded). */
  private sweep(at: number): void {
    for (const [key, entry] of this.entries) if (!entry.pending && at - entry.sentAt > this.windowMs) this.entries.delete(key);
    for (const key of this.entries.keys()) {
      if (this.entries.size < SWEEP_FROM) break;
      this.entries.delete(key);
    }
  }
}

interface Entry {
  answer: Promise<KeyedAccount[]>;
  /** When it was sent (the answer is no older than the chain at that moment, less the lag tolerated). */
  sentAt: number;
  /** The minContextSlot it was sent with. */
  minSlot: number;
  /** Not answered yet: joined whatever its age. */
  pending: boolean;
}

/**
 * Entries kept before expired ones are swept: each is one scan's answer (nodebt: a handful of small
 * accounts per wallet; a Core collection: its assets' 66-byte heads), so a few thousand bound memory.
 */
const SWEEP_FROM = 4096;

/** The key of a scan: everything that decides its answer (the commitment is the reader's, one per gate). */
export function scanKey(programId: string, filters: readonly ProgramAccountsFilter[], dataSlice: DataSlice | undefined): string {
  return JSON.stringify([programId, filters, dataSlice ?? null]);
}

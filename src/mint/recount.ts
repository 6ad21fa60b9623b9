import { randomUUID } from 'node:crypto';
import { LAGGING_SLOTS } from '../chain/slot-view.js';
import type { MintChain } from './chain.js';
import { rebuildCounts } from './rebuild.js';
import type { ReservationStore } from './store.js';
import type { MintConfig } from './types.js';

/**
 * Mints whose counts are lost, and their way back (docs/minting.md, "Counts rebuilt from the
 * chain"). A mint is lost when the store has no counts for it: a new process with the memory store,
 * a Redis flush or failover (recognised by its epoch, redis-store.ts). Until it is back, POST and
 * GET answer 503 MINT_RECOUNTING with Retry-After; nothing is co-signed on a guess.
 *
 * On the tracker's timer, for each lost mint:
 * 1. the bound: getLatestBlockhash at `confirmed`, read once when the loss is seen, plus
 *    LAGGING_SLOTS for a node behind the one that accepted. Every
 *    transaction the gate accepted before had a blockhash valid at `confirmed` then, so none can
 *    land past this lastValidBlockHeight;
 * 2. wait until the block height at `confirmed` is past it: the signer's history is then final;
 * 3. claim the rebuild (Redis: SET NX PX, one instance reads the chain; the others wait for the new
 *    epoch), rebuild from the signer's history (rebuild.ts) and install the counts with a new epoch.
 */
export interface RecountEvents {
  lost?(mint: string): void;
  rebuilt?(mint: string, issued: number, wallets: number): void;
  error?(mint: string, error: Error): void;
}

/** How long one instance's claim on a rebuild lasts: the others take over if it dies. */
const CLAIM_MS = 300_000;
/** Solana's target slot time: only for the Retry-After estimate. */
const BLOCK_MS_ESTIMATE = 400;

interface Lost {
  bound: number | undefined;
  height: number | undefined;
}

export class Recounts {
  private readonly lost = new Map<string, Lost>();
  private readonly owner = randomUUID();
  private running: Promise<void> | undefined;

  constructor(
    private readonly options: {
      store: ReservationStore;
      chain: MintChain;
      /** The configured mints, read at every step (SIGHUP may change them). */
      mints(): ReadonlyMap<string, MintConfig>;
      events?: RecountEvents;
    },
  ) {}

  /** The request path found the mint's counts lost: the next step starts its way back. */
  noteLost(mint: string): void {
    if (this.lost.has(mint)) return;
    this.lost.set(mint, { bound: undefined, height: undefined });
    this.options.events?.lost?.(mint);
    void this.step();
  }

  isLost(mint: string): boolean {
    return this.lost.has(mint);
  }

  /** Seconds until a retry may find the mint back: the blocks left to wait, at the cluster's target pace. */
  retryAfterSeconds(mint: string): number {
    const state = this.lost.get(mint);
    if (state?.bound === undefined || state.height === undefined) return 5;
    const blocks = Math.max(0, state.bound - state.height + 1);
    return Math.min(120, Math.max(2, Math.ceil((blocks * BLOCK_MS_ESTIMATE) / 1000) + 2));
  }

  /** Every configured mint without counts is lost (start-up, SIGHUP). */
  async checkAll(): Promise<void> {
    for (const name of this.options.mints().keys()) {
      if (!this.lost.has(name) && !(await this.options.store.hasCounts(name))) this.noteLost(name);
    }
  }

  /** One step for every lost mint; concurrent callers share it. */
  step(): Promise<void> {
    this.running ??= this.stepAll().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async stepAll(): Promise<void> {
    for (const [name, state] of this.lost) {
      try {
        await this.stepMint(name, state);
      } catch (error) {
        this.options.events?.error?.(name, error as Error);
      }
    }
  }

  private async stepMint(name: string, state: Lost): Promise<void> {
    const { store, chain } = this.options;
    const mint = this.options.mints().get(name);
    if (mint === undefined) {
      this.lost.delete(name);
      return;
    }
    // Another instance may have rebuilt it meanwhile (a newer epoch).
    if (await store.hasCounts(name)) {
      this.lost.delete(name);
      return;
    }
    // The node that answers may be behind the one that accepted an earlier blockhash: the slots a
    // node may lag before the gate skips it are added (block height grows at most one a slot).
    state.bound ??= (await chain.latestBound('confirmed')).lastValidBlockHeight + LAGGING_SLOTS;
    const { height, slot } = await chain.confirmedHeight();
    state.height = height;
    if (height <= state.bound) return;
    if (!(await store.claimRecount(name, this.owner, CLAIM_MS))) return;
    const siblings = [...this.options.mints().values()].filter((other) => other.signer.address === mint.signer.address);
    // History from nodes at least at the bank that showed every in-flight blockhash expired.
    const counts = (await rebuildCounts(siblings, chain, slot)).get(name)!;
    if (await store.install(name, counts, this.owner)) {
      this.lost.delete(name);
      this.options.events?.rebuilt?.(name, counts.issued, counts.wallets.size);
    }
  }
}

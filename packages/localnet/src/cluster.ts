/**
 * How far apart the chain's commitments are, as on a real cluster, where the confirmed bank trails
 * the processed one by a vote round trip and the finalized (rooted) bank by about 32 slots:
 *
 * - `confirmedLag`: blocks the confirmed bank is behind the processed one (default 0);
 * - `finalizedLag`: blocks the finalized bank is behind (default 32, the finality depth statuses
 *   have always used);
 * - `landingBlocks`: blocks between sendTransaction (or requestAirdrop) and the block the
 *   transaction lands in (default 0: the current block).
 *
 * getLatestBlockhash, isBlockhashValid, getBlockHeight, getSlot and the history methods answer as
 * of the requested commitment's bank (agave rpc.rs `bank(commitment)`; no commitment: finalized).
 * With every setting at its default the chain answers as it always has — every commitment's bank
 * is the newest block, and statuses become confirmed one block after landing and finalized 32
 * blocks after: settings that differ from the defaults make the finalized bank `finalizedLag` behind.
 *
 * Settable in-process (`handle.cluster.set`) and over HTTP (`POST /__localnet/cluster`); a field
 * left out keeps its value.
 */
import { FINALITY_DEPTH, MAX_PROCESSING_AGE, MAX_RECENT_BLOCKHASHES } from './blocks.js';

export interface ClusterSettings {
  confirmedLag: number;
  finalizedLag: number;
  landingBlocks: number;
}

export const DEFAULT_CLUSTER: Readonly<ClusterSettings> = { confirmedLag: 0, finalizedLag: FINALITY_DEPTH, landingBlocks: 0 };

/** What `npm run localnet` and `npm run dev` start with (LOCALNET_CLUSTER=off: the defaults). */
export const CLUSTER_LIKE: Readonly<Partial<ClusterSettings>> = { confirmedLag: 2, landingBlocks: 2 };

/** A bank further back than a blockhash lives would answer blockhashes nothing can use. */
export const MAX_CLUSTER_LAG = MAX_PROCESSING_AGE;
const MAX_LAG = MAX_CLUSTER_LAG;
/** Later than this a transaction has left every bank's blockhash queue: it could never land. */
const MAX_LANDING_BLOCKS = MAX_RECENT_BLOCKHASHES;

export type Commitment = 'processed' | 'confirmed' | 'finalized';

export class ClusterModel {
  private settings: ClusterSettings = { ...DEFAULT_CLUSTER };

  constructor(initial?: Partial<Record<keyof ClusterSettings, unknown>>) {
    if (initial) this.set(initial);
  }

  /** Validates and applies; a field left out keeps its value. Throws on a bad value, changing nothing. */
  set(change: Partial<Record<keyof ClusterSettings, unknown>>): ClusterSettings {
    if (!change || typeof change !== 'object' || Array.isArray(change)) throw new Error('cluster settings must be an object');
    const next = { ...this.settings };
    for (const [key, value] of Object.entries(change)) {
      if (value === undefined) continue;
      if (key !== 'confirmedLag' && key !== 'finalizedLag' && key !== 'landingBlocks') throw new Error(`unknown cluster setting ${key}`);
      const max = key === 'landingBlocks' ? MAX_LANDING_BLOCKS : MAX_LAG;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) throw new Error(`${key} must be an integer 0..${max}`);
      next[key] = value;
    }
    if (next.finalizedLag < Math.max(1, next.confirmedLag)) {
      throw new Error(`finalizedLag (${next.finalizedLag}) must be at least 1 and at least confirmedLag (${next.confirmedLag}): the finalized bank is never ahead of the confirmed one`);
    }
    this.settings = next;
    return this.get();
  }

  get(): ClusterSettings {
    return { ...this.settings };
  }

  reset(): void {
    this.settings = { ...DEFAULT_CLUSTER };
  }

  get landingBlocks(): number {
    return this.settings.landingBlocks;
  }

  /**
   * The slot account reads at `commitment` answer as of, when the node is at `slot`; null when
   * every setting is at its default (the newest state, as always).
   */
  readonly accountSlotOf = (commitment: unknown, slot: number): number | null => (this.isDefault ? null : slot - this.lagOf(commitment));

  /** Whether every setting is at its default: then every commitment reads the newest block. */
  get isDefault(): boolean {
    const { confirmedLag, finalizedLag, landingBlocks } = this.settings;
    return confirmedLag === DEFAULT_CLUSTER.confirmedLag && finalizedLag === DEFAULT_CLUSTER.finalizedLag && landingBlocks === DEFAULT_CLUSTER.landingBlocks;
  }

  /** Blocks the bank of `commitment` (a request's value; absent: finalized, the node's default) trails the newest block by. Bound: passed around as is. */
  readonly lagOf = (commitment: unknown): number => {
    if (commitment === 'processed') return 0;
    if (commitment === 'confirmed') return this.settings.confirmedLag;
    return this.isDefault ? 0 : this.settings.finalizedLag;
  };

  /**
   * Blocks after landing at which a transaction's status becomes confirmed and finalized. The
   * block a transaction lands in is still being produced, so it is confirmed one block later at
   * the soonest, even with confirmedLag 0.
   */
  statusDepths(): { confirmed: number; finalized: number } {
    return { confirmed: Math.max(1, this.settings.confirmedLag), finalized: this.settings.finalizedLag };
  }
}

/**
 * The launchers' setting (`npm run localnet`, `npm run dev`): LOCALNET_CLUSTER or `--cluster=`.
 * Unset, empty or `on`: CLUSTER_LIKE; `off`: the defaults (every commitment at the newest block);
 * `confirmedLag=3,landingBlocks=1`: those fields over CLUSTER_LIKE. Throws on anything else.
 */
export function clusterFromSetting(raw: string | undefined): Partial<ClusterSettings> {
  const value = raw?.trim() ?? '';
  if (value === '' || value === 'on') return { ...CLUSTER_LIKE };
  if (value === 'off') return { ...DEFAULT_CLUSTER };
  const settings: Record<string, unknown> = { ...CLUSTER_LIKE };
  for (const part of value.split(',')) {
    const [key, number, extra] = part.split('=').map((piece) => piece.trim());
    if (!key || number === undefined || number === '' || extra !== undefined) throw new Error(`LOCALNET_CLUSTER must be on, off or field=blocks pairs (confirmedLag=2,landingBlocks=2), got ${raw}`);
    settings[key] = Number(number);
  }
  // Checked as POST /__localnet/cluster checks it.
  return new ClusterModel(settings).get();
}

/** The `--cluster=…` argument, else LOCALNET_CLUSTER. */
export function clusterSettingOf(argv: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  const flag = argv.find((arg) => arg.startsWith('--cluster='));
  return flag === undefined ? env.LOCALNET_CLUSTER : flag.slice('--cluster='.length);
}

/** A line for the launchers' banner. */
export function describeCluster(settings: ClusterSettings): string {
  const { confirmedLag, finalizedLag, landingBlocks } = settings;
  if (confirmedLag === DEFAULT_CLUSTER.confirmedLag && finalizedLag === DEFAULT_CLUSTER.finalizedLag && landingBlocks === DEFAULT_CLUSTER.landingBlocks) {
    return 'cluster: off (every commitment reads the newest block; LOCALNET_CLUSTER=on for a cluster-like chain)';
  }
  return `cluster: confirmed ${confirmedLag} and finalized ${finalizedLag} blocks behind processed, transactions land ${landingBlocks} blocks after sending (LOCALNET_CLUSTER=off: all at once)`;
}

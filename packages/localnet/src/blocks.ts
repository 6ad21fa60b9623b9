/**
 * The local chain's blocks: a block height and slot that advance on a clock, and the queue of
 * recent blockhashes a transaction's lifetime is measured against, with the validator's rules:
 *
 * - one blockhash per block; the queue keeps the last 300 (MAX_RECENT_BLOCKHASHES);
 * - a blockhash is valid while its age (blocks produced since) is at most 150
 *   (MAX_PROCESSING_AGE), so the block height it is valid through — `lastValidBlockHeight` in
 *   getLatestBlockhash — is its own height + 150 (agave runtime `get_blockhash_last_valid_block_height`:
 *   `block_height + MAX_PROCESSING_AGE - age`);
 * - simulation (simulateTransaction and sendTransaction's preflight) allows 144 only
 *   (MAX_PROCESSING_AGE - MAX_TRANSACTION_FORWARDING_DELAY), so a blockhash in its last six blocks
 *   fails preflight yet still lands when sent with skipPreflight.
 *
 * One block every `blockMs` (default 400 ms, Solana's target slot time), so a blockhash lives about
 * a minute as on mainnet; `blockMs: 0` stops the clock. `advance(n)` produces n blocks at once
 * (tests, `POST /__localnet/blocks`). No slot is skipped after start: the slot and the block height
 * move together, the height trailing the slot by a constant as on a real cluster.
 */
import { createHash } from 'node:crypto';
import bs58 from 'bs58';
import type { ChainState } from './state.js';

export const DEFAULT_BLOCK_MS = 400;
/** MAX_RECENT_BLOCKHASHES (solana-clock): blockhashes a bank remembers. */
export const MAX_RECENT_BLOCKHASHES = 300;
/** MAX_PROCESSING_AGE (solana-clock): the oldest blockhash a leader accepts. */
export const MAX_PROCESSING_AGE = 150;
/** MAX_PROCESSING_AGE - MAX_TRANSACTION_FORWARDING_DELAY (6): the oldest blockhash a simulation accepts. */
export const MAX_SIMULATION_AGE = MAX_PROCESSING_AGE - 6;
/** Blocks after which a slot is rooted (finalized): a vote lockout of 32 confirmations. */
export const FINALITY_DEPTH = 32;
/** Mainnet's block height trails its slot by skipped slots; ours by this constant. */
const SLOTS_NOT_BLOCKS = 21_600_000;
const MAX_BLOCK_MS = 60_000;

export interface BlockInfo {
  blockHeight: number;
  slot: number;
  blockMs: number;
  blockhash: string;
  lastValidBlockHeight: number;
}

export class BlockClock {
  private height: number;
  /** blockhash → the block height that produced it, for the last MAX_RECENT_BLOCKHASHES blocks. */
  private readonly recent = new Map<string, number>();
  private readonly hashes: string[] = [];
  private timer: NodeJS.Timeout | null = null;
  private rate = 0;
  private readonly listeners: ((height: number) => void)[] = [];
  private readonly startedAtMs = Date.now();

  constructor(
    private readonly state: ChainState,
    blockMs = DEFAULT_BLOCK_MS,
  ) {
    this.height = state.slot - SLOTS_NOT_BLOCKS;
    // A chain that has been running: the queue holds its last MAX_RECENT_BLOCKHASHES blocks, so a
    // bank behind the newest one (cluster.ts) has a blockhash from the start.
    for (let height = this.height - MAX_RECENT_BLOCKHASHES + 1; height <= this.height; height += 1) this.remember(height);
    this.setRate(blockMs);
  }

  get blockHeight(): number {
    return this.height;
  }

  get blockMs(): number {
    return this.rate;
  }

  /**
   * The newest blockhash of the bank `lag` blocks behind the newest block (cluster.ts; 0: the
   * newest), and the last block height at which a transaction using it can land.
   */
  latest(lag = 0): { blockhash: string; lastValidBlockHeight: number } {
    const height = this.height - lag;
    return { blockhash: this.hashes[this.hashes.length - 1 - lag]!, lastValidBlockHeight: height + MAX_PROCESSING_AGE };
  }

  /** Blocks produced since this blockhash's block, or null when the queue does not know it. */
  ageOf(blockhash: string): number | null {
    const at = this.recent.get(blockhash);
    return at === undefined ? null : this.height - at;
  }

  /**
   * isBlockhashValid: known and at most MAX_PROCESSING_AGE blocks old (`maxAge` for simulation), as
   * of the bank `lag` blocks behind the newest block — which has not seen the blockhashes of the
   * blocks after it.
   */
  isValid(blockhash: string, maxAge = MAX_PROCESSING_AGE, lag = 0): boolean {
    const age = this.ageOf(blockhash);
    return age !== null && age >= lag && age - lag <= maxAge;
  }

  lastValidBlockHeight(blockhash: string): number | null {
    const at = this.recent.get(blockhash);
    return at === undefined ? null : at + MAX_PROCESSING_AGE;
  }

  /** Unix seconds of the current block: the state's reference time plus the wall time since start. */
  blockTime(): number {
    return Math.floor((this.state.now + (Date.now() - this.startedAtMs)) / 1000);
  }

  /** Produces `blocks` blocks now; listeners (landing delayed transactions) run once, after. */
  advance(blocks: number): void {
    if (!Number.isInteger(blocks) || blocks < 0) throw new Error('blocks must be a non-negative integer');
    if (blocks === 0) return;
    // Only the last MAX_RECENT_BLOCKHASHES can matter: older ones would be dropped at once.
    const first = Math.max(this.height + 1, this.height + blocks - MAX_RECENT_BLOCKHASHES + 1);
    this.height += blocks;
    this.state.slot += blocks;
    for (let height = first; height <= this.height; height += 1) this.remember(height);
    for (const listener of this.listeners) listener(this.height);
  }

  /** One block every `blockMs` milliseconds; 0 stops the clock. */
  setRate(blockMs: number): void {
    if (!Number.isInteger(blockMs) || blockMs < 0 || blockMs > MAX_BLOCK_MS) {
      throw new Error(`blockMs must be an integer 0..${MAX_BLOCK_MS}`);
    }
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.rate = blockMs;
    if (blockMs > 0) {
      this.timer = setInterval(() => this.advance(1), blockMs);
      this.timer.unref();
    }
  }

  onBlock(listener: (height: number) => void): void {
    this.listeners.push(listener);
  }

  info(): BlockInfo {
    return { blockHeight: this.height, slot: this.state.slot, blockMs: this.rate, ...this.latest() };
  }

  stop(): void {
    this.setRate(0);
  }

  private remember(height: number): void {
    const hash = blockhashOf(height);
    this.recent.set(hash, height);
    this.hashes.push(hash);
    while (this.hashes.length > MAX_RECENT_BLOCKHASHES) this.recent.delete(this.hashes.shift()!);
  }
}

/** A deterministic 32-byte blockhash per block height. */
function blockhashOf(height: number): string {
  return bs58.encode(createHash('sha256').update(`x404-localnet:block:${height}`).digest());
}

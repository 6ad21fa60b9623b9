import { deriveAssociatedTokenAddressText, type AtaSeed } from '../chain/ata.js';
import { verifyBatch, type VerifyBatch } from './ed25519.js';

/**
 * One task of the verify pool (Piscina: plain, structured-clonable data in and out): a batch of
 * signatures, and for each one the associated token accounts its login will read.
 *
 * The ATAs do not depend on the signature, but deriving them is the largest CPU cost of a wallet's
 * first sign-in (two or more SHA-256 + on-curve tests each, ~45 µs an ATA: bench/ata.ts); done here,
 * in the thread that is already verifying, it leaves the event loop free and costs no extra
 * crossing (a separate pool task for them measured slower: bench/PROFILE.md). Only a valid signer's
 * ATAs are derived, so a forged request cannot make the pool work for nothing.
 */
export interface VerifyTask extends VerifyBatch {
  /**
   * Per entry: the ATAs to derive when its signature is valid (empty: none). Absent when no entry
   * has any (a known wallet's login): nothing to clone across the thread boundary.
   */
  ataSeeds?: (readonly AtaSeed[])[] | undefined;
}

export interface VerifyTaskResult {
  /** 1 for a valid signature, 0 otherwise, per entry. */
  valid: Uint8Array;
  /** Per entry: the base58 ATA of each seed, in order; empty when the signature is invalid. Absent when the task had no seeds. */
  atas?: string[][] | undefined;
}

const NO_ATAS: string[] = [];

export function runVerifyTask(task: VerifyTask): VerifyTaskResult {
  const valid = verifyBatch(task);
  if (task.ataSeeds === undefined) return { valid };
  const atas = task.ataSeeds.map((seeds, i) => (valid[i] === 1 && seeds.length > 0 ? seeds.map(deriveAssociatedTokenAddressText) : NO_ATAS));
  return { valid, atas };
}

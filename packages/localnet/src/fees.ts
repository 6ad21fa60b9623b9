/**
 * What a transaction pays, as the validator charges it (agave fee crate and compute-budget
 * processing): 5,000 lamports per signature, plus a priority fee of
 * ceil(compute unit price (micro-lamports) × compute unit limit / 1,000,000) when the transaction
 * sets a price. Without SetComputeUnitLimit the limit is 200,000 per instruction of a program that
 * is not a builtin and 3,000 per builtin instruction (SIMD-0170), at most 1,400,000.
 *
 * Checked against what LiteSVM actually takes from the fee payer (test/unit/localnet-transactions.test.ts).
 * Precompile signatures (ed25519 / secp256k1 instructions) are not counted: the local chain does
 * not expect them.
 */
import { COMPUTE_BUDGET_PROGRAM, SYSTEM_PROGRAM } from './programs.js';
import type { WireTransaction } from './wire-transaction.js';

export const LAMPORTS_PER_SIGNATURE = 5000;
const DEFAULT_INSTRUCTION_COMPUTE_UNITS = 200_000;
const BUILTIN_INSTRUCTION_COMPUTE_UNITS = 3_000;
const MAX_COMPUTE_UNITS = 1_400_000;
const MICRO_LAMPORTS_PER_LAMPORT = 1_000_000n;
const SET_COMPUTE_UNIT_LIMIT = 2;
const SET_COMPUTE_UNIT_PRICE = 3;

/** Programs the runtime runs natively (compute budget's builtin list). */
const BUILTINS: ReadonlySet<string> = new Set([
  SYSTEM_PROGRAM,
  COMPUTE_BUDGET_PROGRAM,
  'AddressLookupTab1e1111111111111111111111111',
  'Vote111111111111111111111111111111111111111',
  'Stake11111111111111111111111111111111111111',
  'Config1111111111111111111111111111111111111',
  'BPFLoader1111111111111111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
  'BPFLoaderUpgradeab1e11111111111111111111111',
  'LoaderV411111111111111111111111111111111111',
  'ZkE1Gama1Proof11111111111111111111111111111',
]);

export interface ComputeBudget {
  unitLimit: number;
  /** Micro-lamports per compute unit. */
  unitPrice: bigint;
}

export function computeBudgetOf(tx: WireTransaction): ComputeBudget {
  let limit: number | null = null;
  let price = 0n;
  let defaultLimit = 0;
  for (const ix of tx.instructions) {
    const program = tx.staticKeys[ix.programIdIndex] ?? '';
    defaultLimit += BUILTINS.has(program) ? BUILTIN_INSTRUCTION_COMPUTE_UNITS : DEFAULT_INSTRUCTION_COMPUTE_UNITS;
    if (program !== COMPUTE_BUDGET_PROGRAM) continue;
    if (ix.data[0] === SET_COMPUTE_UNIT_LIMIT && ix.data.length === 5) limit = ix.data.readUInt32LE(1);
    if (ix.data[0] === SET_COMPUTE_UNIT_PRICE && ix.data.length === 9) price = ix.data.readBigUInt64LE(1);
  }
  return { unitLimit: Math.min(limit ?? defaultLimit, MAX_COMPUTE_UNITS), unitPrice: price };
}

export function transactionFee(tx: WireTransaction): number {
  const { unitLimit, unitPrice } = computeBudgetOf(tx);
  const micro = unitPrice * BigInt(unitLimit);
  const priority = (micro + MICRO_LAMPORTS_PER_LAMPORT - 1n) / MICRO_LAMPORTS_PER_LAMPORT;
  return tx.header.numRequiredSignatures * LAMPORTS_PER_SIGNATURE + Number(priority);
}

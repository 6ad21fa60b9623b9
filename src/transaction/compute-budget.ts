import type { CompiledInstruction } from './message.js';

/**
 * The Compute Budget program's instructions (anza-xyz/solana-sdk compute-budget-interface): a u8
 * kind, then one little-endian u32 or u64, and no accounts. Kind 0 is `Unused`, the reserved slot of
 * the deprecated RequestUnits. The runtime also fails a transaction that repeats a kind
 * (TransactionError::DuplicateInstruction): each caller tracks the kinds it has seen.
 */
const DATA_LENGTH: ReadonlyMap<number, number> = new Map([
  [1, 5], // RequestHeapFrame(u32)
  [2, 5], // SetComputeUnitLimit(u32)
  [3, 9], // SetComputeUnitPrice(u64)
  [4, 5], // SetLoadedAccountsDataSizeLimit(u32)
]);

export const SET_COMPUTE_UNIT_PRICE = 3;

/** The instruction's kind when it is a well-formed Compute Budget instruction, else undefined. */
export function computeBudgetKind({ accountIndexes, data }: CompiledInstruction): number | undefined {
  const kind = data[0];
  return kind !== undefined && accountIndexes.length === 0 && DATA_LENGTH.get(kind) === data.length ? kind : undefined;
}

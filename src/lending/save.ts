import { LendingDecodeError, expectSize, readAddress, readU128 } from './bytes.js';

/**
 * Save (formerly Solend) Obligation: a fixed 1300-byte Pack layout without a discriminator
 * (solendprotocol/solana-program-library, token-lending/program/src/state/obligation.rs):
 * version u8 @0, last_update {slot u64 @1, stale u8 @9}, lending_market @10, owner @42,
 * deposited_value @74, borrowed_value @90, allowed_borrow_value @106, unhealthy_borrow_value @122,
 * borrowed_value_upper_bound @138, borrowing_isolated_asset u8 @154, super_unhealthy_borrow_value
 * @155, unweighted_borrowed_value @171, closeable u8 @187, padding, deposits_len u8 @202,
 * borrows_len u8 @203, then the deposits (88 bytes each) and borrows (112 bytes each).
 * Values are u128 "Decimal"s: USD × 10^18.
 */
export const SAVE_PROGRAM_ID = 'So1endDq2YkqhipRh3WViPa8hdiSpxWy6z3Z6tMCpAo';
export const SAVE_OBLIGATION_SIZE = 1300;
export const SAVE_OWNER_OFFSET = 42;
const OBLIGATION_VERSION = 1;

export interface SaveObligation {
  owner: string;
  lendingMarket: string;
  depositedValueWad: bigint;
  /** Risk-weighted (borrow weight) borrowed value. */
  borrowedValueWad: bigint;
  /** Plain market value of the borrows: the debt figure nodebt uses. */
  unweightedBorrowedValueWad: bigint;
  depositsLen: number;
  /** Always current (changes with every borrow/repay), unlike the cached USD values. */
  borrowsLen: number;
}

/** Returns null for an uninitialized account (version 0); throws for anything that is not an obligation. */
export function decodeSaveObligation(data: Buffer): SaveObligation | null {
  expectSize(data, SAVE_OBLIGATION_SIZE, 'Save obligation');
  const version = data[0]!;
  if (version === 0) return null;
  if (version !== OBLIGATION_VERSION) throw new LendingDecodeError(`Save obligation version is ${version}, expected ${OBLIGATION_VERSION}`);
  return {
    owner: readAddress(data, SAVE_OWNER_OFFSET),
    lendingMarket: readAddress(data, 10),
    depositedValueWad: readU128(data, 74),
    borrowedValueWad: readU128(data, 90),
    unweightedBorrowedValueWad: readU128(data, 171),
    depositsLen: data[202]!,
    borrowsLen: data[203]!,
  };
}

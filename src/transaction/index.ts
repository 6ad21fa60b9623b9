/**
 * x404-gate/transaction: Solana's legacy and v0 transaction wire format, browser-safe: decode with
 * Solana's sanitize rules, encode, read a key's role, recognise Compute Budget instructions, and
 * the program ids a mint template names.
 */
export { computeBudgetKind } from './compute-budget.js';
export { decodeTransaction } from './decode.js';
export { encodeMessage, encodeTransaction } from './encode.js';
export { keyRole, type AddressTableLookup, type CompiledInstruction, type Message, type MessageHeader, type WireTransaction } from './message.js';
export { MalformedTransaction, TransactionRejected } from './transaction-rejected.js';
export { PROGRAM_IDS } from '../mint/template-programs.js';

/**
 * Sign mode `memo-tx`, for wallets that cannot sign arbitrary text (Ledger): the wallet signs a
 * Solana transaction whose only real instruction is a Memo carrying the challenge. Its recent
 * blockhash is 32 zero bytes, which no block has, so no validator will ever execute it; the gate
 * never submits it either. The gate decodes the wire bytes with the shared transaction decoder
 * (src/transaction/decode.ts: exact wire format, Solana's sanitize rules), checks their shape here,
 * and then verifies the wallet's ed25519 signature over the message bytes. Browser-safe (the SDK and
 * the CLI build memo transactions with this module, without @solana/web3.js).
 *
 * The rules of the shape were read in (not copied from):
 * - anza-xyz/solana-sdk compute-budget-interface/src/lib.rs and sdk-ids/src/lib.rs: the program
 *   id, and each instruction is a u8 kind then one little-endian u32 or u64, with no accounts.
 * - solana-program/memo interface/src/lib.rs, interface/src/instruction.rs, program/src/
 *   entrypoint.rs: the ids (MemoSq4… is the one that repo calls v3, and most wallets call v2),
 *   data = the memo's bytes, accounts = signers only.
 * - @solana/web3.js 1.98.4 lib/index.esm.js (Transaction.compileMessage, CompiledKeys,
 *   Message/MessageV0.serialize): what dApps and wallets build; memoTransactionMessage
 *   gives the same bytes (test/unit/memo-transaction.test.ts).
 */
import { decodeBase58 } from '../lib/base58.js';
import { equalBytes } from '../lib/bytes.js';
import { computeBudgetKind, SET_COMPUTE_UNIT_PRICE } from '../transaction/compute-budget.js';
import { decodeTransaction } from '../transaction/decode.js';
import { encodeMessage, encodeTransaction } from '../transaction/encode.js';
import { KEY_BYTES, MAX_TRANSACTION_BYTES, SIGNATURE_BYTES, VERSION_PREFIX, type CompiledInstruction, type WireTransaction } from '../transaction/message.js';
import { MalformedTransaction } from '../transaction/transaction-rejected.js';
import { excerpt, malformed, mismatch } from './message-rejected.js';

export { MAX_TRANSACTION_BYTES };

function address(base58: string): Uint8Array {
  const bytes = decodeBase58(base58);
  if (bytes?.length !== KEY_BYTES) throw new Error(`not an address: ${base58}`);
  return bytes;
}

export const MEMO_PROGRAM_ID = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
export const MEMO_V1_PROGRAM_ID = address('Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo');
export const COMPUTE_BUDGET_PROGRAM_ID = address('ComputeBudget111111111111111111111111111111');

/**
 * The shared decoder's reading of X-404-Message: a refusal becomes MessageRejected('malformed',
 * field, …) (400 INVALID_HEADER), its text prefixed `truncated: ` when the bytes end early.
 */
export function decodeMemoTransaction(bytes: Uint8Array): WireTransaction {
  try {
    return decodeTransaction(bytes);
  } catch (error) {
    if (!(error instanceof MalformedTransaction)) throw error;
    throw malformed(error.field, error.reason === 'truncated' ? `truncated: ${error.detail}` : error.detail);
  }
}

const encoder = new TextEncoder();

export interface MemoExpectation {
  wallet: Uint8Array;
  challenge: string;
  /** The signature the client sent on its own, which the gate verifies over the message. */
  signature: Uint8Array;
}

/**
 * Whether a decoded transaction is a memo transaction that proves `challenge` for `wallet` and can
 * never land: the wallet pays and is the only signer, the blockhash is zero, no lookup tables, the
 * instructions are Compute Budget ones then the memo (byte for byte the challenge, listing at most
 * the wallet) and nothing else, no unused, duplicate or writable key besides the fee payer, and its
 * signature is the one sent. Throws MessageRejected('mismatch', field, …); returns the bytes whose
 * signature the gate must then verify.
 */
export function checkMemoTransaction(tx: WireTransaction, expected: MemoExpectation): { message: Uint8Array } {
  const { header, accountKeys, instructions, lookups, recentBlockhash } = tx.message;
  if (header.numRequiredSignatures !== 1) {
    throw mismatch('signers', `${header.numRequiredSignatures} signers: the wallet must be the only one`);
  }
  if (!equalBytes(accountKeys[0]!, expected.wallet)) throw mismatch('feePayer', 'the fee payer is not the wallet');
  if (lookups.length > 0) throw mismatch('addressTableLookups', 'a memo transaction loads no address lookup table');
  if (recentBlockhash.some((byte) => byte !== 0)) {
    throw mismatch('recentBlockhash', 'the recent blockhash must be 32 zero bytes, so that the transaction can never land on chain');
  }

  const isProgram = (instruction: CompiledInstruction, id: Uint8Array): boolean => equalBytes(accountKeys[instruction.programIdIndex]!, id);
  const budgetKinds = new Set<number>();
  let memoAt = 0;
  for (; memoAt < instructions.length && isProgram(instructions[memoAt]!, COMPUTE_BUDGET_PROGRAM_ID); memoAt++) {
    const kind = computeBudgetKind(instructions[memoAt]!);
    if (kind === undefined) throw mismatch('instructions', `instruction ${memoAt} is not a valid Compute Budget instruction`);
    // The runtime fails a transaction that repeats a kind (TransactionError::DuplicateInstruction).
    if (budgetKinds.has(kind)) throw mismatch('instructions', `instruction ${memoAt} repeats a Compute Budget instruction`);
    budgetKinds.add(kind);
  }
  const memo = instructions[memoAt];
  if (memo === undefined) throw mismatch('instructions', 'no Memo instruction');
  if (!isProgram(memo, MEMO_PROGRAM_ID) && !isProgram(memo, MEMO_V1_PROGRAM_ID)) {
    throw mismatch('instructions', `instruction ${memoAt} is neither Compute Budget nor Memo`);
  }
  if (memoAt !== instructions.length - 1) throw mismatch('instructions', 'nothing may follow the Memo instruction');
  if (!equalBytes(memo.data, encoder.encode(expected.challenge))) {
    const text = new TextDecoder('utf-8', { fatal: false }).decode(memo.data);
    throw mismatch('memo', `the memo ${excerpt(text)} is not the challenge`);
  }
  if (memo.accountIndexes.length > 1 || (memo.accountIndexes.length === 1 && memo.accountIndexes[0] !== 0)) {
    throw mismatch('memo', 'the memo may list no account but the wallet');
  }

  // Only the fee payer is a signer (checked above); it is also the only writable key.
  if (header.numReadonlyUnsignedAccounts !== accountKeys.length - 1) {
    throw mismatch('accountKeys', 'an account other than the fee payer is writable');
  }
  accountKeys.forEach((key, index) => {
    for (let other = 0; other < index; other++) {
      if (equalBytes(accountKeys[other]!, key)) throw mismatch('accountKeys', `account keys ${other} and ${index} are the same`);
    }
  });
  const used = accountKeys.map((_, index) => index === 0);
  for (const { programIdIndex, accountIndexes } of instructions) {
    used[programIdIndex] = true;
    for (const index of accountIndexes) used[index] = true;
  }
  const unused = used.indexOf(false);
  if (unused >= 0) throw mismatch('accountKeys', `account key ${unused} is used by no instruction`);

  if (!equalBytes(tx.signatures[0]!, expected.signature)) {
    throw mismatch('signature', "the transaction's signature is not the signature sent with it");
  }
  return { message: tx.messageBytes };
}

export interface MemoTransactionOptions {
  wallet: Uint8Array;
  challenge: string;
  version: 'legacy' | 0;
  /**
   * A SetComputeUnitPrice instruction before the memo. Wallets such as Phantom add their own
   * priority-fee instructions to a transaction that has none, which would change what is signed.
   */
  computeUnitPrice?: bigint;
  /** List the wallet in the memo instruction, as a signer (spl-memo's "signed memo"). Default true. */
  walletSignsMemo?: boolean;
}

/**
 * The message bytes of a memo transaction for `challenge`, to be signed by the wallet. Byte for
 * byte what @solana/web3.js compiles for the same instructions with feePayer = wallet and
 * recentBlockhash = 32 zero bytes, legacy or v0 (keys: wallet, [Compute Budget], Memo).
 */
export function memoTransactionMessage(options: MemoTransactionOptions): Uint8Array {
  const { wallet, challenge, version, computeUnitPrice, walletSignsMemo = true } = options;
  if (wallet.length !== KEY_BYTES) throw new RangeError(`a wallet address is ${KEY_BYTES} bytes, not ${wallet.length}`);
  const keys = computeUnitPrice === undefined ? [wallet, MEMO_PROGRAM_ID] : [wallet, COMPUTE_BUDGET_PROGRAM_ID, MEMO_PROGRAM_ID];
  const memoData = encoder.encode(challenge);
  const instructions: CompiledInstruction[] = [];
  if (computeUnitPrice !== undefined) {
    if (computeUnitPrice < 0n || computeUnitPrice >= 1n << 64n) throw new RangeError('computeUnitPrice must fit in a u64');
    const data = new Uint8Array(9);
    data[0] = SET_COMPUTE_UNIT_PRICE;
    new DataView(data.buffer).setBigUint64(1, computeUnitPrice, true);
    instructions.push({ programIdIndex: 1, accountIndexes: new Uint8Array(0), data });
  }
  instructions.push({ programIdIndex: keys.length - 1, accountIndexes: Uint8Array.from(walletSignsMemo ? [0] : []), data: memoData });

  const message = encodeMessage({
    version,
    // The wallet signs and pays; every other key is a read-only program.
    header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: keys.length - 1 },
    accountKeys: keys,
    recentBlockhash: new Uint8Array(KEY_BYTES), // zero, so it never lands
    instructions,
    lookups: [],
  });
  const transactionLength = 1 + SIGNATURE_BYTES + message.length;
  if (transactionLength > MAX_TRANSACTION_BYTES) {
    throw new RangeError(`the challenge makes a ${transactionLength}-byte transaction, more than ${MAX_TRANSACTION_BYTES}`);
  }
  return message;
}

/** The wire transaction for a message with one signer (what memoTransactionMessage builds) and its signature. */
export function serializeSignedTransaction(message: Uint8Array, signature: Uint8Array): Uint8Array {
  const transaction = encodeTransaction([signature], message); // checks the signature's length first
  const numRequiredSignatures = message[0] === VERSION_PREFIX ? message[1] : message[0];
  if (numRequiredSignatures !== 1) throw new RangeError('the message must have exactly one signer');
  return transaction;
}

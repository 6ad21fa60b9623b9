/**
 * Sign mode `memo-tx`, for wallets that cannot sign arbitrary text (Ledger): the wallet signs a
 * Solana transaction whose only real instruction is a Memo carrying the challenge. Its recent
 * blockhash is 32 zero bytes, which no block has, so no validator will ever execute it; the gate
 * never submits it either. The gate decodes the wire bytes, checks their shape here, and then
 * verifies the wallet's ed25519 signature over the message bytes. Browser-safe (the SDK and the
 * CLI build memo transactions with this module, without @solana/web3.js).
 *
 * The wire format and rules were read in (not copied from):
 * - anza-xyz/solana-sdk short-vec/src/lib.rs: compact-u16, 7 bits a byte, low bits first, at most
 *   3 bytes; decoding rejects a zero byte after the first (alias), a continuation bit on the third
 *   byte, and values above u16::MAX.
 * - anza-xyz/solana-sdk transaction/src/lib.rs, transaction/src/versioned/mod.rs: a shortvec of
 *   64-byte signatures, then the message; sanitize wants exactly num_required_signatures
 *   signatures, all of them for static keys.
 * - anza-xyz/solana-sdk message/src/versions/mod.rs (first message byte: top bit set means
 *   "version in the low 7 bits", otherwise it is legacy's num_required_signatures),
 *   message/src/lib.rs (MessageHeader), message/src/legacy.rs, message/src/versions/v0/mod.rs,
 *   message/src/compiled_instruction.rs: field order, and the sanitize rules kept here (the header
 *   fits the keys, a writable fee payer, program index in the static keys and not 0, account
 *   indexes in range, each lookup loads a key, at most 256 keys).
 * - anza-xyz/solana-sdk packet/src/lib.rs: PACKET_DATA_SIZE = 1280 − 40 − 8 = 1232.
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
import { concatBytes } from '../lib/bytes.js';
import { excerpt, malformed, mismatch } from './rejected.js';

/** PACKET_DATA_SIZE: the largest transaction a validator accepts. */
export const MAX_TRANSACTION_BYTES = 1232;
const SIGNATURE_BYTES = 64;
const KEY_BYTES = 32;
const VERSION_PREFIX = 0x80;
/** Account indexes are a u8. */
const MAX_ACCOUNT_KEYS = 256;

function address(base58: string): Uint8Array {
  const bytes = decodeBase58(base58);
  if (bytes?.length !== KEY_BYTES) throw new Error(`not an address: ${base58}`);
  return bytes;
}

export const MEMO_PROGRAM_ID = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
export const MEMO_V1_PROGRAM_ID = address('Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo');
export const COMPUTE_BUDGET_PROGRAM_ID = address('ComputeBudget111111111111111111111111111111');

/**
 * Compute Budget instruction kind → its exact data length (the kind byte and a u32 or u64). Kind 0
 * is `Unused`, the reserved slot of the deprecated RequestUnits.
 */
const COMPUTE_BUDGET_DATA_LENGTH: ReadonlyMap<number, number> = new Map([
  [1, 5], // RequestHeapFrame(u32)
  [2, 5], // SetComputeUnitLimit(u32)
  [3, 9], // SetComputeUnitPrice(u64)
  [4, 5], // SetLoadedAccountsDataSizeLimit(u32)
]);
const SET_COMPUTE_UNIT_PRICE = 3;

export interface MessageHeader {
  numRequiredSignatures: number;
  numReadonlySignedAccounts: number;
  numReadonlyUnsignedAccounts: number;
}

export interface CompiledInstruction {
  programIdIndex: number;
  accountIndexes: Uint8Array;
  data: Uint8Array;
}

export interface AddressTableLookup {
  accountKey: Uint8Array;
  writableIndexes: Uint8Array;
  readonlyIndexes: Uint8Array;
}

export interface DecodedTransaction {
  version: 'legacy' | 0;
  signatures: Uint8Array[];
  /** The bytes the signers signed: everything after the signatures. */
  message: Uint8Array;
  header: MessageHeader;
  accountKeys: Uint8Array[];
  recentBlockhash: Uint8Array;
  instructions: CompiledInstruction[];
  lookups: AddressTableLookup[];
}

class Reader {
  private offset = 0;
  constructor(private readonly bytes: Uint8Array) {}

  get position(): number {
    return this.offset;
  }

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  take(length: number, field: string): Uint8Array {
    if (length > this.remaining) throw malformed(field, `truncated: ${field} needs ${length} more bytes, ${this.remaining} left`);
    this.offset += length;
    return this.bytes.slice(this.offset - length, this.offset);
  }

  u8(field: string): number {
    if (this.remaining < 1) throw malformed(field, `truncated: ${field} needs 1 more byte, none left`);
    return this.bytes[this.offset++]!;
  }

  /** A compact-u16 in its only canonical encoding, as Solana's short_vec decodes it. */
  shortU16(field: string): number {
    let value = 0;
    for (let nth = 0; ; nth++) {
      const byte = this.u8(field);
      if (nth > 0 && byte === 0) throw malformed(field, 'over-long compact-u16 length (a zero byte after the first)');
      value |= (byte & 0x7f) << (7 * nth);
      if ((byte & 0x80) === 0) break;
      if (nth === 2) throw malformed(field, 'compact-u16 length longer than 3 bytes');
    }
    if (value > 0xffff) throw malformed(field, `compact-u16 length ${value} above 65535`);
    return value;
  }

  /** A shortvec of bytes. */
  byteVector(field: string): Uint8Array {
    return this.take(this.shortU16(field), field);
  }
}

/**
 * Structural decode of a serialized legacy or v0 transaction, with the checks Solana applies before
 * anything runs (exact wire format, sanitize, signature count). Says nothing about what the
 * transaction does: that is checkMemoTransaction. Throws MessageRejected('malformed', …).
 */
export function decodeTransaction(bytes: Uint8Array): DecodedTransaction {
  if (bytes.length > MAX_TRANSACTION_BYTES) {
    throw malformed('transaction', `${bytes.length} bytes, more than a transaction can be (${MAX_TRANSACTION_BYTES})`);
  }
  const reader = new Reader(bytes);
  const signatures: Uint8Array[] = [];
  const signatureCount = reader.shortU16('signatures');
  for (let i = 0; i < signatureCount; i++) signatures.push(reader.take(SIGNATURE_BYTES, 'signatures'));

  const messageStart = reader.position;
  let version: 'legacy' | 0 = 'legacy';
  let numRequiredSignatures = reader.u8('header');
  if (numRequiredSignatures & VERSION_PREFIX) {
    const versionNumber = numRequiredSignatures & ~VERSION_PREFIX;
    if (versionNumber !== 0) throw malformed('version', `message version ${versionNumber}: only legacy and v0 transactions are accepted`);
    version = 0;
    numRequiredSignatures = reader.u8('header');
  }
  const header: MessageHeader = {
    numRequiredSignatures,
    numReadonlySignedAccounts: reader.u8('header'),
    numReadonlyUnsignedAccounts: reader.u8('header'),
  };

  const keyCount = reader.shortU16('accountKeys');
  const keyBytes = reader.take(keyCount * KEY_BYTES, 'accountKeys');
  const accountKeys: Uint8Array[] = [];
  for (let i = 0; i < keyCount; i++) accountKeys.push(keyBytes.slice(i * KEY_BYTES, (i + 1) * KEY_BYTES));

  const recentBlockhash = reader.take(KEY_BYTES, 'recentBlockhash');

  const instructions: CompiledInstruction[] = [];
  const instructionCount = reader.shortU16('instructions');
  for (let i = 0; i < instructionCount; i++) {
    const programIdIndex = reader.u8('instructions');
    const accountIndexes = reader.byteVector('instructions');
    const data = reader.byteVector('instructions');
    instructions.push({ programIdIndex, accountIndexes, data });
  }

  const lookups: AddressTableLookup[] = [];
  if (version === 0) {
    const lookupCount = reader.shortU16('addressTableLookups');
    for (let i = 0; i < lookupCount; i++) {
      const accountKey = reader.take(KEY_BYTES, 'addressTableLookups');
      const writableIndexes = reader.byteVector('addressTableLookups');
      const readonlyIndexes = reader.byteVector('addressTableLookups');
      lookups.push({ accountKey, writableIndexes, readonlyIndexes });
    }
  }
  if (reader.remaining > 0) throw malformed('transaction', `${reader.remaining} trailing bytes after the message`);

  const transaction: DecodedTransaction = {
    version,
    signatures,
    message: bytes.slice(messageStart),
    header,
    accountKeys,
    recentBlockhash,
    instructions,
    lookups,
  };
  sanitize(transaction);
  return transaction;
}

/** Solana's sanitize rules (legacy and v0 Message::sanitize, VersionedTransaction::sanitize_signatures). */
function sanitize({ signatures, header, accountKeys, instructions, lookups }: DecodedTransaction): void {
  if (signatures.length !== header.numRequiredSignatures) {
    throw malformed('signatures', `${signatures.length} signatures for ${header.numRequiredSignatures} required signers`);
  }
  if (header.numRequiredSignatures + header.numReadonlyUnsignedAccounts > accountKeys.length) {
    const { numRequiredSignatures: signers, numReadonlyUnsignedAccounts: readonly } = header;
    throw malformed('header', `${signers} signers and ${readonly} read-only accounts, but ${accountKeys.length} account keys`);
  }
  if (header.numReadonlySignedAccounts >= header.numRequiredSignatures) {
    throw malformed('header', 'no writable signer to pay the fee');
  }
  let loadedKeyCount = 0;
  for (const lookup of lookups) {
    const loaded = lookup.writableIndexes.length + lookup.readonlyIndexes.length;
    if (loaded === 0) throw malformed('addressTableLookups', 'an address table lookup that loads no account');
    loadedKeyCount += loaded;
  }
  const keyCount = accountKeys.length + loadedKeyCount;
  if (keyCount > MAX_ACCOUNT_KEYS) throw malformed('accountKeys', `${keyCount} account keys, more than ${MAX_ACCOUNT_KEYS}`);
  instructions.forEach((instruction, i) => {
    if (instruction.programIdIndex >= accountKeys.length) {
      throw malformed('instructions', `instruction ${i}: program index ${instruction.programIdIndex} out of range (${accountKeys.length} account keys)`);
    }
    if (instruction.programIdIndex === 0) throw malformed('instructions', `instruction ${i}: the fee payer cannot be a program`);
    for (const index of instruction.accountIndexes) {
      if (index >= keyCount) throw malformed('instructions', `instruction ${i}: account index ${index} out of range (${keyCount} account keys)`);
    }
  });
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
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
export function checkMemoTransaction(tx: DecodedTransaction, expected: MemoExpectation): { message: Uint8Array } {
  const { header, accountKeys, instructions } = tx;
  if (header.numRequiredSignatures !== 1) {
    throw mismatch('signers', `${header.numRequiredSignatures} signers: the wallet must be the only one`);
  }
  if (!equalBytes(accountKeys[0]!, expected.wallet)) throw mismatch('feePayer', 'the fee payer is not the wallet');
  if (tx.lookups.length > 0) throw mismatch('addressTableLookups', 'a memo transaction loads no address lookup table');
  if (tx.recentBlockhash.some((byte) => byte !== 0)) {
    throw mismatch('recentBlockhash', 'the recent blockhash must be 32 zero bytes, so that the transaction can never land on chain');
  }

  const isProgram = (instruction: CompiledInstruction, id: Uint8Array): boolean => equalBytes(accountKeys[instruction.programIdIndex]!, id);
  const budgetKinds = new Set<number>();
  let memoAt = 0;
  for (; memoAt < instructions.length && isProgram(instructions[memoAt]!, COMPUTE_BUDGET_PROGRAM_ID); memoAt++) {
    const { accountIndexes, data } = instructions[memoAt]!;
    const kind = data[0] ?? -1;
    if (accountIndexes.length > 0 || COMPUTE_BUDGET_DATA_LENGTH.get(kind) !== data.length) {
      throw mismatch('instructions', `instruction ${memoAt} is not a valid Compute Budget instruction`);
    }
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
  return { message: tx.message };
}

function shortU16(value: number): number[] {
  const bytes: number[] = [];
  for (let rest = value; ; rest >>= 7) {
    if (rest < 0x80) return [...bytes, rest];
    bytes.push((rest & 0x7f) | 0x80);
  }
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
  const instructions: (Uint8Array | number[])[] = [];
  if (computeUnitPrice !== undefined) {
    if (computeUnitPrice < 0n || computeUnitPrice >= 1n << 64n) throw new RangeError('computeUnitPrice must fit in a u64');
    const data = new Uint8Array(9);
    data[0] = SET_COMPUTE_UNIT_PRICE;
    new DataView(data.buffer).setBigUint64(1, computeUnitPrice, true);
    instructions.push([1, ...shortU16(0), ...shortU16(data.length)], data);
  }
  const memoAccounts = walletSignsMemo ? [0] : [];
  instructions.push([keys.length - 1, ...shortU16(memoAccounts.length), ...memoAccounts, ...shortU16(memoData.length)], memoData);

  const message = concatBytes(
    version === 0 ? [VERSION_PREFIX] : [],
    [1, 0, keys.length - 1], // the wallet signs and pays; every other key is a read-only program
    shortU16(keys.length),
    ...keys,
    new Uint8Array(KEY_BYTES), // recent blockhash: zero, so it never lands
    shortU16(computeUnitPrice === undefined ? 1 : 2),
    ...instructions,
    version === 0 ? shortU16(0) : [], // no address table lookups
  );
  const transactionLength = 1 + SIGNATURE_BYTES + message.length;
  if (transactionLength > MAX_TRANSACTION_BYTES) {
    throw new RangeError(`the challenge makes a ${transactionLength}-byte transaction, more than ${MAX_TRANSACTION_BYTES}`);
  }
  return message;
}

/** The wire transaction for a message with one signer (what memoTransactionMessage builds) and its signature. */
export function serializeSignedTransaction(message: Uint8Array, signature: Uint8Array): Uint8Array {
  if (signature.length !== SIGNATURE_BYTES) throw new RangeError(`a signature is ${SIGNATURE_BYTES} bytes, not ${signature.length}`);
  const numRequiredSignatures = message[0] === VERSION_PREFIX ? message[1] : message[0];
  if (numRequiredSignatures !== 1) throw new RangeError('the message must have exactly one signer');
  return concatBytes([1], signature, message);
}

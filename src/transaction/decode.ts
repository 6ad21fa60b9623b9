import { MalformedTransaction } from './transaction-rejected.js';
import {
  KEY_BYTES,
  MAX_ACCOUNT_KEYS,
  MAX_TRANSACTION_BYTES,
  SIGNATURE_BYTES,
  VERSION_PREFIX,
  type AddressTableLookup,
  type CompiledInstruction,
  type Message,
  type MessageHeader,
  type WireTransaction,
} from './message.js';

/**
 * Solana's transaction wire format (message.ts), legacy and v0, read without trusting a byte: every
 * length is bounds-checked before it is used (a count the bytes left cannot hold is refused before
 * anything is allocated for it), compact-u16 lengths are accepted only in their one canonical
 * encoding, and Solana's own sanitize rules are applied, so what this decoder accepts a validator
 * could accept too (and nothing it does not). One decoder for the mint's co-signed transactions and
 * the memo-tx sign mode; each judges what the transaction does with its own rules and words
 * (src/mint/check.ts, src/sign-modes/memo-transaction.ts).
 *
 * Read in (not copied from) anza-xyz/solana-sdk: short-vec/src/lib.rs (a zero byte after the first,
 * a continuation bit on the third byte, a value above u16::MAX are refused), transaction/src/lib.rs
 * and transaction/src/versioned/mod.rs (exactly num_required_signatures signatures),
 * message/src/versions/mod.rs, message/src/legacy.rs, message/src/versions/v0/mod.rs (sanitize).
 */

const reject = (reason: string, field: string, detail: string, message?: string): never => {
  throw new MalformedTransaction(reason, field, detail, message);
};

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
    if (length > this.remaining) reject('truncated', field, `${field} needs ${length} more bytes, ${this.remaining} left`);
    this.offset += length;
    return this.bytes.slice(this.offset - length, this.offset);
  }

  u8(field: string): number {
    if (this.remaining < 1) reject('truncated', field, `${field} needs 1 more byte, none left`);
    return this.bytes[this.offset++]!;
  }

  /** A compact-u16 in its only canonical encoding, as Solana's short_vec decodes it. */
  shortU16(field: string): number {
    const refuse = (why: string): never => reject('length_encoding', field, why, `${field}: ${why}`);
    let value = 0;
    for (let nth = 0; ; nth++) {
      const byte = this.u8(field);
      if (nth > 0 && byte === 0) refuse('over-long compact-u16 length (a zero byte after the first)');
      value |= (byte & 0x7f) << (7 * nth);
      if ((byte & 0x80) === 0) break;
      if (nth === 2) refuse('compact-u16 length longer than 3 bytes');
    }
    if (value > 0xffff) refuse(`compact-u16 length ${value} above 65535`);
    return value;
  }

  /** A shortvec of bytes, its length checked against what is left before anything is allocated. */
  byteVector(field: string): Uint8Array {
    return this.take(this.shortU16(field), field);
  }

  /** A shortvec's count, refused when its items (each at least `minBytes`) cannot fit in what is left. */
  count(field: string, minBytes: number, what: string): number {
    const count = this.shortU16(field);
    if (count * minBytes > this.remaining) reject('truncated', field, `${count} ${what} do not fit in ${this.remaining} bytes`);
    return count;
  }
}

/**
 * Structural decode with the checks Solana applies before anything runs (exact wire format,
 * sanitize, signature count). Says nothing about what the transaction does. Throws
 * MalformedTransaction.
 */
export function decodeTransaction(bytes: Uint8Array): WireTransaction {
  if (bytes.length > MAX_TRANSACTION_BYTES) reject('too_large', 'transaction', `${bytes.length} bytes, more than a transaction can be (${MAX_TRANSACTION_BYTES})`);
  // A plain copy: a Node Buffer's slices would be views into its shared pool.
  const input = new Uint8Array(bytes);
  const reader = new Reader(input);
  const signatureCount = reader.count('signatures', SIGNATURE_BYTES, 'signatures');
  const signatures: Uint8Array[] = [];
  for (let i = 0; i < signatureCount; i++) signatures.push(reader.take(SIGNATURE_BYTES, 'signatures'));

  const messageStart = reader.position;
  let version: 'legacy' | 0 = 'legacy';
  let numRequiredSignatures = reader.u8('header');
  if (numRequiredSignatures & VERSION_PREFIX) {
    const versionNumber = numRequiredSignatures & ~VERSION_PREFIX;
    if (versionNumber !== 0) reject('unsupported_version', 'version', `message version ${versionNumber}: only legacy and v0 transactions are accepted`);
    version = 0;
    numRequiredSignatures = reader.u8('header');
  }
  const header: MessageHeader = {
    numRequiredSignatures,
    numReadonlySignedAccounts: reader.u8('header'),
    numReadonlyUnsignedAccounts: reader.u8('header'),
  };

  const keyCount = reader.count('accountKeys', KEY_BYTES, 'account keys');
  const accountKeys: Uint8Array[] = [];
  for (let i = 0; i < keyCount; i++) accountKeys.push(reader.take(KEY_BYTES, 'accountKeys'));
  const recentBlockhash = reader.take(KEY_BYTES, 'recentBlockhash');

  // An instruction is at least 3 bytes (program index, two empty shortvecs).
  const instructionCount = reader.count('instructions', 3, 'instructions');
  const instructions: CompiledInstruction[] = [];
  for (let i = 0; i < instructionCount; i++) {
    const programIdIndex = reader.u8('instructions');
    const accountIndexes = reader.byteVector('instructions');
    const data = reader.byteVector('instructions');
    instructions.push({ programIdIndex, accountIndexes, data });
  }

  const lookups: AddressTableLookup[] = [];
  if (version === 0) {
    // A lookup is at least its table address and two empty shortvecs.
    const lookupCount = reader.count('addressTableLookups', KEY_BYTES + 2, 'address table lookups');
    for (let i = 0; i < lookupCount; i++) {
      const accountKey = reader.take(KEY_BYTES, 'addressTableLookups');
      const writableIndexes = reader.byteVector('addressTableLookups');
      const readonlyIndexes = reader.byteVector('addressTableLookups');
      lookups.push({ accountKey, writableIndexes, readonlyIndexes });
    }
  }
  if (reader.remaining > 0) reject('trailing_bytes', 'transaction', `${reader.remaining} trailing bytes after the message`);

  const message: Message = { version, header, accountKeys, recentBlockhash, instructions, lookups };
  sanitize(message, signatures.length);
  return { signatures, message, messageBytes: input.slice(messageStart) };
}

/** Solana's sanitize rules (legacy and v0 Message::sanitize, VersionedTransaction::sanitize_signatures). */
function sanitize({ header, accountKeys, instructions, lookups }: Message, signatureCount: number): void {
  const { numRequiredSignatures: signers, numReadonlySignedAccounts: readonlySigners, numReadonlyUnsignedAccounts: readonlyOthers } = header;
  if (signers === 0) reject('header', 'header', 'no signer: a transaction needs a fee payer');
  if (signatureCount !== signers) reject('signature_count', 'signatures', `${signatureCount} signatures for ${signers} required signers`);
  if (signers + readonlyOthers > accountKeys.length) reject('header', 'header', `${signers} signers and ${readonlyOthers} read-only accounts, but ${accountKeys.length} account keys`);
  if (readonlySigners >= signers) reject('header', 'header', 'no writable signer to pay the fee');
  let loadedKeyCount = 0;
  for (const lookup of lookups) {
    const loaded = lookup.writableIndexes.length + lookup.readonlyIndexes.length;
    if (loaded === 0) reject('header', 'addressTableLookups', 'an address table lookup that loads no account');
    loadedKeyCount += loaded;
  }
  const keyCount = accountKeys.length + loadedKeyCount;
  if (keyCount > MAX_ACCOUNT_KEYS) reject('too_many_keys', 'accountKeys', `${keyCount} account keys, more than ${MAX_ACCOUNT_KEYS}`);
  instructions.forEach((instruction, i) => {
    const refuse = (detail: string): never => reject('account_index', 'instructions', `instruction ${i}: ${detail}`);
    if (instruction.programIdIndex >= accountKeys.length) refuse(`program index ${instruction.programIdIndex} out of range (${accountKeys.length} account keys)`);
    if (instruction.programIdIndex === 0) refuse('the fee payer cannot be a program');
    for (const index of instruction.accountIndexes) {
      if (index >= keyCount) refuse(`account index ${index} out of range (${keyCount} account keys)`);
    }
  });
}

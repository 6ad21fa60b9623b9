/**
 * Solana's transaction wire format, legacy and v0, read and written without trusting a byte: every
 * length is bounds-checked before it is used, compact-u16 lengths are accepted only in their one
 * canonical encoding, and Solana's own sanitize rules are applied, so what this decoder accepts a
 * validator could accept too (and nothing it does not). Browser-safe (Uint8Array only): the SDK
 * builds the mint templates' transactions with encodeMessage.
 *
 * Layout (anza-xyz/solana-sdk transaction, message/legacy, message/versions/v0, short-vec; read, not
 * copied; cross-checked against @solana/web3.js and @solana/kit in test/unit/mint-transaction.test.ts):
 *
 *   transaction = shortvec<signature: 64 bytes> ‖ message
 *   message     = [0x80 | version, v0 only] ‖ header (3 × u8) ‖ shortvec<key: 32 bytes>
 *                 ‖ recent blockhash (32) ‖ shortvec<instruction> ‖ [shortvec<lookup>, v0 only]
 *   instruction = program index (u8) ‖ shortvec<account index: u8> ‖ shortvec<data byte>
 *   lookup      = table address (32) ‖ shortvec<writable index: u8> ‖ shortvec<read-only index: u8>
 *
 * A compact-u16 ("shortvec" length) is 7 bits a byte, low bits first, at most 3 bytes, no zero byte
 * after the first (an alias), at most 65535. PACKET_DATA_SIZE (1280 − 40 − 8 = 1232) bounds the whole.
 */

/** PACKET_DATA_SIZE: the largest transaction a validator accepts. */
export const MAX_TRANSACTION_BYTES = 1232;
export const SIGNATURE_BYTES = 64;
export const KEY_BYTES = 32;
const VERSION_PREFIX = 0x80;
/** Account indexes are a u8. */
const MAX_ACCOUNT_KEYS = 256;

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

export interface Message {
  version: 'legacy' | 0;
  header: MessageHeader;
  /** The static keys: signers first (writable, then read-only), then the others (writable, then read-only). */
  accountKeys: Uint8Array[];
  recentBlockhash: Uint8Array;
  instructions: CompiledInstruction[];
  /** v0 only; always empty for legacy. */
  lookups: AddressTableLookup[];
}

export interface WireTransaction {
  signatures: Uint8Array[];
  message: Message;
  /** The bytes every signer signs: everything after the signatures. */
  messageBytes: Uint8Array;
}

/**
 * Why bytes are not a transaction: `reason` is a stable word clients may switch on (docs/minting.md
 * lists them), `message` says where. Never carries the input's bytes.
 */
export class TransactionRejected extends Error {
  override name = 'TransactionRejected';
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

const reject = (reason: string, message: string): never => {
  throw new TransactionRejected(reason, message);
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
    if (length > this.remaining) reject('truncated', `${field} needs ${length} more bytes, ${this.remaining} left`);
    this.offset += length;
    return this.bytes.slice(this.offset - length, this.offset);
  }

  u8(field: string): number {
    if (this.remaining < 1) reject('truncated', `${field} needs 1 more byte, none left`);
    return this.bytes[this.offset++]!;
  }

  /** A compact-u16 in its only canonical encoding, as Solana's short_vec decodes it. */
  shortU16(field: string): number {
    let value = 0;
    for (let nth = 0; ; nth++) {
      const byte = this.u8(field);
      if (nth > 0 && byte === 0) reject('length_encoding', `${field}: over-long compact-u16 length (a zero byte after the first)`);
      value |= (byte & 0x7f) << (7 * nth);
      if ((byte & 0x80) === 0) break;
      if (nth === 2) reject('length_encoding', `${field}: compact-u16 length longer than 3 bytes`);
    }
    if (value > 0xffff) reject('length_encoding', `${field}: compact-u16 length ${value} above 65535`);
    return value;
  }

  /** A shortvec of bytes, its length checked against what is left before anything is allocated. */
  byteVector(field: string): Uint8Array {
    return this.take(this.shortU16(field), field);
  }
}

/**
 * Structural decode with the checks Solana applies before anything runs (exact wire format,
 * sanitize, signature count). Says nothing about what the transaction does. Throws TransactionRejected.
 */
export function decodeTransaction(bytes: Uint8Array): WireTransaction {
  if (bytes.length > MAX_TRANSACTION_BYTES) reject('too_large', `${bytes.length} bytes, more than a transaction can be (${MAX_TRANSACTION_BYTES})`);
  // A plain copy: a Node Buffer's slices would be views into its shared pool.
  const input = new Uint8Array(bytes);
  const reader = new Reader(input);
  const signatureCount = reader.shortU16('signatures');
  // Each signature is 64 bytes: a count the bytes cannot hold is refused before any allocation.
  if (signatureCount * SIGNATURE_BYTES > reader.remaining) reject('truncated', `${signatureCount} signatures do not fit in ${reader.remaining} bytes`);
  const signatures: Uint8Array[] = [];
  for (let i = 0; i < signatureCount; i++) signatures.push(reader.take(SIGNATURE_BYTES, 'signatures'));

  const messageStart = reader.position;
  let version: 'legacy' | 0 = 'legacy';
  let numRequiredSignatures = reader.u8('header');
  if (numRequiredSignatures & VERSION_PREFIX) {
    const versionNumber = numRequiredSignatures & ~VERSION_PREFIX;
    if (versionNumber !== 0) reject('unsupported_version', `message version ${versionNumber}: only legacy and v0 transactions exist`);
    version = 0;
    numRequiredSignatures = reader.u8('header');
  }
  const header: MessageHeader = {
    numRequiredSignatures,
    numReadonlySignedAccounts: reader.u8('header'),
    numReadonlyUnsignedAccounts: reader.u8('header'),
  };

  const keyCount = reader.shortU16('accountKeys');
  if (keyCount * KEY_BYTES > reader.remaining) reject('truncated', `${keyCount} account keys do not fit in ${reader.remaining} bytes`);
  const accountKeys: Uint8Array[] = [];
  for (let i = 0; i < keyCount; i++) accountKeys.push(reader.take(KEY_BYTES, 'accountKeys'));
  const recentBlockhash = reader.take(KEY_BYTES, 'recentBlockhash');

  const instructionCount = reader.shortU16('instructions');
  // An instruction is at least 3 bytes (program index, two empty shortvecs).
  if (instructionCount * 3 > reader.remaining) reject('truncated', `${instructionCount} instructions do not fit in ${reader.remaining} bytes`);
  const instructions: CompiledInstruction[] = [];
  for (let i = 0; i < instructionCount; i++) {
    const programIdIndex = reader.u8('instructions');
    const accountIndexes = reader.byteVector('instructions');
    const data = reader.byteVector('instructions');
    instructions.push({ programIdIndex, accountIndexes, data });
  }

  const lookups: AddressTableLookup[] = [];
  if (version === 0) {
    const lookupCount = reader.shortU16('addressTableLookups');
    if (lookupCount * (KEY_BYTES + 2) > reader.remaining) reject('truncated', `${lookupCount} address table lookups do not fit in ${reader.remaining} bytes`);
    for (let i = 0; i < lookupCount; i++) {
      const accountKey = reader.take(KEY_BYTES, 'addressTableLookups');
      const writableIndexes = reader.byteVector('addressTableLookups');
      const readonlyIndexes = reader.byteVector('addressTableLookups');
      lookups.push({ accountKey, writableIndexes, readonlyIndexes });
    }
  }
  if (reader.remaining > 0) reject('trailing_bytes', `${reader.remaining} bytes after the message`);

  const message: Message = { version, header, accountKeys, recentBlockhash, instructions, lookups };
  sanitize(message, signatures.length);
  return { signatures, message, messageBytes: input.slice(messageStart) };
}

/** Solana's sanitize rules (legacy and v0 Message::sanitize, VersionedTransaction::sanitize_signatures). */
function sanitize({ header, accountKeys, instructions, lookups }: Message, signatureCount: number): void {
  if (header.numRequiredSignatures === 0) reject('header', 'no signer: a transaction needs a fee payer');
  if (signatureCount !== header.numRequiredSignatures) reject('signature_count', `${signatureCount} signatures for ${header.numRequiredSignatures} required signers`);
  if (header.numRequiredSignatures + header.numReadonlyUnsignedAccounts > accountKeys.length) {
    reject('header', `${header.numRequiredSignatures} signers and ${header.numReadonlyUnsignedAccounts} read-only accounts, but ${accountKeys.length} account keys`);
  }
  if (header.numReadonlySignedAccounts >= header.numRequiredSignatures) reject('header', 'no writable signer to pay the fee');
  let loadedKeyCount = 0;
  for (const lookup of lookups) {
    const loaded = lookup.writableIndexes.length + lookup.readonlyIndexes.length;
    if (loaded === 0) reject('header', 'an address table lookup that loads no account');
    loadedKeyCount += loaded;
  }
  const keyCount = accountKeys.length + loadedKeyCount;
  if (keyCount > MAX_ACCOUNT_KEYS) reject('too_many_keys', `${keyCount} account keys, more than ${MAX_ACCOUNT_KEYS}`);
  instructions.forEach((instruction, i) => {
    if (instruction.programIdIndex >= accountKeys.length) {
      reject('account_index', `instruction ${i}: program index ${instruction.programIdIndex} is not a static key (${accountKeys.length})`);
    }
    if (instruction.programIdIndex === 0) reject('account_index', `instruction ${i}: the fee payer cannot be a program`);
    for (const index of instruction.accountIndexes) {
      if (index >= keyCount) reject('account_index', `instruction ${i}: account index ${index} out of range (${keyCount} account keys)`);
    }
  });
}

/** Whether static key `index` is a signer, and whether the message lets it be written. */
export function keyRole(header: MessageHeader, keyCount: number, index: number): { signer: boolean; writable: boolean } {
  const signer = index < header.numRequiredSignatures;
  const writable = signer
    ? index < header.numRequiredSignatures - header.numReadonlySignedAccounts
    : index < keyCount - header.numReadonlyUnsignedAccounts;
  return { signer, writable };
}

export function shortU16Bytes(value: number): number[] {
  if (!Number.isInteger(value) || value < 0 || value > 0xffff) throw new RangeError(`a compact-u16 holds 0..65535, not ${value}`);
  const bytes: number[] = [];
  for (let rest = value; ; rest >>= 7) {
    if (rest < 0x80) return [...bytes, rest];
    bytes.push((rest & 0x7f) | 0x80);
  }
}

/** The message's wire bytes: what decodeTransaction reads back, byte for byte. */
export function encodeMessage(message: Message): Uint8Array {
  const parts: (Uint8Array | number[])[] = [];
  if (message.version === 0) parts.push([VERSION_PREFIX]);
  const { header } = message;
  parts.push([header.numRequiredSignatures, header.numReadonlySignedAccounts, header.numReadonlyUnsignedAccounts]);
  parts.push(shortU16Bytes(message.accountKeys.length), ...message.accountKeys.map((key) => fixed(key, KEY_BYTES, 'account key')));
  parts.push(fixed(message.recentBlockhash, KEY_BYTES, 'recent blockhash'));
  parts.push(shortU16Bytes(message.instructions.length));
  for (const { programIdIndex, accountIndexes, data } of message.instructions) {
    parts.push([programIdIndex], shortU16Bytes(accountIndexes.length), accountIndexes, shortU16Bytes(data.length), data);
  }
  if (message.version === 0) {
    parts.push(shortU16Bytes(message.lookups.length));
    for (const lookup of message.lookups) {
      parts.push(fixed(lookup.accountKey, KEY_BYTES, 'lookup table'), shortU16Bytes(lookup.writableIndexes.length), lookup.writableIndexes);
      parts.push(shortU16Bytes(lookup.readonlyIndexes.length), lookup.readonlyIndexes);
    }
  } else if (message.lookups.length > 0) {
    throw new RangeError('a legacy message has no address table lookups');
  }
  return concat(parts);
}

/** signatures ‖ message: one 64-byte signature (zeros for one not made yet) per required signer. */
export function encodeTransaction(signatures: readonly Uint8Array[], messageBytes: Uint8Array): Uint8Array {
  return concat([shortU16Bytes(signatures.length), ...signatures.map((signature) => fixed(signature, SIGNATURE_BYTES, 'signature')), messageBytes]);
}

function fixed(bytes: Uint8Array, length: number, what: string): Uint8Array {
  if (bytes.length !== length) throw new RangeError(`a ${what} is ${length} bytes, not ${bytes.length}`);
  return bytes;
}

function concat(parts: readonly (Uint8Array | number[])[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

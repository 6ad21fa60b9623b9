/**
 * A transaction as sendTransaction / simulateTransaction receive it: the wire bytes (bincode of
 * agave's VersionedTransaction: short_vec of 64-byte signatures, then a legacy or v0 message),
 * read into what the local chain needs around execution: the exact message bytes, the keys and
 * which are writable, the blockhash, the instructions (memos, history) and the lookup tables.
 *
 * This is only the local chain's reading: the transaction is then run by the real runtime in
 * LiteSVM, which sanitizes it fully (index bounds, duplicate keys, header counts) and is the one
 * to refuse what is malformed. A failure here is what the node answers as "failed to deserialize".
 */
import bs58 from 'bs58';

/** PACKET_DATA_SIZE: the largest wire transaction a node accepts. */
export const MAX_TRANSACTION_BYTES = 1232;
const SIGNATURE_BYTES = 64;
const KEY_BYTES = 32;
const VERSION_PREFIX = 0x80;

export interface CompiledInstruction {
  programIdIndex: number;
  accounts: number[];
  data: Buffer;
}

export interface LookupTableUse {
  accountKey: string;
  writableIndexes: number[];
  readonlyIndexes: number[];
}

export interface WireTransaction {
  /** Signatures section and message, without any trailing bytes. */
  bytes: Buffer;
  signatures: Buffer[];
  /** The message bytes the signatures sign. */
  message: Buffer;
  version: 'legacy' | 0;
  header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
  staticKeys: string[];
  recentBlockhash: string;
  instructions: CompiledInstruction[];
  lookups: LookupTableUse[];
}

export class WireFormatError extends Error {}

class Reader {
  offset = 0;
  constructor(private readonly bytes: Buffer) {}

  u8(): number {
    if (this.offset >= this.bytes.length) throw new WireFormatError('io error: unexpected end of file');
    return this.bytes[this.offset++]!;
  }

  /** short_vec length: 7 bits per byte, at most 3 bytes, no redundant trailing zero byte. */
  shortLength(): number {
    let value = 0;
    for (let i = 0; i < 3; i += 1) {
      const byte = this.u8();
      value |= (byte & 0x7f) << (7 * i);
      if ((byte & 0x80) === 0) {
        if (i > 0 && byte === 0) throw new WireFormatError('invalid value: alias encoding');
        return value;
      }
    }
    throw new WireFormatError('invalid value: short_vec length too long');
  }

  take(length: number): Buffer {
    if (this.offset + length > this.bytes.length) throw new WireFormatError('io error: unexpected end of file');
    const out = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }

  key(): string {
    return bs58.encode(this.take(KEY_BYTES));
  }

  indexes(): number[] {
    const count = this.shortLength();
    return [...this.take(count)];
  }
}

export function parseWireTransaction(input: Buffer): WireTransaction {
  const reader = new Reader(input);
  const signatureCount = reader.shortLength();
  const signatures: Buffer[] = [];
  for (let i = 0; i < signatureCount; i += 1) signatures.push(reader.take(SIGNATURE_BYTES));
  const messageStart = reader.offset;

  const first = reader.u8();
  let version: 'legacy' | 0 = 'legacy';
  let numRequiredSignatures = first;
  if (first & VERSION_PREFIX) {
    const number = first & ~VERSION_PREFIX;
    if (number !== 0) throw new WireFormatError(`invalid value: integer \`${number}\`, expected a valid transaction message version`);
    version = 0;
    numRequiredSignatures = reader.u8();
  }
  const header = { numRequiredSignatures, numReadonlySignedAccounts: reader.u8(), numReadonlyUnsignedAccounts: reader.u8() };
  const keyCount = reader.shortLength();
  const staticKeys: string[] = [];
  for (let i = 0; i < keyCount; i += 1) staticKeys.push(reader.key());
  const recentBlockhash = reader.key();
  const instructionCount = reader.shortLength();
  const instructions: CompiledInstruction[] = [];
  for (let i = 0; i < instructionCount; i += 1) {
    const programIdIndex = reader.u8();
    const accounts = reader.indexes();
    const data = Buffer.from(reader.take(reader.shortLength()));
    instructions.push({ programIdIndex, accounts, data });
  }
  const lookups: LookupTableUse[] = [];
  if (version === 0) {
    const lookupCount = reader.shortLength();
    for (let i = 0; i < lookupCount; i += 1) {
      lookups.push({ accountKey: reader.key(), writableIndexes: reader.indexes(), readonlyIndexes: reader.indexes() });
    }
  }
  return {
    bytes: Buffer.from(input.subarray(0, reader.offset)),
    signatures: signatures.map((signature) => Buffer.from(signature)),
    message: Buffer.from(input.subarray(messageStart, reader.offset)),
    version,
    header,
    staticKeys,
    recentBlockhash,
    instructions,
    lookups,
  };
}

/** The transaction with another recent blockhash (simulateTransaction's replaceRecentBlockhash); signatures kept. */
export function withBlockhash(tx: WireTransaction, blockhash: string): WireTransaction {
  const bytes = Buffer.from(tx.bytes);
  const messageStart = tx.bytes.length - tx.message.length;
  // The blockhash follows the header (1 byte more for v0's prefix) and the key list.
  const keysStart = messageStart + (tx.version === 0 ? 4 : 3);
  const keyCountBytes = shortLengthSize(tx.staticKeys.length);
  const at = keysStart + keyCountBytes + KEY_BYTES * tx.staticKeys.length;
  Buffer.from(bs58.decode(blockhash)).copy(bytes, at);
  return parseWireTransaction(bytes);
}

function shortLengthSize(value: number): number {
  return value < 0x80 ? 1 : value < 0x4000 ? 2 : 3;
}

/** Static key i is writable by the header (before the runtime demotes program ids and reserved keys). */
export function isStaticWritable(tx: WireTransaction, index: number): boolean {
  const { numRequiredSignatures, numReadonlySignedAccounts, numReadonlyUnsignedAccounts } = tx.header;
  if (index < numRequiredSignatures) return index < numRequiredSignatures - numReadonlySignedAccounts;
  return index < tx.staticKeys.length - numReadonlyUnsignedAccounts;
}

import { concatBytes } from '../lib/bytes.js';
import { KEY_BYTES, SIGNATURE_BYTES, VERSION_PREFIX, type Message } from './message.js';

/** A compact-u16 ("shortvec" length) in its one canonical encoding (message.ts). */
export function shortU16Bytes(value: number): number[] {
  if (!Number.isInteger(value) || value < 0 || value > 0xffff) throw new RangeError(`a compact-u16 holds 0..65535, not ${value}`);
  const bytes: number[] = [];
  for (let rest = value; ; rest >>= 7) {
    if (rest < 0x80) return [...bytes, rest];
    bytes.push((rest & 0x7f) | 0x80);
  }
}

/** The message's wire bytes: what decodeTransaction reads back, byte for byte. */
export function encodeMessage(message: Message): Uint8Array<ArrayBuffer> {
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
  return concatBytes(...parts);
}

/** signatures ‖ message: one 64-byte signature (zeros for one not made yet) per required signer. */
export function encodeTransaction(signatures: readonly Uint8Array[], messageBytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return concatBytes(shortU16Bytes(signatures.length), ...signatures.map((signature) => fixed(signature, SIGNATURE_BYTES, 'signature')), messageBytes);
}

function fixed(bytes: Uint8Array, length: number, what: string): Uint8Array {
  if (bytes.length !== length) throw new RangeError(`a ${what} is ${length} bytes, not ${bytes.length}`);
  return bytes;
}

import { decodeBase58 } from '../lib/base58.js';
import { encodeBase58 } from '../lib/base58-encode.js';

/** Base58 alphabet, 32–44 characters: the shape of an address in a reply (cheap, no decoding). */
const ADDRESS_SHAPE = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
/** A 64-byte signature in base58 is 64–88 characters. */
const SIGNATURE_SHAPE = /^[1-9A-HJ-NP-Za-km-z]{64,88}$/;

export function looksLikeAddress(value: unknown): value is string {
  return typeof value === 'string' && ADDRESS_SHAPE.test(value);
}

export function looksLikeSignature(value: unknown): value is string {
  return typeof value === 'string' && SIGNATURE_SHAPE.test(value);
}

/** The 32 bytes of a base58 address; throws TypeError for anything else (a caller's bug). */
export function addressBytes(address: string): Buffer {
  let bytes: Uint8Array | undefined;
  if (ADDRESS_SHAPE.test(address)) bytes = decodeBase58(address);
  if (bytes?.length !== 32) throw new TypeError(`not a base58 32-byte address: ${JSON.stringify(address).slice(0, 60)}`);
  return Buffer.from(bytes.buffer, bytes.byteOffset, 32);
}

/**
 * Base58 of 32 bytes as a flat string (encodeBase58 writes it into a buffer, where bs58 builds a
 * ~44-node concatenation chain: ~1.2 KB instead of ~60 bytes, which matters for cached strings).
 */
export function encodeAddress(bytes: Uint8Array): string {
  return encodeBase58(bytes);
}

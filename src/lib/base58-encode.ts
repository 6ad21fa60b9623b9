import { ALPHABET, multiplyAdd } from './base58.js';

/*
 * The encoder lives apart from the decoder (base58.ts) because it writes into a Node Buffer
 * (latin1, one flat string): the decoder is also bundled into the browser SDK, this file is not.
 */

/** 58^5 < 2^30: an output limb holds five base58 digits, and limb × 256 + carry stays exact in a double. */
const BIG_DIGIT = 58 ** 5;
const CODES = Buffer.from(ALPHABET, 'latin1');
/** Base-58^5 limbs, little-endian; 128 input bytes need at most 36. Shared: encoding is synchronous. */
const bigDigits = new Float64Array(36);
/** Output characters, written right to left; at most 175 for 128 bytes. */
const encoded = Buffer.alloc(176);

/**
 * Base58 of at most 128 bytes: the same text as bs58.encode — a '1' per leading zero byte, then the
 * number's digits — but ~5× faster and as one flat string: the bytes are folded, two at a time,
 * into base-58^5 limbs (five digits per division instead of one), and the text is written into a buffer.
 */
export function encodeBase58(bytes: Uint8Array): string {
  if (bytes.length > 128) throw new RangeError('at most 128 bytes');
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  let used = 0;
  // Two bytes per pass (limb × 2^16 + carry < 2^46 stays exact), after one alone when their count is odd.
  let i = zeros;
  if ((bytes.length - zeros) % 2 === 1) used = multiplyAdd(bigDigits, used, 256, bytes[i++]!, BIG_DIGIT);
  for (; i < bytes.length; i += 2) used = multiplyAdd(bigDigits, used, 65_536, (bytes[i]! << 8) | bytes[i + 1]!, BIG_DIGIT);
  let position = encoded.length;
  for (let k = 0; k < used; k++) {
    let limb = bigDigits[k]!;
    // Every limb but the top one has exactly five digits, leading zeros included.
    for (let d = 0; d < 5 && (k < used - 1 || limb > 0); d++) {
      const next = Math.floor(limb / 58);
      encoded[--position] = CODES[limb - next * 58]!;
      limb = next;
    }
  }
  for (let i = 0; i < zeros; i++) encoded[--position] = 49; // '1'
  return encoded.toString('latin1', position);
}

import { encodeBase58 } from '../lib/base58-encode.js';
import { FIELD_PRIME, SIGNED_ZERO_X_ENCODINGS, SMALL_ORDER_ENCODINGS, weakPointEncoding } from '../signature/strict-ed25519.js';

/**
 * Wallet addresses no token of this gate may name: every encoding strict verification refuses as a
 * public key (src/signature/strict-ed25519.ts) — the 8 small-order points, the two spellings with
 * x = 0 and the sign bit set, and the 38 spellings with y ≥ p — as base58 text. A gate from before
 * strict checks issued tokens to some of them to anyone (the keyless forgery); those tokens stay
 * signed and unexpired for up to JWT_EXPIRY, so the gate refuses them where it accepts a token.
 * A base58 text is unique per 32 bytes, so a set lookup on `sub` is the whole check (no decoding on
 * the re-authentication path).
 */
export const WEAK_SUBJECTS: ReadonlySet<string> = new Set(weakEncodings().map(encodeBase58));

function weakEncodings(): Uint8Array[] {
  const fromHex = (hex: string): Uint8Array => Uint8Array.from(hex.match(/../g)!, (pair) => parseInt(pair, 16));
  const encodings = [...SMALL_ORDER_ENCODINGS, ...SIGNED_ZERO_X_ENCODINGS].map(fromHex);
  for (let y = FIELD_PRIME; y < 2n ** 255n; y++) {
    for (const signBit of [0n, 1n]) {
      let value = y | (signBit << 255n);
      const bytes = new Uint8Array(32);
      for (let i = 0; i < 32; i++, value >>= 8n) bytes[i] = Number(value & 0xffn);
      encodings.push(bytes);
    }
  }
  // Every entry is one strict verification refuses (test/unit/tokens.test.ts checks the count too).
  for (const bytes of encodings) if (weakPointEncoding(bytes) === undefined) throw new Error('weak-subjects: an encoding strict checks accept');
  return encodings;
}

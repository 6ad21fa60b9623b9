/**
 * RFC 4648 base32 in lower case and without padding: the nonce's text form. Its alphabet
 * (a–z, 2–7) is alphanumeric, which Sign In With Solana requires of a nonce (EIP-4361:
 * `nonce = 8*( ALPHA / DIGIT )`, and wallets such as Phantom check it), where base64url's `-` and
 * `_` are not. 5 bits a character: 40 bytes → 64 characters, docs/api.md §3's limit.
 *
 * Decoding is canonical: the unused low bits of the last character must be zero, so one byte
 * string has exactly one text form. Test vectors (RFC 4648 §10) in test/unit/base32.test.ts.
 */
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const CODES = Buffer.from(ALPHABET, 'latin1');
const VALUE_OF = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUE_OF[ALPHABET.charCodeAt(i)] = i;

export const base32Length = (bytes: number): number => Math.ceil((bytes * 8) / 5);

export function encodeBase32(bytes: Uint8Array): string {
  const out = Buffer.allocUnsafe(base32Length(bytes.length));
  let buffer = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < bytes.length; i++) {
    buffer = ((buffer << 8) | bytes[i]!) & 0xfff; // at most 4 + 8 bits are ever pending
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out[o++] = CODES[(buffer >>> bits) & 31]!;
    }
  }
  if (bits > 0) out[o++] = CODES[(buffer << (5 - bits)) & 31]!;
  return out.toString('latin1');
}

/** The bytes, or undefined when `text` has a character outside the alphabet or is not canonical. */
export function decodeBase32(text: string): Buffer | undefined {
  const out = Buffer.allocUnsafe(Math.floor((text.length * 5) / 8));
  let buffer = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const value = code < 128 ? VALUE_OF[code]! : -1;
    if (value < 0) return undefined;
    buffer = ((buffer << 5) | value) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (buffer >>> bits) & 0xff;
    }
  }
  // Leftover bits are padding: a whole character of it, or non-zero padding, is another spelling.
  if (bits >= 5 || (buffer & ((1 << bits) - 1)) !== 0) return undefined;
  return out;
}

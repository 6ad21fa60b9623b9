import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base32Length, decodeBase32, encodeBase32 } from '../../src/lib/base32.js';

/** RFC 4648 §10, lower-cased and without the `=` padding. */
const RFC_4648_VECTORS: [string, string][] = [
  ['', ''],
  ['f', 'my'],
  ['fo', 'mzxq'],
  ['foo', 'mzxw6'],
  ['foob', 'mzxw6yq'],
  ['fooba', 'mzxw6ytb'],
  ['foobar', 'mzxw6ytboi'],
];

describe('base32 (the nonce text)', () => {
  it('encodes and decodes the RFC 4648 test vectors', () => {
    for (const [plain, encoded] of RFC_4648_VECTORS) {
      expect(encodeBase32(Buffer.from(plain))).toBe(encoded);
      expect(decodeBase32(encoded)?.toString()).toBe(plain);
    }
  });

  it('round-trips random bytes of every length up to 64, in only [a-z2-7]', () => {
    for (let length = 0; length <= 64; length++) {
      for (let i = 0; i < 50; i++) {
        const bytes = randomBytes(length);
        const text = encodeBase32(bytes);
        expect(text).toMatch(/^[a-z2-7]*$/);
        expect(text.length).toBe(base32Length(length));
        expect(decodeBase32(text)?.equals(bytes)).toBe(true);
      }
    }
  });

  it('refuses characters outside the alphabet and non-canonical spellings', () => {
    expect(decodeBase32('MZXW6')).toBeUndefined(); // upper case
    expect(decodeBase32('mzxw1')).toBeUndefined();
    expect(decodeBase32('mzxw6=')).toBeUndefined();
    expect(decodeBase32('mzé')).toBeUndefined();
    expect(decodeBase32('mz')).toBeUndefined(); // 'f' with a padding bit set ('my' is canonical)
    expect(decodeBase32('myq')).toBeUndefined(); // a whole character of padding
  });
});

import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { decodeBase58 } from '../../src/lib/base58.js';
import { encodeBase58 } from '../../src/lib/base58-encode.js';

/** bs58's answer, or undefined where it throws. */
function reference(text: string): Uint8Array | undefined {
  try {
    return bs58.decode(text);
  } catch {
    return undefined;
  }
}

describe('fast base58 decoding', () => {
  it('decodes what bs58 encodes: random keys, signatures and other lengths, with leading zero bytes', () => {
    for (let i = 0; i < 3000; i++) {
      const length = [32, 64, 1, 2, 3, 5, 31, 33, 63, 65, 80][i % 11]!;
      const bytes = randomBytes(length);
      if (i % 7 === 0) bytes.fill(0, 0, Math.min(length, 1 + (i % 5))); // leading zeros become leading 1s
      const text = bs58.encode(bytes);
      expect(Buffer.from(decodeBase58(text)!).equals(bytes)).toBe(true);
    }
  });

  it('agrees with bs58 on arbitrary strings over the alphabet, including runs of 1 and z', () => {
    const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
    const samples = ['1', '11', '111111', 'z', 'zz', 'zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz', '1z', '11111111111111111111111111111111', '2', '21', '5Q444'];
    for (let i = 0; i < 3000; i++) {
      const length = 1 + (i % 100);
      let text = '';
      for (let k = 0; k < length; k++) text += alphabet[randomBytes(1)[0]! % 58];
      samples.push(text);
    }
    for (const text of samples) expect(decodeBase58(text)).toEqual(reference(text));
  });

  it('rejects what bs58 rejects: characters outside the alphabet, empty and overlong input', () => {
    const valid = bs58.encode(randomBytes(64));
    for (const bad of ['0', 'O', 'I', 'l', '+', '/', ' ', 'é', '\u0000', '\u{1F600}']) {
      const text = `${valid.slice(0, 10)}${bad}${valid.slice(10)}`;
      expect(reference(text)).toBeUndefined();
      expect(decodeBase58(text)).toBeUndefined();
    }
    expect(decodeBase58('')).toBeUndefined();
    expect(decodeBase58('2'.repeat(129))).toBeUndefined();
    expect(decodeBase58('2'.repeat(128))).toEqual(reference('2'.repeat(128)));
  });
});

describe('fast base58 encoding', () => {
  it('writes what bs58 writes for random bytes of every length up to 128, with leading zero bytes', () => {
    for (let i = 0; i < 5000; i++) {
      const length = i < 129 ? i : [32, 64, 1, 31, 33, 65, 128][i % 7]!;
      const bytes = randomBytes(length);
      if (i % 5 === 0) bytes.fill(0, 0, Math.min(length, 1 + (i % 7)));
      expect(encodeBase58(bytes)).toBe(bs58.encode(bytes));
    }
    for (const bytes of [new Uint8Array(0), new Uint8Array(32), Uint8Array.of(0, 0, 1), new Uint8Array(64).fill(255), Uint8Array.of(57), Uint8Array.of(58)]) {
      expect(encodeBase58(bytes)).toBe(bs58.encode(bytes));
    }
    expect(() => encodeBase58(new Uint8Array(129))).toThrow(RangeError);
  });
});

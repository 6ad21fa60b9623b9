import { createPrivateKey, createPublicKey, randomBytes, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ed25519PublicKey, verifyEd25519 } from '../../src/signature/ed25519.js';

/**
 * The gate imports raw public keys as JWK (fast path); the textbook import is DER SPKI. Both must
 * give the same key and the same verdict on every input, including keys that are not valid points.
 */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function derVerdict(rawKey: Uint8Array, message: Buffer, signature: Uint8Array): boolean {
  try {
    const key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, rawKey]), format: 'der', type: 'spki' });
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}

describe('ed25519 raw key import', () => {
  it('gives the same key as DER SPKI import', () => {
    for (let i = 0; i < 50; i++) {
      const raw = createPublicKey(createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, randomBytes(32)]), format: 'der', type: 'pkcs8' }))
        .export({ format: 'der', type: 'spki' })
        .subarray(12);
      expect(ed25519PublicKey(raw).export({ format: 'der', type: 'spki' })).toEqual(Buffer.concat([SPKI_PREFIX, raw]));
    }
  });

  it('gives the same verdict as DER SPKI import for valid, tampered, and off-curve or small-order keys', () => {
    const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, randomBytes(32)]), format: 'der', type: 'pkcs8' });
    const raw = createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(12);
    const message = Buffer.from('CHALLENGE::n::/x404_auth/blacklist::SERVICE404_BLACKLIST');
    const signature = sign(null, message, privateKey);
    const oddKeys = [
      new Uint8Array(32), // y = 0
      Uint8Array.from([1, ...new Array(31).fill(0)]), // identity (small order)
      Buffer.from('ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', 'hex'), // y = p − 1
      Buffer.from('edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', 'hex'), // y = p, non-canonical
      new Uint8Array(32).fill(0xff),
      ...Array.from({ length: 20 }, () => randomBytes(32)),
    ];
    const cases: [Uint8Array, Buffer, Uint8Array][] = [[raw, message, signature]];
    for (const key of oddKeys) cases.push([key, message, signature]);
    const tampered = Buffer.from(signature);
    tampered[3]! ^= 4;
    cases.push([raw, message, tampered], [raw, Buffer.concat([message, Buffer.from('x')]), signature]);
    for (const [key, text, sig] of cases) expect(verifyEd25519(key, text, sig)).toBe(derVerdict(key, text, sig));
    expect(verifyEd25519(raw, message, signature)).toBe(true);
  });
});

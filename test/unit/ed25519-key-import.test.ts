import { createPrivateKey, createPublicKey, randomBytes, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cachedKeyCount, ed25519PublicKey, KEY_CACHE_ENTRIES, verifyEd25519 } from '../../src/signature/ed25519.js';

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

describe('imported key cache', () => {
  const keyPair = (): { raw: Buffer; privateKey: ReturnType<typeof createPrivateKey> } => {
    const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, randomBytes(32)]), format: 'der', type: 'pkcs8' });
    return { raw: createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(12), privateKey };
  };

  it('never answers for one key with another key cached before it', () => {
    const a = keyPair();
    const b = keyPair();
    const message = Buffer.from('CHALLENGE::n::/x404_auth/blacklist::SERVICE404_BLACKLIST');
    const byA = sign(null, message, a.privateKey);
    const byB = sign(null, message, b.privateKey);
    expect(verifyEd25519(a.raw, message, byA)).toBe(true);
    expect(verifyEd25519(a.raw, message, byB)).toBe(false);
    expect(verifyEd25519(b.raw, message, byA)).toBe(false);
    expect(verifyEd25519(b.raw, message, byB)).toBe(true);
    // A key differing from a cached one in a single bit is its own key.
    const flipped = Buffer.from(a.raw);
    flipped[0]! ^= 1;
    expect(verifyEd25519(flipped, message, byA)).toBe(false);
    expect(verifyEd25519(a.raw, message, byA)).toBe(true);
  });

  it('keeps no key that has not verified a signature', () => {
    const message = Buffer.from('forged');
    const before = cachedKeyCount();
    for (let i = 0; i < 20; i++) expect(verifyEd25519(keyPair().raw, message, randomBytes(64))).toBe(false);
    expect(cachedKeyCount()).toBe(before);
  });

  it('holds at most KEY_CACHE_ENTRIES keys, and still verifies keys it dropped', () => {
    const message = Buffer.from('bounded');
    const first = keyPair();
    const firstSignature = sign(null, message, first.privateKey);
    expect(verifyEd25519(first.raw, message, firstSignature)).toBe(true);
    for (let i = 0; i < KEY_CACHE_ENTRIES + 10; i++) {
      const { raw, privateKey } = keyPair();
      expect(verifyEd25519(raw, message, sign(null, message, privateKey))).toBe(true);
    }
    expect(cachedKeyCount()).toBeLessThanOrEqual(KEY_CACHE_ENTRIES);
    expect(verifyEd25519(first.raw, message, firstSignature)).toBe(true);
    // 4,106 key pairs made, signed with and verified: seconds alone, minutes on a loaded machine.
  }, 300_000);
});

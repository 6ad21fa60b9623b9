import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeBase32, encodeBase32 } from '../../src/lib/base32.js';
import { NonceCodec } from '../../src/nonce/codec.js';

/**
 * The nonce MAC computed from its definition with node:crypto's createHmac (a second
 * implementation): first 16 bytes of HMAC-SHA256(HMAC-SHA256(secret, "x404 nonce key v1"),
 * feature | 0x00 | issuedAt(6) | random(16)).
 */
function referenceMac(secret: string, feature: string, payload: Buffer): Buffer {
  const key = createHmac('sha256', secret).update('x404 nonce key v1').digest();
  return createHmac('sha256', key).update(Buffer.concat([Buffer.from(feature, 'utf8'), Buffer.from([0]), payload])).digest().subarray(0, 16);
}

describe('nonce MAC', () => {
  it('is HMAC-SHA256 as RFC 2104 defines it, for every feature and many nonces', () => {
    const secret = 'mac-test-secret-0123456789abcdefghijklmnop';
    const codec = new NonceCodec(secret, 300);
    for (const feature of ['blacklist', 'timelock', 'multitoken', 'activity', 'tier', 'nodebt', 'age', 'éàü-unicode']) {
      for (let i = 0; i < 200; i++) {
        const bytes = decodeBase32(codec.issue(feature).nonce) as Buffer;
        expect(bytes.subarray(22).equals(referenceMac(secret, feature, bytes.subarray(0, 22)))).toBe(true);
      }
    }
  });

  it('accepts a nonce whose MAC was computed by the reference, and refuses one MAC bit off', () => {
    const secret = 'another-secret-for-the-mac-test-0123456789';
    const payload = Buffer.alloc(22);
    payload.writeUIntBE(Date.now(), 0, 6);
    payload.fill(7, 6);
    const mac = referenceMac(secret, 'tier', payload);
    const codec = new NonceCodec(secret, 300);
    expect(codec.accept(encodeBase32(Buffer.concat([payload, mac])), 'tier').expiresAtMs).toBeGreaterThan(Date.now());
    mac[15]! ^= 1;
    expect(() => codec.accept(encodeBase32(Buffer.concat([payload, mac])), 'tier')).toThrow(/Nonce/);
  });
});

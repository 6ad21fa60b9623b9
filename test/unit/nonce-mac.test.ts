import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeBase32, encodeBase32 } from '../../src/lib/base32.js';
import { NonceCodec, type AcceptedNonce } from '../../src/nonce/codec.js';
import { epochFromName, type KnownEpoch, type NonceEpoch, type NonceEpochs } from '../../src/nonce/epoch.js';

/**
 * The nonce MAC computed from its definition with node:crypto's createHmac (a second
 * implementation): first 16 bytes of HMAC-SHA256(HMAC-SHA256(secret, "x404 nonce key v2"),
 * feature | 0x00 | epoch id (16) | issuedAt (6) | epoch tag (2) | random (16)).
 */
function referenceMac(secret: string, feature: string, epochId: Buffer, payload: Buffer): Buffer {
  const key = createHmac('sha256', secret).update('x404 nonce key v2').digest();
  return createHmac('sha256', key).update(Buffer.concat([Buffer.from(feature, 'utf8'), Buffer.from([0]), epochId, payload])).digest().subarray(0, 16);
}

/** One named epoch for every bucket, as a Redis store's would be. */
const fixedEpochs = (epoch: NonceEpoch): NonceEpochs => ({
  current: () => epoch,
  find: (_bucket, tag): KnownEpoch | undefined => (tag === epoch.tag ? { epoch, current: true } : undefined),
});

describe('nonce MAC', () => {
  it('is HMAC-SHA256 as RFC 2104 defines it, over the process epoch (16 zero bytes), for every feature and many nonces', () => {
    const secret = 'mac-test-secret-0123456789abcdefghijklmnop';
    const codec = new NonceCodec(secret, 300);
    for (const feature of ['blacklist', 'timelock', 'multitoken', 'activity', 'tier', 'nodebt', 'age', 'éàü-unicode']) {
      for (let i = 0; i < 200; i++) {
        const bytes = decodeBase32(codec.issue(feature).nonce) as Buffer;
        expect(bytes).toHaveLength(40);
        expect(bytes.subarray(24).equals(referenceMac(secret, feature, Buffer.alloc(16), bytes.subarray(0, 24)))).toBe(true);
      }
    }
  });

  it('covers a store epoch\'s whole id, and the nonce carries the first two bytes of it as its tag', () => {
    const secret = 'mac-test-secret-0123456789abcdefghijklmnop';
    const id = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
    const epoch = epochFromName(id.toString('base64url')) as NonceEpoch;
    const codec = new NonceCodec(secret, 300, { epochs: fixedEpochs(epoch) });
    for (let i = 0; i < 200; i++) {
      const bytes = decodeBase32(codec.issue('tier').nonce) as Buffer;
      expect(bytes.readUInt16BE(6)).toBe(0x0011);
      expect(bytes.subarray(24).equals(referenceMac(secret, 'tier', id, bytes.subarray(0, 24)))).toBe(true);
    }
  });

  it('accepts a nonce whose MAC was computed by the reference, and refuses one MAC bit off', () => {
    const secret = 'another-secret-for-the-mac-test-0123456789';
    const id = Buffer.alloc(16, 0x5a);
    const epoch = epochFromName(id.toString('base64url')) as NonceEpoch;
    const payload = Buffer.alloc(24);
    payload.writeUIntBE(Date.now(), 0, 6);
    payload.writeUInt16BE(epoch.tag, 6);
    payload.fill(7, 8);
    const mac = referenceMac(secret, 'tier', id, payload);
    const codec = new NonceCodec(secret, 300, { epochs: fixedEpochs(epoch) });
    const accepted = codec.accept(encodeBase32(Buffer.concat([payload, mac])), 'tier') as AcceptedNonce;
    expect(accepted.expiresAtMs).toBeGreaterThan(Date.now());
    expect(accepted.id).toBe(`7.${Buffer.alloc(16, 7).toString('base64url')}`);
    mac[15]! ^= 1;
    expect(() => codec.accept(encodeBase32(Buffer.concat([payload, mac])), 'tier')).toThrow(/Nonce/);
  });
});

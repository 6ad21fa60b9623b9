import { createHash, randomBytes } from 'node:crypto';
import * as ed from '@noble/ed25519';
import { describe, expect, it } from 'vitest';
import { verifyBatch, verifyEd25519 } from '../../src/signature/ed25519.js';
import { strictEd25519Refusal } from '../../src/signature/strict-ed25519.js';

ed.hashes.sha512 = (message: Uint8Array) => new Uint8Array(createHash('sha512').update(message).digest());

const hex = (text: string): Uint8Array => Uint8Array.from(Buffer.from(text, 'hex'));

// RFC 8032 §7.1, TEST 1–3.
const RFC8032 = [
  {
    secret: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    publicKey: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    message: '',
    signature:
      'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  },
  {
    secret: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    publicKey: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    message: '72',
    signature:
      '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  },
  {
    secret: 'c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7',
    publicKey: 'fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025',
    message: 'af82',
    signature:
      '6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a',
  },
];

describe('ed25519 verification (node:crypto)', () => {
  it.each(RFC8032)('accepts the RFC 8032 vector for public key $publicKey, which the strict rules let through', (vector) => {
    expect(strictEd25519Refusal(hex(vector.publicKey), hex(vector.signature))).toBeUndefined();
    expect(verifyEd25519(hex(vector.publicKey), hex(vector.message), hex(vector.signature))).toBe(true);
  });

  it('agrees with @noble/ed25519 on the RFC 8032 key derivation and signatures', () => {
    for (const vector of RFC8032) {
      expect(Buffer.from(ed.getPublicKey(hex(vector.secret))).toString('hex')).toBe(vector.publicKey);
      expect(Buffer.from(ed.sign(hex(vector.message), hex(vector.secret))).toString('hex')).toBe(vector.signature);
    }
  });

  it('rejects a flipped bit in the message, the signature or the key', () => {
    const vector = RFC8032[2]!;
    const message = hex(vector.message);
    const signature = hex(vector.signature);
    const publicKey = hex(vector.publicKey);
    message[0]! ^= 1;
    expect(verifyEd25519(publicKey, message, signature)).toBe(false);
    message[0]! ^= 1;
    signature[10]! ^= 1;
    expect(verifyEd25519(publicKey, message, signature)).toBe(false);
    signature[10]! ^= 1;
    publicKey[5]! ^= 1;
    expect(verifyEd25519(publicKey, message, signature)).toBe(false);
  });

  it('rejects wrong lengths and garbage keys without throwing', () => {
    expect(verifyEd25519(new Uint8Array(31), 'x', new Uint8Array(64))).toBe(false);
    expect(verifyEd25519(new Uint8Array(32), 'x', new Uint8Array(63))).toBe(false);
    expect(verifyEd25519(new Uint8Array(32).fill(0xff), 'x', new Uint8Array(64))).toBe(false);
  });

  it('cross-checks 200 random challenges signed by @noble/ed25519, valid and tampered', () => {
    for (let i = 0; i < 200; i++) {
      const secret = randomBytes(32);
      const challenge = `CHALLENGE::${randomBytes(12).toString('base64url')}::/x404_auth/blacklist::SERVICE404_BLACKLIST`;
      const signature = ed.sign(new TextEncoder().encode(challenge), secret);
      const publicKey = ed.getPublicKey(secret);
      expect(verifyEd25519(publicKey, challenge, signature)).toBe(true);
      expect(verifyEd25519(publicKey, `${challenge}x`, signature)).toBe(ed.verify(signature, new TextEncoder().encode(`${challenge}x`), publicKey));
    }
  });

  it('verifies a batch entry by entry, as a worker does', () => {
    const secrets = [randomBytes(32), randomBytes(32), randomBytes(32)];
    const messages = ['a', 'b', 'c'];
    const publicKeys = new Uint8Array(96);
    const signatures = new Uint8Array(192);
    secrets.forEach((secret, i) => {
      publicKeys.set(ed.getPublicKey(secret), i * 32);
      signatures.set(ed.sign(new TextEncoder().encode(messages[i]!), secret), i * 64);
    });
    signatures[64 + 3]! ^= 0x80;
    expect([...verifyBatch({ publicKeys, signatures, messages })]).toEqual([1, 0, 1]);
  });
});

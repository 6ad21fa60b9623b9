import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import bs58 from 'bs58';
import { base64url, createLocalJWKSet, exportJWK, jwtVerify, SignJWT, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyGateToken } from '../../src/verifier/index.js';
import { forgeWithSmallOrderR, fromLittleEndian, highYSpellings, ORDER, signature, smallOrderSpellings } from '../helpers/ed25519-points.js';

/**
 * The verifier (x404-gate/verifier) holds the gate's Ed25519 token keys and signatures to the strict
 * rules the gate holds wallets to: jose alone accepts a token "signed" under a key of small order
 * (shown here), so a key set carrying one — by mistake or by a tampered copy — would let anyone mint
 * tokens. It also refuses a token whose wallet is such a key, which only a gate without strict
 * checks could have issued.
 */
const { canonical, nonCanonical } = smallOrderSpellings();
const WEAK_KEYS = [...canonical, ...nonCanonical, highYSpellings().find((bytes) => bytes[0] === 0xf1)!];
const SECRET = 'a-relying-party-test-secret-of-sufficient-length';
const WALLET = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const claims = (extra: Record<string, unknown> = {}) => ({ sub: WALLET, feature: 'blacklist', pol: 'p', iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 3600, ...extra });

/** A token for `key` nobody holds: R ‖ 0 with R a small-order point, retried over jti until node:crypto alone accepts it. */
function forgedToken(key: Uint8Array, kid: string): string {
  const header = base64url.encode(JSON.stringify({ alg: 'EdDSA', kid }));
  for (let attempt = 0; attempt < 100; attempt++) {
    const input = `${header}.${base64url.encode(JSON.stringify(claims({ jti: `forged-${attempt}` })))}`;
    const sig = forgeWithSmallOrderR(key, input);
    if (sig) return `${input}.${base64url.encode(sig)}`;
  }
  throw new Error('no forgery found');
}

const weakJwk = (key: Uint8Array, kid: string) => ({ kty: 'OKP', crv: 'Ed25519', x: base64url.encode(key), kid, alg: 'EdDSA', use: 'sig' });

describe('a key set with an Ed25519 key of small order or not canonically encoded', () => {
  it.each(WEAK_KEYS.map((key) => [Buffer.from(key).toString('hex'), key] as const))('key %s: refused when given as a local set', async (_, key) => {
    const jwks: JSONWebKeySet = { keys: [weakJwk(key, 'weak')] };
    await expect(verifyGateToken('x.y.z', { jwks, feature: 'blacklist' })).rejects.toThrow(/jwks: Ed25519 key "weak" is refused: the public key (is a point of small order|is not canonically encoded)/);
  });

  it('jose alone accepts a token forged under the System Program\'s key (32 zero bytes); the verifier does not', async () => {
    const key = canonical.find((bytes) => bytes.every((byte) => byte === 0))!;
    const jwks: JSONWebKeySet = { keys: [weakJwk(key, 'weak')] };
    const token = forgedToken(key, 'weak');
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), { algorithms: ['EdDSA'] });
    expect(payload.sub).toBe(WALLET);
    await expect(verifyGateToken(token, { jwks, feature: 'blacklist' })).rejects.toThrow(TypeError);
  });

  describe('fetched from a URL', () => {
    let server: Server;
    let base: string;
    const good = generateKeyPairSync('ed25519');
    const weak = canonical[4]!; // a point of order 8
    let goodJwk: Record<string, unknown>;

    beforeAll(async () => {
      goodJwk = { ...(await exportJWK(good.publicKey)), kid: 'good', alg: 'EdDSA', use: 'sig' };
      server = createServer((request, response) => {
        const keys = request.url === '/mixed.json' ? [goodJwk, weakJwk(weak, 'weak')] : [goodJwk];
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    it('a token under the weak key → INVALID_TOKEN naming the key (not JWKS_UNAVAILABLE); the good key\'s tokens still pass', async () => {
      const forged = forgedToken(weak, 'weak');
      const refused = await verifyGateToken(forged, { jwks: `${base}/mixed.json`, feature: 'blacklist' }).catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: 'INVALID_TOKEN' });
      expect((refused as Error).message).toMatch(/key "weak" is refused: the public key is a point of small order/);
      const honest = await new SignJWT(claims()).setProtectedHeader({ alg: 'EdDSA', kid: 'good' }).sign(good.privateKey);
      await expect(verifyGateToken(honest, { jwks: `${base}/mixed.json`, feature: 'blacklist' })).resolves.toMatchObject({ sub: WALLET });
      await expect(verifyGateToken(honest, { jwks: `${base}/good.json`, feature: 'blacklist' })).resolves.toMatchObject({ sub: WALLET });
    });

    it('the gate\'s own signature with S + ℓ (the same token, respelled) → INVALID_TOKEN (WebCrypto refuses it too; the verifier does not rely on that)', async () => {
      const honest = await new SignJWT(claims()).setProtectedHeader({ alg: 'EdDSA', kid: 'good' }).sign(good.privateKey);
      const dot = honest.lastIndexOf('.');
      const sig = base64url.decode(honest.slice(dot + 1));
      const respelled = `${honest.slice(0, dot)}.${base64url.encode(signature(sig.subarray(0, 32), fromLittleEndian(sig.subarray(32)) + ORDER))}`;
      await expect(verifyGateToken(respelled, { jwks: `${base}/good.json`, feature: 'blacklist' })).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
    });
  });
});

describe('a token whose wallet no key signs for', () => {
  const mint = (sub: string) => new SignJWT(claims({ sub })).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));

  it.each([
    ['the System Program', '11111111111111111111111111111111'],
    ['a point of order 8', bs58.encode(canonical[5]!)],
    ['the identity spelled y = p + 1', bs58.encode(nonCanonical[0]!)],
  ])('sub = %s → INVALID_TOKEN, as a gate with strict checks would never have issued it', async (_, sub) => {
    const error = await verifyGateToken(await mint(sub), { secret: SECRET, feature: 'blacklist' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INVALID_TOKEN' });
    expect((error as Error).message).toMatch(/no key signs for/);
  });

  it('an ordinary wallet passes', async () => {
    await expect(verifyGateToken(await mint(WALLET), { secret: SECRET, feature: 'blacklist' })).resolves.toMatchObject({ sub: WALLET });
  });
});

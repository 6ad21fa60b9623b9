import { createHmac, createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, importPKCS8, jwtVerify, SignJWT, UnsecuredJWT, type JSONWebKeySet } from 'jose';
import { createSigner } from 'fast-jwt';
import { afterAll, describe, expect, it } from 'vitest';
import { createTokenService, type TokenService } from '../../src/token/jwt.js';
import { loadTokenKeys, type TokenKey } from '../../src/token/keys.js';
import { WEAK_SUBJECTS } from '../../src/token/weak-subjects.js';

/**
 * The gate's token service: HS256 byte-compatible with earlier versions, EdDSA/ES256 with a kid,
 * checked against jose (a second implementation), and the refusals forward auth relies on.
 */
const SECRET = 'a-gate-secret-of-sufficient-length-0123456789';
const CLAIMS = { sub: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin', feature: 'blacklist', pol: 'p0l' };
const dir = mkdtempSync(join(tmpdir(), 'x404-tokens-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const segment = (token: string, index: number): Record<string, unknown> => JSON.parse(Buffer.from(token.split('.')[index]!, 'base64url').toString('utf8'));
const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

let keyFiles = 0;
async function keysOf(...pems: string[]): Promise<TokenKey[]> {
  const path = join(dir, `k${keyFiles++}.pem`);
  writeFileSync(path, pems.join('\n'));
  return loadTokenKeys(path, segmentAlg(pems[0]!));
}
const segmentAlg = (pem: string): 'EdDSA' | 'ES256' => (createPrivateKey(pem).asymmetricKeyType === 'ed25519' ? 'EdDSA' : 'ES256');
const newEd = (): string => generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
const newP256 = (): string => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;

function asymmetricService(keys: TokenKey[], options: { expirySeconds?: number; now?: () => number } = {}): TokenService {
  return createTokenService({ alg: keys[0]!.alg, secret: SECRET, keys, issuer: 'https://gate.example', audience: 'mint-api', expirySeconds: options.expirySeconds ?? 3600, now: options.now });
}

describe('HS256 tokens (the default)', () => {
  it('keep the format of earlier versions: header, claim order, no kid/iss/aud/pnm', () => {
    const tokens = createTokenService({ alg: 'HS256', secret: SECRET, expirySeconds: 3600, now: () => 1_700_000_000_000 });
    const token = tokens.sign({ ...CLAIMS, tier: 'gold' });
    expect(token.split('.')[0]).toBe(b64({ alg: 'HS256', typ: 'JWT' }));
    const payload = segment(token, 1);
    expect(Object.keys(payload)).toEqual(['tier', 'sub', 'feature', 'pol', 'iat', 'exp', 'jti']);
    expect(payload).toMatchObject({ iat: 1_700_000_000, exp: 1_700_003_600 });
    // The signature is plain HMAC-SHA256 over header.payload with JWT_SECRET.
    const [header, body, signature] = token.split('.');
    expect(createHmac('sha256', SECRET).update(`${header}.${body}`).digest('base64url')).toBe(signature);
    expect(tokens.jwks).toBeUndefined();
  });

  it('are the bytes fast-jwt signs for the same claims, and jose verifies them', async () => {
    const tokens = createTokenService({ alg: 'HS256', secret: SECRET, issuer: 'https://gate.example', expirySeconds: 3600 });
    const token = tokens.sign({ ...CLAIMS, pnm: 'lancement-é-🚀', tier: 'gold', holdings: [1, 2] });
    expect(createSigner({ key: SECRET, algorithm: 'HS256' })(segment(token, 1))).toBe(token);
    const { payload } = await jwtVerify(token, new TextEncoder().encode(SECRET), { algorithms: ['HS256'] });
    expect(payload).toMatchObject({ ...CLAIMS, pnm: 'lancement-é-🚀', tier: 'gold', holdings: [1, 2] });
    expect(tokens.verify(token)).toMatchObject(CLAIMS);
  });

  it('add iss, aud and pnm only when configured or named', () => {
    const tokens = createTokenService({ alg: 'HS256', secret: SECRET, issuer: 'https://gate.example', audience: 'mint-api', expirySeconds: 60 });
    const payload = segment(tokens.sign({ ...CLAIMS, pnm: 'launch' }), 1);
    expect(payload).toMatchObject({ iss: 'https://gate.example', aud: 'mint-api', pnm: 'launch' });
    expect(tokens.verify(tokens.sign(CLAIMS))).toMatchObject(CLAIMS);
  });

  it('refuse an EdDSA token even when it names no key', async () => {
    const tokens = createTokenService({ alg: 'HS256', secret: SECRET, expirySeconds: 60 });
    const pem = newEd();
    const forged = await new SignJWT({ ...CLAIMS, jti: 'x' }).setProtectedHeader({ alg: 'EdDSA' }).setIssuedAt().setExpirationTime('1h').sign(await importPKCS8(pem, 'EdDSA'));
    expect(tokens.check(forged)).toMatchObject({ problem: 'invalid' });
  });
});

describe.each([
  ['EdDSA', newEd],
  ['ES256', newP256],
])('%s tokens', (alg, newKey) => {
  it('carry the signing key\'s kid and verify with jose against the published JWKS', async () => {
    const keys = await keysOf(newKey());
    const tokens = asymmetricService(keys);
    const token = tokens.sign({ ...CLAIMS, pnm: 'launch' });
    expect(segment(token, 0)).toEqual({ alg, typ: 'JWT', kid: keys[0]!.kid });
    const jwks = JSON.parse(tokens.jwks!) as JSONWebKeySet;
    expect(jwks.keys.map((key) => key.kid)).toEqual([keys[0]!.kid]);
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), { algorithms: [alg], issuer: 'https://gate.example', audience: 'mint-api' });
    expect(payload).toMatchObject({ ...CLAIMS, pnm: 'launch' });
    expect(tokens.verify(token)).toMatchObject(CLAIMS);
    expect(tokens.check(token)).toMatchObject({ claims: CLAIMS });
  });

  it('rotate: tokens of the old key verify while the new key signs', async () => {
    const oldKey = newKey();
    const before = asymmetricService(await keysOf(oldKey));
    const oldToken = before.sign(CLAIMS);
    const after = asymmetricService(await keysOf(newKey(), oldKey));
    const newToken = after.sign(CLAIMS);
    expect(segment(newToken, 0).kid).not.toBe(segment(oldToken, 0).kid);
    expect(after.verify(oldToken)).toMatchObject(CLAIMS);
    expect(after.verify(newToken)).toMatchObject(CLAIMS);
    expect(before.check(newToken)).toMatchObject({ problem: 'invalid' });
  });

  it('accept a token of its key whose header is written differently (decoded, matched by kid and alg)', async () => {
    const pem = newKey();
    const keys = await keysOf(pem);
    const token = await new SignJWT({ ...CLAIMS, jti: 'j' })
      .setProtectedHeader({ kid: keys[0]!.kid, alg })
      .setIssuer('https://gate.example')
      .setAudience('mint-api')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(await importPKCS8(pem, alg));
    expect(asymmetricService(keys).verify(token)).toMatchObject(CLAIMS);
  });
});

describe('refusals (forward auth answers 401 for each, never 500)', () => {
  it('alg none, HS256 with the secret or the public key, unknown kid, another key under a known kid, expiry, garbage', async () => {
    const pem = newEd();
    const keys = await keysOf(pem);
    let now = Date.now();
    const tokens = asymmetricService(keys, { expirySeconds: 60, now: () => now });
    const kid = keys[0]!.kid;
    const payload = { ...CLAIMS, iss: 'https://gate.example', aud: 'mint-api', iat: Math.floor(now / 1000), exp: Math.floor(now / 1000) + 3600, jti: 'j' };
    const hs256 = (key: string | Buffer, header: Record<string, unknown>): string => {
      const input = `${b64(header)}.${b64(payload)}`;
      return `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`;
    };
    const publicPem = keys[0]!.publicKey.export({ format: 'pem', type: 'spki' }) as string;
    const otherKey = createPrivateKey(newEd());
    const input = `${b64({ alg: 'EdDSA', typ: 'JWT', kid })}.${b64(payload)}`;

    const cases: Record<string, string> = {
      'alg none': new UnsecuredJWT(payload).encode(),
      'alg none with our kid': `${b64({ alg: 'none', typ: 'JWT', kid })}.${b64(payload)}.`,
      'HS256 with JWT_SECRET': hs256(SECRET, { alg: 'HS256', typ: 'JWT' }),
      'HS256 keyed with the public key PEM, our kid': hs256(publicPem, { alg: 'HS256', typ: 'JWT', kid }),
      'HS256 keyed with the public JWK x, our kid': hs256(Buffer.from(keys[0]!.publicJwk.x as string, 'base64url'), { alg: 'HS256', typ: 'JWT', kid }),
      'unknown kid': `${b64({ alg: 'EdDSA', typ: 'JWT', kid: 'not-a-key-of-this-gate' })}.${b64(payload)}.${sign(null, Buffer.from('x'), otherKey).toString('base64url')}`,
      'another key under our kid': `${input}.${sign(null, Buffer.from(input), otherKey).toString('base64url')}`,
      'ES256 header with our Ed25519 kid': `${b64({ alg: 'ES256', typ: 'JWT', kid })}.${b64(payload)}.${sign(null, Buffer.from(input), createPrivateKey(pem)).toString('base64url')}`,
      malformed: 'not.a.token',
      'two parts': `${b64({ alg: 'EdDSA', typ: 'JWT', kid })}.${b64(payload)}`,
      'header not JSON': `${Buffer.from('{oops').toString('base64url')}.${b64(payload)}.sig`,
      'too long': `${b64({ alg: 'EdDSA', typ: 'JWT', kid })}.${'A'.repeat(9000)}.sig`,
      empty: '',
    };
    for (const [label, token] of Object.entries(cases)) {
      expect(tokens.check(token), label).toMatchObject({ problem: 'invalid' });
      expect(tokens.verify(token), label).toBeUndefined();
    }

    // The same bytes with a valid signature do pass, so the cases above fail for their own reason.
    expect(tokens.check(`${input}.${sign(null, Buffer.from(input), createPrivateKey(pem)).toString('base64url')}`)).toMatchObject({ claims: CLAIMS });

    // The same key, another gate's name: JWT_ISSUER / JWT_AUDIENCE are checked, and required.
    const signed = (claims: Record<string, unknown>): string => {
      const text = `${b64({ alg: 'EdDSA', typ: 'JWT', kid })}.${b64(claims)}`;
      return `${text}.${sign(null, Buffer.from(text), createPrivateKey(pem)).toString('base64url')}`;
    };
    const { iss: _iss, aud: _aud, ...unnamed } = payload;
    for (const [label, claims] of Object.entries({
      'another iss': { ...payload, iss: 'https://other-gate.example' },
      'another aud': { ...payload, aud: 'other-api' },
      'aud listing only others': { ...payload, aud: ['a', 'b'] },
      'no iss': { ...unnamed, aud: 'mint-api' },
      'no aud': { ...unnamed, iss: 'https://gate.example' },
    })) {
      expect(tokens.check(signed(claims)), label).toMatchObject({ problem: 'invalid', why: expect.stringMatching(/^the token was not issued by this gate \((The (iss|aud) claim|None of aud claim values)/) });
      expect(tokens.verify(signed(claims)), label).toBeUndefined();
    }
    expect(tokens.check(signed({ ...payload, aud: ['other-api', 'mint-api'] }))).toMatchObject({ claims: CLAIMS });

    // Verification reads the real clock: a token signed two minutes ago for 60 s has expired.
    now -= 120_000;
    expect(tokens.check(tokens.sign(CLAIMS))).toMatchObject({ problem: 'expired' });
  });
});

describe('tokens naming a wallet anyone can sign for', () => {
  // A gate from before strict signature checks issued such tokens to anyone (the keyless forgery):
  // still signed, still unexpired, so the token service itself refuses them.
  it('the System Program and every other weak encoding as sub → refused by verify and check; a real wallet passes', () => {
    const tokens = createTokenService({ alg: 'HS256', secret: SECRET, expirySeconds: 3600 });
    expect(WEAK_SUBJECTS.size).toBe(48);
    expect(WEAK_SUBJECTS.has('11111111111111111111111111111111')).toBe(true);
    for (const sub of WEAK_SUBJECTS) {
      const token = tokens.sign({ ...CLAIMS, sub });
      expect(tokens.verify(token), sub).toBeUndefined();
      expect(tokens.check(token).problem, sub).toBe('invalid');
    }
    const real = tokens.sign(CLAIMS);
    expect(tokens.verify(real)?.sub).toBe(CLAIMS.sub);
    expect(tokens.check(real).claims?.sub).toBe(CLAIMS.sub);
  });
});

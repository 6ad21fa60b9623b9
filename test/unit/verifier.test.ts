import { createHash, createHmac, generateKeyPairSync } from 'node:crypto';
import { base64url, exportJWK, SignJWT, UnsecuredJWT, type JSONWebKeySet } from 'jose';
import { describe, expect, it } from 'vitest';
import { policyToHeaders } from '../../src/sdk/index.js';
import { policyDigest as gatePolicyDigest } from '../../src/policy-wire/digest-node.js';
import { policyOf } from '../../src/policy-wire/from-headers.js';
import { canonicalPolicyJson, GateTokenError, policyDigest, policyHeadersDigest, verifyGateToken } from '../../src/verifier/index.js';

const SECRET = 'a-relying-party-test-secret-of-sufficient-length';
const WALLET = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const POLICY = { excluded_mints: ['So11111111111111111111111111111111111111112'], max_holdings: { EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v: '5' } };

async function mint(claims: Record<string, unknown>, options: { secret?: string; alg?: string; expiresIn?: string | number } = {}): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: options.alg ?? 'HS256' })
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? '1h')
    .setJti('jti-1')
    .sign(new TextEncoder().encode(options.secret ?? SECRET));
}

describe('policy digest', () => {
  it('is base64url SHA-256 of the sorted, whitespace-free header object (cross-checked with node:crypto)', async () => {
    const headers = { max_holdings: '{"m":"1"}', excluded_mints: '[]', geo_code: 'false' };
    expect(canonicalPolicyJson(headers)).toBe('{"excluded_mints":"[]","geo_code":"false","max_holdings":"{\\"m\\":\\"1\\"}"}');
    const expected = createHash('sha256').update(canonicalPolicyJson(headers)).digest('base64url');
    expect(await policyHeadersDigest(headers)).toBe(expected);
  });

  it('equals the digest the gate computes from the same request headers', async () => {
    const sent = policyToHeaders('blacklist', { ...POLICY, lat: 1, long: 2 });
    const requestHeaders = new Map(Object.entries({ ...sent.policy, ...sent.location, 'x-404-addr': WALLET }));
    const gatePolicy = policyOf(requestHeaders, ['excluded_mints', 'max_holdings', 'geo_code', 'geo_code_locs']) ?? {};
    expect(await policyDigest('blacklist', POLICY)).toBe(gatePolicyDigest(gatePolicy));
    // A feature with no policy headers: the gate digests the empty object.
    expect(await policyDigest('age', {})).toBe(gatePolicyDigest({}));
  });
});

describe('verifyGateToken', () => {
  it('returns the claims of a valid token for the feature and policy', async () => {
    const token = await mint({ sub: WALLET, feature: 'blacklist', pol: await policyDigest('blacklist', POLICY) });
    const claims = await verifyGateToken(token, { secret: SECRET, feature: 'blacklist', policy: POLICY, wallet: WALLET });
    expect(claims).toMatchObject({ sub: WALLET, feature: 'blacklist', jti: 'jti-1' });
  });

  it.each([
    ['another feature', { feature: 'tier' as const }, 'FEATURE_MISMATCH'],
    ['another policy', { policy: { ...POLICY, max_holdings: { EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v: '6' } } }, 'POLICY_MISMATCH'],
    ['another wallet', { wallet: 'So11111111111111111111111111111111111111112' }, 'WALLET_MISMATCH'],
    ['another secret', { secret: 'some-other-secret-of-sufficient-length-000' }, 'INVALID_TOKEN'],
  ])('refuses a token checked against %s', async (_label, override, code) => {
    const token = await mint({ sub: WALLET, feature: 'blacklist', pol: await policyDigest('blacklist', POLICY) });
    const options = { secret: SECRET, feature: 'blacklist' as const, policy: POLICY, ...override };
    await expect(verifyGateToken(token, options as never)).rejects.toMatchObject({ name: 'GateTokenError', code });
  });

  it('refuses expired and tampered tokens', async () => {
    const expired = await mint({ sub: WALLET, feature: 'blacklist', pol: 'x' }, { expiresIn: Math.floor(Date.now() / 1000) - 10 });
    await expect(verifyGateToken(expired, { secret: SECRET, feature: 'blacklist' })).rejects.toMatchObject({ code: 'TOKEN_EXPIRED' });

    const token = await mint({ sub: WALLET, feature: 'blacklist', pol: 'x' });
    const [header, , signature] = token.split('.');
    const forgedPayload = base64url.encode(JSON.stringify({ sub: WALLET, feature: 'tier', pol: 'x', iat: 1, exp: 9_999_999_999 }));
    await expect(verifyGateToken(`${header}.${forgedPayload}.${signature}`, { secret: SECRET, feature: 'tier' })).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
    await expect(verifyGateToken('garbage', { secret: SECRET, feature: 'blacklist' })).rejects.toBeInstanceOf(GateTokenError);
  });

  it('accepts HS256 only: alg "none" and HS512 with the right secret are refused', async () => {
    const unsecured = new UnsecuredJWT({ sub: WALLET, feature: 'blacklist' }).setIssuedAt().setExpirationTime('1h').encode();
    await expect(verifyGateToken(unsecured, { secret: SECRET, feature: 'blacklist' })).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
    const hs512 = await mint({ sub: WALLET, feature: 'blacklist' }, { alg: 'HS512' });
    await expect(verifyGateToken(hs512, { secret: SECRET, feature: 'blacklist' })).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
  });
});

describe('verifyGateToken with a key set (EdDSA / ES256 gates)', () => {
  const ed = generateKeyPairSync('ed25519');
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const stranger = generateKeyPairSync('ed25519');
  let jwks: JSONWebKeySet;
  const claims = { sub: WALLET, feature: 'blacklist', pol: 'p', pnm: 'launch', iss: 'https://gate.example', aud: 'mint-api' };

  const signed = (key: typeof ed.privateKey, header: Record<string, unknown>, payload: Record<string, unknown> = claims): Promise<string> =>
    new SignJWT(payload).setProtectedHeader(header as never).setIssuedAt().setExpirationTime('1h').setJti('j').sign(key);

  it('accepts tokens of either key, checking iss, aud and the policy name', async () => {
    jwks = { keys: [{ ...(await exportJWK(ed.publicKey)), kid: 'ed', alg: 'EdDSA', use: 'sig' }, { ...(await exportJWK(ec.publicKey)), kid: 'ec', alg: 'ES256', use: 'sig' }] };
    const options = { jwks, feature: 'blacklist' as const, issuer: 'https://gate.example', audience: 'mint-api', policyName: 'launch' };
    expect(await verifyGateToken(await signed(ed.privateKey, { alg: 'EdDSA', kid: 'ed' }), options)).toMatchObject({ sub: WALLET, pnm: 'launch' });
    expect(await verifyGateToken(await signed(ec.privateKey, { alg: 'ES256', kid: 'ec' }), options)).toMatchObject({ sub: WALLET });
  });

  it.each([
    ['another policy name', { policyName: 'free' }, 'POLICY_MISMATCH'],
    ['another issuer', { issuer: 'https://other.example' }, 'INVALID_TOKEN'],
    ['another audience', { audience: 'other-api' }, 'INVALID_TOKEN'],
  ])('refuses a token checked against %s', async (_label, override, code) => {
    const token = await signed(ed.privateKey, { alg: 'EdDSA', kid: 'ed' });
    await expect(verifyGateToken(token, { jwks, feature: 'blacklist', issuer: 'https://gate.example', audience: 'mint-api', policyName: 'launch', ...override })).rejects.toMatchObject({ code });
  });

  it('allows only the algorithms of the keys: none, HS256 keyed with the public key, an unknown kid and a stranger\'s key are refused', async () => {
    const hs256 = (key: Buffer | string, kid: string): string => {
      const input = `${base64url.encode(JSON.stringify({ alg: 'HS256', kid }))}.${base64url.encode(JSON.stringify({ ...claims, iat: 1, exp: 9_999_999_999 }))}`;
      return `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`;
    };
    const edJwk = jwks.keys[0]!;
    const refused = {
      none: new UnsecuredJWT(claims).setIssuedAt().setExpirationTime('1h').encode(),
      'HS256 keyed with x': hs256(Buffer.from(edJwk.x as string, 'base64url'), 'ed'),
      'HS256 keyed with the PEM': hs256(ed.publicKey.export({ format: 'pem', type: 'spki' }) as string, 'ed'),
      'unknown kid': await signed(ed.privateKey, { alg: 'EdDSA', kid: 'nope' }),
      "a stranger's key under our kid": await signed(stranger.privateKey, { alg: 'EdDSA', kid: 'ed' }),
      'ES256 header on the Ed25519 kid': await signed(ec.privateKey, { alg: 'ES256', kid: 'ed' }),
    };
    for (const [label, token] of Object.entries(refused)) {
      await expect(verifyGateToken(token, { jwks, feature: 'blacklist' }), label).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
    }
    // An HS256 set (kty oct) is not a gate key set: no algorithm to allow.
    await expect(verifyGateToken(refused.none, { jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] }, feature: 'blacklist' })).rejects.toThrow(TypeError);
  });

  it('says JWKS_UNAVAILABLE when the key set URL cannot be fetched, not INVALID_TOKEN', async () => {
    const token = await signed(ed.privateKey, { alg: 'EdDSA', kid: 'ed' });
    await expect(verifyGateToken(token, { jwks: 'http://127.0.0.1:9/.well-known/jwks.json', feature: 'blacklist' })).rejects.toMatchObject({ code: 'JWKS_UNAVAILABLE' });
  });
});

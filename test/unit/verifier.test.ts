import { createHash } from 'node:crypto';
import { base64url, SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { policyToHeaders } from '../../src/sdk/index.js';
import { policyDigest as gatePolicyDigest, policyOf } from '../../src/token/policy.js';
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

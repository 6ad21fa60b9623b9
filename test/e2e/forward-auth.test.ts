import { createHmac, createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteJWKSet, jwtVerify, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoWallet } from 'x404-localnet/fixture.js';
import { authenticate } from '../../src/sdk/index.js';
import { verifyGateToken } from '../../src/verifier/index.js';
import { decodeJwt, get, getNonce, signedHeaders } from '../helpers/client.js';
import { runGateExpectingExit, startGate, startStack, testSecret, type GateProcess, type Stack } from '../helpers/gate.js';
import { generateKeyFile, launchPolicies, x404 } from '../helpers/launch.js';
import { RawPool } from '../helpers/raw-http.js';

/**
 * Asymmetric tokens and forward auth against the real gate: keys made by `x404 keys generate`,
 * EdDSA tokens with a kid, the JWKS route, relying parties verifying with it (library and CLI),
 * and /x404_verify answering 200 with the wallet or 401 with the reason — never 500 — for every
 * way a token can be wrong.
 */
let dir: string;
let stack: Stack;
let keysFile: string;
let kid: string;
let launchToken: string;
const ISSUER = 'https://gate.launch.example';
const AUDIENCE = 'mint-api';
const clean = demoWallet('clean');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'x404-forward-'));
  keysFile = join(dir, 'jwt-keys.pem');
  kid = await generateKeyFile(keysFile);
  writeFileSync(join(dir, 'policies.json'), JSON.stringify(launchPolicies()));
  stack = await startStack({
    env: {
      JWT_ALG: 'EdDSA',
      JWT_PRIVATE_KEYS_FILE: keysFile,
      JWT_ISSUER: ISSUER,
      JWT_AUDIENCE: AUDIENCE,
      POLICIES_FILE: join(dir, 'policies.json'),
      POLICY_MODE: 'pinned',
      X404_SET_COOKIE: 'true',
      X404_COOKIE: 'launch_session',
      JWT_EXPIRY: '2h',
    },
  });
  launchToken = (await authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policyName: 'launch', signer: { secretKey: clean.secretKey }, storage: false })).token;
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const verify = (headers: Record<string, string> = {}, query = ''): ReturnType<typeof get> => get(`${stack.gateUrl}/x404_verify${query}`, headers);
const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('x404 keys generate', () => {
  it('writes a private key readable by its owner only, and refuses to overwrite one', async () => {
    expect(statSync(keysFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(keysFile, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const again = await x404(['keys', 'generate', '--out', keysFile]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('exists; pass --force');
  });
});

describe('EdDSA tokens and the JWKS', () => {
  it('every token carries the kid, iss and aud; the JWKS publishes the public key with Cache-Control', async () => {
    expect(JSON.parse(Buffer.from(launchToken.split('.')[0]!, 'base64url').toString())).toEqual({ alg: 'EdDSA', typ: 'JWT', kid });
    expect(decodeJwt(launchToken)).toMatchObject({ iss: ISSUER, aud: AUDIENCE, sub: clean.publicKey, feature: 'blacklist', pnm: 'launch' });
    const jwks = await get(`${stack.gateUrl}/.well-known/jwks.json`);
    expect(jwks.status).toBe(200);
    expect(jwks.headers.get('cache-control')).toBe('public, max-age=300');
    expect(jwks.body.keys).toEqual([{ kty: 'OKP', crv: 'Ed25519', x: expect.any(String), kid, alg: 'EdDSA', use: 'sig' }]);
    // jose's own remote key set (no gate code involved) verifies the token.
    const { payload } = await jwtVerify(launchToken, createRemoteJWKSet(new URL(`${stack.gateUrl}/.well-known/jwks.json`)), { issuer: ISSUER, audience: AUDIENCE });
    expect(payload.sub).toBe(clean.publicKey);
  });

  it('relying parties verify with the JWKS URL alone (library and CLI); the secret form refuses', async () => {
    const jwks = `${stack.gateUrl}/.well-known/jwks.json`;
    const claims = await verifyGateToken(launchToken, { jwks, issuer: ISSUER, audience: AUDIENCE, feature: 'blacklist', policyName: 'launch', wallet: clean.publicKey });
    expect(claims.pnm).toBe('launch');
    await expect(verifyGateToken(launchToken, { jwks, feature: 'blacklist', policyName: 'free' })).rejects.toMatchObject({ code: 'POLICY_MISMATCH' });
    await expect(verifyGateToken(launchToken, { jwks, feature: 'blacklist', issuer: 'https://evil.example' })).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
    await expect(verifyGateToken(launchToken, { secret: stack.jwtSecret, feature: 'blacklist' })).rejects.toMatchObject({ code: 'INVALID_TOKEN' });

    const cli = await x404(['verify', launchToken, '--jwks', jwks, '--issuer', ISSUER, '--audience', AUDIENCE, '--feature', 'blacklist', '--policy-name', 'launch']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stderr).toContain(`Valid blacklist token for ${clean.publicKey}`);
    const wrongPolicy = await x404(['verify', launchToken, '--jwks', jwks, '--policy-name', 'free']);
    expect([wrongPolicy.code, wrongPolicy.stderr.includes('POLICY_MISMATCH')]).toEqual([1, true]);
    const unreachable = await x404(['verify', launchToken, '--jwks', 'http://127.0.0.1:9/.well-known/jwks.json']);
    expect([unreachable.code, unreachable.stderr.includes('JWKS_UNAVAILABLE')]).toEqual([3, true]);
  });
});

describe('GET /x404_verify', () => {
  it('answers 200 with the wallet headers and the claims, for Bearer, x-jwt and the cookie', async () => {
    const carriers: Record<string, string>[] = [{ Authorization: `Bearer ${launchToken}` }, { 'x-jwt': launchToken }, { Cookie: `a=b; launch_session=${launchToken}` }];
    for (const headers of carriers) {
      const result = await verify(headers, '?feature=blacklist&policy=launch');
      expect(result.status, JSON.stringify(result.body)).toBe(200);
      expect(result.headers.get('x-404-wallet')).toBe(clean.publicKey);
      expect(result.headers.get('x-404-feature')).toBe('blacklist');
      expect(result.headers.get('x-404-policy')).toBe('launch');
      expect(result.headers.get('x-404-tier')).toBeNull();
      expect(result.headers.get('cache-control')).toBe('no-store');
      expect(result.body).toEqual(decodeJwt(launchToken));
    }
    // Requirements may come as headers too (nginx proxy_set_header), and may be left out.
    expect((await verify({ Authorization: `Bearer ${launchToken}`, 'X-404-Feature': 'blacklist', 'X-404-Policy': 'launch' })).status).toBe(200);
    expect((await verify({ Authorization: `Bearer ${launchToken}` })).status).toBe(200);
  });

  it('adds X-404-Tier for tier tokens', async () => {
    const { token } = await authenticate({ baseUrl: stack.gateUrl, feature: 'tier', policyName: 'vip', signer: { secretKey: demoWallet('tier-gold').secretKey }, storage: false });
    const result = await verify({ Authorization: `Bearer ${token}` }, '?feature=tier&policy=vip');
    expect([result.status, result.headers.get('x-404-tier'), result.headers.get('x-404-policy')]).toEqual([200, 'gold', 'vip']);
  });

  it('answers 401 with the reason for every bad token, never 500', async () => {
    const payload = decodeJwt(launchToken);
    const ourHeader = launchToken.split('.')[0]!;
    const hs256 = (key: string | Buffer, header: Record<string, unknown>): string => {
      const input = `${b64(header)}.${b64(payload)}`;
      return `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`;
    };
    const jwk = (await get(`${stack.gateUrl}/.well-known/jwks.json`)).body.keys[0];
    const privateKey = createPrivateKey(readFileSync(keysFile));
    const signWith = (header: string, claims: Record<string, unknown>): string => {
      const input = `${header}.${b64(claims)}`;
      return `${input}.${sign(null, Buffer.from(input), privateKey).toString('base64url')}`;
    };
    const now = Math.floor(Date.now() / 1000);

    const cases: [string, Record<string, string>, string][] = [
      ['no token', {}, 'MISSING_TOKEN'],
      ['another scheme', { Authorization: 'Basic dXNlcjpwYXNz' }, 'MISSING_TOKEN'],
      ['malformed', { Authorization: 'Bearer not-a-jwt' }, 'INVALID_TOKEN'],
      ['three garbage parts', { 'x-jwt': 'a.b.c' }, 'INVALID_TOKEN'],
      ['alg none', { Authorization: `Bearer ${new UnsecuredJWT(payload).encode()}` }, 'INVALID_TOKEN'],
      ['alg none with our kid', { Authorization: `Bearer ${b64({ alg: 'none', typ: 'JWT', kid })}.${b64(payload)}.` }, 'INVALID_TOKEN'],
      ['HS256 signed with JWT_SECRET (algorithm confusion)', { Authorization: `Bearer ${hs256(stack.jwtSecret, { alg: 'HS256', typ: 'JWT' })}` }, 'INVALID_TOKEN'],
      ['HS256 keyed with the published public key', { Authorization: `Bearer ${hs256(Buffer.from(jwk.x, 'base64url'), { alg: 'HS256', typ: 'JWT', kid })}` }, 'INVALID_TOKEN'],
      ['an unknown kid', { Authorization: `Bearer ${signWith(b64({ alg: 'EdDSA', typ: 'JWT', kid: 'retired-key' }), payload)}` }, 'INVALID_TOKEN'],
      ['a tampered payload', { Authorization: `Bearer ${ourHeader}.${b64({ ...payload, sub: demoWallet('whale').publicKey })}.${launchToken.split('.')[2]}` }, 'INVALID_TOKEN'],
      ['expired', { Authorization: `Bearer ${signWith(ourHeader, { ...payload, iat: now - 7200, exp: now - 60 })}` }, 'TOKEN_EXPIRED'],
      ['oversized', { Authorization: `Bearer ${'a'.repeat(9000)}.b.c` }, 'INVALID_TOKEN'],
    ];
    for (const [label, headers, code] of cases) {
      const result = await verify(headers, '?feature=blacklist&policy=launch');
      expect([result.status, result.body.error], label).toEqual([401, code]);
      expect(result.headers.get('www-authenticate'), label).toBe('Bearer realm="x404"');
      expect(typeof result.body.message).toBe('string');
    }
    // The expired case is refused for its expiry alone: the same token, in date, passes.
    expect((await verify({ Authorization: `Bearer ${signWith(ourHeader, { ...payload, iat: now, exp: now + 60 })}` }, '?feature=blacklist&policy=launch')).status).toBe(200);
  });

  it('answers 401 for a token of another feature or policy, and when requirements disagree', async () => {
    const auth = { Authorization: `Bearer ${launchToken}` };
    const expectRefusal = async (query: string, headers: Record<string, string>, code: string): Promise<void> => {
      const result = await verify({ ...auth, ...headers }, query);
      expect([result.status, result.body.error], `${query} ${JSON.stringify(headers)}`).toEqual([401, code]);
    };
    await expectRefusal('?feature=tier', {}, 'FEATURE_MISMATCH');
    await expectRefusal('?feature=blacklist&policy=free', {}, 'POLICY_MISMATCH');
    await expectRefusal('?feature=blacklist&policy=launch', { 'X-404-Policy': 'free' }, 'POLICY_MISMATCH');
    await expectRefusal('?feature=blacklist', { 'X-404-Feature': 'tier' }, 'FEATURE_MISMATCH');
    // A requirement the gate does not know is a 401 too, never a 400: nginx auth_request would turn a 400 into a 500.
    const unknown = await verify(auth, '?feature=blacklist&policy=vip-launch');
    expect([unknown.status, unknown.body.error]).toEqual([401, 'POLICY_MISMATCH']);
    expect(unknown.body.message).toContain('vip-launch');
    expect([(await verify(auth, '?feature=blacklst')).status, (await verify(auth, '?feature=blacklst')).body.error]).toEqual([401, 'FEATURE_MISMATCH']);
    expect((await verify(auth, '?rule=launch-rule')).body.error).toBe('POLICY_MISMATCH');
  });

  it('refuses, with 401 INVALID_REQUIREMENT, any route it cannot read — with or without a token, never passing one', async () => {
    const auth = { Authorization: `Bearer ${launchToken}` };
    // The correctly typed route passes this token.
    expect((await verify(auth, '?feature=blacklist&policy=launch')).status).toBe(200);
    const routes: [string, RegExp][] = [
      ['/x404_verify/?feature=blacklist&policy=launch', /served at \/x404_verify exactly.*"\/x404_verify\/".*FORWARD_AUTH_SUBPATHS=true/],
      ['/x404_verify/api/mint', /served at \/x404_verify exactly/],
      ['/X404_VERIFY?feature=blacklist&policy=launch', /served at \/x404_verify exactly/],
      ['/x404_verifyx?feature=blacklist', /served at \/x404_verify exactly/],
      ['/x404_verify?feature=blacklist&polcy=launch', /unknown parameter "polcy"; the parameters are feature, policy and rule/],
      ['/x404_verify?FEATURE=blacklist&POLICY=launch', /parameter "FEATURE" must be written feature \(lower case\)/],
      ['/x404_verify?feature=blacklist&Policy=launch', /parameter "Policy" must be written policy/],
      ['/x404_verify?feature=blacklist&feature=blacklist&policy=launch', /parameter feature is given more than once/],
      ['/x404_verify?feature=blacklist&policy=launch&policy=free', /parameter policy is given more than once/],
      ['/x404_verify?feature=blacklist&policy=', /parameter policy has no readable value/],
      ['/x404_verify?feature=blacklist&policy', /parameter policy has no readable value/],
      ['/x404_verify?feature=blacklist&policy=%E0%A4%A', /parameter policy has no readable value/],
      ['/x404_verify?feature=blacklist&&policy=launch', /an empty parameter/],
      ['/x404_verify?feature=blacklist&policy=launch&_t=1717171717', /unknown parameter "_t"/],
      ['/x404_verify?policy=launch', /policy "launch" is named without its feature/],
    ];
    for (const [route, message] of routes) {
      for (const headers of [auth, {}]) {
        const result = await get(`${stack.gateUrl}${route}`, headers);
        expect([result.status, result.body.error], route).toEqual([401, 'INVALID_REQUIREMENT']);
        expect(result.body.message, route).toMatch(message);
        expect(result.headers.get('www-authenticate')).toBe('Bearer realm="x404"');
      }
    }
    // The same for a policy sent as a header without its feature.
    const headerOnly = await verify({ ...auth, 'X-404-Policy': 'launch' });
    expect([headerOnly.status, headerOnly.body.error]).toEqual([401, 'INVALID_REQUIREMENT']);
  });

  it('is asked with any method (the guarded request\'s), OPTIONS included, and is not rate limited', async () => {
    const pool = new RawPool(stack.gate.port, 1);
    try {
      for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS', 'HEAD']) {
        const refused = await pool.send({ method, target: '/x404_verify', headers: [] }, { close: method === 'HEAD' });
        expect(refused.status, method).toBe(401);
        const passed = await pool.send({ method, target: '/x404_verify?feature=blacklist', headers: [['Authorization', `Bearer ${launchToken}`]] }, { close: method === 'HEAD' });
        expect(passed.status, method).toBe(200);
      }
    } finally {
      pool.close();
    }
  });
});

describe('POLICY_MODE=open: a caller\'s own policy, and Envoy\'s subpaths (FORWARD_AUTH_SUBPATHS)', () => {
  let open: GateProcess;
  let ownToken: string;
  let namedToken: string;
  beforeAll(async () => {
    open = await startGate({ rpcUrl: stack.localnet.url, env: { POLICIES_FILE: join(dir, 'policies.json'), FORWARD_AUTH_SUBPATHS: 'true' } });
    // The attack of issue 25: a token got under the caller's own, empty policy.
    ownToken = (await authenticate({ baseUrl: open.url, feature: 'blacklist', policy: { excluded_mints: [], max_holdings: {} }, signer: { secretKey: clean.secretKey }, storage: false })).token;
    namedToken = (await authenticate({ baseUrl: open.url, feature: 'blacklist', policyName: 'launch', signer: { secretKey: clean.secretKey }, storage: false })).token;
  }, 60_000);
  afterAll(async () => {
    await open?.stop('SIGKILL');
  });
  const ask = (route: string, token: string, headers: Record<string, string> = {}) => get(`${open.url}${route}`, { Authorization: `Bearer ${token}`, ...headers });

  it('a mistyped route never lets the caller-policy token through', async () => {
    expect((await ask('/x404_verify?feature=blacklist&policy=launch', namedToken)).status).toBe(200);
    const pinnedRoute = await ask('/x404_verify?feature=blacklist&policy=launch', ownToken);
    expect([pinnedRoute.status, pinnedRoute.body.error]).toEqual([401, 'POLICY_MISMATCH']);
    for (const route of ['/x404_verify?feature=blacklist&polcy=launch', '/x404_verify?FEATURE=blacklist&POLICY=launch', '/x404_verify?feature=blacklist&policy=launch&policy=launch', '/x404_verify?policy=launch']) {
      for (const token of [ownToken, namedToken]) {
        const result = await ask(route, token);
        expect([result.status, result.body.error], route).toEqual([401, 'INVALID_REQUIREMENT']);
      }
    }
  });

  it('a route naming no policy answers X-404-Policy-Checked: none; a pinned route and a pinned gate do not', async () => {
    for (const token of [ownToken, namedToken]) {
      const unpinned = await ask('/x404_verify?feature=blacklist', token);
      expect([unpinned.status, unpinned.headers.get('x-404-policy-checked')]).toEqual([200, 'none']);
      expect((await ask('/x404_verify', token)).headers.get('x-404-policy-checked')).toBe('none');
    }
    const pinnedRoute = await ask('/x404_verify?feature=blacklist&policy=launch', namedToken);
    expect([pinnedRoute.status, pinnedRoute.headers.get('x-404-policy-checked'), pinnedRoute.headers.get('x-404-policy')]).toEqual([200, null, 'launch']);
    // The gate of the other tests runs POLICY_MODE=pinned: every token there was issued under the operator's policies.
    const pinnedGate = await verify({ Authorization: `Bearer ${launchToken}` }, '?feature=blacklist');
    expect([pinnedGate.status, pinnedGate.headers.get('x-404-policy-checked')]).toEqual([200, null]);
  });

  it('answers /x404_verify/<guarded path> with requirements from headers only; a query that reads as a requirement is refused', async () => {
    const route = { 'X-404-Feature': 'blacklist', 'X-404-Policy': 'launch' };
    expect((await ask('/x404_verify/api/mint?page=2&_t=5', namedToken, route)).status).toBe(200);
    const own = await ask('/x404_verify/api/mint', ownToken, route);
    expect([own.status, own.body.error]).toEqual([401, 'POLICY_MISMATCH']);
    for (const query of ['?policy=free', '?Feature=blacklist', '?page=1&POLICY=launch', '?x404_policy=free', '?x-404-rule=launch', '?rules[]=x', '?%70olicy=free']) {
      const result = await ask(`/x404_verify/api/mint${query}`, namedToken, route);
      expect([result.status, result.body.error], query).toEqual([401, 'INVALID_REQUIREMENT']);
      expect(result.body.message).toContain('requirements come from the X-404-Feature, X-404-Policy and X-404-Rule headers only');
    }
    expect((await get(`${open.url}/x404_verify/api/mint`)).body.error).toBe('MISSING_TOKEN');
    // The exact path still reads its query strictly.
    expect((await ask('/x404_verify?feature=blacklist&polcy=launch', namedToken)).body.error).toBe('INVALID_REQUIREMENT');
  });
});

describe('the session cookie (X404_SET_COOKIE)', () => {
  it('is set on a sign-in: HttpOnly, SameSite=Lax, Max-Age = token lifetime, Secure unless plain http://localhost', async () => {
    const signIn = async (headers: Record<string, string>): Promise<string> => {
      const { nonce } = await getNonce(stack.gateUrl, 'blacklist');
      const result = await get(`${stack.gateUrl}/x404_auth/blacklist?policy=launch`, { ...signedHeaders(clean.secretKey, nonce, 'blacklist'), ...headers });
      expect(result.status).toBe(200);
      return result.headers.get('set-cookie') ?? '';
    };
    const local = await signIn({});
    expect(local).toMatch(/^launch_session=[\w-]+\.[\w-]+\.[\w-]+; Path=\/; Max-Age=7200; HttpOnly; SameSite=Lax$/);
    expect(await signIn({ 'X-Forwarded-Proto': 'https' })).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
    // Re-authentication does not set it again.
    expect((await get(`${stack.gateUrl}/x404_auth/blacklist?policy=launch`, { 'x-jwt': launchToken })).headers.get('set-cookie')).toBeNull();
  });
});

describe('an HS256 gate', () => {
  it('serves forward auth with its HS256 tokens, and no JWKS', async () => {
    const plain = await startGate({ rpcUrl: stack.localnet.url });
    try {
      const { token } = await authenticate({ baseUrl: plain.url, feature: 'blacklist', policy: { excluded_mints: [], max_holdings: {} }, signer: { secretKey: clean.secretKey }, storage: false });
      expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
      expect(Object.keys(decodeJwt(token))).toEqual(['sub', 'feature', 'pol', 'iat', 'exp', 'jti']);
      const result = await get(`${plain.url}/x404_verify?feature=blacklist`, { Authorization: `Bearer ${token}` });
      expect([result.status, result.headers.get('x-404-wallet'), result.headers.get('x-404-policy')]).toEqual([200, clean.publicKey, null]);
      // An EdDSA token of the other gate is nothing to it.
      expect((await get(`${plain.url}/x404_verify`, { Authorization: `Bearer ${launchToken}` })).status).toBe(401);
      const jwks = await get(`${plain.url}/.well-known/jwks.json`);
      expect([jwks.status, jwks.body.error]).toEqual([404, 'NOT_FOUND']);
    } finally {
      await plain.stop('SIGKILL');
    }
  });
});

describe('JWT_ISSUER and JWT_AUDIENCE are checked wherever a token is accepted', () => {
  const gates: GateProcess[] = [];
  afterAll(async () => {
    await Promise.all(gates.map((gate) => gate.stop('SIGKILL')));
  });

  it('a token of another gate sharing JWT_SECRET (other iss, other aud, or none) → 401 at re-authentication, /x404_verify (Bearer, x-jwt, cookie), x404 verify and verifyGateToken', async () => {
    const secret = testSecret();
    const env = (claims: Record<string, string>): Record<string, string> => ({ JWT_SECRET: secret, ...claims });
    const ours = { JWT_ISSUER: 'https://gate-a.example', JWT_AUDIENCE: 'mint-a' };
    const started = await Promise.all(
      [ours, { JWT_ISSUER: 'https://gate-b.example', JWT_AUDIENCE: 'mint-a' }, { JWT_ISSUER: 'https://gate-a.example', JWT_AUDIENCE: 'mint-b' }, {}].map((claims) =>
        startGate({ rpcUrl: stack.localnet.url, env: env(claims) }),
      ),
    );
    gates.push(...started);
    const [gate, ...others] = started as [GateProcess, ...GateProcess[]];
    const policy = { excluded_mints: [], max_holdings: {} };
    const tokenOf = async (issuing: GateProcess): Promise<string> =>
      (await authenticate({ baseUrl: issuing.url, feature: 'blacklist', policy, signer: { secretKey: clean.secretKey }, storage: false })).token;
    const policyHeaders = { excluded_mints: '[]', max_holdings: '{}', geo_code: 'false', geo_code_locs: '' };

    const accepted = async (token: string): Promise<boolean[]> => [
      (await get(`${gate.url}/x404_auth/blacklist`, { 'x-jwt': token, ...policyHeaders })).status === 200,
      (await get(`${gate.url}/x404_verify?feature=blacklist`, { Authorization: `Bearer ${token}` })).status === 200,
      (await get(`${gate.url}/x404_verify?feature=blacklist`, { 'x-jwt': token })).status === 200,
      (await get(`${gate.url}/x404_verify?feature=blacklist`, { Cookie: `x404_token=${token}` })).status === 200,
      (await x404(['verify', token, '--feature', 'blacklist'], { env: { JWT_SECRET: secret, ...ours } })).code === 0,
      await verifyGateToken(token, { secret, feature: 'blacklist', issuer: ours.JWT_ISSUER, audience: ours.JWT_AUDIENCE }).then(() => true, () => false),
    ];
    expect(await accepted(await tokenOf(gate))).toEqual([true, true, true, true, true, true]);
    for (const other of others) {
      const token = await tokenOf(other);
      expect(await accepted(token), JSON.stringify(decodeJwt(token))).toEqual([false, false, false, false, false, false]);
      const refused = await get(`${gate.url}/x404_verify?feature=blacklist`, { Authorization: `Bearer ${token}` });
      expect([refused.status, refused.body.error]).toEqual([401, 'INVALID_TOKEN']);
      expect(refused.body.message).toMatch(/not issued by this gate \((The (iss|aud) claim (value is not allowed|is required)|None of aud claim values are allowed)/);
      const reauth = await get(`${gate.url}/x404_auth/blacklist`, { 'x-jwt': token, ...policyHeaders });
      expect([reauth.status, reauth.body.error]).toEqual([401, 'INVALID_TOKEN']);
    }
  });
});

describe('start-up errors of asymmetric tokens', () => {
  const base = (): Record<string, string> => ({ JWT_SECRET: testSecret(), SOLANA_RPC_URL: stack.localnet.url, PORT: '0', JWT_ALG: 'EdDSA', JWT_ISSUER: ISSUER });
  it.each([
    ['without JWT_ISSUER', () => ({ JWT_PRIVATE_KEYS_FILE: keysFile, JWT_ISSUER: '' }), /JWT_ISSUER is required with JWT_ALG=EdDSA/],
    ['without a key file', () => ({}), /JWT_PRIVATE_KEYS_FILE is required with JWT_ALG=EdDSA/],
    ['with a key file of the wrong type', () => ({ JWT_ALG: 'ES256', JWT_PRIVATE_KEYS_FILE: keysFile }), /JWT_PRIVATE_KEYS_FILE .*must be a P-256 key for JWT_ALG=ES256/],
    ['with a key file holding only a public key', () => {
      const path = join(dir, 'public.pem');
      writeFileSync(path, createPublicKey(readFileSync(keysFile)).export({ format: 'pem', type: 'spki' }));
      return { JWT_PRIVATE_KEYS_FILE: path };
    }, /key 1 signs, so it must be a private key/],
  ])('stops (exit 1, naming the variable) %s', async (_label, override, message) => {
    const run = await runGateExpectingExit({ ...base(), ...override() });
    expect(run.code).toBe(1);
    expect(run.output).toMatch(message);
  });
});


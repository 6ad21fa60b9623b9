import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { blacklistPolicy, challenge, decodeJwt, get, getNonce, login, newWallet, publicKeyOf, sign, signedHeaders } from '../helpers/client.js';
import { runGateExpectingExit, startGate, startStack, type GateProcess, type Stack } from '../helpers/gate.js';

/**
 * The gate core end to end: the real server (child process, random port) against the local chain
 * over HTTP. Rows of docs/api.md §2, §3, §4, §6, §7 and the blacklist row of §5.
 */
let stack: Stack;
let url: string;
let banned: string;
let bannedT22: string;
let capped: string;


function walletHolding(holdings: { mint: string; amount: string; program?: 'token' | 'token2022'; nonAta?: boolean }[]): Uint8Array {
  const secret = newWallet();
  const owner = publicKeyOf(secret);
  stack.localnet.state.setLamports(owner, 1_000_000_000);
  for (const holding of holdings) {
    stack.localnet.state.addTokenAccount({
      owner,
      mint: holding.mint,
      amount: holding.amount,
      program: holding.program ?? 'token',
      address: holding.nonAta ? stack.localnet.state.nextAddress('non-ata') : undefined,
    });
  }
  return secret;
}

beforeAll(async () => {
  stack = await startStack();
  url = stack.gateUrl;
  banned = stack.localnet.state.addMint({ decimals: 6, program: 'token' });
  bannedT22 = stack.localnet.state.addMint({ decimals: 9, program: 'token2022' });
  capped = stack.localnet.state.addMint({ decimals: 6, program: 'token' });
});
afterAll(async () => {
  await stack?.stop();
});
beforeEach(() => {
  stack.localnet.faults.clear();
});

const policy = () => blacklistPolicy({ excluded: [banned, bannedT22], max: { [capped]: '1000' } });

describe('routing, health and CORS (docs/api.md §2)', () => {
  it('GET /health answers ok with the service name', async () => {
    const { status, body, headers } = await get(`${url}/health`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'ok', service: 'x404-gate' });
    expect(headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('unknown paths and features are a JSON 404; other methods a JSON 405', async () => {
    for (const path of ['/nope', '/x404_auth/unknown', '/x404_auth/', '/x404_auth/blacklist/extra']) {
      const { status, body, headers } = await get(`${url}${path}`);
      expect(status, path).toBe(404);
      expect(body.error).toBe('NOT_FOUND');
      expect(headers.get('content-type')).toMatch(/^application\/json/);
    }
    const post = await fetch(`${url}/x404_auth/blacklist`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect((await post.json()).error).toBe('METHOD_NOT_ALLOWED');
  });

  it('answers a CORS preflight allowing every contract header, and exposes the nonce headers', async () => {
    const preflight = await fetch(`${url}/x404_auth/blacklist`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-404-nonce,excluded_mints' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    const allowed = preflight.headers.get('access-control-allow-headers')!.toLowerCase();
    for (const header of ['x-404-nonce', 'x-404-signature', 'x-404-addr', 'x-404-feature', 'x-jwt', 'excluded_mints', 'max_holdings', 'geo_code', 'geo_code_locs', 'x-lat', 'x-long', 'tier_config', 'check_protocols']) {
      expect(allowed).toContain(header);
    }
    const { headers } = await get(`${url}/x404_auth/blacklist`, { Origin: 'https://app.example' });
    expect(headers.get('access-control-allow-origin')).toBe('*');
    expect(headers.get('access-control-expose-headers')).toBe('X-404-Nonce, X-404-Mechanism');
  });

  it('ignores the query string and unknown extra headers', async () => {
    const { status, body } = await get(`${url}/x404_auth/tier?_t=123&x=y`, { Authorization: 'Bearer x', 'Content-Type': 'text/plain' });
    expect(status).toBe(200);
    expect(body.status).toBe('nonce_ready');
  });

  it('some but not all signature headers → 400 MISSING_HEADER naming what is missing', async () => {
    const { status, body } = await get(`${url}/x404_auth/blacklist`, { 'X-404-Nonce': 'abc' });
    expect(status).toBe(400);
    expect(body.error).toBe('MISSING_HEADER');
    expect(body.message).toContain('X-404-Signature');
    expect(body.message).toContain('X-404-Addr');
    expect(body.message).not.toContain('X-404-Nonce');
  });

  it('an invalid x-jwt without signature headers → 401 INVALID_TOKEN', async () => {
    const { status, body } = await get(`${url}/x404_auth/blacklist`, { 'x-jwt': 'not.a.token' });
    expect(status).toBe(401);
    expect(body.error).toBe('INVALID_TOKEN');
  });

  it('an invalid x-jwt beside a full set of signature headers is ignored', async () => {
    const wallet = walletHolding([]);
    const { status, body } = await login(url, 'blacklist', wallet, { ...policy(), 'x-jwt': 'garbage' });
    expect(status).toBe(200);
    expect(body.success).toBe(true);
  });
});

describe('nonces (docs/api.md §3)', () => {
  it('issues a nonce with headers, no-store and the JSON body', async () => {
    const { status, body, headers } = await get(`${url}/x404_auth/blacklist`);
    expect(status).toBe(200);
    const nonce = headers.get('x-404-nonce')!;
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(headers.get('x-404-mechanism')).toBe('SERVICE404');
    expect(headers.get('cache-control')).toBe('no-store');
    // Without SIWS_DOMAINS the default modes are the challenge, the off-chain message and the memo transaction.
    expect(body).toEqual({ status: 'nonce_ready', nonce, mechanism: 'SERVICE404', expiresIn: 300, signModes: ['challenge', 'offchain', 'memo-tx'] });
  });

  it('a nonce issued for another feature → 401 INVALID_NONCE', async () => {
    const wallet = walletHolding([]);
    const { nonce } = await getNonce(url, 'tier');
    const { status, body } = await get(`${url}/x404_auth/blacklist`, { ...signedHeaders(wallet, nonce, 'blacklist'), ...policy() });
    expect(status).toBe(401);
    expect(body.error).toBe('INVALID_NONCE');
  });

  it('a forged nonce → 401 INVALID_NONCE', async () => {
    const wallet = walletHolding([]);
    const forged = randomBytes(38).toString('base64url');
    const { status, body } = await get(`${url}/x404_auth/blacklist`, { ...signedHeaders(wallet, forged, 'blacklist'), ...policy() });
    expect(status).toBe(401);
    expect(body.error).toBe('INVALID_NONCE');
  });

  it('a used nonce → 401 NONCE_REUSED', async () => {
    const wallet = walletHolding([]);
    const { nonce } = await getNonce(url, 'blacklist');
    const headers = { ...signedHeaders(wallet, nonce, 'blacklist'), ...policy() };
    expect((await get(`${url}/x404_auth/blacklist`, headers)).status).toBe(200);
    const replay = await get(`${url}/x404_auth/blacklist`, headers);
    expect(replay.status).toBe(401);
    expect(replay.body.error).toBe('NONCE_REUSED');
  });

  it('40 concurrent uses of one nonce → exactly one 200, the rest NONCE_REUSED', async () => {
    const wallet = walletHolding([]);
    const { nonce } = await getNonce(url, 'blacklist');
    const headers = { ...signedHeaders(wallet, nonce, 'blacklist'), ...policy() };
    const results = await Promise.all(Array.from({ length: 40 }, () => get(`${url}/x404_auth/blacklist`, headers)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 401 && r.body.error === 'NONCE_REUSED')).toHaveLength(39);
  });

  it('a forged request does not burn the nonce: the owner can still use it', async () => {
    const owner = walletHolding([]);
    const attacker = newWallet();
    const { nonce } = await getNonce(url, 'blacklist');
    const forged = { ...signedHeaders(attacker, nonce, 'blacklist'), 'X-404-Addr': publicKeyOf(owner), ...policy() };
    const attempt = await get(`${url}/x404_auth/blacklist`, forged);
    expect(attempt.status).toBe(401);
    expect(attempt.body.error).toBe('INVALID_SIGNATURE');
    const real = await get(`${url}/x404_auth/blacklist`, { ...signedHeaders(owner, nonce, 'blacklist'), ...policy() });
    expect(real.status).toBe(200);
  });

  it('bad input (400) leaves the nonce unspent', async () => {
    const wallet = walletHolding([]);
    const { nonce } = await getNonce(url, 'blacklist');
    const bad = await get(`${url}/x404_auth/blacklist`, { ...signedHeaders(wallet, nonce, 'blacklist'), ...policy(), excluded_mints: '[' });
    expect(bad.status).toBe(400);
    const good = await get(`${url}/x404_auth/blacklist`, { ...signedHeaders(wallet, nonce, 'blacklist'), ...policy() });
    expect(good.status).toBe(200);
  });
});

describe('challenge and signature (docs/api.md §4)', () => {
  it('X-404-Addr that is not a 32-byte base58 key → 400 INVALID_HEADER', async () => {
    const wallet = walletHolding([]);
    const { nonce } = await getNonce(url, 'blacklist');
    for (const addr of ['0OIl', bs58.encode(randomBytes(31)), bs58.encode(randomBytes(33)), 'é']) {
      const { status, body } = await get(`${url}/x404_auth/blacklist`, { ...signedHeaders(wallet, nonce, 'blacklist'), 'X-404-Addr': addr, ...policy() });
      expect(status, addr).toBe(400);
      expect(body.error).toBe('INVALID_HEADER');
    }
  });

  it('signature of the wrong length, bad encoding, or of another challenge → 401 INVALID_SIGNATURE', async () => {
    const wallet = walletHolding([]);
    const { nonce } = await getNonce(url, 'blacklist');
    const base = { ...signedHeaders(wallet, nonce, 'blacklist'), ...policy() };
    const wrongPath = sign(wallet, `CHALLENGE::${nonce}::/x404_auth/tier::SERVICE404_BLACKLIST`);
    for (const signature of [bs58.encode(randomBytes(63)), '0OIl0OIl', wrongPath, bs58.encode(randomBytes(64))]) {
      const { status, body } = await get(`${url}/x404_auth/blacklist`, { ...base, 'X-404-Signature': signature });
      expect(status).toBe(401);
      expect(body.error).toBe('INVALID_SIGNATURE');
    }
  });

  it('X-404-Feature different from the path → 400 FEATURE_MISMATCH; missing → 400 MISSING_HEADER', async () => {
    const wallet = walletHolding([]);
    const { nonce } = await getNonce(url, 'blacklist');
    const base = { ...signedHeaders(wallet, nonce, 'blacklist'), ...policy() };
    const mismatch = await get(`${url}/x404_auth/blacklist`, { ...base, 'X-404-Feature': 'tier' });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error).toBe('FEATURE_MISMATCH');
    const { 'X-404-Feature': _, ...withoutFeature } = base;
    const missing = await get(`${url}/x404_auth/blacklist`, withoutFeature);
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('MISSING_HEADER');
  });
});

describe('blacklist (docs/api.md §5)', () => {
  it('a clean wallet gets a token bound to its key, the feature and the policy', async () => {
    const wallet = walletHolding([{ mint: capped, amount: '1000' }]);
    const { status, body, headers, text } = await login(url, 'blacklist', wallet, policy());
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, publicKey: publicKeyOf(wallet), feature: 'blacklist' });
    // Written by hand on this path: still plain JSON, each field once, in the documented order.
    expect(Object.keys(body)).toEqual(['success', 'token', 'publicKey', 'feature']);
    expect(text).toBe(JSON.stringify(body));
    expect(headers.get('cache-control')).toBe('no-store');
    const claims = decodeJwt(body.token);
    expect(claims).toMatchObject({ sub: publicKeyOf(wallet), feature: 'blacklist' });
    expect(claims.exp - claims.iat).toBe(30 * 86_400);
    expect(typeof claims.jti).toBe('string');
    expect(claims.pol).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('holding an excluded mint → 500 HOLDS_BANNED_TOKEN naming it', async () => {
    const wallet = walletHolding([{ mint: banned, amount: '1' }]);
    const { status, body } = await login(url, 'blacklist', wallet, policy());
    expect(status).toBe(500);
    expect(body.error).toBe('HOLDS_BANNED_TOKEN');
    expect(body.message).toContain(banned);
    expect(body.token).toBeUndefined();
  });

  it('an excluded Token-2022 mint held in its ATA counts', async () => {
    const wallet = walletHolding([{ mint: bannedT22, amount: '5', program: 'token2022' }]);
    const { status, body } = await login(url, 'blacklist', wallet, policy());
    expect(status).toBe(500);
    expect(body.error).toBe('HOLDS_BANNED_TOKEN');
    expect(body.message).toContain(bannedT22);
  });

  it('an empty token account of an excluded mint is not holding it', async () => {
    const wallet = walletHolding([{ mint: banned, amount: '0' }]);
    expect((await login(url, 'blacklist', wallet, policy())).status).toBe(200);
  });

  it('above a max_holdings entry → 403 EXCEEDS_MAX_HOLDING with the numbers; exactly at it passes', async () => {
    const over = walletHolding([{ mint: capped, amount: '1001' }]);
    const { status, body } = await login(url, 'blacklist', over, policy());
    expect(status).toBe(403);
    expect(body.error).toBe('EXCEEDS_MAX_HOLDING');
    expect(body.message).toContain(capped);
    expect(body.message).toContain('1001');
    expect(body.message).toContain('1000');
  });

  it('compares amounts as big integers beyond 2^53', async () => {
    const wallet = walletHolding([{ mint: capped, amount: '9007199254740993' }]);
    const atMax = await login(url, 'blacklist', wallet, blacklistPolicy({ max: { [capped]: '9007199254740993' } }));
    expect(atMax.status).toBe(200);
    const below = await login(url, 'blacklist', wallet, blacklistPolicy({ max: { [capped]: '9007199254740992' } }));
    expect(below.status).toBe(403);
  });

  it('banned tokens are checked before maximum holdings (spec order)', async () => {
    const wallet = walletHolding([{ mint: banned, amount: '1' }, { mint: capped, amount: '5000' }]);
    expect((await login(url, 'blacklist', wallet, policy())).body.error).toBe('HOLDS_BANNED_TOKEN');
  });

  it('by default an excluded mint held outside the ATA (any account the wallet owns) counts', async () => {
    const wallet = walletHolding([{ mint: banned, amount: '7', nonAta: true }]);
    const { status, body } = await login(url, 'blacklist', wallet, policy());
    expect(status).toBe(500);
    expect(body.error).toBe('HOLDS_BANNED_TOKEN');
  });

  it.each([
    ['excluded_mints', '[', 'INVALID_HEADER'],
    ['excluded_mints', '{"a":1}', 'INVALID_HEADER'],
    ['excluded_mints', '["not-a-mint"]', 'INVALID_HEADER'],
    ['max_holdings', '[]', 'INVALID_HEADER'],
    ['max_holdings', '{"x":"1"}', 'INVALID_HEADER'],
    ['geo_code', 'yes', 'INVALID_HEADER'],
    ['geo_code_locs', 'France', 'INVALID_HEADER'],
  ])('%s = %s → 400 %s', async (header, value, code) => {
    const wallet = walletHolding([]);
    const { status, body } = await login(url, 'blacklist', wallet, { ...policy(), [header]: value });
    expect(status).toBe(400);
    expect(body.error).toBe(code);
    expect(body.message).toContain(header);
  });

  it('amounts that are decimals, negative or above u64 → 400', async () => {
    const wallet = walletHolding([]);
    for (const amount of ['1.5', '-1', '18446744073709551616', '1e3']) {
      const { status } = await login(url, 'blacklist', wallet, blacklistPolicy({ max: { [capped]: amount } }));
      expect(status, amount).toBe(400);
    }
  });

  it('a list over 100 entries → 400 INVALID_HEADER', async () => {
    const wallet = walletHolding([]);
    const mints = Array.from({ length: 101 }, () => bs58.encode(randomBytes(32)));
    const { status, body } = await login(url, 'blacklist', wallet, blacklistPolicy({ excluded: mints }));
    expect(status).toBe(400);
    expect(body.error).toBe('INVALID_HEADER');
  });

  it('100-entry lists fit in the header limit and are checked', async () => {
    const wallet = walletHolding([]);
    const mints = Array.from({ length: 100 }, () => bs58.encode(randomBytes(32)));
    const max = Object.fromEntries(mints.map((mint) => [mint, '1000000']));
    const { status } = await login(url, 'blacklist', wallet, blacklistPolicy({ excluded: [...mints.slice(0, 99), banned], max }));
    expect(status).toBe(200);
  });

  it.each(['excluded_mints', 'max_holdings', 'geo_code', 'geo_code_locs'])('missing %s → 400 MISSING_HEADER', async (header) => {
    const wallet = walletHolding([]);
    const { [header]: _, ...rest } = policy();
    const { status, body } = await login(url, 'blacklist', wallet, rest);
    expect(status).toBe(400);
    expect(body.error).toBe('MISSING_HEADER');
    expect(body.message).toContain(header);
  });

  it('geolocation: allowed country passes, another → 401 locdeny, bad coordinates → 500 locerror', async () => {
    const wallet = walletHolding([]);
    const paris = { 'X-Lat': '48.8566', 'X-Long': '2.3522' };
    const geo = blacklistPolicy({ excluded: [banned], geo: true, locs: 'fr,de' });
    expect((await login(url, 'blacklist', wallet, { ...geo, ...paris })).status).toBe(200);

    const newYork = { 'X-Lat': '40.7128', 'X-Long': '-74.0060' };
    const denied = await login(url, 'blacklist', wallet, { ...geo, ...newYork });
    expect(denied.status).toBe(401);
    expect(denied.body.status).toBe('locdeny');
    expect(typeof denied.body.message).toBe('string');

    for (const coordinates of [{}, { 'X-Lat': '91', 'X-Long': '0' }, { 'X-Lat': 'abc', 'X-Long': '2' }] as Record<string, string>[]) {
      const failed = await login(url, 'blacklist', wallet, { ...geo, ...coordinates });
      expect(failed.status).toBe(500);
      expect(failed.body.status).toBe('locerror');
    }
    const anywhere = await login(url, 'blacklist', wallet, { ...blacklistPolicy({ geo: true, locs: '' }), ...newYork });
    expect(anywhere.status).toBe(200);
  });

  it('geolocation runs after the chain checks', async () => {
    const wallet = walletHolding([{ mint: banned, amount: '1' }]);
    const geo = { ...blacklistPolicy({ excluded: [banned], geo: true, locs: 'FR' }), 'X-Lat': '40.7', 'X-Long': '-74' };
    expect((await login(url, 'blacklist', wallet, geo)).body.error).toBe('HOLDS_BANNED_TOKEN');
  });
});

describe('tokens and re-authentication (docs/api.md §6)', () => {
  it('a valid token re-authenticates for its feature without signing', async () => {
    const wallet = walletHolding([]);
    const { body } = await login(url, 'blacklist', wallet, policy());
    const reauth = await get(`${url}/x404_auth/blacklist`, { 'x-jwt': body.token });
    expect(reauth.status).toBe(200);
    expect(reauth.body).toMatchObject({ success: true, alreadyAuthenticated: true, publicKey: publicKeyOf(wallet), feature: 'blacklist' });
    expect(new Date(reauth.body.expiresAt).getTime()).toBe(decodeJwt(body.token).exp * 1000);
  });

  it('the same policy headers re-authenticate; different ones → 401 POLICY_MISMATCH', async () => {
    const wallet = walletHolding([]);
    const { body } = await login(url, 'blacklist', wallet, policy());
    expect((await get(`${url}/x404_auth/blacklist`, { 'x-jwt': body.token, ...policy() })).status).toBe(200);
    const looser = await get(`${url}/x404_auth/blacklist`, { 'x-jwt': body.token, ...blacklistPolicy({ excluded: [] }) });
    expect(looser.status).toBe(401);
    expect(looser.body.error).toBe('POLICY_MISMATCH');
  });

  it('a token for another feature, a tampered token, or one signed with another secret → 401 INVALID_TOKEN', async () => {
    const wallet = walletHolding([]);
    const { body } = await login(url, 'blacklist', wallet, policy());
    expect((await get(`${url}/x404_auth/tier`, { 'x-jwt': body.token })).body.error).toBe('INVALID_TOKEN');
    const [header, payload, signature] = (body.token as string).split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: 'someone' })).toString('base64url')}.${signature}`;
    expect((await get(`${url}/x404_auth/blacklist`, { 'x-jwt': tampered })).body.error).toBe('INVALID_TOKEN');
    const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.`;
    expect((await get(`${url}/x404_auth/blacklist`, { 'x-jwt': unsigned })).status).toBe(401);
  });
});

describe('upstream failure and bad input (docs/api.md §7)', () => {
  it.each([
    ['http500', {}],
    ['http429', {}],
    ['timeout', {}],
    ['malformed', {}],
    ['malformed', { variant: 'no-value' }],
    ['rpc-error', {}],
  ] as const)('RPC %s → 503 UPSTREAM_UNAVAILABLE with Retry-After, no token', async (mode, extra) => {
    const wallet = walletHolding([]);
    stack.localnet.faults.set({ mode, ...extra });
    const { status, body, headers } = await login(url, 'blacklist', wallet, policy());
    stack.localnet.faults.clear();
    expect(status).toBe(503);
    expect(body.error).toBe('UPSTREAM_UNAVAILABLE');
    expect(body.token).toBeUndefined();
    expect(Number(headers.get('retry-after'))).toBeGreaterThan(0);
    // The nonce was spent before the chain was read, and given back when the read failed.
    expect(body.nonceSpent).toBe(false);
  });

  // The planned balances are read beside the signature check (docs/architecture.md): what that
  // read finds or fails with is never the answer to a signature that does not verify.
  it('a forged signature answers 401 INVALID_SIGNATURE, not what the chain says or whether it can be read', async () => {
    const holder = walletHolding([{ mint: banned, amount: '5' }]);
    const attacker = newWallet();
    for (const fault of [undefined, { mode: 'http500' as const }, { mode: 'timeout' as const }]) {
      if (fault) stack.localnet.faults.set(fault);
      const { nonce } = await getNonce(url, 'blacklist');
      const forged = { ...signedHeaders(attacker, nonce, 'blacklist'), 'X-404-Addr': publicKeyOf(holder), ...policy() };
      const attempt = await get(`${url}/x404_auth/blacklist`, forged);
      stack.localnet.faults.clear();
      expect(attempt.status, fault?.mode ?? 'chain up').toBe(401);
      expect(attempt.body.error).toBe('INVALID_SIGNATURE');
      // The nonce is still the owner's, and the owner gets the chain's real answer.
      const real = await get(`${url}/x404_auth/blacklist`, { ...signedHeaders(holder, nonce, 'blacklist'), ...policy() });
      expect(real.status).toBe(500);
      expect(real.body.error).toBe('HOLDS_BANNED_TOKEN');
    }
  });

  it('a single transient RPC failure is retried and the login succeeds', async () => {
    const wallet = walletHolding([]);
    stack.localnet.faults.set({ mode: 'http500', count: 1 });
    const { status } = await login(url, 'blacklist', wallet, policy());
    expect(status).toBe(200);
  });

  it('request headers over the limit → 431 HEADERS_TOO_LARGE as JSON', async () => {
    const { status, body } = await get(`${url}/x404_auth/blacklist`, { 'x-padding': 'a'.repeat(40_000) });
    expect(status).toBe(431);
    expect(body.error).toBe('HEADERS_TOO_LARGE');
  });
});

describe('gate configurations', () => {
  let gate: GateProcess | undefined;
  afterAll(async () => {
    await gate?.stop('SIGKILL');
  });

  it('refuses to start without JWT_SECRET or SOLANA_RPC_URL, naming the variable (exit 1)', async () => {
    const noSecret = await runGateExpectingExit({ SOLANA_RPC_URL: 'http://127.0.0.1:1' });
    expect(noSecret.code).toBe(1);
    expect(noSecret.output).toContain('JWT_SECRET');
    const noRpc = await runGateExpectingExit({ JWT_SECRET: 'x'.repeat(40) });
    expect(noRpc.code).toBe(1);
    expect(noRpc.output).toContain('SOLANA_RPC_URL');
    const badPort = await runGateExpectingExit({ JWT_SECRET: 'x'.repeat(40), SOLANA_RPC_URL: 'http://127.0.0.1:1', PORT: 'eighty' });
    expect(badPort.code).toBe(1);
    expect(badPort.output).toContain('PORT');
  });

  it('short NONCE_TTL_SECONDS and JWT_EXPIRY: expired nonce → NONCE_EXPIRED, expired token → INVALID_TOKEN', async () => {
    gate = await startGate({ rpcUrl: stack.localnet.url, env: { NONCE_TTL_SECONDS: '1', JWT_EXPIRY: '1s' } });
    const wallet = walletHolding([]);
    const { nonce } = await getNonce(gate.url, 'blacklist');
    const fresh = await get(`${gate.url}/x404_auth/blacklist`, { ...signedHeaders(wallet, nonce, 'blacklist'), ...policy() });
    expect(fresh.status).toBe(200);
    const { nonce: stale } = await getNonce(gate.url, 'blacklist');
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const late = await get(`${gate.url}/x404_auth/blacklist`, { ...signedHeaders(wallet, stale, 'blacklist'), ...policy() });
    expect(late.status).toBe(401);
    expect(late.body.error).toBe('NONCE_EXPIRED');
    const reauth = await get(`${gate.url}/x404_auth/blacklist`, { 'x-jwt': fresh.body.token });
    expect(reauth.status).toBe(401);
    expect(reauth.body.error).toBe('INVALID_TOKEN');
    await gate.stop('SIGKILL');
  });

  it('X404_MECHANISM changes the mechanism header and the challenge constant', async () => {
    gate = await startGate({ rpcUrl: stack.localnet.url, env: { X404_MECHANISM: 'ACMEGATE' } });
    const wallet = walletHolding([]);
    const { nonce, mechanism } = await getNonce(gate.url, 'blacklist');
    expect(mechanism).toBe('ACMEGATE');
    const old = await get(`${gate.url}/x404_auth/blacklist`, { ...signedHeaders(wallet, nonce, 'blacklist', 'SERVICE404'), ...policy() });
    expect(old.body.error).toBe('INVALID_SIGNATURE');
    const right = await get(`${gate.url}/x404_auth/blacklist`, {
      ...signedHeaders(wallet, nonce, 'blacklist'),
      'X-404-Signature': sign(wallet, challenge(nonce, 'blacklist', 'ACMEGATE')),
      ...policy(),
    });
    expect(right.status).toBe(200);
    await gate.stop('SIGKILL');
  });

  it('with HOLDINGS_SCOPE=ata a non-ATA account is not read (documented scope, bypassable)', async () => {
    gate = await startGate({ rpcUrl: stack.localnet.url, env: { HOLDINGS_SCOPE: 'ata' } });
    const wallet = walletHolding([{ mint: banned, amount: '7', nonAta: true }]);
    expect((await login(gate.url, 'blacklist', wallet, policy())).status).toBe(200);
    await gate.stop('SIGKILL');
  });

  it('fails over to the next SOLANA_RPC_URL when the first is unreachable', async () => {
    gate = await startGate({ rpcUrl: `http://127.0.0.1:1,${stack.localnet.url}` });
    const wallet = walletHolding([{ mint: banned, amount: '1' }]);
    const { status, body } = await login(gate.url, 'blacklist', wallet, policy());
    expect(status).toBe(500);
    expect(body.error).toBe('HOLDS_BANNED_TOKEN');
    await gate.stop('SIGKILL');
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoMint, demoWallet } from 'x404-localnet/fixture.js';
import { policyDigest } from '../../src/verifier/index.js';
import { blacklistPolicy, decodeJwt, get, getNonce, login, signedHeaders } from '../helpers/client.js';
import { runGateExpectingExit, startGate, startStack, testSecret, type GateProcess, type Stack } from '../helpers/gate.js';
import { eventually, launchPolicies } from '../helpers/launch.js';

/**
 * Operator policies against the real gate (HS256 here: policies do not need asymmetric tokens):
 * pinned and open mode, selection by header and query, the token's pol/pnm, re-authentication,
 * SIGHUP reloads (good and bad), and the start-up errors of a bad file.
 */
let dir: string;
let stack: Stack;
let pinned: GateProcess;
let open: GateProcess;
let policiesFile: string;
const clean = demoWallet('clean');
const launch = launchPolicies().blacklist!.launch!;
const auth = (gate: GateProcess, feature = 'blacklist', query = ''): string => `${gate.url}/x404_auth/${feature}${query}`;

async function signIn(gate: GateProcess, secretKey: Uint8Array, headers: Record<string, string>, query = '', feature = 'blacklist') {
  const { nonce } = await getNonce(gate.url, feature);
  return get(auth(gate, feature, query), { ...signedHeaders(secretKey, nonce, feature), ...headers });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'x404-policies-'));
  policiesFile = join(dir, 'policies.json');
  const policies = launchPolicies();
  policies.blacklist!.default = { excluded_mints: [demoMint('banned')], max_holdings: {} };
  writeFileSync(policiesFile, JSON.stringify(policies));
  stack = await startStack({ env: { POLICIES_FILE: policiesFile, POLICY_MODE: 'pinned' } });
  pinned = stack.gate;
  writeFileSync(join(dir, 'open.json'), JSON.stringify(launchPolicies()));
  open = await startGate({ rpcUrl: stack.localnet.url, env: { JWT_SECRET: stack.jwtSecret, POLICIES_FILE: join(dir, 'open.json') } });
}, 60_000);
afterAll(async () => {
  await open?.stop('SIGKILL');
  await stack?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('pinned mode', () => {
  it('says which policies exist: nonce body, /x404_policies', async () => {
    const { result } = await getNonce(pinned.url, 'blacklist');
    expect(result.body).toMatchObject({ status: 'nonce_ready', policyMode: 'pinned', policies: ['default', 'free', 'launch'] });
    expect((await getNonce(pinned.url, 'age')).result.body).toMatchObject({ policyMode: 'pinned', policies: [] });
    const listing = await get(`${pinned.url}/x404_policies`);
    expect(listing.status).toBe(200);
    expect(Object.keys(listing.body.policies)).toEqual(['blacklist', 'tier']);
    expect(listing.body.policies.blacklist.launch.pol).toBe(await policyDigest('blacklist', launch as never));
  });

  it('checks the operator\'s policy, not the caller\'s: selected by header or by ?policy=', async () => {
    const viaHeader = await signIn(pinned, clean.secretKey, { 'X-404-Policy': 'launch' });
    expect(viaHeader.status).toBe(200);
    expect(decodeJwt(viaHeader.body.token)).toMatchObject({ pnm: 'launch', pol: await policyDigest('blacklist', launch as never) });
    const viaQuery = await signIn(pinned, clean.secretKey, {}, '?policy=launch&_t=1');
    expect(decodeJwt(viaQuery.body.token).pnm).toBe('launch');

    // The policy applies although the request carries none of its headers.
    const banned = await signIn(pinned, demoWallet('banned-holder').secretKey, {}, '?policy=launch');
    expect([banned.status, banned.body.error]).toEqual([500, 'HOLDS_BANNED_TOKEN']);
    const whale = await signIn(pinned, demoWallet('whale').secretKey, { 'X-404-Policy': 'launch' });
    expect([whale.status, whale.body.error]).toEqual([403, 'EXCEEDS_MAX_HOLDING']);
    // The same wallet passes the operator's laxer policy.
    expect((await signIn(pinned, demoWallet('banned-holder').secretKey, { 'X-404-Policy': 'free' })).status).toBe(200);
  });

  it('refuses policy headers that differ from the named policy (401), and spends no nonce doing so', async () => {
    const { nonce } = await getNonce(pinned.url, 'blacklist');
    const headers = signedHeaders(demoWallet('banned-holder').secretKey, nonce, 'blacklist');
    const lax = await get(auth(pinned), { ...headers, ...blacklistPolicy(), 'X-404-Policy': 'launch' });
    expect([lax.status, lax.body.error]).toEqual([401, 'POLICY_MISMATCH']);
    // The same headers of the policy itself are fine, and the nonce is still unspent.
    const same = await get(auth(pinned), { ...headers, ...blacklistPolicy({ excluded: [demoMint('banned')], max: { [demoMint('usdc')]: '1000000000' } }), 'X-404-Policy': 'launch' });
    expect([same.status, same.body.error]).toEqual([500, 'HOLDS_BANNED_TOKEN']);
  });

  it('without a name: the default policy, or 400 MISSING_HEADER where the feature has none', async () => {
    const fallback = await signIn(pinned, clean.secretKey, {});
    expect(decodeJwt(fallback.body.token).pnm).toBe('default');
    const holder = await signIn(pinned, demoWallet('banned-holder').secretKey, {});
    expect(holder.body.error).toBe('HOLDS_BANNED_TOKEN');
    // Headers the caller chose are no way around the pin.
    const chosen = await signIn(pinned, demoWallet('banned-holder').secretKey, blacklistPolicy());
    expect([chosen.status, chosen.body.error]).toEqual([401, 'POLICY_MISMATCH']);
    const tier = await signIn(pinned, demoWallet('tier-gold').secretKey, { tier_config: '{"gold":{"mint":"x","amount":"1"}}' }, '', 'tier');
    expect([tier.status, tier.body.error, tier.body.missing]).toEqual([400, 'MISSING_HEADER', ['X-404-Policy']]);
    expect(tier.body.message).toContain('vip');
  });

  it('an unknown policy name is 400 INVALID_HEADER naming it', async () => {
    const unknown = await signIn(pinned, clean.secretKey, { 'X-404-Policy': 'lanch' });
    expect([unknown.status, unknown.body.error, unknown.body.header]).toEqual([400, 'INVALID_HEADER', 'X-404-Policy']);
    expect(unknown.body.message).toContain('"lanch"');
    const otherFeature = await signIn(pinned, demoWallet('tier-gold').secretKey, {}, '?policy=launch', 'tier');
    expect([otherFeature.status, otherFeature.body.error]).toEqual([400, 'INVALID_HEADER']);
  });

  it('re-authentication must match the selected policy', async () => {
    const token = (await signIn(pinned, clean.secretKey, { 'X-404-Policy': 'launch' })).body.token as string;
    expect((await get(auth(pinned), { 'x-jwt': token, 'X-404-Policy': 'launch' })).body.alreadyAuthenticated).toBe(true);
    expect((await get(auth(pinned, 'blacklist', '?policy=launch'), { 'x-jwt': token })).status).toBe(200);
    // Without a name the token's own policy (pnm) is the one checked: no X-404-Policy is needed to re-authenticate.
    const ownPolicy = await get(auth(pinned), { 'x-jwt': token });
    expect([ownPolicy.status, ownPolicy.body.alreadyAuthenticated]).toEqual([200, true]);
    const asDefault = await get(auth(pinned), { 'x-jwt': token, 'X-404-Policy': 'default' });
    expect([asDefault.status, asDefault.body.error]).toEqual([401, 'POLICY_MISMATCH']);
    const asFree = await get(auth(pinned), { 'x-jwt': token, 'X-404-Policy': 'free' });
    expect([asFree.status, asFree.body.error]).toEqual([401, 'POLICY_MISMATCH']);
  });
});

describe('pinned mode: a token names its policy', () => {
  it('re-authenticates and passes forward auth without X-404-Policy, also where the feature has no default policy', async () => {
    const signedIn = await signIn(pinned, demoWallet('tier-gold').secretKey, { 'X-404-Policy': 'vip' }, '', 'tier');
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    const token = signedIn.body.token as string;
    // tier has no "default" policy: a login without a name is 400, but the token's own policy is known.
    const reauth = await get(auth(pinned, 'tier'), { 'x-jwt': token });
    expect([reauth.status, reauth.body.alreadyAuthenticated]).toEqual([200, true]);
    const proxied = await get(`${pinned.url}/x404_verify?feature=tier`, { Authorization: `Bearer ${token}` });
    expect([proxied.status, proxied.headers.get('x-404-policy')]).toEqual([200, 'vip']);
  });
});

describe('SIGHUP', () => {
  it('reloads the file atomically: a changed policy invalidates its tokens, a bad file keeps the old set', async () => {
    const before = (await get(`${pinned.url}/x404_policies`)).body;
    const token = (await signIn(pinned, clean.secretKey, { 'X-404-Policy': 'launch' })).body.token as string;

    // A bad file: nothing changes, the log says why.
    writeFileSync(policiesFile, JSON.stringify({ blacklist: { launch: { ...launch, max_holdings: { nope: '1' } } } }));
    pinned.child.kill('SIGHUP');
    await eventually('the failed reload in the log', async () => pinned.output().includes('policy reload failed'));
    expect(pinned.output()).toMatch(/policy reload failed; keeping the previous policies"?/);
    expect(pinned.output()).toContain('blacklist policy \\"launch\\", field max_holdings');
    expect((await get(`${pinned.url}/x404_policies`)).body).toEqual(before);
    expect((await get(auth(pinned), { 'x-jwt': token, 'X-404-Policy': 'launch' })).status).toBe(200);

    // A good file tightening launch: its old tokens answer POLICY_MISMATCH, new sign-ins get the new pol.
    const tighter = launchPolicies();
    tighter.blacklist!.launch!.max_holdings = { [demoMint('usdc')]: '100000000' }; // 100 USDC: clean (25) still passes
    writeFileSync(policiesFile, JSON.stringify(tighter));
    pinned.child.kill('SIGHUP');
    await eventually('the new launch policy', async () => (await get(`${pinned.url}/x404_policies`)).body.policies.blacklist.launch.pol !== before.policies.blacklist.launch.pol);
    const stale = await get(auth(pinned), { 'x-jwt': token, 'X-404-Policy': 'launch' });
    expect([stale.status, stale.body.error]).toEqual([401, 'POLICY_MISMATCH']);
    const forward = await get(`${pinned.url}/x404_verify?feature=blacklist&policy=launch`, { Authorization: `Bearer ${token}` });
    expect([forward.status, forward.body.error]).toEqual([401, 'POLICY_MISMATCH']);
    const fresh = await signIn(pinned, clean.secretKey, { 'X-404-Policy': 'launch' });
    expect(decodeJwt(fresh.body.token).pol).toBe(await policyDigest('blacklist', tighter.blacklist!.launch as never));
    // "default" was removed by the reload: pinned blacklist requests now need a name.
    expect((await signIn(pinned, clean.secretKey, {})).body.error).toBe('MISSING_HEADER');
    expect((await getNonce(pinned.url, 'blacklist')).result.body.policies).toEqual(['free', 'launch']);
  });
});

describe('open mode with a policy file', () => {
  it('keeps today\'s behaviour without a name, and applies a named policy when asked', async () => {
    const own = await login(open.url, 'blacklist', demoWallet('banned-holder').secretKey, blacklistPolicy());
    expect(own.status).toBe(200);
    expect(decodeJwt(own.body.token).pnm).toBeUndefined();
    const named = await signIn(open, demoWallet('banned-holder').secretKey, {}, '?policy=launch');
    expect(named.body.error).toBe('HOLDS_BANNED_TOKEN');
    expect((await getNonce(open.url, 'blacklist')).result.body).toMatchObject({ policyMode: 'open', policies: ['free', 'launch'] });
  });
});

describe('a gate without a policy file', () => {
  it('answers an empty listing, a nonce body without policy fields, and 400 for a policy name', async () => {
    const plain = await startGate({ rpcUrl: stack.localnet.url });
    try {
      expect((await get(`${plain.url}/x404_policies`)).body).toEqual({ mode: 'open', policies: {} });
      expect(Object.keys((await getNonce(plain.url, 'blacklist')).result.body)).toEqual(['status', 'nonce', 'mechanism', 'expiresIn', 'signModes']);
      const named = await signIn(plain, clean.secretKey, { ...blacklistPolicy(), 'X-404-Policy': 'launch' });
      expect([named.status, named.body.error]).toEqual([400, 'INVALID_HEADER']);
      // ?policy= is ignored without a file, like any other query parameter.
      expect((await signIn(plain, clean.secretKey, blacklistPolicy(), '?policy=launch')).status).toBe(200);
    } finally {
      await plain.stop('SIGKILL');
    }
  });
});

describe('start-up errors', () => {
  const base = (): Record<string, string> => ({ JWT_SECRET: testSecret(), SOLANA_RPC_URL: stack.localnet.url, PORT: '0', POLICY_MODE: 'pinned' });
  it.each([
    ['over 1 MiB', () => JSON.stringify({ blacklist: { launch: { ...launch, geo_code_locs: `US${' '.repeat(1024 * 1024)}` } } }), /POLICIES_FILE .*a policy file may be at most 1 MiB/],
    ['an unknown feature', () => JSON.stringify({ blacklistt: {} }), /POLICIES_FILE .*unknown feature "blacklistt"/],
    ['an unknown field', () => JSON.stringify({ tier: { vip: { tier_config: {}, tiers: [] } } }), /POLICIES_FILE .*tier policy "vip", field tiers: unknown field/],
    ['an invalid field', () => JSON.stringify({ blacklist: { launch: { ...launch, excluded_mints: ['x'] } } }), /POLICIES_FILE .*blacklist policy "launch", field excluded_mints: "x" is not a base58/],
  ])('a policy file with %s stops the gate (exit 1, message naming it)', async (_label, content, message) => {
    const path = join(dir, `bad-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(path, content());
    const run = await runGateExpectingExit({ ...base(), POLICIES_FILE: path });
    expect(run.code).toBe(1);
    expect(run.output).toMatch(message);
  });

  it('pinned without a file, and a missing file, stop it too', async () => {
    const env = base();
    const noFile = await runGateExpectingExit(env);
    expect([noFile.code, /POLICY_MODE is pinned, which needs POLICIES_FILE/.test(noFile.output)]).toEqual([1, true]);
    const missing = await runGateExpectingExit({ ...env, POLICIES_FILE: join(dir, 'absent.json') });
    expect([missing.code, /POLICIES_FILE .*absent\.json: cannot be read \(ENOENT\)/.test(missing.output)]).toEqual([1, true]);
  });
});

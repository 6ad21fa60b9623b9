import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_COLLECTIONS } from 'x404-localnet/collections/fixture.js';
import { demoMint, demoWallet, type DemoWalletName } from 'x404-localnet/fixture.js';
import { decodeJwt, get, getNonce, login, newWallet, signedHeaders } from '../helpers/client.js';
import { runGateExpectingExit, startGate, startStack, testSecret, type Stack } from '../helpers/gate.js';
import { authenticate, memoryStorage, resolveSigner } from '../../src/sdk/index.js';
import { verifyGateToken } from '../../src/verifier/index.js';
import { eventually, x404 } from '../helpers/launch.js';
import { blockTimeDaysAgo } from 'x404-localnet/recipes.js';
import { loginCounted, newWallet as walletWithKey } from './features-kit.js';
import { documentCheck } from '../helpers/openapi-conformance.js';

/**
 * Rules (docs/rules.md) against the real gate and the local chain over HTTP: a launch's whole
 * condition from one signature, each way of failing it, the fewest chain reads, headers that
 * cannot weaken it, re-authentication while the rule is unchanged, and the start-up errors of a
 * bad rule.
 */
let dir: string;
let stack: Stack;
let policiesFile: string;
const address = (name: DemoWalletName): string => demoWallet(name).publicKey;
const secret = (name: DemoWalletName): Uint8Array => demoWallet(name).secretKey;

const tierBronze = { feature: 'tier', tier_config: { bronze: { mint: demoMint('tier'), amount: '100000000' } } };
const launchRule = {
  all: [
    { feature: 'blacklist', policy: 'launch' },
    { feature: 'age', min_wallet_age_days: '30' },
    { any: [{ wallets: 'snapshot.txt' }, tierBronze] },
    { not: { wallets: 'denied.txt' } },
    { atLeast: 2, of: [tierBronze, { feature: 'activity', min_transactions: '5', time_period_days: '30' }, { feature: 'nodebt' }] },
  ],
};

function policies(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    blacklist: { launch: { excluded_mints: [demoMint('banned'), demoMint('banned-t22')], max_holdings: { [demoMint('usdc')]: '1000000000' } } },
    rules: {
      launch: launchRule,
      'snapshot-or-old': { any: [{ wallets: 'snapshot.txt' }, { feature: 'age', min_wallet_age_days: '30' }] },
      holdings: {
        all: [
          { feature: 'blacklist', excluded_mints: [demoMint('banned')], max_holdings: {} },
          { feature: 'tier', tier_config: { bronze: { mint: demoMint('tier'), amount: '1' } } },
          { feature: 'multitoken', required_tokens: [{ mint: demoMint('usdc'), amount: '0' }, { mint: demoMint('bonk'), amount: '0' }], verification_mode: 'ALL' },
        ],
      },
      'deny-only': { not: { wallets: 'denied.txt' } },
      'holdings-and-nft': {
        all: [
          { feature: 'blacklist', excluded_mints: [demoMint('banned')], max_holdings: {} },
          { feature: 'tier', tier_config: { bronze: { mint: demoMint('tier'), amount: '1' } } },
          { feature: 'multitoken', required_tokens: [{ mint: demoMint('usdc'), amount: '0' }, { mint: demoMint('bonk'), amount: '0' }], verification_mode: 'ALL' },
          { feature: 'collection', collections: [DEMO_COLLECTIONS.a] },
        ],
      },
      'listed-or-nft': { all: [{ feature: 'blacklist', excluded_mints: [demoMint('banned')], max_holdings: {} }, { any: [{ feature: 'collection', collections: [DEMO_COLLECTIONS.a] }, { wallets: 'snapshot.txt' }] }] },
      'in-france': { all: [{ feature: 'blacklist', excluded_mints: [], max_holdings: {}, geo_code: true, geo_code_locs: 'FR' }] },
      'must-not-be-old': { not: { feature: 'age', min_wallet_age_days: '30' } },
      'old-and-active': { all: [{ feature: 'age', min_wallet_age_days: '30' }, { feature: 'activity', min_transactions: '5', time_period_days: '30' }] },
      ...overrides,
    },
  };
}

function writePolicies(content: Record<string, unknown>): void {
  writeFileSync(policiesFile, JSON.stringify(content));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'x404-rules-'));
  policiesFile = join(dir, 'policies.json');
  writeFileSync(join(dir, 'snapshot.txt'), ['# launch snapshot', address('old'), address('young'), address('banned-holder'), address('clean'), ''].join('\n'));
  writeFileSync(join(dir, 'denied.txt'), `${address('clean')}\n`);
  writePolicies(policies());
  stack = await startStack({ env: { POLICIES_FILE: policiesFile } });
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const ruleUrl = (rule: string): string => `${stack.gateUrl}/x404_auth/${rule}`;

describe('a launch rule: one signature, one token', () => {
  it('reads a wallet\'s history once for both age and activity (one first page, shared within the login)', async () => {
    const wallet = walletWithKey();
    const state = stack.localnet.state;
    for (const daysAgo of [45, 20, 10, 5, 3, 1]) state.addTransaction({ blockTime: blockTimeDaysAgo(state, daysAgo), feePayer: wallet.publicKey, instructions: [] });
    const result = await loginCounted(stack, 'old-and-active', wallet.secretKey, {});
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    expect(result.body.leaves).toMatchObject([{ feature: 'age', passed: true }, { feature: 'activity', passed: true }]);
    expect(result.calls.getSignaturesForAddress, JSON.stringify(result.calls)).toBe(1);
  });

  it('lets a wallet that meets the whole rule in, with each leaf in the answer and the outcome in the token', async () => {
    const result = await login(stack.gateUrl, 'launch', secret('old'));
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    expect(result.body).toMatchObject({ success: true, feature: 'launch', rule: 'launch', publicKey: address('old') });
    const leaves = result.body.leaves as { path: string; passed: boolean | null }[];
    expect(leaves.map((leaf) => leaf.path)).toEqual([
      '$.all[0]',
      '$.all[1]',
      '$.all[2].any[0]',
      '$.all[2].any[1]',
      '$.all[3].not',
      '$.all[4].of[0]',
      '$.all[4].of[1]',
      '$.all[4].of[2]',
    ]);
    expect(leaves[0]).toMatchObject({ feature: 'blacklist', policy: 'launch', passed: true });
    expect(leaves[1]).toMatchObject({ feature: 'age', passed: true });
    expect(leaves[2]).toMatchObject({ wallets: 'snapshot.txt', passed: true });
    // Decided by the snapshot list: the tier leaf beside it was not needed.
    expect(leaves[3]).toMatchObject({ feature: 'tier', passed: null });

    const listing = await get(`${stack.gateUrl}/x404_policies`);
    const claims = decodeJwt(result.body.token);
    expect(claims).toMatchObject({ sub: address('old'), feature: 'launch', rul: 'launch', pol: listing.body.rules.launch.pol });
    // One mark per leaf: the deny list did not list the wallet (0), which is what its `not` wants.
    expect(claims.lvs).toHaveLength(8);
    expect(claims.lvs.slice(0, 5)).toBe('111-0');
  });

  it('answers a failure with the status and error of the leaf that decided it, and the failed paths', async () => {
    const banned = await login(stack.gateUrl, 'launch', secret('banned-holder'));
    expect([banned.status, banned.body.error]).toEqual([500, 'HOLDS_BANNED_TOKEN']);
    expect(banned.body).toMatchObject({ rule: 'launch', failed: ['$.all[0]'], mint: demoMint('banned') });
    expect(banned.body.token).toBeUndefined();

    const young = await login(stack.gateUrl, 'launch', secret('young'));
    expect([young.status, young.body.error]).toEqual([500, 'WALLET_TOO_NEW']);
    // The deciding leaf is the first failing child of `all`; the account leaves of the first wave were read too.
    // Age and activity share the history wave: activity (too few transactions, also a failure) is
    // listed when its read answered before age decided the rule, and stopped otherwise.
    expect(young.body.failed.slice(0, 2)).toEqual(['$.all[1]', '$.all[4].of[0]']);
    expect([2, 3]).toContain(young.body.failed.length);
    if (young.body.failed.length === 3) expect(young.body.failed[2]).toBe('$.all[4].of[1]');

    // Not on the snapshot and no tier: `any` fails with its first leaf's answer.
    const stranger = await login(stack.gateUrl, 'snapshot-or-old', newWallet());
    expect([stranger.status, stranger.body.error]).toEqual([403, 'WALLET_NOT_LISTED']);
    expect(stranger.body.failed).toEqual(['$.any[0]', '$.any[1]']);

    const denied = await login(stack.gateUrl, 'deny-only', secret('clean'));
    expect([denied.status, denied.body.error]).toEqual([403, 'WALLET_DENIED']);
    expect((await login(stack.gateUrl, 'deny-only', secret('old'))).status).toBe(200);

    const old = await login(stack.gateUrl, 'must-not-be-old', secret('old'));
    expect([old.status, old.body.error]).toEqual([403, 'RULE_NOT_MET']);
    expect((await login(stack.gateUrl, 'must-not-be-old', secret('young'))).status).toBe(200);
  });

  it('signs in with a client that builds the path and the challenge from a name, exactly as for a feature', async () => {
    const { nonce, mechanism, result } = await getNonce(stack.gateUrl, 'launch');
    expect(result.body).toMatchObject({ status: 'nonce_ready', rule: 'launch' });
    expect(result.body.rules).toContain('launch');
    // CHALLENGE::<nonce>::/x404_auth/launch::SERVICE404_LAUNCH, the same construction as any feature's.
    const headers = signedHeaders(secret('old'), nonce, 'launch', mechanism);
    const answer = await get(ruleUrl('launch'), headers);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    // A feature's nonce answer lists the rules too.
    expect((await getNonce(stack.gateUrl, 'blacklist')).result.body.rules).toEqual(['deny-only', 'holdings', 'holdings-and-nft', 'in-france', 'launch', 'listed-or-nft', 'must-not-be-old', 'old-and-active', 'snapshot-or-old']);
  });

  it('binds nonces to the rule: one issued for a feature or another rule is refused', async () => {
    const forFeature = await getNonce(stack.gateUrl, 'blacklist');
    const misused = await get(ruleUrl('launch'), signedHeaders(secret('old'), forFeature.nonce, 'launch'));
    expect([misused.status, misused.body.error]).toEqual([401, 'INVALID_NONCE']);
    const forRule = await getNonce(stack.gateUrl, 'launch');
    const elsewhere = await get(ruleUrl('deny-only'), signedHeaders(secret('old'), forRule.nonce, 'deny-only'));
    expect([elsewhere.status, elsewhere.body.error]).toEqual([401, 'INVALID_NONCE']);
  });

  it('lets no header weaken a rule: policy headers and ?policy= beside it are refused before anything is spent', async () => {
    const { nonce } = await getNonce(stack.gateUrl, 'launch');
    const signed = signedHeaders(secret('banned-holder'), nonce, 'launch');
    const weaker: Record<string, string>[] = [{ excluded_mints: '[]' }, { max_holdings: '{}' }, { min_wallet_age_days: '0' }, { 'X-404-Policy': 'launch' }, { geo_code: 'false' }];
    for (const extra of weaker) {
      const answer = await get(ruleUrl('launch'), { ...signed, ...extra });
      expect([answer.status, answer.body.error], JSON.stringify(extra)).toEqual([401, 'POLICY_MISMATCH']);
    }
    const viaQuery = await get(`${ruleUrl('launch')}?policy=free`, signed);
    expect([viaQuery.status, viaQuery.body.error]).toEqual([401, 'POLICY_MISMATCH']);
    // The nonce was never spent: the plain request with it still runs the rule (and fails it honestly).
    const plain = await get(ruleUrl('launch'), signed);
    expect([plain.status, plain.body.error]).toEqual([500, 'HOLDS_BANNED_TOKEN']);
  });

  it('reads the caller\'s position for leaves that turn geolocation on', async () => {
    const paris = await login(stack.gateUrl, 'in-france', secret('clean'), { 'X-Lat': '48.8566', 'X-Long': '2.3522' });
    expect(paris.status, JSON.stringify(paris.body)).toBe(200);
    const newYork = await login(stack.gateUrl, 'in-france', secret('clean'), { 'X-Lat': '40.7128', 'X-Long': '-74.0060' });
    expect([newYork.status, newYork.body.status]).toEqual([401, 'locdeny']);
  });
});

describe('the fewest reads', () => {
  it('reads nothing from the chain when a wallet list decides an `any`', async () => {
    stack.localnet.resetStats();
    const result = await login(stack.gateUrl, 'snapshot-or-old', secret('young'));
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    expect(stack.localnet.stats().calls).toEqual({});
  });

  it('reads the accounts of blacklist + tier + multitoken together: the ATAs of the positive leaves in one getMultipleAccounts round, the excluded mint by mint', async () => {
    const gate = await startGate({ rpcUrl: stack.localnet.url, env: { POLICIES_FILE: policiesFile } });
    try {
      stack.localnet.resetStats();
      const result = await login(gate.url, 'holdings', secret('tier-gold'));
      expect(result.status, JSON.stringify(result.body)).toBe(200);
      const { calls, requestsWith } = stack.localnet.stats();
      // blacklist's excluded mint counts every account the wallet owns (one getTokenAccountsByOwner
      // by mint); tier and multitoken count their ATAs. On a cold gate one round also learns the mints' token programs.
      expect(calls.getTokenAccountsByOwner).toBe(1);
      expect(Object.keys(calls).sort()).toEqual(['getMultipleAccounts', 'getTokenAccountsByOwner']);
      expect(requestsWith.getMultipleAccounts).toBeLessThanOrEqual(2);
      stack.localnet.resetStats();
      expect((await login(gate.url, 'holdings', secret('portfolio'))).body.error).toBe('INSUFFICIENT_TOKENS');
      expect(stack.localnet.stats().requestsWith).toEqual({ getMultipleAccounts: 1, getTokenAccountsByOwner: 1 });
      expect(stack.localnet.stats().calls).toEqual({ getMultipleAccounts: 1, getTokenAccountsByOwner: 1 });
    } finally {
      await gate.stop('SIGKILL');
    }
  });

  it('with a collection leaf beside them: the token-account list and one getMultipleAccounts round, on a cold gate', async () => {
    // The collector holds NFTs of collection A; give it some of the tier mint too.
    stack.localnet.state.addTokenAccount({ owner: address('collector'), mint: demoMint('tier'), amount: 5_000_000, program: 'token' });
    const gate = await startGate({ rpcUrl: stack.localnet.url, env: { POLICIES_FILE: policiesFile } });
    try {
      stack.localnet.resetStats();
      const result = await login(gate.url, 'holdings-and-nft', secret('collector'));
      expect(result.status, JSON.stringify(result.body)).toBe(200);
      expect((result.body.leaves as { passed: boolean }[]).map((leaf) => leaf.passed)).toEqual([true, true, true, true]);
      const { calls, requestsWith } = stack.localnet.stats();
      // Balances come from the same token-account list the collection leaf reads: no ATA round at all.
      // The leaf's Core scan is shared across logins (PROGRAM_SCAN_SHARE_MS) and starts beside the list:
      // a cold gate sends it once for the window, whether or not this login needs it.
      expect(calls).toEqual({ getTokenAccountsByOwner: 2, getMultipleAccounts: calls.getMultipleAccounts, getProgramAccounts: 1 });
      expect(requestsWith.getTokenAccountsByOwner).toBe(1);
      expect(requestsWith.getMultipleAccounts).toBeLessThanOrEqual(2);
      console.log(`[rpc-cost] rule blacklist+tier+multitoken+collection, cold gate: ${JSON.stringify(calls)}, requests ${JSON.stringify(requestsWith)}`);
    } finally {
      await gate.stop('SIGKILL');
    }
  });

  it('reads no token-account list when the wallet list already decided the collection leaf away', async () => {
    stack.localnet.resetStats();
    const listed = await login(stack.gateUrl, 'listed-or-nft', secret('old'));
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect((listed.body.leaves as { passed: boolean | null }[]).map((leaf) => leaf.passed)).toEqual([true, null, true]);
    // Only blacklist's excluded mint, by mint (one call): not the wallet's whole list (one call per program).
    expect(stack.localnet.stats().calls.getTokenAccountsByOwner).toBe(1);
    // Not on the list: the collection leaf runs and reads the collector's token accounts.
    stack.localnet.resetStats();
    const collector = await login(stack.gateUrl, 'listed-or-nft', secret('collector'));
    expect(collector.status, JSON.stringify(collector.body)).toBe(200);
    expect(stack.localnet.stats().calls.getTokenAccountsByOwner).toBe(2);
  });

  it('runs history leaves only while the outcome is open: a failing account leaf stops the rule before them', async () => {
    stack.localnet.resetStats();
    const banned = await login(stack.gateUrl, 'launch', secret('banned-holder'));
    expect(banned.status).toBe(500);
    const { calls } = stack.localnet.stats();
    expect(calls.getSignaturesForAddress ?? 0).toBe(0);
    expect(calls.getProgramAccounts ?? 0).toBe(0);
  });
});

describe('fail closed', () => {
  it('answers 503 when a leaf the outcome needs cannot be read, and 200 when the outcome is decided without it', async () => {
    stack.localnet.faults.set({ mode: 'http500' });
    try {
      const needed = await login(stack.gateUrl, 'holdings', secret('tier-gold'));
      expect([needed.status, needed.body.error]).toEqual([503, 'UPSTREAM_UNAVAILABLE']);
      expect(needed.body.token).toBeUndefined();
      const decided = await login(stack.gateUrl, 'snapshot-or-old', secret('young'));
      expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    } finally {
      stack.localnet.faults.clear();
    }
  });
});

describe('re-authentication and reloads', () => {
  it('accepts the token at the rule while the rule is unchanged; a SIGHUP that changes it sends holders back to sign in', async () => {
    const signedIn = await login(stack.gateUrl, 'deny-only', secret('old'));
    expect(signedIn.status).toBe(200);
    const token = signedIn.body.token as string;
    const again = await get(ruleUrl('deny-only'), { 'x-jwt': token });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ success: true, alreadyAuthenticated: true, feature: 'deny-only', publicKey: address('old') });
    // The token is the rule's, not a feature's.
    expect((await get(`${stack.gateUrl}/x404_auth/blacklist`, { 'x-jwt': token })).status).toBe(401);
    // Policy headers beside a rule's token are refused too.
    expect((await get(ruleUrl('deny-only'), { 'x-jwt': token, excluded_mints: '[]' })).body.error).toBe('POLICY_MISMATCH');

    writeFileSync(join(dir, 'denied.txt'), `${address('clean')}\n${address('whale')}\n`);
    stack.gate.child.kill('SIGHUP');
    await eventually('the reloaded rule', async () => (await get(ruleUrl('deny-only'), { 'x-jwt': token })).status === 401);
    const stale = await get(ruleUrl('deny-only'), { 'x-jwt': token });
    expect(stale.body.error).toBe('POLICY_MISMATCH');
    expect((await login(stack.gateUrl, 'deny-only', secret('whale'))).body.error).toBe('WALLET_DENIED');
    writeFileSync(join(dir, 'denied.txt'), `${address('clean')}\n`);
    stack.gate.child.kill('SIGHUP');
    await eventually('the restored rule', async () => (await get(ruleUrl('deny-only'), { 'x-jwt': token })).status === 200);
  });

  it('keeps the loaded rules when a reload finds a bad file', async () => {
    writePolicies(policies({ launch: { all: [{ feature: 'age', min_wallet_age_days: 'soon' }] } }));
    stack.gate.child.kill('SIGHUP');
    await eventually('the failed reload in the log', async () => stack.gate.output().includes('policy reload failed'));
    expect((await login(stack.gateUrl, 'launch', secret('old'))).status).toBe(200);
    writePolicies(policies());
  });
});

describe('forward auth and the served document', () => {
  it('lets a proxy require a rule (?rule= or the rule as the feature): 200 with X-404-Rule while the rule is unchanged, 401 otherwise', async () => {
    const signedIn = await login(stack.gateUrl, 'launch', secret('old'));
    const bearer = { Authorization: `Bearer ${signedIn.body.token}` };
    const verify = (query: string, headers: Record<string, string> = bearer) => get(`${stack.gateUrl}/x404_verify${query}`, headers);

    for (const query of ['?rule=launch', '?feature=launch', '']) {
      const ok = await verify(query);
      expect(ok.status, `${query} ${JSON.stringify(ok.body)}`).toBe(200);
      expect(ok.headers.get('x-404-rule')).toBe('launch');
      expect(ok.headers.get('x-404-wallet')).toBe(address('old'));
    }
    expect((await verify('', { ...bearer, 'X-404-Rule': 'launch' })).status).toBe(200);
    // Another rule, a rule that does not exist, a feature or a policy: 401, never 400 (nginx would make a 400 a 500).
    for (const query of ['?rule=deny-only', '?rule=nope', '?feature=blacklist', '?policy=launch', '?feature=launch&rule=deny-only']) {
      const refused = await verify(query);
      expect(refused.status, query).toBe(401);
    }
    // A feature's token does not pass where a rule is required.
    const featureToken = (await login(stack.gateUrl, 'blacklist', secret('clean'), { excluded_mints: '[]', max_holdings: '{}', geo_code: 'false', geo_code_locs: '' })).body.token;
    expect((await verify('?rule=launch', { Authorization: `Bearer ${featureToken}` })).body.error).toBe('POLICY_MISMATCH');
  });

  it('describes each rule in /openapi.json, and the rule\'s answers conform to it', async () => {
    const doc = (await get(`${stack.gateUrl}/openapi.json`)).body;
    expect(doc.paths['/x404_auth/launch'].get.summary).toContain('rule launch');
    const errors = doc.paths['/x404_auth/launch'].get.responses;
    expect(errors['403'].content['application/json'].schema.allOf[1].properties.error.enum).toEqual(
      expect.arrayContaining(['EXCEEDS_MAX_HOLDING', 'WALLET_NOT_LISTED', 'WALLET_DENIED']),
    );
    const check = documentCheck(doc);
    check.conforms('/x404_auth/launch', 'get', (await getNonce(stack.gateUrl, 'launch')).result);
    const passed = await login(stack.gateUrl, 'launch', secret('old'));
    check.conforms('/x404_auth/launch', 'get', passed);
    check.conforms('/x404_auth/launch', 'get', await get(ruleUrl('launch'), { 'x-jwt': passed.body.token }));
    check.conforms('/x404_auth/launch', 'get', await login(stack.gateUrl, 'launch', secret('banned-holder')));
    check.conforms('/x404_auth/launch', 'get', await login(stack.gateUrl, 'launch', secret('young')));
    check.conforms('/x404_policies', 'get', await get(`${stack.gateUrl}/x404_policies`));
  });
});

describe('the SDK, the verifier and the CLI', () => {
  it('signs in to a rule with authenticate({ rule }), reuses the stored token, and the verifier checks rul and pol', async () => {
    const storage = memoryStorage();
    const signed: number[] = [];
    const keypair = await resolveSigner({ secretKey: secret('old') });
    const wallet = {
      publicKey: { toBase58: () => keypair.address },
      async signMessage(message: Uint8Array) {
        signed.push(message.length);
        return { signature: await keypair.sign!(message) };
      },
    };
    const first = await authenticate({ baseUrl: stack.gateUrl, rule: 'launch', signer: wallet, storage });
    expect(first).toMatchObject({ feature: 'launch', rule: 'launch', publicKey: address('old'), alreadyAuthenticated: false });
    const again = await authenticate({ baseUrl: stack.gateUrl, rule: 'launch', signer: wallet, storage });
    expect(again).toMatchObject({ rule: 'launch', alreadyAuthenticated: true, token: first.token });
    expect(signed).toHaveLength(1);

    const rulePol = (await get(`${stack.gateUrl}/x404_policies`)).body.rules.launch.pol as string;
    const claims = await verifyGateToken(first.token, { secret: stack.jwtSecret, rule: 'launch', rulePol, wallet: address('old') });
    expect(claims).toMatchObject({ rul: 'launch', feature: 'launch', pol: rulePol });
    await expect(verifyGateToken(first.token, { secret: stack.jwtSecret, rule: 'deny-only' })).rejects.toMatchObject({ code: 'FEATURE_MISMATCH' });
    await expect(verifyGateToken(first.token, { secret: stack.jwtSecret, rule: 'launch', rulePol: 'an-older-pol' })).rejects.toMatchObject({ code: 'POLICY_MISMATCH' });
    await expect(verifyGateToken(first.token, { secret: stack.jwtSecret, feature: 'blacklist' })).rejects.toMatchObject({ code: 'FEATURE_MISMATCH' });

    const refused = authenticate({ baseUrl: stack.gateUrl, rule: 'launch', signer: { secretKey: secret('banned-holder') }, storage: false });
    await expect(refused).rejects.toMatchObject({ code: 'HOLDS_BANNED_TOKEN', status: 500 });
  });

  it('x404 login --rule and x404 verify (the rule taken from the token)', async () => {
    const keypair = join(dir, 'old.json');
    writeFileSync(keypair, JSON.stringify([...secret('old')]));
    const login = await x404(['login', '--url', stack.gateUrl, '--rule', 'launch', '--keypair', keypair, '-q']);
    expect(login.code, login.stderr).toBe(0);
    const token = login.stdout.split('\n')[0]!;
    expect(decodeJwt(token)).toMatchObject({ rul: 'launch', sub: address('old') });
    const verified = await x404(['verify', token, '--secret', stack.jwtSecret]);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stderr).toContain('Valid rule launch token');
    expect((await x404(['verify', token, '--secret', stack.jwtSecret, '--rule', 'deny-only'])).code).toBe(1);
    expect((await x404(['login', '--url', stack.gateUrl, '--rule', 'launch', '--feature', 'blacklist', '--keypair', keypair])).code).toBe(2);
  });

  it('x404 check prints the whole tree with every leaf\'s outcome and figures, and exits by the verdict', async () => {
    const env = { POLICIES_FILE: policiesFile, SOLANA_RPC_URL: stack.localnet.url };
    const young = await x404(['check', '--rule', 'launch', '--wallet', address('young')], { env });
    expect(young.code, young.stderr).toBe(1);
    expect(young.stdout).toMatch(/✗ rule launch .* refused with 500 WALLET_TOO_NEW/);
    expect(young.stdout).toMatch(/✗ \$\.all\[1\]\s+age: failed — WALLET_TOO_NEW/);
    expect(young.stdout).toMatch(/walletAgeDays: 2/);
    // Exhaustive: the leaves a sign-in would skip are evaluated too.
    expect(young.stdout).toMatch(/\$\.all\[2\]\.any\[1\]\s+tier: failed/);
    expect(young.stdout).toMatch(/✓ \$\.all\[4\]\.of\[2\]\s+nodebt: passed/);

    const old = await x404(['check', '--rule', 'launch', '--wallet', address('old'), '--json'], { env });
    expect(old.code, old.stderr).toBe(0);
    const report = JSON.parse(old.stdout);
    expect(report).toMatchObject({ rule: 'launch', wallet: address('old'), passed: true });
    expect(report.leaves.every((leaf: { state: string }) => leaf.state !== 'skipped')).toBe(true);

    stack.localnet.faults.set({ mode: 'http500' });
    try {
      const unread = await x404(['check', '--rule', 'holdings', '--wallet', address('old')], { env: { ...env, RPC_RETRIES: '0' } });
      expect(unread.code).toBe(3);
      expect(unread.stdout).toMatch(/undecided — 503 UPSTREAM_UNAVAILABLE/);
    } finally {
      stack.localnet.faults.clear();
    }
    expect((await x404(['check', '--rule', 'nope', '--wallet', address('old')], { env })).code).toBe(2);
  });
});

describe('listing', () => {
  it('lists rules in /x404_policies with their digest and tree as loaded', async () => {
    const listing = await get(`${stack.gateUrl}/x404_policies`);
    expect(listing.status).toBe(200);
    const launch = listing.body.rules.launch;
    expect(launch.pol).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(launch.tree.all[0]).toMatchObject({ feature: 'blacklist', policy: 'launch' });
    expect(launch.tree.all[2].any[0]).toMatchObject({ wallets: 'snapshot.txt', addresses: 4 });
    expect(launch.tree.all[4]).toMatchObject({ atLeast: 2 });
  });

  it('answers 404 for a name that is neither a feature nor a rule', async () => {
    expect((await get(ruleUrl('no-such-rule'))).status).toBe(404);
  });
});

describe('start-up errors name the rule, the path and the field', () => {
  const startWith = async (content: unknown, files: Record<string, string> = {}) => {
    const folder = mkdtempSync(join(tmpdir(), 'x404-bad-rules-'));
    try {
      for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
      writeFileSync(join(folder, 'policies.json'), JSON.stringify(content));
      return await runGateExpectingExit({ JWT_SECRET: testSecret(), SOLANA_RPC_URL: 'http://127.0.0.1:9', POLICIES_FILE: join(folder, 'policies.json') });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  };

  it.each([
    [{ rules: { blacklist: { wallets: 'a.txt' } } }, {}, /rule "blacklist": a rule may not take a feature's name/],
    [{ rules: { launch: { all: [{ feature: 'age', min_wallet_age_days: 'soon' }] } } }, {}, /rule "launch" at \$\.all\[0\]: age field min_wallet_age_days/],
    [{ rules: { launch: { all: [{ feature: 'blacklist', policy: 'nope' }] } } }, {}, /rule "launch" at \$\.all\[0\]: blacklist has no policy "nope"/],
    [{ rules: { launch: { any: [{ wallets: 'list.txt' }] } } }, { 'list.txt': `${address('old')}\nnot-an-address\n` }, /rule "launch" at \$\.any\[0\]: wallet list .*list\.txt.* line 2/],
    [{ rules: { launch: { atLeast: 3, of: [{ wallets: 'l.txt' }] } } }, { 'l.txt': '' }, /rule "launch" at \$: "atLeast" must be a whole number from 1 to the 1 entries/],
    [{ rules: { launch: { all: [], any: [] } } }, {}, /rule "launch" at \$: has both all and any/],
    [{ rules: { launch: { not: { not: { not: { not: { not: { not: { not: { not: { wallets: 'l.txt' } } } } } } } } } } }, { 'l.txt': '' }, /deeper than 8 levels/],
    [{ rules: { launch: { any: Array.from({ length: 33 }, () => ({ wallets: 'l.txt' })) } } }, { 'l.txt': '' }, /at most 32 leaves/],
  ])('%j', async (content, files, message) => {
    const { code, output } = await startWith(content, files);
    expect(code).toBe(1);
    expect(output).toMatch(message);
  });
});

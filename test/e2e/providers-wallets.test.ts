import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeAddress } from '../../src/chain/address.js';
import { DEMO_COLLECTIONS } from 'x404-localnet/collections/fixture.js';
import { demoMint, demoWallet, type DemoWalletName } from 'x404-localnet/fixture.js';
import type { PresetName } from 'x404-localnet/provider-profile.js';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';
import { blacklistPolicy, login, type HttpResult } from '../helpers/client.js';
import { startGate, testSecret, type GateProcess } from '../helpers/gate.js';
import { expectRefusal, newWallet } from './features-kit.js';

/**
 * The gate behind providers that limit callers (issue 26, first "done when"; the local chain's
 * provider profiles, docs/local-chain.md "Provider profiles"): under each preset every feature, a
 * rule and the collection leaf answer as they do with no limits, or 503 only where the preset
 * itself refuses what the answer needs (a single endpoint that disables getProgramAccounts or has
 * no DAS cannot be worked around). Then what the reads of wallets promise against such providers:
 * scans a node answers from its index, token-account lists read with dataSlice, DAS with
 * tokenType, one Core scan per collection per window for concurrent logins, and a wallet over
 * TOKEN_ACCOUNTS_MAX refused with 500 HOLDINGS_LIMIT, never a 503.
 *
 * Each case starts with the provider's windows empty (the profile set again): what is compared is
 * the answer, not throughput under a budget (the bench and the load cases of issue 26 do that).
 */
const { a: A, g: G, c: C } = DEMO_COLLECTIONS;
const secret = (name: DemoWalletName): Uint8Array => demoWallet(name).secretKey;

interface Case {
  name: string;
  path: string;
  wallet: DemoWalletName;
  headers?: Record<string, string>;
  /** The answer with no limits: status, error code (null for a token), and claims that must match. */
  expected: Answer;
}
interface Answer {
  status: number;
  error: string | null;
  claims?: Record<string, unknown>;
}

const usdc = demoMint('usdc');
const CASES: Case[] = [
  { name: 'blacklist pass', path: 'blacklist', wallet: 'clean', headers: blacklistPolicy({ excluded: [demoMint('banned'), demoMint('banned-t22')] }), expected: { status: 200, error: null } },
  {
    name: 'blacklist: banned token outside the ATA',
    path: 'blacklist',
    wallet: 'banned-nonata',
    headers: blacklistPolicy({ excluded: [demoMint('banned'), demoMint('banned-t22')] }),
    expected: { status: 500, error: 'HOLDS_BANNED_TOKEN' },
  },
  {
    name: 'timelock',
    path: 'timelock',
    wallet: 'lock-steady',
    headers: { required_mint: demoMint('lock'), mint_amount: '1000000000', min_hold_duration_days: '30' },
    expected: { status: 200, error: null },
  },
  {
    name: 'multitoken',
    path: 'multitoken',
    wallet: 'portfolio',
    headers: { required_tokens: JSON.stringify([{ mint: usdc, amount: '1' }, { mint: demoMint('bonk'), amount: '1' }]) },
    expected: { status: 200, error: null },
  },
  { name: 'activity', path: 'activity', wallet: 'active', headers: { min_transactions: '5', time_period_days: '30' }, expected: { status: 200, error: null } },
  {
    name: 'tier',
    path: 'tier',
    wallet: 'tier-silver',
    headers: { tier_config: JSON.stringify({ bronze: { mint: demoMint('tier'), amount: '100000000' }, silver: { mint: demoMint('tier'), amount: '1000000000' } }) },
    expected: { status: 200, error: null, claims: { tier: 'silver' } },
  },
  { name: 'age', path: 'age', wallet: 'old', headers: { min_wallet_age_days: '30' }, expected: { status: 200, error: null } },
  { name: 'nodebt pass', path: 'nodebt', wallet: 'no-debt', headers: { check_protocols: '[]' }, expected: { status: 200, error: null } },
  { name: 'nodebt debtor', path: 'nodebt', wallet: 'debtor-save', headers: { check_protocols: '[]' }, expected: { status: 500, error: 'HAS_DEBT' } },
  {
    name: 'collection over every standard',
    path: 'collection',
    wallet: 'collector',
    headers: { collections: JSON.stringify([A, G, C]), min_count: '5' },
    expected: { status: 200, error: null, claims: { collectionNfts: 5 } },
  },
  { name: 'collection: Core', path: 'collection', wallet: 'core-holder', headers: { collections: JSON.stringify([C]) }, expected: { status: 200, error: null } },
  { name: 'rule with a collection leaf', path: 'holders', wallet: 'collector', expected: { status: 200, error: null } },
  { name: 'rule refused by its blacklist leaf', path: 'holders', wallet: 'banned-holder', expected: { status: 500, error: 'HOLDS_BANNED_TOKEN' } },
];

/** The rule: a blacklist (every account), a tier, nodebt and a collection leaf, all from one signature. */
const RULE = {
  all: [
    { feature: 'blacklist', excluded_mints: [demoMint('banned'), demoMint('banned-t22')], max_holdings: {} },
    { any: [{ feature: 'collection', collections: [A, C] }, { feature: 'tier', tier_config: { bronze: { mint: demoMint('tier'), amount: '1' } } }] },
  ],
};

/**
 * What each preset refuses that no client can route around on a single endpoint: a 503 with one
 * of these in the provider's refusal counters was forced by the limits.
 */
const FORCING: Record<PresetName, readonly string[]> = {
  none: [],
  // getProgramAccounts disabled (410) and no DAS: nodebt, Core and compressed NFTs cannot be read here.
  'public-mainnet': ['gpa-disabled', 'das-absent'],
  'batches-off': [],
  'history-batch-10': [],
  'per-call-budget': [],
};

let localnet: LocalnetHandle;
let dir: string;
const gates: GateProcess[] = [];

async function gate(env: Record<string, string> = {}): Promise<string> {
  const started = await startGate({
    rpcUrl: localnet.url,
    env: { JWT_SECRET: testSecret(), DAS_URL: localnet.url, POLICIES_FILE: join(dir, 'policies.json'), RPC_TIMEOUT_MS: '2000', RPC_RETRIES: '2', ...env },
  });
  gates.push(started);
  return started.url;
}

const answerOf = (result: HttpResult): Answer => ({ status: result.status, error: result.status === 200 ? null : ((result.body.error as string | undefined) ?? null) });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'x404-providers-'));
  writeFileSync(join(dir, 'policies.json'), JSON.stringify({ rules: { holders: RULE } }));
  localnet = await startLocalnet({ port: 0, recordCalls: 20_000 });
}, 60_000);
afterAll(async () => {
  await Promise.all(gates.map((started) => started.stop('SIGKILL')));
  await localnet?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.each(['none', 'public-mainnet', 'batches-off', 'history-batch-10', 'per-call-budget'] as PresetName[])('under the %s preset', (preset) => {
  let url: string;
  beforeAll(async () => {
    url = await gate();
  }, 30_000);
  afterAll(() => {
    localnet.profile.change('none');
  });

  it.each(CASES)('$name: the same answer as with no limits, or a 503 the preset forced', async (c) => {
    localnet.profile.change(preset);
    localnet.resetStats();
    const result = await login(url, c.path, secret(c.wallet), c.headers ?? {});
    const refused = localnet.stats().provider.refusedByReason;
    const answer = answerOf(result);
    // Forced: refused in this login, or refused earlier under this preset and remembered by the gate
    // (a method an endpoint refuses for good is not sent there again for RPC_REPROBE_MS).
    const remembered = preset !== 'none' && /every RPC endpoint refuses this method/.test(String(result.body?.message));
    const forced = remembered || Object.keys(refused).some((reason) => FORCING[preset].includes(reason));
    console.log(`[providers] ${preset} ${c.name}: ${answer.status} ${answer.error ?? ''} refused ${JSON.stringify(refused)}`);
    if (answer.status === 503 && forced) {
      expect(result.headers.get('retry-after')).not.toBeNull();
      return;
    }
    expect({ ...answer, refused }, JSON.stringify(result.body)).toEqual({ ...c.expected, claims: undefined, refused });
    if (c.expected.claims) expect(result.body).toMatchObject(c.expected.claims);
  });
});

describe('a node with secondary indexes only, token lists capped without dataSlice, DAS requiring tokenType', () => {
  let url: string;
  /** The call log's position before this block's logins: the last case reads every call they made. */
  let since: number;
  beforeAll(async () => {
    url = await gate();
    since = localnet.calls().last;
  }, 30_000);
  afterAll(() => {
    localnet.profile.change('none');
  });

  it.each(CASES)('$name: the same answer, and the provider refused nothing', async (c) => {
    // tokenAccountsLimit 1: any list of two or more accounts without dataSlice is refused (-32600).
    localnet.profile.change({ preset: 'none', unindexedTokenScan: 'refuse', tokenAccountsLimit: 1, das: 'requires-token-type' });
    localnet.resetStats();
    const result = await login(url, c.path, secret(c.wallet), c.headers ?? {});
    expect(answerOf(result), JSON.stringify(result.body)).toEqual({ status: c.expected.status, error: c.expected.error });
    expect(localnet.stats().provider.refusedCalls).toBe(0);
  });

  it('every scan, token list and DAS search the gate sent for those logins has the shape providers accept', () => {
    const calls = localnet.calls(since).calls;
    const lists = calls.filter((call) => call.method === 'getTokenAccountsByOwner');
    const scans = calls.filter((call) => call.method === 'getProgramAccounts');
    const searches = calls.filter((call) => call.method === 'searchAssets');
    expect(lists.length).toBeGreaterThan(0);
    expect(scans.length).toBeGreaterThan(0);
    expect(searches.length).toBeGreaterThan(0);
    // Token lists: 166 bytes per account (mint, owner, amount, state, Token-2022 account type), never whole accounts.
    for (const call of lists) expect((call.params as unknown[])[2]).toMatchObject({ encoding: 'base64', dataSlice: { offset: 0, length: 166 } });
    // No scan of a token program (those need the owner/mint index filters); each scan filtered, at most 4 filters.
    for (const call of scans) {
      const [program, config] = call.params as [string, { filters: unknown[] }];
      expect(['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb']).not.toContain(program);
      expect(config.filters.length).toBeGreaterThan(0);
      expect(config.filters.length).toBeLessThanOrEqual(4);
    }
    for (const call of searches) {
      const params = call.params as { tokenType: string; page: number; limit: number };
      expect(params.tokenType).toBe('compressedNft');
      expect(params.page).toBeGreaterThanOrEqual(1);
      expect(params.limit).toBeLessThanOrEqual(1000);
    }
    for (const call of calls) expect(call.answer).not.toContain('refused');
  });
});

describe('one Core scan per collection per window, shared by concurrent logins', () => {
  it('eight concurrent logins checking the same collection cost the provider one scan; each gets its own answer', async () => {
    const url = await gate({ PROGRAM_SCAN_SHARE_MS: '10000' });
    localnet.resetStats();
    const strangers = Array.from({ length: 7 }, () => newWallet().secretKey);
    const policy = { collections: JSON.stringify([C]) };
    const results = await Promise.all([secret('core-holder'), ...strangers].map((key) => login(url, 'collection', key, policy)));
    expect(results[0]!.status, JSON.stringify(results[0]!.body)).toBe(200);
    expect(results[0]!.body).toMatchObject({ collectionNfts: 1, standardsChecked: expect.arrayContaining(['core']) });
    for (const result of results.slice(1)) {
      const body = expectRefusal(result, 500, 'MISSING_COLLECTION_NFT');
      expect(body.byStandard).toMatchObject({ core: 0 });
    }
    expect(localnet.stats().calls.getProgramAccounts).toBe(1);
  });

  it('a failed shared scan fails every login waiting on it (503) and is not kept: the next login scans again', async () => {
    const url = await gate({ PROGRAM_SCAN_SHARE_MS: '10000', RPC_RETRIES: '0' });
    const policy = { collections: JSON.stringify([C]) };
    localnet.faults.set({ mode: 'rpc-error', methods: ['getProgramAccounts'], count: 1000 });
    let results: HttpResult[];
    try {
      results = await Promise.all([secret('core-holder'), newWallet().secretKey, newWallet().secretKey].map((key) => login(url, 'collection', key, policy)));
    } finally {
      localnet.faults.clear();
    }
    for (const result of results) {
      expect(result.status, JSON.stringify(result.body)).toBe(503);
      expect(result.body.error).toBe('UPSTREAM_UNAVAILABLE');
      expect(result.headers.get('retry-after')).not.toBeNull();
    }
    localnet.resetStats();
    const again = await login(url, 'collection', secret('core-holder'), policy);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(localnet.stats().calls.getProgramAccounts).toBe(1);
  });

  it('behind a node refusing scans, logins Token Metadata decides stop sending the shared scan after it failed once', async () => {
    const url = await gate({ PROGRAM_SCAN_SHARE_MS: '30000' });
    localnet.profile.change({ preset: 'none', getProgramAccounts: 'refused' });
    try {
      localnet.resetStats();
      for (let i = 0; i < 5; i++) {
        const result = await login(url, 'collection', secret('nft-holder'), { collections: JSON.stringify([A, C]) });
        expect(result.status, JSON.stringify(result.body)).toBe(200);
      }
      const { calls, provider } = localnet.stats();
      // The first login's prefetch (two collections, each tried RPC_RETRIES + 1 = 3 times); none after.
      expect(calls.getProgramAccounts).toBeGreaterThan(0);
      expect(calls.getProgramAccounts).toBeLessThanOrEqual(6);
      expect(provider.refusedByReason['gpa-refused']).toBe(calls.getProgramAccounts);
      // A login that needs the scan still sends it: 503, the chain could not be read.
      const core = await login(url, 'collection', secret('core-holder'), { collections: JSON.stringify([C]) });
      expect([core.status, core.body.error]).toEqual([503, 'UPSTREAM_UNAVAILABLE']);
    } finally {
      localnet.profile.change('none');
    }
  });

  it('with PROGRAM_SCAN_SHARE_MS=0 each login scans for its own wallet', async () => {
    const url = await gate({ PROGRAM_SCAN_SHARE_MS: '0' });
    localnet.resetStats();
    const results = await Promise.all([secret('core-holder'), newWallet().secretKey, newWallet().secretKey].map((key) => login(url, 'collection', key, { collections: JSON.stringify([C]) })));
    expect(results.map((result) => result.status)).toEqual([200, 500, 500]);
    expect(localnet.stats().calls.getProgramAccounts).toBe(3);
  });
});

describe('large wallets: bounded by TOKEN_ACCOUNTS_MAX, never a 503', () => {
  /** A new wallet owning `n` token accounts of BONK (none of them its ATA). */
  function walletWithAccounts(n: number): Uint8Array {
    const wallet = newWallet();
    for (let i = 0; i < n; i++) {
      localnet.state.addTokenAccount({ owner: wallet.publicKey, mint: demoMint('bonk'), amount: 1n, program: 'token', address: encodeAddress(randomBytes(32)) });
    }
    return wallet.secretKey;
  }

  let url: string;
  beforeAll(async () => {
    url = await gate({ TOKEN_ACCOUNTS_MAX: '20' });
  }, 30_000);
  afterAll(() => {
    localnet.profile.change('none');
  });

  it('a wallet within the bound is answered from its list though the provider refuses lists of over 10 accounts without dataSlice', async () => {
    localnet.profile.change({ preset: 'none', tokenAccountsLimit: 10 });
    const wallet = walletWithAccounts(15);
    const body = expectRefusal(await login(url, 'collection', wallet, { collections: JSON.stringify([A]) }), 500, 'MISSING_COLLECTION_NFT');
    expect(body.found).toBe(0);
    const banned = expectRefusal(await login(url, 'blacklist', wallet, blacklistPolicy({ excluded: [demoMint('bonk')] })), 500, 'HOLDS_BANNED_TOKEN');
    expect(banned.mint).toBe(demoMint('bonk'));
    expect(localnet.stats().provider.refusedByReason['token-accounts-too-many'] ?? 0).toBe(0);
  });

  it('a wallet over the bound gets 500 HOLDINGS_LIMIT naming the setting, whether its whole list or one mint is read', async () => {
    localnet.profile.change({ preset: 'none', tokenAccountsLimit: 10 });
    const wallet = walletWithAccounts(25);
    // collection reads the whole list; blacklist of one mint reads that mint's accounts.
    for (const [path, headers] of [
      ['collection', { collections: JSON.stringify([A]) }],
      ['blacklist', blacklistPolicy({ excluded: [demoMint('bonk')] })],
    ] as const) {
      const body = expectRefusal(await login(url, path, wallet, headers), 500, 'HOLDINGS_LIMIT');
      expect(body).toMatchObject({ setting: 'TOKEN_ACCOUNTS_MAX', bound: 20, found: 25 });
      expect(body.message).toContain('TOKEN_ACCOUNTS_MAX');
    }
    // A check that reads no list is not affected: its ATA holds nothing, so tier answers as for anyone.
    expectRefusal(await login(url, 'tier', wallet, { tier_config: JSON.stringify({ bronze: { mint: usdc, amount: '1' } }) }), 500, 'INSUFFICIENT_TOKENS');
  });
});

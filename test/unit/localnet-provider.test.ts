/**
 * Provider profiles over real HTTP against the local chain: each setting and preset answers the way
 * docs/local-chain.md says the providers it imitates answer — batches refused in both documented
 * shapes, per-class batch caps, a per-call budget (member errors in a 200, or 429 with or without
 * Retry-After), getProgramAccounts refused/disabled/throttled, large token-account lists refused,
 * DAS without tokenType, token scans without the owner-index filters, gzip — and what the counters
 * under /__localnet/stats report.
 */
import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { demoMint, demoWallet } from 'x404-localnet/fixture.js';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from 'x404-localnet/programs.js';
import { presetSettings } from 'x404-localnet/provider-profile.js';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';

let chain: LocalnetHandle;

beforeAll(async () => {
  chain = await startLocalnet({ port: 0 });
});
afterAll(async () => {
  await chain.close();
});
afterEach(() => {
  chain.profile.set(presetSettings('none'));
  chain.provider.set({ latencyMs: 0, requestsPerSecond: 0 });
  chain.resetStats();
});

interface RpcReply {
  jsonrpc: string;
  id: unknown;
  result?: any;
  error?: { code: number; message: string; data?: unknown };
}

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

async function post(payload: unknown): Promise<Answer> {
  const res = await fetch(chain.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

const call = (method: string, params?: unknown, id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params });

async function admin(route: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${chain.url}/__localnet/${route}`, { method: body === undefined ? 'GET' : 'POST', ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, body: await res.json() };
}

const wallet = (name: string) => demoWallet(name).publicKey;

describe('a chain without a profile (none)', () => {
  it('serves arrays and counts calls (batch members) apart from HTTP requests', async () => {
    const answer = await post([call('getSlot', [], 1), call('getSlot', [], 2), call('getBalance', [wallet('clean')], 3)]);
    expect(answer.status).toBe(200);
    expect(answer.body.map((reply: RpcReply) => reply.id)).toEqual([1, 2, 3]);
    await post(call('getSlot'));
    const stats = (await admin('stats')).body;
    expect(stats.provider).toMatchObject({ calls: 4, httpRequests: 2, refusedCalls: 0, refusedRequests: 0, refusedByReason: {}, gzipped: 0 });
  });
});

describe('batch: refuse', () => {
  it('batches-off answers any array (even of one call) HTTP 400 with one error object id null; single calls are served', async () => {
    chain.profile.change('batches-off');
    for (const array of [[call('getSlot', [], 1)], [call('getSlot', [], 1), call('getBalance', [wallet('clean')], 2)]]) {
      const answer = await post(array);
      expect(answer.status).toBe(400);
      expect(Array.isArray(answer.body)).toBe(false);
      expect(answer.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/not supported/) } });
    }
    const single = await post(call('getSlot'));
    expect(single.status).toBe(200);
    expect(single.body.result).toBeGreaterThan(0);
    const { provider } = (await admin('stats')).body;
    expect(provider).toMatchObject({ calls: 4, httpRequests: 3, refusedCalls: 3, refusedRequests: 2, refusedByReason: { 'batch-refused': 3 } });
    expect(provider.refusedByMethod).toEqual({ getSlot: { 'batch-refused': 2 }, getBalance: { 'batch-refused': 1 } });
  });

  it("batchRefusal error-object answers HTTP 200 with one error object (jsonrpsee's -32005) instead of an array", async () => {
    chain.profile.change({ batch: 'refuse', batchRefusal: 'error-object' });
    const answer = await post([call('getSlot', [], 7), call('getSlot', [], 8)]);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32005, message: 'Batched requests are not supported by this server' } });
  });
});

describe('per-class batch caps', () => {
  const signatures = (n: number) => Array.from({ length: n }, (_, i) => call('getSignaturesForAddress', [wallet('active'), { limit: 1 }], i));

  it('history-batch-10 serves 10 history calls beside others in one array and refuses 11 with HTTP 400', async () => {
    chain.profile.change('history-batch-10');
    const fits = await post([...signatures(10), call('getSlot', [], 'slot'), call('getBalance', [wallet('clean')], 'balance')]);
    expect(fits.status).toBe(200);
    expect(fits.body).toHaveLength(12);
    expect(fits.body.every((reply: RpcReply) => reply.error === undefined)).toBe(true);
    const over = await post([...signatures(6), ...Array.from({ length: 5 }, (_, i) => call('getTransaction', [bs58.encode(Buffer.alloc(64, i + 1))], `tx${i}`))]);
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/limit of 10 history calls/) } });
    expect((await admin('stats')).body.provider.refusedByReason).toEqual({ 'batch-cap': 11 });
  });

  it("in the error-object form, a cap exceeded is jsonrpsee's -32010 'The batch request was too large'; caps may name a method", async () => {
    chain.profile.change({ batchCaps: { getBalance: 1 }, batchRefusal: 'error-object' });
    const answer = await post([call('getBalance', [wallet('clean')], 1), call('getBalance', [wallet('whale')], 2)]);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32010, message: 'The batch request was too large', data: 'Exceeded max limit of 1' } });
    expect((await post([call('getBalance', [wallet('clean')], 1), call('getSlot', [], 2)])).status).toBe(200);
  });
});

describe('a per-call budget (every batch member counts)', () => {
  it('answers the members over the budget with the rate-limit error inside an HTTP 200 and serves the rest', async () => {
    chain.profile.change({ preset: 'per-call-budget', callsPerSecond: 5 });
    const answer = await post(Array.from({ length: 8 }, (_, i) => call('getSlot', [], i)));
    expect(answer.status).toBe(200);
    const replies = answer.body as RpcReply[];
    expect(replies.filter((reply) => typeof reply.result === 'number').map((reply) => reply.id)).toEqual([0, 1, 2, 3, 4]);
    expect(replies.slice(5)).toEqual([5, 6, 7].map((id) => ({ jsonrpc: '2.0', id, error: { code: 429, message: 'The requests per second (RPS) of your requests are higher than your plan allows.' } })));
    const { provider } = (await admin('stats')).body;
    expect(provider).toMatchObject({ calls: 8, httpRequests: 1, refusedCalls: 3, refusedRequests: 0, refusedByReason: { budget: 3 } });
  });

  it('answers a single call over the budget HTTP 429 with its id and a Retry-After until the window frees it', async () => {
    chain.profile.change({ preset: 'per-call-budget', callsPerSecond: 2 });
    expect((await post(call('getSlot', [], 1))).status).toBe(200);
    expect((await post(call('getSlot', [], 2))).status).toBe(200);
    const refused = await post(call('getSlot', [], 3));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body).toEqual({ jsonrpc: '2.0', id: 3, error: { code: 429, message: expect.any(String) } });
    // A refused call does not use the budget: a second later the window has room again.
    await new Promise((resolve) => setTimeout(resolve, 1050));
    expect((await post(call('getSlot', [], 4))).status).toBe(200);
  });

  it('sends no Retry-After with retryAfter none, a fixed one with a number, and the named error shapes', async () => {
    chain.profile.change({ callsPerSecond: 1, retryAfter: 'none', rateLimitError: 'code-32429' });
    await post(call('getSlot'));
    const bare = await post(call('getSlot', [], 'x'));
    expect(bare.status).toBe(429);
    expect(bare.headers.get('retry-after')).toBeNull();
    expect(bare.body.error).toEqual({ code: -32429, message: 'rate limited' });
    chain.profile.change({ callsPerSecond: 1, retryAfter: 10, rateLimitError: { code: 7429, message: 'Rate Limited' } });
    await post(call('getSlot'));
    const fixed = await post(call('getSlot'));
    expect(fixed.headers.get('retry-after')).toBe('10');
    expect(fixed.body.error).toEqual({ code: 7429, message: 'Rate Limited' });
  });

  it('reject-batch answers a whole array that does not fit HTTP 429 (id null) and uses none of the budget for it', async () => {
    chain.profile.change({ callsPerSecond: 5, budgetOverflow: 'reject-batch' });
    const tooMany = await post(Array.from({ length: 6 }, (_, i) => call('getSlot', [], i)));
    expect(tooMany.status).toBe(429);
    expect(tooMany.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: 429 } });
    expect(Number(tooMany.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const fits = await post(Array.from({ length: 5 }, (_, i) => call('getSlot', [], i)));
    expect(fits.status).toBe(200);
    expect((fits.body as RpcReply[]).every((reply) => typeof reply.result === 'number')).toBe(true);
    expect((await post([call('getSlot')])).status).toBe(429);
    expect((await admin('stats')).body.provider).toMatchObject({ refusedCalls: 7, refusedRequests: 2, refusedByReason: { budget: 7 } });
  });

  it('public-mainnet: 40 calls of one method per 10 s, then HTTP 429 with the public body and no Retry-After; other methods still pass', async () => {
    chain.profile.change('public-mainnet');
    for (let i = 0; i < 40; i++) expect((await post(call('getSlot', [], i))).status).toBe(200);
    const refused = await post(call('getSlot', [], 40));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeNull();
    expect(refused.body).toEqual({ jsonrpc: '2.0', id: 40, error: { code: 429, message: expect.stringMatching(/^Too many requests for a specific RPC call/) } });
    expect((await post(call('getBalance', [wallet('clean')]))).status).toBe(200);
    expect((await admin('stats')).body.provider.refusedByReason).toEqual({ 'budget-method': 1 });
  });
});

describe('getProgramAccounts', () => {
  const scan = (id: unknown = 1) => call('getProgramAccounts', ['So1endDq2YkqhipRh3WViPa8hdiSpxWy6z3Z6tMCpAo', { encoding: 'base64', filters: [{ dataSize: 1300 }] }], id);

  it("refused: agave's -32010 naming the program, inside an HTTP 200, alone or as one member of an array", async () => {
    chain.profile.change({ getProgramAccounts: 'refused' });
    const alone = await post(scan(5));
    expect(alone.status).toBe(200);
    expect(alone.body).toEqual({
      jsonrpc: '2.0',
      id: 5,
      error: { code: -32010, message: 'So1endDq2YkqhipRh3WViPa8hdiSpxWy6z3Z6tMCpAo excluded from account secondary indexes; this RPC method unavailable for key' },
    });
    const mixed = await post([call('getSlot', [], 1), scan(2)]);
    expect(mixed.status).toBe(200);
    expect(typeof mixed.body[0].result).toBe('number');
    expect(mixed.body[1].error.code).toBe(-32010);
    expect((await admin('stats')).body.provider.refusedByMethod).toEqual({ getProgramAccounts: { 'gpa-refused': 2 } });
  });

  it('disabled: HTTP 410 "The RPC call or parameters have been disabled." alone; a member error with code 410 inside an array', async () => {
    chain.profile.change({ getProgramAccounts: 'disabled' });
    const alone = await post(scan(9));
    expect(alone.status).toBe(410);
    expect(alone.body).toEqual({ jsonrpc: '2.0', id: 9, error: { code: 410, message: 'The RPC call or parameters have been disabled.' } });
    const mixed = await post([scan(1), call('getSlot', [], 2)]);
    expect(mixed.status).toBe(200);
    expect(mixed.body[0].error).toEqual({ code: 410, message: 'The RPC call or parameters have been disabled.' });
    expect(typeof mixed.body[1].result).toBe('number');
  });

  it('throttled: over getProgramAccountsPerSecond a scan gets the rate-limit error (429 alone) while other calls pass', async () => {
    chain.profile.change({ getProgramAccountsPerSecond: 2 });
    expect((await post(scan(1))).status).toBe(200);
    expect((await post(scan(2))).status).toBe(200);
    const third = await post(scan(3));
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('1');
    const mixed = await post([scan(4), call('getSlot', [], 5)]);
    expect(mixed.body[0].error.code).toBe(429);
    expect(typeof mixed.body[1].result).toBe('number');
    expect((await admin('stats')).body.provider.refusedByReason).toEqual({ 'gpa-throttled': 2 });
  });
});

describe('Token-2022 scans and the owner index (agave get_spl_token_owner_filter)', () => {
  const owner = wallet('portfolio');
  const byOwner = { memcmp: { offset: 32, bytes: owner } };
  const scan2022 = (filters: unknown[]) => call('getProgramAccounts', [TOKEN_2022_PROGRAM, { encoding: 'base64', filters }]);

  it('refuse: an owner memcmp alone is an unindexed scan of the whole program, refused -32010; the index shapes are served', async () => {
    chain.profile.change({ unindexedTokenScan: 'refuse' });
    const unindexed = await post(scan2022([byOwner]));
    expect(unindexed.body.error).toEqual({ code: -32010, message: `${TOKEN_2022_PROGRAM} excluded from account secondary indexes; this RPC method unavailable for key` });
    const typeByte = await post(scan2022([{ memcmp: { offset: 165, bytes: bs58.encode([2]) } }, byOwner]));
    const state = await post(scan2022(['tokenAccountState', byOwner]));
    const size = await post(scan2022([{ dataSize: 165 }, byOwner]));
    for (const served of [typeByte, state, size]) expect(served.body.error).toBeUndefined();
    // The portfolio's Token-2022 account carries extensions: the type byte and tokenAccountState find it, dataSize 165 does not.
    expect(typeByte.body.result).toHaveLength(1);
    expect(state.body.result.map((a: any) => a.pubkey)).toEqual(typeByte.body.result.map((a: any) => a.pubkey));
    expect(size.body.result).toEqual([]);
    // SPL Token: memcmp at 165 is not an index shape (its accounts are 165 bytes); dataSize 165 is.
    expect((await post(call('getProgramAccounts', [TOKEN_PROGRAM, { encoding: 'base64', filters: [{ memcmp: { offset: 165, bytes: bs58.encode([2]) } }, byOwner] }]))).body.error.code).toBe(-32010);
    expect((await post(call('getProgramAccounts', [TOKEN_PROGRAM, { encoding: 'base64', filters: [{ dataSize: 165 }, byOwner] }]))).body.result.length).toBeGreaterThanOrEqual(2);
    expect((await admin('stats')).body.provider.refusedByReason).toEqual({ 'unindexed-token-scan': 2 });
  });

  it('slow: an unindexed scan is answered after unindexedScanMs, an indexed one at once', async () => {
    chain.profile.change({ unindexedTokenScan: 'slow', unindexedScanMs: 400 });
    let started = performance.now();
    const slow = await post(scan2022([byOwner]));
    const slowMs = performance.now() - started;
    started = performance.now();
    await post(scan2022(['tokenAccountState', byOwner]));
    const fastMs = performance.now() - started;
    expect(slow.body.result).toHaveLength(1);
    expect(slowMs).toBeGreaterThanOrEqual(390);
    expect(fastMs).toBeLessThan(slowMs);
  });
});

describe('large token-account lists', () => {
  it('refuses getTokenAccountsByOwner over tokenAccountsLimit without dataSlice with -32600; dataSlice or a mint filter is served', async () => {
    const owner = Keypair.generate().publicKey.toBase58();
    for (const name of ['usdc', 'bonk', 'banned'] as const) await admin('token-account', { owner, mint: demoMint(name), amount: '1', program: 'token' });
    chain.profile.change({ tokenAccountsLimit: 2 });
    const whole = await post(call('getTokenAccountsByOwner', [owner, { programId: TOKEN_PROGRAM }, { encoding: 'base64' }]));
    expect(whole.status).toBe(200);
    expect(whole.body.error).toEqual({ code: -32600, message: expect.stringMatching(/3 accounts, over this endpoint's limit of 2/) });
    const sliced = await post(call('getTokenAccountsByOwner', [owner, { programId: TOKEN_PROGRAM }, { encoding: 'base64', dataSlice: { offset: 64, length: 8 } }]));
    expect(sliced.body.result.value).toHaveLength(3);
    const oneMint = await post(call('getTokenAccountsByOwner', [owner, { mint: demoMint('usdc') }, { encoding: 'base64' }]));
    expect(oneMint.body.result.value).toHaveLength(1);
    expect((await admin('stats')).body.provider.refusedByReason).toEqual({ 'token-accounts-too-many': 1 });
  });
});

describe('DAS', () => {
  const search = (params: Record<string, unknown>) => call('searchAssets', { ownerAddress: wallet('collector'), ...params });

  it('requires-token-type refuses searchAssets without tokenType (-32602) and serves it with one; tokenType narrows the items', async () => {
    chain.profile.change({ das: 'requires-token-type' });
    const without = await post(search({}));
    expect(without.body.error).toEqual({ code: -32602, message: expect.stringMatching(/requires tokenType, one of fungible, nonFungible, regularNft, compressedNft, all/) });
    const all = await post(search({ tokenType: 'all' }));
    const compressed = await post(search({ tokenType: 'compressedNft' }));
    const regular = await post(search({ tokenType: 'regularNft' }));
    const fungible = await post(search({ tokenType: 'fungible' }));
    expect(all.body.result.items.length).toBeGreaterThan(0);
    expect(compressed.body.result.items.every((item: any) => item.compression.compressed)).toBe(true);
    expect(compressed.body.result.items.length + regular.body.result.items.length).toBe(all.body.result.items.length);
    expect(fungible.body.result.items).toEqual([]);
    expect((await post(search({ tokenType: 'nft' }))).body.error.code).toBe(-32602);
  });

  it('absent (public-mainnet): the DAS methods are not served (-32601)', async () => {
    chain.profile.change('public-mainnet');
    expect((await post(search({ tokenType: 'all' }))).body.error).toEqual({ code: -32601, message: 'Method not found' });
  });
});

describe('gzip', () => {
  /** A raw HTTP exchange (fetch would decode the body and hide what was sent). */
  function raw(payload: unknown, headers: Record<string, string>): Promise<{ status: number; encoding: string | undefined; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(chain.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end(JSON.stringify(payload));
    });
  }
  const large = call('getMultipleAccounts', [[wallet('clean'), demoMint('usdc'), demoMint('bonk'), demoMint('t22')], { encoding: 'base64' }]);

  it('answers Content-Encoding: gzip when asked and the profile allows it; plain otherwise', async () => {
    chain.profile.change({ gzip: true });
    const zipped = await raw(large, { 'accept-encoding': 'gzip, deflate' });
    expect(zipped.encoding).toBe('gzip');
    const decoded = JSON.parse(gunzipSync(zipped.body).toString('utf8')) as RpcReply;
    expect(decoded.result.value).toHaveLength(4);
    expect((await raw(large, {})).encoding).toBeUndefined();
    expect((await raw(large, { 'accept-encoding': 'gzip;q=0' })).encoding).toBeUndefined();
    // Small bodies go as they are, as HTTP lets a server choose.
    expect((await raw(call('getSlot'), { 'accept-encoding': 'gzip' })).encoding).toBeUndefined();
    expect((await admin('stats')).body.provider.gzipped).toBe(1);
    chain.profile.change('none');
    expect((await raw(large, { 'accept-encoding': 'gzip' })).encoding).toBeUndefined();
  });
});

describe('setting a profile', () => {
  it('POST /__localnet/provider {profile} answers the settings in force, beside latency and rate', async () => {
    const { status, body } = await admin('provider', { profile: 'batches-off' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ latencyMs: 0, requestsPerSecond: 0, profile: { preset: 'batches-off', batch: 'refuse', batchRefusal: 'http-400', gzip: true } });
    const custom = await admin('provider', { latencyMs: 5, profile: { preset: 'per-call-budget', callsPerSecond: 300 } });
    expect(custom.body).toMatchObject({ latencyMs: 5, profile: { preset: 'custom', budget: { calls: 300, windowMs: 1000, perMethod: 0 }, batch: 'ok' } });
    // Left out, the profile stays.
    expect((await admin('provider', { latencyMs: 0 })).body.profile.budget.calls).toBe(300);
  });

  it('refuses a bad profile with 400 and changes nothing (latency included)', async () => {
    chain.profile.change('history-batch-10');
    for (const profile of ['fast', { batch: 'sometimes' }, { callsPerSecond: -1 }, { budget: { calls: 1, windowMs: 0 } }, { rateLimitError: 'teapot' }, { surprise: 1 }]) {
      const { status, body } = await admin('provider', { latencyMs: 50, profile });
      expect(status).toBe(400);
      expect(body.error).toEqual(expect.any(String));
    }
    expect(chain.provider.current().latencyMs).toBe(0);
    expect(chain.profile.current().preset).toBe('history-batch-10');
  });

  it('startLocalnet({ profile }) starts with it', async () => {
    const other = await startLocalnet({ port: 0, state: chain.state, blockMs: 0, profile: 'batches-off' });
    try {
      const res = await fetch(other.url, { method: 'POST', body: JSON.stringify([call('getSlot')]) });
      expect(res.status).toBe(400);
      await res.arrayBuffer();
    } finally {
      await other.close();
    }
  });
});

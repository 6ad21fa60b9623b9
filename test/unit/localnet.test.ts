/**
 * The local chain speaks Solana's JSON-RPC wire format over real HTTP: shapes, limits, errors,
 * batches, the body limit, fault injection, counters and admin routes.
 */
import bs58 from 'bs58';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { demoMint, demoWallet } from 'x404-localnet/fixture.js';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';

/** HTTP requests and calls by method (the local chain also reports round trips per method, left out here). */
const requestsAndCalls = ({ httpRequests, calls }: { httpRequests: number; calls: Record<string, number> }) => ({ httpRequests, calls });

let chain: LocalnetHandle;

beforeAll(async () => {
  chain = await startLocalnet({ port: 0 });
});
afterAll(async () => {
  await chain.close();
});
afterEach(() => {
  chain.faults.set({ mode: 'none' });
  chain.provider.set({ latencyMs: 0, requestsPerSecond: 0 });
  chain.ledger.reset();
});

interface RpcReply {
  jsonrpc: string;
  id: unknown;
  result?: any;
  error?: { code: number; message: string; data?: unknown };
}

async function post(body: string, url = chain.url): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
}

async function rpc(method: string, params?: unknown[], id: unknown = 1): Promise<RpcReply> {
  const res = await post(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  expect(res.status).toBe(200);
  return (await res.json()) as RpcReply;
}

async function admin(route: string, body?: unknown): Promise<any> {
  const res = await fetch(`${chain.url}/__localnet/${route}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(res.status).toBe(200);
  return res.json();
}

const wallet = (name: string) => demoWallet(name).publicKey;

describe('getMultipleAccounts', () => {
  it('answers one entry per key, in order, null for missing accounts, with the node account shape', async () => {
    const keys = [wallet('clean'), wallet('empty'), demoMint('usdc')];
    const reply = await rpc('getMultipleAccounts', [keys, { encoding: 'base64' }]);
    expect(reply.result.context).toEqual({ apiVersion: expect.any(String), slot: expect.any(Number) });
    const [walletAccount, missing, mint] = reply.result.value;
    expect(walletAccount).toMatchObject({ data: ['', 'base64'], executable: false, lamports: 5_000_000_000, owner: '11111111111111111111111111111111', space: 0 });
    expect(missing).toBeNull();
    expect(mint.owner).toBe('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
    expect(Buffer.from(mint.data[0], 'base64')).toHaveLength(82);
    expect(Buffer.from(mint.data[0], 'base64')[44]).toBe(6);
  });

  it('writes rentEpoch as the exact u64 the node sends', async () => {
    const res = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getMultipleAccounts', params: [[wallet('clean')], { encoding: 'base64' }] }));
    expect(await res.text()).toContain('"rentEpoch":18446744073709551615');
  });

  it('accepts 100 keys and refuses 101 with -32602', async () => {
    const hundred = Array.from({ length: 100 }, () => wallet('clean'));
    const ok = await rpc('getMultipleAccounts', [hundred, { encoding: 'base64' }]);
    expect(ok.result.value).toHaveLength(100);
    const tooMany = await rpc('getMultipleAccounts', [[...hundred, wallet('quiet')], { encoding: 'base64' }]);
    expect(tooMany.error).toEqual({ code: -32602, message: 'Too many inputs provided; max 100' });
  });

  it('returns only the requested dataSlice', async () => {
    const [ata] = await tokenAccounts('clean', { mint: demoMint('usdc') });
    const reply = await rpc('getMultipleAccounts', [[ata!.pubkey], { encoding: 'base64', dataSlice: { offset: 64, length: 8 } }]);
    const bytes = Buffer.from(reply.result.value[0].data[0], 'base64');
    expect(bytes).toHaveLength(8);
    expect(bytes.readBigUInt64LE(0)).toBe(25_000_000n);
    expect(reply.result.value[0].space).toBe(165);
  });

  it('rejects an invalid address with -32602', async () => {
    const reply = await rpc('getMultipleAccounts', [['not-a-key'], { encoding: 'base64' }]);
    expect(reply.error?.code).toBe(-32602);
  });
});

describe('encodings', () => {
  it('defaults to base58 like the node, which fails with -32600 for accounts over 128 bytes', async () => {
    const small = await rpc('getAccountInfo', [wallet('clean')]);
    expect(small.result.value.data).toEqual(['', 'base58']);
    const [ata] = await tokenAccounts('clean', { mint: demoMint('usdc') });
    const large = await rpc('getAccountInfo', [ata!.pubkey]);
    expect(large.error?.code).toBe(-32600);
  });

  it('parses token accounts and mints with jsonParsed', async () => {
    const mint = await rpc('getAccountInfo', [demoMint('bonk'), { encoding: 'jsonParsed' }]);
    expect(mint.result.value.data).toMatchObject({ program: 'spl-token', parsed: { type: 'mint', info: { decimals: 5, isInitialized: true } } });
    const t22 = await rpc('getAccountInfo', [demoMint('t22'), { encoding: 'jsonParsed' }]);
    expect(t22.result.value.data.program).toBe('spl-token-2022');
    expect(t22.result.value.data.parsed.info.extensions).toEqual([
      expect.objectContaining({ extension: 'transferFeeConfig', state: expect.objectContaining({ newerTransferFee: expect.objectContaining({ transferFeeBasisPoints: 50 }) }) }),
    ]);
  });

  it('answers getBalance, getSlot, getHealth and getVersion', async () => {
    expect((await rpc('getBalance', [wallet('whale')])).result.value).toBe(10_000_000_000_000);
    expect((await rpc('getBalance', [wallet('empty')])).result.value).toBe(0);
    expect((await rpc('getSlot')).result).toBeGreaterThan(0);
    expect((await rpc('getHealth')).result).toBe('ok');
    expect((await rpc('getVersion')).result['solana-core']).toMatch(/^\d+\.\d+\.\d+$/);
    expect((await rpc('getNothing')).error?.code).toBe(-32601);
  });
});

async function tokenAccounts(name: string, filter: Record<string, string>, encoding = 'base64') {
  const reply = await rpc('getTokenAccountsByOwner', [wallet(name), filter, { encoding }]);
  expect(reply.error).toBeUndefined();
  return reply.result.value as { pubkey: string; account: any }[];
}

describe('getTokenAccountsByOwner', () => {
  it('finds ATA and non-ATA accounts of one token program, in base64', async () => {
    const all = await tokenAccounts('banned-nonata', { programId: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' });
    expect(all).toHaveLength(2);
    const banned = await tokenAccounts('banned-nonata', { mint: demoMint('banned') });
    expect(banned).toHaveLength(1);
    const data = Buffer.from(banned[0]!.account.data[0], 'base64');
    expect(data.readBigUInt64LE(64)).toBe(5_000_000_000n);
    const t22 = await tokenAccounts('banned-nonata', { programId: 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb' });
    expect(t22).toHaveLength(0);
  });

  it('returns parsed token amounts with jsonParsed, per program', async () => {
    const [parsed] = await tokenAccounts('t22-holder', { programId: 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb' }, 'jsonParsed');
    expect(parsed!.account.owner).toBe('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');
    expect(parsed!.account.data.program).toBe('spl-token-2022');
    expect(parsed!.account.data.parsed.info).toMatchObject({
      mint: demoMint('t22'),
      owner: wallet('t22-holder'),
      tokenAmount: { amount: '42500000', decimals: 6, uiAmountString: '42.5' },
      extensions: [{ extension: 'immutableOwner' }, { extension: 'transferFeeAmount', state: { withheldAmount: 1234 } }],
    });
  });

  it('refuses an unknown mint and a program that is not a token program', async () => {
    const unknownMint = await rpc('getTokenAccountsByOwner', [wallet('clean'), { mint: wallet('empty') }, { encoding: 'base64' }]);
    expect(unknownMint.error).toEqual({ code: -32602, message: 'Invalid param: could not find mint' });
    const notToken = await rpc('getTokenAccountsByOwner', [wallet('clean'), { programId: '11111111111111111111111111111111' }, { encoding: 'base64' }]);
    expect(notToken.error?.code).toBe(-32602);
  });
});

describe('getSignaturesForAddress', () => {
  it('pages newest first through 2,500 signatures with `before`, which is exclusive', async () => {
    const seen: { signature: string; slot: number; blockTime: number }[] = [];
    let before: string | undefined;
    for (let pages = 0; pages < 10; pages += 1) {
      const reply = await rpc('getSignaturesForAddress', [wallet('old'), { limit: 1000, ...(before ? { before } : {}) }]);
      const page = reply.result as typeof seen;
      if (page.length === 0) break;
      expect(page.length).toBeLessThanOrEqual(1000);
      seen.push(...page);
      before = page[page.length - 1]!.signature;
    }
    expect(seen).toHaveLength(2500);
    expect(new Set(seen.map((s) => s.signature)).size).toBe(2500);
    for (let i = 1; i < seen.length; i += 1) expect(seen[i]!.slot).toBeLessThanOrEqual(seen[i - 1]!.slot);
    const oldestDaysAgo = (Date.now() / 1000 - seen[seen.length - 1]!.blockTime) / 86_400;
    expect(Math.round(oldestDaysAgo)).toBe(400);
  });

  it('stops before `until` (exclusive) and reports items in the node shape', async () => {
    const first = (await rpc('getSignaturesForAddress', [wallet('active'), { limit: 20 }])).result;
    const page = (await rpc('getSignaturesForAddress', [wallet('active'), { limit: 20, before: first[2].signature, until: first[9].signature }])).result;
    expect(page.map((s: any) => s.signature)).toEqual(first.slice(3, 9).map((s: any) => s.signature));
    expect(Object.keys(page[0]).sort()).toEqual(['blockTime', 'confirmationStatus', 'err', 'memo', 'signature', 'slot']);
  });

  it('refuses limit over 1000 and processed commitment', async () => {
    expect((await rpc('getSignaturesForAddress', [wallet('old'), { limit: 1001 }])).error?.code).toBe(-32602);
    expect((await rpc('getSignaturesForAddress', [wallet('old'), { commitment: 'processed' }])).error?.code).toBe(-32602);
  });
});

describe('getTransaction', () => {
  async function swapSignature(): Promise<string> {
    const sigs = (await rpc('getSignaturesForAddress', [wallet('active'), { limit: 100 }])).result as { signature: string }[];
    for (const { signature } of sigs) {
      const reply = await rpc('getTransaction', [signature, { encoding: 'json' }]);
      if (reply.error?.code === -32015) return signature;
    }
    throw new Error('no v0 transaction in the active wallet history');
  }

  it('refuses a v0 transaction without maxSupportedTransactionVersion (-32015), serves it with 0', async () => {
    const signature = await swapSignature();
    const refused = await rpc('getTransaction', [signature, { encoding: 'json' }]);
    expect(refused.error?.message).toContain('maxSupportedTransactionVersion');
    const tx = (await rpc('getTransaction', [signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }])).result;
    expect(tx.version).toBe(0);
    const keys = [...tx.transaction.message.accountKeys, ...tx.meta.loadedAddresses.writable, ...tx.meta.loadedAddresses.readonly];
    expect(tx.meta.loadedAddresses.writable.length).toBeGreaterThan(0);
    // Some token balances sit on loaded (lookup table) addresses, past the static keys.
    const indexes = tx.meta.postTokenBalances.map((b: any) => b.accountIndex);
    expect(Math.max(...indexes)).toBeGreaterThanOrEqual(tx.transaction.message.accountKeys.length);
    for (const balance of tx.meta.postTokenBalances) expect(keys[balance.accountIndex]).toBeDefined();
    const jupiter = tx.transaction.message.instructions[0];
    expect(keys[jupiter.programIdIndex]).toBe('JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4');
  });

  it('omits `version` for legacy transactions unless the client declares a version', async () => {
    const [latest] = (await rpc('getSignaturesForAddress', [wallet('quiet'), { limit: 1 }])).result;
    const plain = (await rpc('getTransaction', [latest.signature, { encoding: 'json' }])).result;
    expect('version' in plain).toBe(false);
    expect(plain.meta.status).toEqual({ Ok: null });
    const declared = (await rpc('getTransaction', [latest.signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }])).result;
    expect(declared.version).toBe('legacy');
    expect(declared.slot).toBe(latest.slot);
  });

  it('returns null for an unknown signature', async () => {
    const unknown = '5'.repeat(87);
    const reply = await rpc('getTransaction', [unknown, { encoding: 'json', maxSupportedTransactionVersion: 0 }]);
    expect(reply.error).toBeUndefined();
    expect(reply.result).toBeNull();
  });
});

describe('getProgramAccounts', () => {
  it('finds an obligation by dataSize and memcmp on its owner, with dataSlice', async () => {
    const reply = await rpc('getProgramAccounts', [
      'So1endDq2YkqhipRh3WViPa8hdiSpxWy6z3Z6tMCpAo',
      { encoding: 'base64', filters: [{ dataSize: 1300 }, { memcmp: { offset: 42, bytes: wallet('debtor-save') } }], dataSlice: { offset: 200, length: 4 } },
    ]);
    expect(reply.result).toHaveLength(1);
    const slice = Buffer.from(reply.result[0].account.data[0], 'base64');
    expect(slice).toHaveLength(4);
    expect(slice[3]).toBe(1); // borrows_len at 203
  });

  it('refuses more than 4 filters', async () => {
    const filters = Array.from({ length: 5 }, () => ({ dataSize: 1300 }));
    const reply = await rpc('getProgramAccounts', ['So1endDq2YkqhipRh3WViPa8hdiSpxWy6z3Z6tMCpAo', { encoding: 'base64', filters }]);
    expect(reply.error?.code).toBe(-32602);
  });

  it('wraps in context only when withContext is set', async () => {
    const params = { encoding: 'base64', withContext: true, filters: [{ memcmp: { offset: 40, bytes: wallet('no-debt') } }] };
    const reply = await rpc('getProgramAccounts', ['MFv2hWf31Z9kbCa1snEPYctwafyhdvnV7FZnsebVacA', params]);
    expect(reply.result.value).toHaveLength(1);
  });
});

describe('HTTP', () => {
  it('answers a batch in request order, errors in place, each member counted', async () => {
    chain.resetStats();
    const batch = [
      { jsonrpc: '2.0', id: 'a', method: 'getSlot' },
      { jsonrpc: '2.0', id: 'b', method: 'getBalance', params: [wallet('clean')] },
      { jsonrpc: '2.0', id: 'c', method: 'noSuchMethod' },
      { jsonrpc: '2.0', id: 'd', method: 'getBalance', params: [wallet('quiet')] },
    ];
    const replies = (await (await post(JSON.stringify(batch))).json()) as RpcReply[];
    expect(replies.map((r) => r.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(replies[1]!.result.value).toBe(5_000_000_000);
    expect(replies[2]!.error?.code).toBe(-32601);
    expect(requestsAndCalls(chain.stats())).toEqual({ httpRequests: 1, calls: { getSlot: 1, getBalance: 2, noSuchMethod: 1 } });
  });

  it('answers 413 for a body over 51,200 bytes, and serves one just under', async () => {
    const keys = Array.from({ length: 100 }, () => wallet('clean'));
    const padding = (size: number) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getMultipleAccounts', params: [keys, { encoding: 'base64' }], pad: '' }).length - size;
    const body = (size: number) =>
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getMultipleAccounts', params: [keys, { encoding: 'base64' }], pad: 'x'.repeat(-padding(size)) });
    expect(body(51_201)).toHaveLength(51_201);
    expect((await post(body(51_201))).status).toBe(413);
    expect((await post(body(51_200))).status).toBe(200);
  });

  it('answers a parse error for invalid JSON', async () => {
    const reply = (await (await post('{"jsonrpc":')).json()) as RpcReply;
    expect(reply.error?.code).toBe(-32700);
  });

  it('lets a page of any origin call it, as a validator does (CORS preflight and answer); admin routes stay same-origin', async () => {
    const origin = 'http://127.0.0.1:3000';
    const preflight = await fetch(chain.url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
    expect(preflight.status).toBe(200);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type');
    expect(preflight.headers.get('access-control-max-age')).toBe('86400');

    const answer = await fetch(chain.url, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot' }) });
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(((await answer.json()) as RpcReply).result).toEqual(expect.any(Number));

    const adminAnswer = await fetch(`${chain.url}/__localnet/stats`, { headers: { origin } });
    expect(adminAnswer.status).toBe(200);
    expect(adminAnswer.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('provider simulation (RPC_LATENCY_MS, RPC_REQUESTS_PER_SECOND)', () => {
  it('holds every JSON-RPC answer for the latency set over the admin route; admin routes are not held', async () => {
    expect(await admin('provider', { latencyMs: 300 })).toMatchObject({ latencyMs: 300, requestsPerSecond: 0 });
    const order: string[] = [];
    const held = rpc('getSlot').then((reply) => {
      order.push('rpc');
      return reply;
    });
    // Sent after the JSON-RPC request, answered before it: the RPC answer is being held.
    await admin('stats').then(() => order.push('admin'));
    expect((await held).result).toBeGreaterThan(0);
    expect(order).toEqual(['admin', 'rpc']);
    expect(await admin('provider', { latencyMs: 0 })).toMatchObject({ latencyMs: 0, requestsPerSecond: 0 });
  });

  it('above its rate answers HTTP 429 with a JSON-RPC error body and a Retry-After, and counts them', async () => {
    await admin('reset-stats', {});
    await admin('provider', { requestsPerSecond: 2 });
    const statuses: number[] = [];
    let refused: { status: number; retryAfter: string | null; body: RpcReply } | undefined;
    for (let i = 0; i < 6; i++) {
      const res = await post(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'getSlot' }));
      statuses.push(res.status);
      if (res.status === 429) refused = { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as RpcReply };
      else await res.arrayBuffer();
    }
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    expect(statuses).toContain(429);
    expect(Number(refused!.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(refused!.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: 429 } });
    expect((await admin('stats')).rateLimited).toBe(statuses.filter((status) => status === 429).length);
  });

  it('refuses settings that are not whole non-negative numbers', async () => {
    const res = await fetch(`${chain.url}/__localnet/provider`, { method: 'POST', body: JSON.stringify({ latencyMs: -1 }) });
    expect(res.status).toBe(400);
    expect(chain.provider.current()).toEqual({ latencyMs: 0, requestsPerSecond: 0 });
  });
});

describe('faults', () => {
  it('http500 and http429 (with Retry-After) hit only the next `count` matching requests', async () => {
    chain.faults.set({ mode: 'http500', count: 1 });
    expect((await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot' }))).status).toBe(500);
    expect((await rpc('getSlot')).result).toBeGreaterThan(0);

    chain.faults.set({ mode: 'http429', methods: ['getMultipleAccounts'], count: 2 });
    expect((await rpc('getSlot')).result).toBeGreaterThan(0); // another method: unaffected
    const limited = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getMultipleAccounts', params: [[wallet('clean')], { encoding: 'base64' }] }));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBeTruthy();
    await limited.arrayBuffer();
    const call = () => post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getMultipleAccounts', params: [[wallet('clean')], { encoding: 'base64' }] }));
    expect((await call()).status).toBe(429);
    expect((await call()).status).toBe(200);
  });

  it('timeout never answers', async () => {
    chain.faults.set({ mode: 'timeout', count: 1 });
    const attempt = fetch(chain.url, {
      method: 'POST',
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot' }),
      signal: AbortSignal.timeout(300),
    });
    await expect(attempt).rejects.toThrow();
    expect((await rpc('getSlot')).result).toBeGreaterThan(0);
  });

  it('malformed answers 200 with truncated JSON, or with a result missing `value`', async () => {
    chain.faults.set({ mode: 'malformed', count: 1 });
    const truncated = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getBalance', params: [wallet('clean')] }));
    expect(truncated.status).toBe(200);
    const text = await truncated.text();
    expect(() => JSON.parse(text)).toThrow();

    chain.faults.set({ mode: 'malformed', variant: 'no-value', count: 1 });
    const reply = await rpc('getBalance', [wallet('clean')]);
    expect(reply.result.context).toBeDefined();
    expect('value' in reply.result).toBe(false);
  });

  it('rpc-error and unhealthy answer JSON-RPC -32005 for the matching calls only', async () => {
    chain.faults.set({ mode: 'rpc-error', methods: ['getBalance'], count: 1 });
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'getSlot' },
      { jsonrpc: '2.0', id: 2, method: 'getBalance', params: [wallet('clean')] },
    ];
    const replies = (await (await post(JSON.stringify(batch))).json()) as RpcReply[];
    expect(replies[0]!.result).toBeGreaterThan(0);
    expect(replies[1]!.error).toMatchObject({ code: -32005, message: 'Node is unhealthy' });

    chain.faults.set({ mode: 'unhealthy' });
    expect((await rpc('getHealth')).error?.code).toBe(-32005);
    expect((await rpc('getBalance', [wallet('clean')])).error?.code).toBe(-32005);
    chain.faults.set({ mode: 'none' });
    expect((await rpc('getHealth')).result).toBe('ok');
  });

  it('can be set over HTTP by other processes', async () => {
    const current = await admin('fault', { mode: 'http500', count: 1 });
    expect(current).toMatchObject({ mode: 'http500', remaining: 1 });
    expect((await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot' }))).status).toBe(500);
    expect((await rpc('getSlot')).result).toBeGreaterThan(0);
  });
});

describe('what part of the ledger the node serves (ledger.ts): slots, minContextSlot, horizon, history, block times', () => {
  const slotOf = async (method: string, params: unknown[]): Promise<number> => (await rpc(method, params)).result.context.slot;

  it('answers context.slot and getSlot at the chain slot, and refuses a minContextSlot above it with -32016 and the node slot', async () => {
    const slot = (await rpc('getSlot')).result as number;
    // (A block clock may advance the chain between two calls: slots are compared as "at least".)
    expect(await slotOf('getMultipleAccounts', [[wallet('clean')], { encoding: 'base64' }])).toBeGreaterThanOrEqual(slot);
    expect((await rpc('getMultipleAccounts', [[wallet('clean')], { encoding: 'base64', minContextSlot: slot }])).result.context.slot).toBeGreaterThanOrEqual(slot);
    const ahead = slot + 1_000_000;
    for (const [method, params] of [
      ['getMultipleAccounts', [[wallet('clean')], { encoding: 'base64', minContextSlot: ahead }]],
      ['getAccountInfo', [wallet('clean'), { encoding: 'base64', minContextSlot: ahead }]],
      ['getTokenAccountsByOwner', [wallet('clean'), { programId: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' }, { encoding: 'base64', minContextSlot: ahead }]],
      ['getProgramAccounts', ['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', { encoding: 'base64', filters: [{ dataSize: 82 }], minContextSlot: ahead }]],
      ['getSignaturesForAddress', [wallet('old'), { limit: 1, minContextSlot: ahead }]],
      ['getSlot', [{ minContextSlot: ahead }]],
    ] as const) {
      const { error } = await rpc(method, [...params]);
      expect(error, method).toMatchObject({ code: -32016, message: 'Minimum context slot has not been reached' });
      const contextSlot = (error!.data as { contextSlot: number }).contextSlot;
      expect(contextSlot).toBeGreaterThanOrEqual(slot);
      expect(contextSlot).toBeLessThan(ahead);
    }
    expect((await rpc('getSlot', [{ minContextSlot: 'soon' }])).error?.code).toBe(-32602);
  });

  it('a node behind answers as of its older slot: context, getSlot, and no history after it; only the lagging methods lag', async () => {
    const slot = (await rpc('getSlot')).result as number;
    const newest = (await rpc('getSignaturesForAddress', [wallet('old'), { limit: 1 }])).result[0];
    // 1,000 slots (~7 minutes) before the wallet's newest transaction, however far a block clock moves meanwhile.
    const behind = slot - newest.slot + 1000;
    await admin('ledger', { slotsBehind: behind, laggingMethods: ['getSignaturesForAddress', 'getTransaction'] });
    expect(await slotOf('getMultipleAccounts', [[wallet('clean')], { encoding: 'base64' }])).toBeGreaterThanOrEqual(slot);
    const lagging = (await rpc('getSignaturesForAddress', [wallet('old'), { limit: 1000 }])).result as { signature: string; slot: number }[];
    expect(lagging[0]!.signature).not.toBe(newest.signature);
    expect(lagging.every((s) => s.slot < newest.slot - 900)).toBe(true);
    expect((await rpc('getTransaction', [newest.signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }])).result).toBeNull();
    const refused = (await rpc('getSignaturesForAddress', [wallet('old'), { limit: 1, minContextSlot: slot }])).error;
    expect(refused).toMatchObject({ code: -32016 });
    expect((refused!.data as { contextSlot: number }).contextSlot).toBeLessThan(newest.slot);

    await admin('ledger', { laggingMethods: null });
    expect((await rpc('getSlot')).result).toBeLessThan(newest.slot);
    expect(await slotOf('getMultipleAccounts', [[wallet('clean')], { encoding: 'base64' }])).toBeLessThan(newest.slot);
    // A node that ignores minContextSlot answers from its own, older slot.
    await admin('ledger', { honoursMinContextSlot: false });
    expect(await slotOf('getMultipleAccounts', [[wallet('clean')], { encoding: 'base64', minContextSlot: slot }])).toBeLessThan(newest.slot);
  });

  it('a short ledger: getFirstAvailableBlock says where it starts, history older is not served, getBlockTime dates it', async () => {
    expect((await rpc('getFirstAvailableBlock', [])).result).toBe(0);
    const all = (await rpc('getSignaturesForAddress', [wallet('old'), { limit: 1000 }])).result as { signature: string; slot: number; blockTime: number }[];
    const first = all[400]!.slot;
    await admin('ledger', { firstAvailableBlock: first });
    expect((await rpc('getFirstAvailableBlock', [])).result).toBe(first);
    const kept = (await rpc('getSignaturesForAddress', [wallet('old'), { limit: 1000 }])).result as { signature: string; slot: number }[];
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(all.length);
    expect(kept.every((s) => s.slot >= first)).toBe(true);
    // Paging on from the last kept signature finds nothing older.
    expect((await rpc('getSignaturesForAddress', [wallet('old'), { limit: 1000, before: kept.at(-1)!.signature }])).result).toEqual([]);
    expect((await rpc('getTransaction', [all.at(-1)!.signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }])).result).toBeNull();
    const time = (await rpc('getBlockTime', [first])).result as number;
    expect(Math.abs(time - chain.state.blockTimeOfSlot(first))).toBeLessThanOrEqual(1);
    expect((await rpc('getBlockTime', [first - 1])).error).toEqual({ code: -32004, message: `Block not available for slot ${first - 1}` });
  });

  it('without transaction history: -32011; without block times: null ones', async () => {
    await admin('ledger', { blockTimes: false });
    const [info] = (await rpc('getSignaturesForAddress', [wallet('quiet'), { limit: 1 }])).result;
    expect(info.blockTime).toBeNull();
    expect((await rpc('getTransaction', [info.signature, { encoding: 'json' }])).result.blockTime).toBeNull();
    expect((await rpc('getBlockTime', [info.slot])).result).toBeNull();
    await admin('ledger', { transactionHistory: false });
    const refused = { code: -32011, message: 'Transaction history is not available from this node' };
    expect((await rpc('getSignaturesForAddress', [wallet('quiet'), { limit: 1 }])).error).toEqual(refused);
    expect((await rpc('getTransaction', [info.signature, { encoding: 'json' }])).error).toEqual(refused);
  });

  it('refuses bad settings', async () => {
    for (const bad of [{ slotsBehind: -1 }, { firstAvailableBlock: 1.5 }, { blockTimes: 'no' }, { laggingMethods: 'getSlot' }, { typo: 1 }]) {
      const res = await fetch(`${chain.url}/__localnet/ledger`, { method: 'POST', body: JSON.stringify(bad) });
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
  });
});

describe('tampered token accounts (tamper.ts)', () => {
  afterEach(() => chain.tamper.clear());
  const ata = () => chain.state.ataAddress(wallet('clean'), demoMint('usdc'), 'token');
  const shown = async (options: Record<string, unknown> = { encoding: 'base64' }) => (await rpc('getMultipleAccounts', [[ata()], options])).result.value[0];

  it('answers the chosen accounts rewritten, in every reply that shows them, and leaves the state as it was', async () => {
    const honest = await shown();
    await admin('tamper', { kind: 'truncate', wallet: wallet('clean'), length: 100 });
    const truncated = await shown();
    expect(Buffer.from(truncated.data[0], 'base64')).toHaveLength(100);
    expect(truncated.space).toBe(100);
    await admin('tamper', { kind: 'owner', addresses: [ata()] });
    const rewritten = Buffer.from((await shown()).data[0], 'base64');
    expect(rewritten.subarray(32, 64).equals(Buffer.from(honest.data[0], 'base64').subarray(32, 64))).toBe(false);
    // Lists still choose the account by the true owner, and show the tampered bytes.
    const [listed] = await tokenAccounts('clean', { mint: demoMint('usdc') });
    expect(Buffer.from(listed!.account.data[0], 'base64').equals(rewritten)).toBe(true);
    await admin('tamper', { kind: 'owner-program', addresses: [ata()] });
    expect((await shown()).owner).not.toBe(honest.owner);
    await admin('tamper', { kind: 'space', addresses: [ata()] });
    expect((await shown()).space).toBe(170);
    await admin('tamper', { kind: 'account-type', addresses: [ata()] });
    expect(Buffer.from((await shown()).data[0], 'base64')[165]).toBe(1);
    await admin('tamper', { kind: 'uninitialized', addresses: [ata()] });
    expect(Buffer.from((await shown()).data[0], 'base64')[108]).toBe(0);
    await admin('tamper', { kind: 'duplicate', addresses: [ata()] });
    expect((await tokenAccounts('clean', { mint: demoMint('usdc') })).map((a) => a.pubkey)).toEqual([ata(), ata()]);
    expect(await admin('tamper', { kind: 'none' })).toEqual({ tamper: null });
    expect(await shown()).toEqual(honest);
  });

  it('shows the swaps only in answers by mint: another mint or owner put in, or the other token program', async () => {
    const honest = await shown();
    const byMint = async () => (await tokenAccounts('clean', { mint: demoMint('usdc') }))[0]!;
    const byProgram = async () => (await tokenAccounts('clean', { programId: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' })).find((listed) => listed.pubkey === ata())!;
    const bytes = (listed: { account: { data: [string, string] } }) => Buffer.from(listed.account.data[0], 'base64');

    await admin('tamper', { kind: 'mint-swap', wallet: wallet('clean'), to: demoMint('bonk') });
    expect(bytes(await byMint()).subarray(0, 32)).toEqual(Buffer.from(bs58.decode(demoMint('bonk'))));
    expect(bytes(await byProgram()).subarray(0, 32)).toEqual(Buffer.from(bs58.decode(demoMint('usdc'))));
    expect(await shown()).toEqual(honest);

    await admin('tamper', { kind: 'owner-swap', addresses: [ata()], to: wallet('whale') });
    expect(bytes(await byMint()).subarray(32, 64)).toEqual(Buffer.from(bs58.decode(wallet('whale'))));
    expect(bytes(await byProgram()).subarray(32, 64)).toEqual(Buffer.from(bs58.decode(wallet('clean'))));

    await admin('tamper', { kind: 'program-swap', addresses: [ata()] });
    expect((await byMint()).account.owner).toBe('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');
    expect(bytes(await byMint())).toEqual(Buffer.from(honest.data[0], 'base64'));
    expect((await byProgram()).account.owner).toBe('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
    expect(await shown()).toEqual(honest);
  });

  it('refuses an unknown kind, a fault without a target, or a `to` that is no address (400)', async () => {
    for (const body of [{ kind: 'melt', wallet: wallet('clean') }, { kind: 'truncate' }, { kind: 'mint-swap', wallet: wallet('clean'), to: 'usdc' }]) {
      const res = await fetch(`${chain.url}/__localnet/tamper`, { method: 'POST', body: JSON.stringify(body) });
      expect(res.status).toBe(400);
    }
  });
});

describe('admin routes', () => {
  it('count calls, reset counters, and are not counted themselves', async () => {
    await admin('reset-stats', {});
    await rpc('getSlot');
    await rpc('getSlot');
    expect(requestsAndCalls(await admin('stats'))).toEqual({ httpRequests: 2, calls: { getSlot: 2 } });
    expect(chain.stats().calls.getSlot).toBe(2);
  });

  it('count the bytes of requests and answers, and of each call’s answer by method', async () => {
    await admin('reset-stats', {});
    const body = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'getSlot' },
      { jsonrpc: '2.0', id: 2, method: 'getBalance', params: [wallet('clean')] },
    ]);
    const text = await (await post(body)).text();
    const stats = await admin('stats');
    expect(stats).toMatchObject({ requestBytes: Buffer.byteLength(body), responseBytes: Buffer.byteLength(text) });
    const [slot, balance] = JSON.parse(text) as unknown[];
    expect(stats.answerBytes).toEqual({ getSlot: JSON.stringify(slot).length, getBalance: JSON.stringify(balance).length });
  });

  it('create mints, token accounts and lamports that RPC then serves', async () => {
    const owner = demoWallet('bench-wallet-0').publicKey;
    const { address: mint } = await admin('mint', { decimals: 3, program: 'token2022' });
    const { address: ata } = await admin('token-account', { owner, mint, amount: '12345', program: 'token2022' });
    await admin('lamports', { address: owner, lamports: '7000000' });
    const [account] = await tokenAccounts('bench-wallet-0', { mint }, 'jsonParsed');
    expect(account!.pubkey).toBe(ata);
    expect(account!.account.data.parsed.info.tokenAmount).toMatchObject({ amount: '12345', decimals: 3, uiAmountString: '12.345' });
    expect((await rpc('getBalance', [owner])).result.value).toBe(7_000_000);
    // Updating the same account keeps one account with the new amount.
    await admin('token-account', { owner, mint, amount: '0', program: 'token2022' });
    const after = await tokenAccounts('bench-wallet-0', { mint });
    expect(after).toHaveLength(1);
    expect(Buffer.from(after[0]!.account.data[0], 'base64').readBigUInt64LE(64)).toBe(0n);
  });

  it('record SOL transfers in both histories, days back from the state\'s now', async () => {
    const from = demoWallet('bench-wallet-1').publicKey;
    const to = demoWallet('bench-wallet-2').publicKey;
    const { signature } = await admin('sol-transfer', { from, to, lamports: '1000', daysAgo: 40 });
    for (const address of [from, to]) {
      const [info] = (await rpc('getSignaturesForAddress', [address, { limit: 10 }])).result;
      expect(info).toMatchObject({ signature, err: null });
      expect(Date.now() / 1000 - info.blockTime).toBeGreaterThan(39 * 86_400);
    }
    const res = await fetch(`${chain.url}/__localnet/sol-transfer`, { method: 'POST', body: JSON.stringify({ from, to, lamports: '1', daysAgo: -1 }) });
    expect(res.status).toBe(400);
  });

  it('answer 400 for bad input', async () => {
    const res = await fetch(`${chain.url}/__localnet/token-account`, { method: 'POST', body: JSON.stringify({ owner: 'nope', mint: 'x', amount: '1' }) });
    expect(res.status).toBe(400);
  });
});

describe('call log (recordCalls, for the watch page of npm run dev)', () => {
  it('keeps the last calls with their params, batch members under one HTTP request, and what each answer said', async () => {
    const recording = await startLocalnet({ port: 0, recordCalls: 3 });
    try {
      const post = (body: unknown) => fetch(recording.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      await post({ jsonrpc: '2.0', id: 1, method: 'getSlot' });
      await post([
        { jsonrpc: '2.0', id: 2, method: 'getMultipleAccounts', params: [[wallet('clean'), wallet('empty')], { encoding: 'base64' }] },
        { jsonrpc: '2.0', id: 3, method: 'getAccountInfo', params: [wallet('empty')] },
      ]);
      recording.faults.set({ mode: 'http500', count: 1 });
      await post({ jsonrpc: '2.0', id: 4, method: 'getBalance', params: [wallet('clean')] });

      const { last, calls } = recording.calls(1);
      expect(last).toBe(4);
      expect(calls.map(({ seq, httpRequest, method, answer }) => ({ seq, httpRequest, method, answer }))).toEqual([
        { seq: 2, httpRequest: 2, method: 'getMultipleAccounts', answer: '1 of 2 accounts exist' },
        { seq: 3, httpRequest: 2, method: 'getAccountInfo', answer: 'not found' },
        { seq: 4, httpRequest: 3, method: 'getBalance', answer: 'no answer: http500 (fault)' },
      ]);
      expect(calls[0]!.params).toEqual([[wallet('clean'), wallet('empty')], { encoding: 'base64' }]);
      // Capacity 3: the first call is gone; a later mark gives only what came after it.
      expect(recording.calls(0).calls.map((call) => call.seq)).toEqual([2, 3, 4]);
      expect(recording.calls(4).calls).toEqual([]);
    } finally {
      await recording.close();
    }
  });

  it('is off by default', async () => {
    await rpc('getSlot');
    expect(chain.calls(0)).toEqual({ last: 0, calls: [] });
  });
});

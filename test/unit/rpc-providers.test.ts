/**
 * The RPC client against providers' limits, over HTTP to small local servers that answer the way
 * providers document it: arrays refused (HTTP 400, or one error object), capped per method class,
 * members over a call budget answered with rate-limit errors inside a 200, methods refused for good
 * (-32010, HTTP 410) by one endpoint. What the server received is what a provider would see.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RpcClient } from '../../src/chain/rpc.js';
import type { RpcRequest } from '../../src/chain/rpc-request.js';
import { keepAliveFetch } from '../../src/chain/transport.js';
import type { Config } from '../../src/config.js';
import { GateError } from '../../src/errors.js';

interface Call {
  id: number;
  method: string;
  params: unknown;
}

/** What one HTTP request carried, and when it came. */
interface Received {
  isArray: boolean;
  calls: Call[];
  at: number;
}

type Answer = { status?: number; body: unknown; headers?: Record<string, string> };
/** Decides the answer to one request; undefined: every call answered normally. */
type Provider = (request: Received, nth: number) => Answer | undefined;

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

const ok = (call: Call): unknown => ({ jsonrpc: '2.0', id: call.id, result: `${call.method}-ok` });

async function provider(decide: Provider = () => undefined): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      const parsed = JSON.parse(text) as Call | Call[];
      const request: Received = { isArray: Array.isArray(parsed), calls: Array.isArray(parsed) ? parsed : [parsed], at: performance.now() };
      received.push(request);
      const answer = decide(request, received.length) ?? { body: request.isArray ? request.calls.map(ok) : ok(request.calls[0]!) };
      res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
      res.end(JSON.stringify(answer.body));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, received };
}

type ClientConfig = ConstructorParameters<typeof RpcClient>[0];
function client(urls: string[], config: Partial<Config> = {}): RpcClient {
  const base: ClientConfig = { rpcUrls: urls, rpcConcurrency: 4, rpcTimeoutMs: 2000, rpcRetries: 2, rpcHedgeMs: 0, rpcMinRetryAfterMs: 100 };
  return new RpcClient({ ...base, ...config } as ClientConfig, keepAliveFetch(16));
}

const asText = (result: unknown): string => {
  if (typeof result !== 'string') throw new TypeError('expected text');
  return result;
};
const calls = (method: string, n: number): RpcRequest<string>[] => Array.from({ length: n }, (_, i) => ({ method, params: [i], parse: asText }));
const results = async (rpc: RpcClient, requests: RpcRequest<string>[], deadline = Infinity) => (await rpc.batch(requests, deadline)).map((o) => (o.ok ? o.result : o.error));
const arrays = (received: Received[]) => received.filter((r) => r.isArray);

describe('refused arrays are split', () => {
  it('batches off (HTTP 400 for any array): every call answered, and later calls go singly at once', async () => {
    const refusing = await provider((request) => (request.isArray ? { status: 400, body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Batch requests are not supported' } } } : undefined));
    const rpc = client([refusing.url]);
    expect(await results(rpc, calls('getBalance', 8))).toEqual(Array(8).fill('getBalance-ok'));
    const refusedBefore = arrays(refusing.received).length;
    expect(refusedBefore).toBeGreaterThan(0);
    expect(rpc.stats().errors).toBe(0);
    expect(rpc.stats().refusedCalls).toBeGreaterThanOrEqual(8);
    refusing.received.length = 0;
    expect(await results(rpc, calls('getBalance', 8))).toEqual(Array(8).fill('getBalance-ok'));
    expect(arrays(refusing.received)).toHaveLength(0);
    expect(refusing.received).toHaveLength(8);
  });

  it('one error object answering an array (HTTP 200, id null, jsonrpsee -32005) is a refusal too, not a rate limit', async () => {
    const refusing = await provider((request) =>
      request.isArray ? { body: { jsonrpc: '2.0', id: null, error: { code: -32005, message: 'Batched requests are not supported by this server' } } } : undefined,
    );
    const rpc = client([refusing.url]);
    expect(await results(rpc, calls('getBalance', 5))).toEqual(Array(5).fill('getBalance-ok'));
    expect(rpc.stats().rateLimitedCalls).toBe(0);
  });

  it('a cap of 3 history calls per array is learned for history only: the account reads keep sharing arrays', async () => {
    const capped = await provider((request) => {
      const history = request.calls.filter((call) => call.method === 'getTransaction').length;
      return history > 3 ? { status: 400, body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'too many history calls' } } } : undefined;
    });
    const rpc = client([capped.url]);
    const mixed = [...calls('getMultipleAccounts', 4), ...calls('getTransaction', 12)];
    expect(await results(rpc, mixed)).toEqual([...Array(4).fill('getMultipleAccounts-ok'), ...Array(12).fill('getTransaction-ok')]);
    capped.received.length = 0;
    expect(await results(rpc, mixed)).toHaveLength(16);
    // Learned: nothing refused the second time, no array over the cap, and other calls still in arrays.
    for (const request of capped.received) expect(request.calls.filter((call) => call.method === 'getTransaction').length).toBeLessThanOrEqual(3);
    expect(capped.received.length).toBeLessThan(16);
  });

  it('RPC_BATCH_CAPS keeps arrays within the caps before any refusal; RPC_BATCH=off sends none', async () => {
    const server = await provider();
    await results(client([server.url], { rpcBatchCaps: { history: 2, getBalance: 3 } }), [...calls('getTransaction', 5), ...calls('getBalance', 7), ...calls('getSlot', 4)]);
    for (const request of server.received) {
      expect(request.calls.filter((call) => call.method === 'getTransaction').length).toBeLessThanOrEqual(2);
      expect(request.calls.filter((call) => call.method === 'getBalance').length).toBeLessThanOrEqual(3);
    }
    server.received.length = 0;
    expect(await results(client([server.url], { rpcBatch: false }), calls('getSlot', 6))).toEqual(Array(6).fill('getSlot-ok'));
    expect(arrays(server.received)).toHaveLength(0);
  });
});

describe('rate limits counted in calls', () => {
  it('members answered "rate limited" inside a 200 are sent again after the cool-down; not counted as errors', async () => {
    const limited = await provider((request, nth) =>
      nth === 1
        ? { body: request.calls.map((call, i) => (i % 2 === 0 ? ok(call) : { jsonrpc: '2.0', id: call.id, error: { code: -32005, message: 'Rate limit exceeded' } })) }
        : undefined,
    );
    const rpc = client([limited.url], { rpcMinRetryAfterMs: 300 });
    expect(await results(rpc, calls('getBalance', 6))).toEqual(Array(6).fill('getBalance-ok'));
    expect(rpc.stats()).toMatchObject({ rateLimitedCalls: 3, errors: 0 });
    expect(limited.received[1]!.calls).toHaveLength(3);
    // The endpoint rested RPC_MIN_RETRY_AFTER_MS (the 200 carries no Retry-After) before the retry.
    expect(limited.received[1]!.at - limited.received[0]!.at).toBeGreaterThanOrEqual(300 * 0.9);
  });

  it.each([
    { code: 429, message: 'Too many requests' },
    { code: 7429, message: 'Rate Limited' },
    { code: -32429, message: 'rate limited' },
    { code: -32000, message: 'Too Many Requests for this plan' },
  ])('a member error %j is a rate limit', async (error) => {
    const limited = await provider((request, nth) => (nth === 1 ? { body: [{ jsonrpc: '2.0', id: request.calls[0]!.id, error }, ok(request.calls[1]!)] } : undefined));
    const rpc = client([limited.url]);
    expect(await results(rpc, calls('getBalance', 2))).toEqual(['getBalance-ok', 'getBalance-ok']);
    expect(rpc.stats().rateLimitedCalls).toBe(1);
  });

  it('RPC_CALLS_PER_SECOND paces what is sent: no second holds more calls than the budget', async () => {
    const server = await provider();
    const rpc = client([server.url], { rpcCallsPerSecond: 10, rpcBatch: false });
    expect(await results(rpc, calls('getBalance', 18))).toEqual(Array(18).fill('getBalance-ok'));
    const times = server.received.map((request) => request.at);
    for (const start of times) expect(times.filter((at) => at >= start && at < start + 1000).length).toBeLessThanOrEqual(10);
  });

  it('calls the budget cannot send before their deadline are answered 503 with Retry-After at once, never sent', async () => {
    const server = await provider();
    const rpc = client([server.url], { rpcCallsPerSecond: 4, rpcBatch: false });
    const started = performance.now();
    const outcomes = await rpc.batch(calls('getBalance', 20), started + 1500);
    const failed = outcomes.filter((outcome) => !outcome.ok);
    expect(failed.length).toBeGreaterThan(0);
    for (const outcome of failed) {
      const error = (outcome as { error: GateError }).error;
      expect(error.httpStatus).toBe(503);
      expect(Number(error.options.headers?.['Retry-After'])).toBeGreaterThan(0);
    }
    expect(server.received.length).toBe(outcomes.length - failed.length);
    expect(rpc.stats().budgetRefusedCalls).toBe(failed.length);
  });

  it('RPC_SCANS_PER_SECOND paces getProgramAccounts alone', async () => {
    const server = await provider();
    const rpc = client([server.url], { rpcScansPerSecond: 2, rpcBatch: false });
    await results(rpc, [...calls('getProgramAccounts', 4), ...calls('getBalance', 4)]);
    const scans = server.received.filter((request) => request.calls[0]!.method === 'getProgramAccounts').map((request) => request.at);
    for (const start of scans) expect(scans.filter((at) => at >= start && at < start + 1000).length).toBeLessThanOrEqual(2);
  });
});

describe('methods refused for good', () => {
  const excluded = (call: Call) => ({ jsonrpc: '2.0', id: call.id, error: { code: -32010, message: 'x excluded from account secondary indexes; this RPC method unavailable for key' } });

  it('-32010 moves getProgramAccounts to the next endpoint at once and keeps it off the first; other methods stay', async () => {
    const noIndex = await provider((request) =>
      request.isArray ? { body: request.calls.map((call) => (call.method === 'getProgramAccounts' ? excluded(call) : ok(call))) } : request.calls[0]!.method === 'getProgramAccounts' ? { body: excluded(request.calls[0]!) } : undefined,
    );
    const indexed = await provider();
    const rpc = client([noIndex.url, indexed.url]);
    for (let i = 0; i < 5; i++) expect(await rpc.call('getProgramAccounts', ['p'], asText)).toBe('getProgramAccounts-ok');
    const scansAt = (server: { received: Received[] }) => server.received.flatMap((r) => r.calls).filter((call) => call.method === 'getProgramAccounts').length;
    expect(scansAt(noIndex)).toBe(1);
    expect(scansAt(indexed)).toBe(5);
    expect(rpc.stats()).toMatchObject({ refusedCalls: 1, errors: 0 });
  });

  it('a 403 with a JSON-RPC error refuses the method; a bare 403 (a firewall, a rate limit) is a failure retried on the same endpoint', async () => {
    const forbidding = await provider((request, nth) => {
      const call = request.calls[0]!;
      if (call.method === 'getProgramAccounts') return { status: 403, body: { jsonrpc: '2.0', id: call.id, error: { code: -32000, message: 'method disabled for this plan' } } };
      return nth === 2 ? { status: 403, body: 'Forbidden' } : undefined;
    });
    const rpc = client([forbidding.url]);
    await expect(rpc.call('getProgramAccounts', ['p'], asText)).rejects.toMatchObject({ httpStatus: 503 });
    expect(forbidding.received).toHaveLength(1);
    expect(await rpc.call('getSlot', [], asText)).toBe('getSlot-ok');
    expect(forbidding.received).toHaveLength(3);
    expect(rpc.stats().refusedCalls).toBe(1);
  });

  it('HTTP 410 for a single call refuses its method; when every endpoint refuses it, the call is a 503 at once with nothing sent', async () => {
    const disabled = await provider((request) => (request.calls[0]!.method === 'getProgramAccounts' ? { status: 410, body: { jsonrpc: '2.0', id: request.calls[0]!.id, error: { code: 410, message: 'The RPC call or parameters have been disabled.' } } } : undefined));
    const rpc = client([disabled.url], { rpcReprobeMs: 60_000 });
    await expect(rpc.call('getProgramAccounts', ['p'], asText)).rejects.toMatchObject({ httpStatus: 503 });
    const sent = disabled.received.length;
    expect(sent).toBe(1);
    const error = await rpc.call('getProgramAccounts', ['p'], asText).catch((e: GateError) => e);
    expect(error).toBeInstanceOf(GateError);
    expect(Number((error as GateError).options.headers?.['Retry-After'])).toBeGreaterThan(0);
    expect(disabled.received.length).toBe(sent);
    expect(await rpc.call('getSlot', [], asText)).toBe('getSlot-ok');
  });
});

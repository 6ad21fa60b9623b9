/**
 * The RPC client's time budget (a login's deadline) and hedged reads, with an injected fetch whose
 * every endpoint behaves as the test says: answers, fails, or never answers until aborted.
 */
import { describe, expect, it } from 'vitest';
import { AccountBatcher } from '../../src/chain/account-batcher.js';
import { RpcClient } from '../../src/chain/rpc.js';
import type { FetchLike } from '../../src/chain/transport.js';
import type { ChainObserver } from '../../src/chain/types.js';
import { GateError } from '../../src/errors.js';

type Behaviour = 'answer' | 'hang' | { status: number; retryAfter?: string } | { answerAfterMs: number } | { failAfterMs: number };

interface Sent {
  url: string;
  at: number;
  signal: AbortSignal;
  /** When the request's signal was aborted, if it was. */
  abortedAt?: number;
}

/** A fetch per URL behaviour; records every request and when it was aborted. */
function fakeFetch(behaviour: (url: string, nth: number) => Behaviour): { fetch: FetchLike; sent: Sent[] } {
  const sent: Sent[] = [];
  const fetch: FetchLike = (url, init) => {
    const signal = init.signal!;
    const record: Sent = { url, at: performance.now(), signal };
    sent.push(record);
    signal.addEventListener('abort', () => (record.abortedAt = performance.now()), { once: true });
    const how = behaviour(url, sent.filter((s) => s.url === url).length);
    return new Promise<Response>((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason);
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      const reply = (): void => resolve(new Response(replyTo(init.body as string), { status: 200 }));
      if (how === 'answer') reply();
      else if (how === 'hang') return;
      else if ('status' in how) resolve(new Response('{}', { status: how.status, headers: how.retryAfter ? { 'retry-after': how.retryAfter } : {} }));
      else if ('answerAfterMs' in how) setTimeout(reply, how.answerAfterMs);
      else setTimeout(() => resolve(new Response('busy', { status: 500 })), how.failAfterMs);
    });
  };
  return { fetch, sent };
}

/** A JSON-RPC reply to every call of a body: getMultipleAccounts → one null per key; anything else → "ok". */
function replyTo(body: string): string {
  const parsed = JSON.parse(body) as { id: number; method: string; params: unknown[] } | { id: number; method: string; params: unknown[] }[];
  const answer = ({ id, method, params }: { id: number; method: string; params: unknown[] }): unknown => ({
    jsonrpc: '2.0',
    id,
    result: method === 'getMultipleAccounts' ? { context: { slot: 1 }, value: (params[0] as string[]).map(() => null) } : 'ok',
  });
  return JSON.stringify(Array.isArray(parsed) ? parsed.map(answer) : answer(parsed));
}

const A = 'http://a.invalid/';
const B = 'http://b.invalid/';

function client(
  fetch: FetchLike,
  options: { urls?: string[]; timeoutMs?: number; retries?: number; hedgeMs?: number; concurrency?: number; observer?: ChainObserver } = {},
): RpcClient {
  return new RpcClient(
    {
      rpcUrls: options.urls ?? [A],
      rpcConcurrency: options.concurrency ?? 8,
      rpcTimeoutMs: options.timeoutMs ?? 5000,
      rpcRetries: options.retries ?? 2,
      rpcHedgeMs: options.hedgeMs ?? 0,
    },
    fetch,
    options.observer,
  );
}

const ping = (rpc: RpcClient, deadline?: number): Promise<unknown> => rpc.call('getHealth', [], (result) => result, deadline);

async function rejection(promise: Promise<unknown>): Promise<GateError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GateError);
  expect((error as GateError).httpStatus).toBe(503);
  return error as GateError;
}

describe('RPC time budget (deadline)', () => {
  it('aborts an attempt in flight at the deadline, long before RPC_TIMEOUT_MS, and does not retry', async () => {
    const { fetch, sent } = fakeFetch(() => 'hang');
    const rpc = client(fetch, { timeoutMs: 5000, retries: 2 });
    const started = performance.now();
    const error = await rejection(ping(rpc, started + 300));
    expect(performance.now() - started).toBeLessThan(2500);
    expect(error.message).toContain('LOGIN_TIMEOUT_MS');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.abortedAt).toBeDefined();
  });

  it('without a deadline the same call makes every attempt RPC_RETRIES allows', async () => {
    const { fetch, sent } = fakeFetch(() => ({ status: 500 }));
    await rejection(ping(client(fetch, { retries: 3 })));
    expect(sent).toHaveLength(4);
  });

  it('retries while an attempt fits, then stops before RPC_RETRIES is used up', async () => {
    const { fetch, sent } = fakeFetch(() => ({ status: 500 }));
    const rpc = client(fetch, { retries: 10 });
    const started = performance.now();
    await rejection(ping(rpc, started + 700));
    // Backoff doubles from ~100 ms; after a few, the wait plus a 250 ms attempt no longer fits.
    expect(sent.length).toBeGreaterThanOrEqual(2);
    expect(sent.length).toBeLessThan(11);
    expect(performance.now() - started).toBeLessThan(700 + 500);
  });

  it('a cooling endpoint whose Retry-After outlasts the budget fails the call at once, passing Retry-After on', async () => {
    const { fetch, sent } = fakeFetch(() => ({ status: 429, retryAfter: '1' }));
    const rpc = client(fetch, { retries: 2 });
    const started = performance.now();
    const error = await rejection(ping(rpc, started + 800));
    expect(sent).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(600);
    expect(error.options.headers?.['Retry-After']).toBe('1');
  });

  it('a deadline already passed sends nothing', async () => {
    const { fetch, sent } = fakeFetch(() => 'answer');
    await rejection(ping(client(fetch), performance.now() - 1));
    expect(sent).toHaveLength(0);
  });
});

describe('hedged reads (RPC_HEDGE_MS)', () => {
  it('sends the read to the next endpoint when the first is silent; the first answer wins and the loser is aborted', async () => {
    const hedges: string[] = [];
    const { fetch, sent } = fakeFetch((url) => (url === A ? 'hang' : 'answer'));
    const rpc = client(fetch, { urls: [A, B], hedgeMs: 50, observer: { rpcHedge: (outcome) => hedges.push(outcome) } });
    expect(await ping(rpc)).toBe('ok');
    expect(sent.map((s) => s.url)).toEqual([A, B]);
    expect(sent[1]!.at - sent[0]!.at).toBeGreaterThanOrEqual(45);
    expect(sent[0]!.abortedAt).toBeDefined();
    expect(hedges).toEqual(['won']);
    // The endpoint that answered stays current: the next read goes there first, with no hedge.
    expect(await ping(rpc)).toBe('ok');
    expect(sent.map((s) => s.url)).toEqual([A, B, B]);
    expect(hedges).toEqual(['won']);
  });

  it('sends no hedge when the first endpoint answers within RPC_HEDGE_MS', async () => {
    const hedges: string[] = [];
    const { fetch, sent } = fakeFetch(() => ({ answerAfterMs: 5 }));
    const rpc = client(fetch, { urls: [A, B], hedgeMs: 300, observer: { rpcHedge: (outcome) => hedges.push(outcome) } });
    expect(await ping(rpc)).toBe('ok');
    expect(sent.map((s) => s.url)).toEqual([A]);
    expect(hedges).toEqual([]);
  });

  it('when the first endpoint answers after the hedge went out, the hedge is aborted (lost)', async () => {
    const hedges: string[] = [];
    const { fetch, sent } = fakeFetch((url) => (url === A ? { answerAfterMs: 150 } : 'hang'));
    const rpc = client(fetch, { urls: [A, B], hedgeMs: 30, observer: { rpcHedge: (outcome) => hedges.push(outcome) } });
    expect(await ping(rpc)).toBe('ok');
    expect(sent.map((s) => s.url)).toEqual([A, B]);
    expect(sent[1]!.abortedAt).toBeDefined();
    expect(hedges).toEqual(['lost']);
  });

  it('a failed answer waits for the other request instead of failing the attempt', async () => {
    const hedges: string[] = [];
    const { fetch, sent } = fakeFetch((url) => (url === A ? { failAfterMs: 80 } : { answerAfterMs: 150 }));
    const rpc = client(fetch, { urls: [A, B], hedgeMs: 30, retries: 0, observer: { rpcHedge: (outcome) => hedges.push(outcome) } });
    expect(await ping(rpc)).toBe('ok');
    expect(sent.map((s) => s.url)).toEqual([A, B]);
    expect(hedges).toEqual(['won']);
  });

  it('reports a hedge where both endpoints failed, then fails the call', async () => {
    const hedges: string[] = [];
    const { fetch } = fakeFetch(() => ({ failAfterMs: 60 }));
    const rpc = client(fetch, { urls: [A, B], hedgeMs: 20, retries: 0, observer: { rpcHedge: (outcome) => hedges.push(outcome) } });
    await rejection(ping(rpc));
    expect(hedges[0]).toBe('failed');
  });

  it('does not wait for a concurrency slot: slots held by a silent provider cannot block the hedge', async () => {
    const { fetch, sent } = fakeFetch((url) => (url === A ? 'hang' : 'answer'));
    const rpc = client(fetch, { urls: [A, B], hedgeMs: 50, concurrency: 1, timeoutMs: 10_000 });
    const started = performance.now();
    expect(await Promise.all([ping(rpc), ping(rpc), ping(rpc)])).toEqual(['ok', 'ok', 'ok']);
    // Far below RPC_TIMEOUT_MS, which is when the slot held by A would otherwise be freed.
    expect(performance.now() - started).toBeLessThan(5000);
    expect(sent.some((s) => s.url === B)).toBe(true);
  });

  it('is off with one endpoint, or with RPC_HEDGE_MS=0', async () => {
    for (const rpc of [
      (fetch: FetchLike) => client(fetch, { urls: [A], hedgeMs: 50, timeoutMs: 300, retries: 0 }),
      (fetch: FetchLike) => client(fetch, { urls: [A, B], hedgeMs: 0, timeoutMs: 300, retries: 0 }),
    ]) {
      const { fetch, sent } = fakeFetch((url) => (url === A ? 'hang' : 'answer'));
      const made = rpc(fetch);
      await ping(made).catch(() => undefined);
      expect(sent[0]!.url).toBe(A);
      // Only a retry (after the timeout) reaches another endpoint, never a hedge during the attempt.
      if (sent[1]) expect(sent[1].at - sent[0]!.at).toBeGreaterThanOrEqual(290);
    }
  });
});

describe('getMultipleAccounts batcher with deadlines', () => {
  const KEY_1 = '11111111111111111111111111111111';
  const KEY_2 = 'So11111111111111111111111111111111111111112';
  const config = { rpcBatchWindowMs: 2, rpcCommitment: 'confirmed' as const };

  it('merges callers with different deadlines into one request; each gives up at its own, the request runs to the latest', async () => {
    const { fetch, sent } = fakeFetch(() => 'hang');
    const batcher = new AccountBatcher(client(fetch, { timeoutMs: 10_000 }), config);
    const started = performance.now();
    const settledAt: number[] = [];
    const early = batcher.load([KEY_1], undefined, false, started + 200).finally(() => (settledAt[0] = performance.now()));
    const late = batcher.load([KEY_2], undefined, false, started + 700).finally(() => (settledAt[1] = performance.now()));
    const [earlyError, lateError] = await Promise.all([rejection(early), rejection(late)]);
    expect(earlyError.message).toContain('LOGIN_TIMEOUT_MS');
    expect(lateError.message).toContain('LOGIN_TIMEOUT_MS');
    expect(sent).toHaveLength(1);
    expect(settledAt[0]! - started).toBeGreaterThanOrEqual(190);
    expect(settledAt[0]!).toBeLessThan(settledAt[1]!);
    // The shared request was aborted at the later deadline, not at the earlier one.
    expect(sent[0]!.abortedAt! - started).toBeGreaterThanOrEqual(690);
  });

  it('a caller without a deadline still gets the answer when one with a deadline has given up', async () => {
    const { fetch } = fakeFetch(() => ({ answerAfterMs: 400 }));
    const batcher = new AccountBatcher(client(fetch), config);
    const started = performance.now();
    const bounded = batcher.load([KEY_1], undefined, false, started + 100);
    const unbounded = batcher.load([KEY_2]);
    await rejection(bounded);
    expect(await unbounded).toEqual([null]);
  });
});

import { describe, expect, it } from 'vitest';
import { CallCoalescer } from '../../src/chain/call-coalescer.js';
import type { RpcOutcome, RpcRequest } from '../../src/chain/rpc-request.js';
import { GateError, upstreamUnavailable } from '../../src/errors.js';

/** An RPC client's batch() that records each batch and answers when told to. */
function recordingRpc() {
  const batches: { requests: readonly RpcRequest[]; deadlineMs: number; answer(outcomes: RpcOutcome[]): void }[] = [];
  return {
    batches,
    minRttMs: (): number | undefined => undefined,
    spacingMs: (): number => 0,
    whenSlotFree: (send: () => void): void => send(),
    batch<T>(requests: readonly RpcRequest<T>[], deadlineMs = Infinity): Promise<RpcOutcome<T>[]> {
      return new Promise((resolve) => batches.push({ requests, deadlineMs, answer: (outcomes) => resolve(outcomes as RpcOutcome<T>[]) }));
    },
  };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('CallCoalescer', () => {
  it('sends the calls made together as one batch, each caller getting its own answer or its own 503', async () => {
    const rpc = recordingRpc();
    const calls = new CallCoalescer(rpc, { rpcBatchWindowMs: 0 });
    const a = calls.call('getProgramAccounts', ['A'], (result) => `a:${result}`);
    const b = calls.call('getSignaturesForAddress', ['B'], (result) => `b:${result}`);
    const c = calls.call('getProgramAccounts', ['C'], (result) => result);
    await tick();
    expect(rpc.batches).toHaveLength(1);
    expect(rpc.batches[0]!.requests.map((request) => request.params)).toEqual([['A'], ['B'], ['C']]);
    rpc.batches[0]!.answer([
      { ok: true, result: 'a:1' },
      { ok: true, result: 'b:2' },
      { ok: false, error: upstreamUnavailable('getProgramAccounts: node error') },
    ]);
    await expect(a).resolves.toBe('a:1');
    await expect(b).resolves.toBe('b:2');
    await expect(c).rejects.toMatchObject({ httpStatus: 503, code: 'UPSTREAM_UNAVAILABLE' });

    // Calls made later go in the next batch.
    const d = calls.call('getProgramAccounts', ['D'], (result) => result);
    await tick();
    expect(rpc.batches).toHaveLength(2);
    rpc.batches[1]!.answer([{ ok: true, result: 'd' }]);
    await expect(d).resolves.toBe('d');
  });

  it('runs the batch to the latest deadline and lets an earlier caller go with a 503 at its own', async () => {
    const rpc = recordingRpc();
    const calls = new CallCoalescer(rpc, { rpcBatchWindowMs: 0 });
    const soon = performance.now() + 20;
    const later = performance.now() + 10_000;
    const early = calls.call('getProgramAccounts', ['A'], (result) => result, soon);
    const late = calls.call('getProgramAccounts', ['B'], (result) => result, later);
    await tick();
    expect(rpc.batches[0]!.deadlineMs).toBe(later);
    const error = await early.catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(GateError);
    expect((error as GateError).httpStatus).toBe(503);
    expect((error as GateError).message).toMatch(/LOGIN_TIMEOUT_MS/);
    rpc.batches[0]!.answer([
      { ok: true, result: 'too late' },
      { ok: true, result: 'b' },
    ]);
    await expect(late).resolves.toBe('b');
  });

  it('sends shared calls alike in one window once, each caller getting its answer; unshared ones and other params go apart', async () => {
    const rpc = recordingRpc();
    const calls = new CallCoalescer(rpc, { rpcBatchWindowMs: 0 });
    const first = calls.call('isBlockhashValid', ['H1', { commitment: 'processed' }], (result) => result, Infinity, 0, true);
    const again = calls.call('isBlockhashValid', ['H1', { commitment: 'processed' }], (result) => result, Infinity, 0, true);
    const other = calls.call('isBlockhashValid', ['H2', { commitment: 'processed' }], (result) => result, Infinity, 0, true);
    const unshared = calls.call('isBlockhashValid', ['H1', { commitment: 'processed' }], (result) => result);
    await tick();
    expect(rpc.batches).toHaveLength(1);
    expect(rpc.batches[0]!.requests.map((request) => (request.params as unknown[])[0])).toEqual(['H1', 'H2', 'H1']);
    rpc.batches[0]!.answer([
      { ok: true, result: true },
      { ok: false, error: upstreamUnavailable('isBlockhashValid: node error') },
      { ok: true, result: false },
    ]);
    await expect(first).resolves.toBe(true);
    await expect(again).resolves.toBe(true);
    await expect(other).rejects.toMatchObject({ httpStatus: 503 });
    await expect(unshared).resolves.toBe(false);

    // The next window asks again.
    const later = calls.call('isBlockhashValid', ['H1', { commitment: 'processed' }], (result) => result, Infinity, 0, true);
    await tick();
    expect(rpc.batches).toHaveLength(2);
    rpc.batches[1]!.answer([{ ok: true, result: false }]);
    await expect(later).resolves.toBe(false);
  });
});

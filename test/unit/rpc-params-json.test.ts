/**
 * RpcRequest.paramsJson (a hot caller's params serialized by itself, src/chain/holdings.ts): the
 * body on the wire is byte for byte the one JSON.stringify writes for the same call.
 */
import { describe, expect, it } from 'vitest';
import { RpcClient } from '../../src/chain/rpc.js';
import type { FetchLike } from '../../src/chain/transport.js';

/** A client whose fetch records each body and answers every call of it with a `{context, value: []}` result. */
function recordingClient(bodies: string[]): RpcClient {
  const fetch: FetchLike = async (_url, init) => {
    const body = init.body as string;
    bodies.push(body);
    const calls = [JSON.parse(body)].flat() as { id: number }[];
    const replies = calls.map(({ id }) => ({ jsonrpc: '2.0', id, result: { context: { slot: 1 }, value: [] } }));
    return new Response(JSON.stringify(Array.isArray(JSON.parse(body)) ? replies : replies[0]), { status: 200 });
  };
  return new RpcClient({ rpcUrls: ['http://a.invalid'], rpcConcurrency: 2, rpcTimeoutMs: 5000, rpcRetries: 0 }, fetch);
}

describe('RpcRequest.paramsJson', () => {
  it('sends the bytes JSON.stringify writes for the same call, alone and in a batch', async () => {
    const method = 'getTokenAccountsByOwner';
    const params = ['Wallet"1\\', { mint: 'Mint\u2028' }, { encoding: 'base64', commitment: 'confirmed', dataSlice: { offset: 0, length: 166 } }];
    const other = { method: 'getSlot', params: [], parse: (result: unknown) => result };
    const parse = (result: unknown) => result;
    const plain: string[] = [];
    const serialized: string[] = [];
    const [a] = await recordingClient(plain).batch([{ method, params, parse }]);
    const [b] = await recordingClient(serialized).batch([{ method, params, parse, paramsJson: JSON.stringify(params) }]);
    await recordingClient(plain).batch([other, { method, params, parse }]);
    await recordingClient(serialized).batch([other, { method, params, parse, paramsJson: JSON.stringify(params) }]);
    expect(a).toEqual({ ok: true, result: { context: { slot: 1 }, value: [] } });
    expect(b).toEqual(a);
    expect(serialized).toEqual(plain);
    expect(plain).toHaveLength(2);
  });
});

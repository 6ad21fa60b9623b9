/**
 * The RPC transport (node:http): gzip asked for and decoded, answers bounded by
 * RPC_MAX_RESPONSE_BYTES whether plain or inflated, and the rest an endpoint takes after a 429 that
 * names no Retry-After (RPC_MIN_RETRY_AFTER_MS). Against a local HTTP server.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { RpcClient } from '../../src/chain/rpc.js';
import { keepAliveFetch } from '../../src/chain/transport.js';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

interface Seen {
  acceptEncoding: string | undefined;
  at: number;
}

async function serve(answer: (req: http.IncomingMessage, body: { id: number }, res: http.ServerResponse, nth: number) => void): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      seen.push({ acceptEncoding: req.headers['accept-encoding'], at: performance.now() });
      answer(req, JSON.parse(text), res, seen.length);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, seen };
}

const text = (result: unknown): string => {
  if (typeof result !== 'string') throw new TypeError('expected text');
  return result;
};

function rpc(url: string, maxResponseBytes?: number, minRetryAfterMs = 1000): RpcClient {
  return new RpcClient({ rpcUrls: [url], rpcConcurrency: 2, rpcTimeoutMs: 3000, rpcRetries: 1, rpcMinRetryAfterMs: minRetryAfterMs }, keepAliveFetch(4, maxResponseBytes));
}

describe('gzip', () => {
  it('asks for gzip and reads a gzip-encoded answer', async () => {
    const big = 'x'.repeat(200_000);
    const server = await serve((_req, { id }, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(JSON.stringify({ jsonrpc: '2.0', id, result: big })));
    });
    expect(await rpc(server.url).call('getBalance', [], text)).toBe(big);
    expect(server.seen[0]!.acceptEncoding).toContain('gzip');
  });

  it('an answer over RPC_MAX_RESPONSE_BYTES once inflated is a failed attempt (503), however small on the wire', async () => {
    const bomb = gzipSync(JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0'.repeat(5_000_000) }));
    expect(bomb.length).toBeLessThan(100_000);
    const server = await serve((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(bomb);
    });
    const client = rpc(server.url, 1_000_000);
    await expect(client.call('getBalance', [], text)).rejects.toMatchObject({ httpStatus: 503 });
    expect(client.stats().errors).toBeGreaterThan(0);
  });

  it('a plain answer over the bound fails the same way; one under it is read', async () => {
    const server = await serve((_req, { id }, res, nth) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id, result: 'y'.repeat(nth <= 2 ? 2_000_000 : 1000) }));
    });
    const client = rpc(server.url, 1_000_000);
    await expect(client.call('getBalance', [], text)).rejects.toMatchObject({ httpStatus: 503 });
    expect(await client.call('getBalance', [], text)).toBe('y'.repeat(1000));
  });
});

describe('a 429 without Retry-After', () => {
  it('rests the endpoint RPC_MIN_RETRY_AFTER_MS before the next attempt', async () => {
    const server = await serve((_req, { id }, res, nth) => {
      if (nth === 1) {
        res.writeHead(429, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: 429, message: 'Too many requests' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id, result: 'ok' }));
    });
    const client = rpc(server.url, undefined, 600);
    expect(await client.call('getBalance', [], text)).toBe('ok');
    expect(server.seen[1]!.at - server.seen[0]!.at).toBeGreaterThanOrEqual(600 * 0.9);
    expect(client.stats().rateLimitedCalls).toBe(1);
  });
});

import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';
import { blacklistPolicy, get, publicKeyOf, signedHeaders, type HttpResult, newWallet } from '../helpers/client.js';
import { startGate, type GateProcess } from '../helpers/gate.js';

/**
 * Graceful shutdown: SIGTERM while logins are in flight (held up by a chain that stopped answering)
 * lets them finish, survives clients that gave up, and exits 0.
 */
let localnet: LocalnetHandle;
let mint: string;

beforeAll(async () => {
  localnet = await startLocalnet({ port: 0 });
  mint = localnet.state.addMint({ decimals: 6, program: 'token' });
});
afterAll(async () => {
  await localnet?.close();
});


const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function preparedLogin(gate: GateProcess): Promise<Record<string, string>> {
  const issued = await get(`${gate.url}/x404_auth/blacklist`);
  expect(issued.status).toBe(200);
  // A policy naming a mint, so the login has to read the chain.
  return { ...signedHeaders(newWallet(), issued.headers.get('x-404-nonce')!, 'blacklist'), ...blacklistPolicy({ excluded: [mint] }) };
}

async function send(gate: GateProcess, headers: Record<string, string>, signal?: AbortSignal): Promise<HttpResult> {
  // A connection of its own per request, so an aborted one cannot disturb the others.
  const response = await fetch(`${gate.url}/x404_auth/blacklist`, { headers: { ...headers, Connection: 'close' }, signal });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

describe('graceful shutdown', () => {
  it('finishes in-flight logins after SIGTERM, ignores aborted clients, and exits 0', async () => {
    const gate = await startGate({
      rpcUrl: localnet.url,
      // The first chain read times out after 3 s and the retry succeeds: logins stay in flight long enough.
      env: { RPC_TIMEOUT_MS: '3000', RPC_RETRIES: '1', SHUTDOWN_TIMEOUT_MS: '30000' },
    });
    try {
      const logins = await Promise.all(Array.from({ length: 8 }, () => preparedLogin(gate)));
      const abandoned = await Promise.all(Array.from({ length: 4 }, () => preparedLogin(gate)));

      const before = localnet.stats().httpRequests;
      localnet.faults.set({ mode: 'timeout' });
      const inFlight = logins.map((headers) => send(gate, headers));
      const aborter = new AbortController();
      const givenUp = abandoned.map((headers) => send(gate, headers, aborter.signal).catch((error: Error) => error));

      for (let i = 0; i < 100 && localnet.stats().httpRequests === before; i += 1) await sleep(20);
      expect(localnet.stats().httpRequests).toBeGreaterThan(before);
      await sleep(300); // let every login reach its (held) chain read
      aborter.abort();
      expect((await Promise.all(givenUp)).every((outcome) => outcome instanceof Error)).toBe(true);

      const exitCode = gate.stop('SIGTERM');
      localnet.faults.clear();

      const results = await Promise.all(inFlight);
      for (const result of results) {
        expect(result.status, JSON.stringify(result.body)).toBe(200);
        expect(result.body.success).toBe(true);
        expect(typeof result.body.token).toBe('string');
      }
      expect(await exitCode).toBe(0);
    } finally {
      localnet.faults.clear();
      await gate.stop('SIGKILL');
    }
  });

  it('exits 0 on SIGTERM when idle, and on SIGINT', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const gate = await startGate({ rpcUrl: localnet.url });
      expect((await get(`${gate.url}/health`)).status).toBe(200);
      expect(await gate.stop(signal)).toBe(0);
    }
  });
});

import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';
import { blacklistPolicy, get, publicKeyOf, signedHeaders, type HttpResult, newWallet } from '../helpers/client.js';
import { startGate, testSecret, type GateProcess } from '../helpers/gate.js';
import { startPrivateRedis, type PrivateRedis } from '../helpers/private-redis.js';

/**
 * Redis taken away under two running gates (a private redis-server this test kills, freezes and
 * restarts): logins fail closed with 503, nonces and /health keep answering, and the gates recover
 * by themselves when Redis is back.
 */
let localnet: LocalnetHandle;
let redis: PrivateRedis;
let gates: GateProcess[];

beforeAll(async () => {
  [localnet, redis] = await Promise.all([startLocalnet({ port: 0 }), startPrivateRedis()]);
  const env = { JWT_SECRET: testSecret(), REDIS_URL: redis.url, RATE_LIMIT_PER_MINUTE: '1000' };
  gates = await Promise.all([startGate({ rpcUrl: localnet.url, env }), startGate({ rpcUrl: localnet.url, env })]);
});
afterAll(async () => {
  redis?.thaw();
  await Promise.all((gates ?? []).map((gate) => gate.stop('SIGKILL')));
  await Promise.all([localnet?.close(), redis?.stop()]);
});


async function loginAt(gate: GateProcess, wallet: Uint8Array): Promise<HttpResult & { nonce: string }> {
  const issued = await get(`${gate.url}/x404_auth/blacklist`);
  expect(issued.status).toBe(200);
  const nonce = issued.headers.get('x-404-nonce')!;
  const result = await get(`${gate.url}/x404_auth/blacklist`, { ...signedHeaders(wallet, nonce, 'blacklist'), ...blacklistPolicy() });
  return { ...result, nonce };
}

async function health(gate: GateProcess): Promise<HttpResult> {
  const result = await get(`${gate.url}/health`);
  expect(result.status).toBe(200);
  expect(result.headers.get('content-type')).toMatch(/^application\/json/);
  return result;
}

async function eventually(check: () => Promise<boolean>, what: string, tries = 150): Promise<void> {
  for (let attempt = 0; attempt < tries; attempt += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`never happened: ${what}`);
}

/** `nonceSpent`: false when the gate never reached Redis; true when the SET went out unanswered (it may land later). */
function expectFailClosed(result: HttpResult, nonceSpent: boolean): void {
  expect(result.status, JSON.stringify(result.body)).toBe(503);
  expect(result.body.error).toBe('UPSTREAM_UNAVAILABLE');
  expect(result.body.token).toBeUndefined();
  expect(Number(result.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(result.body.nonceSpent).toBe(nonceSpent);
}

describe('Redis outage under two gates', () => {
  it('fails logins closed while Redis is down, keeps issuing nonces, reports it, and recovers by itself', async () => {
    const wallet = newWallet();
    for (const gate of gates) expect((await loginAt(gate, wallet)).status).toBe(200);
    for (const gate of gates) expect((await health(gate)).body.checks?.nonceStore).toBe('ok');

    await redis.stop();
    for (const gate of gates) {
      // Nonce issuance and health do not depend on Redis (the limiter falls back to memory).
      for (const feature of ['blacklist', 'tier', 'age']) {
        const nonce = await get(`${gate.url}/x404_auth/${feature}`);
        expect(nonce.status).toBe(200);
        expect(nonce.headers.get('x-404-nonce')).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      }
      await eventually(async () => (await health(gate)).body.checks?.nonceStore !== 'ok', 'health reports the store degraded');
      expect(JSON.stringify((await health(gate)).body.checks.nonceStore)).toMatch(/redis/i);
      expectFailClosed(await loginAt(gate, wallet), false);
    }

    await redis.start();
    // No gate restart: each recovers on its own once its client has reconnected.
    for (const gate of gates) {
      await eventually(async () => (await health(gate)).body.checks?.nonceStore === 'ok', 'health reports the store ok again');
    }
    const recovered = await loginAt(gates[0]!, wallet);
    expect(recovered.status, JSON.stringify(recovered.body)).toBe(200);
    // Single use holds across the recovered deployment.
    const replay = await get(`${gates[1]!.url}/x404_auth/blacklist`, { ...signedHeaders(wallet, recovered.nonce, 'blacklist'), ...blacklistPolicy() });
    expect(replay.status).toBe(401);
    expect(replay.body.error).toBe('NONCE_REUSED');
  });

  it('answers 503 rather than hanging when Redis accepts connections but stops answering', async () => {
    const wallet = newWallet();
    await eventually(async () => (await health(gates[0]!)).body.checks?.nonceStore === 'ok', 'Redis ready');
    redis.freeze();
    try {
      // Nonces keep flowing: the limiter gives up on the frozen Redis after its command timeout.
      expect((await get(`${gates[0]!.url}/x404_auth/blacklist`)).status).toBe(200);
      expectFailClosed(await loginAt(gates[0]!, wallet), true);
      expect((await health(gates[0]!)).body.checks?.nonceStore).not.toBe('ok');
    } finally {
      redis.thaw();
    }
    await eventually(async () => (await loginAt(gates[0]!, wallet)).status === 200, 'logins work again after the freeze');
  });

  it('answers a login stuck on a frozen Redis at LOGIN_TIMEOUT_MS, before the Redis command timeout', async () => {
    const LOGIN_TIMEOUT_MS = 500;
    const gate = await startGate({ rpcUrl: localnet.url, env: { REDIS_URL: redis.url, RATE_LIMIT_PER_MINUTE: '0', LOGIN_TIMEOUT_MS: String(LOGIN_TIMEOUT_MS) } });
    try {
      const wallet = newWallet();
      await eventually(async () => (await loginAt(gate, wallet)).status === 200, 'Redis ready for the new gate');
      const nonce = (await get(`${gate.url}/x404_auth/blacklist`)).headers.get('x-404-nonce')!;
      const headers = { ...signedHeaders(wallet, nonce, 'blacklist'), ...blacklistPolicy() };
      redis.freeze();
      try {
        const started = performance.now();
        const result = await get(`${gate.url}/x404_auth/blacklist`, headers);
        // The nonce store's own command timeout (1000 ms) would answer at 1 s or later; the login's
        // bound (500 ms) answers first. The margin absorbs a busy machine.
        expect(performance.now() - started).toBeLessThan(900);
        // The SET was sent and may land once Redis wakes up: the nonce counts as spent.
        expectFailClosed(result, true);
      } finally {
        redis.thaw();
      }
    } finally {
      await gate.stop('SIGKILL');
    }
  });
});

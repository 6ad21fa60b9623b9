import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';
import { blacklistPolicy, get, publicKeyOf, signedHeaders, type HttpResult, newWallet } from '../helpers/client.js';
import { startGate, testSecret, type GateProcess } from '../helpers/gate.js';

/**
 * Two gate processes behind an imaginary load balancer, sharing the real Redis at 127.0.0.1:6379:
 * they must behave as one deployment (single use, tokens, rate limit). TRUST_PROXY=1, so each test
 * speaks from its own X-Forwarded-For address and has its own rate-limit budget.
 */
const RATE_LIMIT = 10;
let localnet: LocalnetHandle;
let gateA: GateProcess;
let gateB: GateProcess;

beforeAll(async () => {
  localnet = await startLocalnet({ port: 0 });
  const env = {
    JWT_SECRET: testSecret(),
    REDIS_URL: 'redis://127.0.0.1:6379',
    // A fresh prefix per run: no state left over from earlier runs or other suites.
    REDIS_KEY_PREFIX: `x404e2e:${randomBytes(6).toString('hex')}:`,
    RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
    TRUST_PROXY: '1',
  };
  [gateA, gateB] = await Promise.all([startGate({ rpcUrl: localnet.url, env }), startGate({ rpcUrl: localnet.url, env })]);
});
afterAll(async () => {
  await Promise.all([gateA?.stop('SIGKILL'), gateB?.stop('SIGKILL')]);
  await localnet?.close();
});

let addressCounter = 0;
/** A client address of its own (TEST-NET-2), so a test's requests share one rate-limit budget. */
const newClientAddress = (): string => `198.51.100.${++addressCounter}`;


async function nonceFrom(gate: GateProcess, feature: string, clientAddress: string): Promise<string> {
  const result = await get(`${gate.url}/x404_auth/${feature}`, { 'X-Forwarded-For': clientAddress });
  expect(result.status, JSON.stringify(result.body)).toBe(200);
  return result.headers.get('x-404-nonce')!;
}

function signedLogin(gate: GateProcess, wallet: Uint8Array, nonce: string, clientAddress: string): Promise<HttpResult> {
  return get(`${gate.url}/x404_auth/blacklist`, {
    ...signedHeaders(wallet, nonce, 'blacklist'),
    ...blacklistPolicy(),
    'X-Forwarded-For': clientAddress,
  });
}

describe('two gates sharing one Redis', () => {
  it('accepts at B a nonce issued by A, then refuses its replay at A and at B', async () => {
    const client = newClientAddress();
    const wallet = newWallet();
    const nonce = await nonceFrom(gateA, 'blacklist', client);
    const first = await signedLogin(gateB, wallet, nonce, client);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ success: true, publicKey: publicKeyOf(wallet), feature: 'blacklist' });

    for (const gate of [gateA, gateB]) {
      const replay = await signedLogin(gate, wallet, nonce, client);
      expect(replay.status).toBe(401);
      expect(replay.body.error).toBe('NONCE_REUSED');
    }
  });

  it('lets exactly one of 40 concurrent uses of one nonce, split across A and B, succeed', async () => {
    const wallet = newWallet();
    const nonce = await nonceFrom(gateB, 'blacklist', newClientAddress());
    // Forty replaying clients, each from its own address so none is rate limited.
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => signedLogin(i % 2 === 0 ? gateA : gateB, wallet, nonce, newClientAddress())),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const refused = results.filter((r) => r.status !== 200);
    expect(refused.map((r) => `${r.status} ${r.body.error}`)).toEqual(Array(39).fill('401 NONCE_REUSED'));
  });

  it('re-authenticates at B with a token issued by A', async () => {
    const client = newClientAddress();
    const wallet = newWallet();
    const issued = await signedLogin(gateA, wallet, await nonceFrom(gateA, 'blacklist', client), client);
    expect(issued.status).toBe(200);
    const again = await get(`${gateB.url}/x404_auth/blacklist`, { 'x-jwt': issued.body.token, 'X-Forwarded-For': client });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ success: true, alreadyAuthenticated: true, publicKey: publicKeyOf(wallet), feature: 'blacklist' });
  });

  it('counts one client alternating between A and B against one shared limit', async () => {
    const client = newClientAddress();
    const answers: HttpResult[] = [];
    for (let i = 0; i < RATE_LIMIT + 2; i += 1) {
      answers.push(await get(`${(i % 2 === 0 ? gateA : gateB).url}/x404_auth/tier`, { 'X-Forwarded-For': client }));
    }
    expect(answers.map((a) => a.status)).toEqual([...Array(RATE_LIMIT).fill(200), 429, 429]);
    expect(answers.slice(0, RATE_LIMIT).map((a) => a.headers.get('ratelimit-remaining'))).toEqual(
      Array.from({ length: RATE_LIMIT }, (_, i) => String(RATE_LIMIT - 1 - i)),
    );

    const limited = answers[RATE_LIMIT]!;
    expect(limited.body.error).toBe('RATE_LIMITED');
    expect(typeof limited.body.message).toBe('string');
    expect(limited.headers.get('content-type')).toMatch(/^application\/json/);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    expect(limited.headers.get('ratelimit-limit')).toBe(String(RATE_LIMIT));
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('ratelimit-policy')).toBe(`${RATE_LIMIT};w=60`);

    // Logins count too, and other clients keep their own budget.
    const wallet = newWallet();
    const login = await signedLogin(gateB, wallet, 'x'.repeat(51), client);
    expect(login.status).toBe(429);
    expect((await get(`${gateA.url}/x404_auth/tier`, { 'X-Forwarded-For': newClientAddress() })).status).toBe(200);
  });
});

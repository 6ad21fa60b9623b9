import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { demoMint } from 'x404-localnet/fixture.js';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';
import { blacklistPolicy, get, getNonce, newWallet, signedHeaders, type HttpResult } from '../helpers/client.js';
import { startGate, type GateProcess } from '../helpers/gate.js';

/**
 * LOGIN_TIMEOUT_MS and hedged reads end to end: a real gate process reading from two local chains
 * (two RPC providers) whose fault modes make them hang.
 */
let providerA: LocalnetHandle;
let providerB: LocalnetHandle;
const gates: GateProcess[] = [];

beforeAll(async () => {
  [providerA, providerB] = await Promise.all([startLocalnet({ port: 0 }), startLocalnet({ port: 0 })]);
});
afterEach(async () => {
  providerA.faults.clear();
  providerB.faults.clear();
  await Promise.all(gates.splice(0).map((gate) => gate.stop('SIGKILL')));
});
afterAll(async () => {
  await Promise.all([providerA?.close(), providerB?.close()]);
});

async function gateOnBoth(env: Record<string, string>): Promise<GateProcess> {
  const gate = await startGate({ rpcUrl: `${providerA.url},${providerB.url}`, env: { RPC_TIMEOUT_MS: '5000', RPC_RETRIES: '2', ...env } });
  gates.push(gate);
  return gate;
}

interface SignedLogin {
  feature: string;
  headers: Record<string, string>;
}

/** Nonce and signature obtained beforehand, so only the login request itself is timed. */
async function signedLogin(gate: GateProcess, feature: string, policy: Record<string, string>): Promise<SignedLogin> {
  const { nonce, mechanism } = await getNonce(gate.url, feature);
  return { feature, headers: { ...signedHeaders(newWallet(), nonce, feature, mechanism), ...policy } };
}

/** Sends the login; `elapsedMs` runs from sending the request to receiving the whole response. */
async function send(gate: GateProcess, login: SignedLogin): Promise<HttpResult & { elapsedMs: number }> {
  const started = performance.now();
  const result = await get(`${gate.url}/x404_auth/${login.feature}`, login.headers);
  return { ...result, elapsedMs: performance.now() - started };
}

async function metric(gate: GateProcess, name: string, labels: string): Promise<number> {
  const text = (await get(`${gate.url}/metrics`)).body as string;
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

const usdcOnly = blacklistPolicy({ excluded: [demoMint('usdc')] });

describe('hedged reads: one of two providers hangs', () => {
  it('logins still succeed, each well under RPC_TIMEOUT_MS, and the hedges are counted', async () => {
    const gate = await gateOnBoth({ RPC_HEDGE_MS: '300' });
    providerA.faults.set({ mode: 'timeout' });
    // A fresh gate: the first login also looks the mints' token program up (two reads in a row).
    const policy = blacklistPolicy({ excluded: [demoMint('usdc'), demoMint('t22')] });
    const first = await send(gate, await signedLogin(gate, 'blacklist', policy));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const logins = await Promise.all(Array.from({ length: 8 }, () => signedLogin(gate, 'blacklist', policy)));
    const results = await Promise.all(logins.map((login) => send(gate, login)));
    for (const result of [first, ...results]) {
      expect(result.status, JSON.stringify(result.body)).toBe(200);
      // Each read waits RPC_HEDGE_MS (300 ms) at most for the hanging provider: far below RPC_TIMEOUT_MS (5 s).
      expect(result.elapsedMs).toBeLessThan(2500);
    }
    expect(await metric(gate, 'x404_rpc_hedges_total', 'outcome="won"')).toBeGreaterThanOrEqual(1);
    // The mints' programs (getMultipleAccounts), then every account of the excluded mints (getTokenAccountsByOwner): both read at B.
    const { calls } = providerB.stats();
    expect((calls.getMultipleAccounts ?? 0) + (calls.getTokenAccountsByOwner ?? 0)).toBeGreaterThanOrEqual(2);
  });
});

describe('LOGIN_TIMEOUT_MS: every provider hangs', () => {
  const LOGIN_TIMEOUT_MS = 1500;

  it('answers every login 503 within LOGIN_TIMEOUT_MS + 100 ms, with no token and the nonce given back', async () => {
    const gate = await gateOnBoth({ LOGIN_TIMEOUT_MS: String(LOGIN_TIMEOUT_MS) });
    // The gate learns USDC's token program, so logins with it read only ATAs; t22 still needs a
    // mint-program lookup first (two reads in a row, the case that used to take over 20 s).
    expect((await send(gate, await signedLogin(gate, 'blacklist', usdcOnly))).status).toBe(200);
    const logins = [
      ...(await Promise.all(Array.from({ length: 3 }, () => signedLogin(gate, 'blacklist', usdcOnly)))),
      await signedLogin(gate, 'blacklist', blacklistPolicy({ excluded: [demoMint('t22')] })),
      await signedLogin(gate, 'age', { min_wallet_age_days: '30' }),
      await signedLogin(gate, 'nodebt', { check_protocols: '["kamino","save","marginfi"]' }),
    ];

    providerA.faults.set({ mode: 'timeout' });
    providerB.faults.set({ mode: 'timeout' });
    const results = await Promise.all(logins.map((login) => send(gate, login)));
    for (const [i, result] of results.entries()) {
      const what = `${logins[i]!.feature} #${i}: ${JSON.stringify(result.body)}`;
      expect(result.status, what).toBe(503);
      expect(result.body.error, what).toBe('UPSTREAM_UNAVAILABLE');
      expect(result.body.token, what).toBeUndefined();
      expect(Number(result.headers.get('retry-after')), what).toBeGreaterThanOrEqual(1);
      expect(result.body.nonceSpent, what).toBe(false);
      expect(result.elapsedMs, what).toBeLessThanOrEqual(LOGIN_TIMEOUT_MS + 100);
    }

    // nonceSpent: false is true to its word: once the chain answers again (and the providers'
    // cool-down, at most 2 s, has passed), the very same signed requests succeed — once each.
    providerA.faults.clear();
    providerB.faults.clear();
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const retried = await Promise.all(logins.map((login) => send(gate, login)));
    for (const result of retried) expect(result.status, JSON.stringify(result.body)).not.toBe(503);
    expect(retried.map((result) => result.body.token !== undefined)).toEqual(logins.map((login) => login.feature !== 'age'));
    const replayed = await Promise.all(logins.map((login) => send(gate, login)));
    for (const result of replayed) expect(result.body.error).toBe('NONCE_REUSED');
  });
});

describe('a nonce given back after a failed chain read (Redis store)', () => {
  it('lets the same signed request succeed later on another instance, exactly once', async () => {
    const env = { REDIS_URL: 'redis://127.0.0.1:6379', REDIS_KEY_PREFIX: `x404test:${process.pid}:${Date.now()}:`, JWT_SECRET: 'x'.repeat(40) };
    const [first, second] = await Promise.all([gateOnBoth(env), gateOnBoth(env)]);
    const login = await signedLogin(first!, 'blacklist', usdcOnly);
    providerA.faults.set({ mode: 'http500' });
    providerB.faults.set({ mode: 'http500' });
    const failed = await send(first!, login);
    expect(failed.status, JSON.stringify(failed.body)).toBe(503);
    expect(failed.body).toMatchObject({ error: 'UPSTREAM_UNAVAILABLE', nonceSpent: false });
    providerA.faults.clear();
    providerB.faults.clear();
    const results = await Promise.all([send(second!, login), send(first!, login), send(second!, login)]);
    expect(results.map((result) => result.status).sort()).toEqual([200, 401, 401]);
    expect(results.filter((result) => result.body.error === 'NONCE_REUSED')).toHaveLength(2);
  });
});

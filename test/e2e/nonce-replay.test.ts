import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { decodeBase32 } from '../../src/lib/base32.js';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';
import { blacklistPolicy, get, newWallet, signedHeaders, type HttpResult } from '../helpers/client.js';
import { startGate, testSecret, type GateProcess } from '../helpers/gate.js';
import { startPrivateRedis, type PrivateRedis } from '../helpers/private-redis.js';

/**
 * A spent nonce never works twice, whatever the store loses (docs/deploying.md, "Single use when
 * the store loses data"): real gate processes over HTTP, a gate restarted (memory store), a private
 * redis-server flushed, restarted empty, or missing a key, and gates whose clocks are 5 minutes
 * apart (their wall clock shifted by test/helpers/skewed-clock.mjs, preloaded into the process).
 */
let localnet: LocalnetHandle;

beforeAll(async () => {
  localnet = await startLocalnet({ port: 0 });
});
afterAll(async () => {
  await localnet?.close();
});

const SKEWED_CLOCK = pathToFileURL(fileURLToPath(new URL('../helpers/skewed-clock.mjs', import.meta.url))).href;
const clockOffEnv = (offsetMs: number): Record<string, string> => ({ NODE_OPTIONS: `--import=${SKEWED_CLOCK}`, X404_TEST_CLOCK_OFFSET_MS: String(offsetMs) });

async function nonceFrom(gate: GateProcess): Promise<string> {
  const issued = await get(`${gate.url}/x404_auth/blacklist`);
  expect(issued.status, JSON.stringify(issued.body)).toBe(200);
  return issued.headers.get('x-404-nonce')!;
}

/** The signed request of a login: the same headers are sent again to replay it. */
function signedLogin(wallet: Uint8Array, nonce: string): Record<string, string> {
  return { ...signedHeaders(wallet, nonce, 'blacklist'), ...blacklistPolicy() };
}

const send = (gate: GateProcess, headers: Record<string, string>): Promise<HttpResult> => get(`${gate.url}/x404_auth/blacklist`, headers);

function expectRefused(result: HttpResult, code: string): void {
  expect(result.status, JSON.stringify(result.body)).toBe(401);
  expect(result.body.error).toBe(code);
  expect(result.body.token).toBeUndefined();
}

/**
 * A fresh login (new nonce from `issuer`, signed, sent to `server`) until one passes; every answer
 * before it must be a 401 NONCE_EXPIRED (instances converging on the store's new epochs: a nonce
 * issued a moment before an instance learnt them). Returns how many were refused.
 */
async function freshLoginPasses(issuer: GateProcess, server: GateProcess, attempts = 50): Promise<number> {
  const wallet = newWallet();
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const result = await send(server, signedLogin(wallet, await nonceFrom(issuer)));
    if (result.status === 200) {
      expect(result.body.token).toEqual(expect.any(String));
      return attempt;
    }
    expectRefused(result, 'NONCE_EXPIRED');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no fresh login passed in ${attempts} attempts`);
}

describe('memory store: a gate restart', () => {
  it('refuses a nonce spent before the restart with 401 NONCE_EXPIRED, and the restarted gate serves new nonces', async () => {
    const env = { JWT_SECRET: testSecret() };
    const wallet = newWallet();
    const before = await startGate({ rpcUrl: localnet.url, env });
    let login: Record<string, string>;
    try {
      login = signedLogin(wallet, await nonceFrom(before));
      expect((await send(before, login)).status).toBe(200);
      expectRefused(await send(before, login), 'NONCE_REUSED');
    } finally {
      await before.stop();
    }
    const after = await startGate({ rpcUrl: localnet.url, env });
    try {
      expectRefused(await send(after, login), 'NONCE_EXPIRED');
      const fresh = signedLogin(wallet, await nonceFrom(after));
      expect((await send(after, fresh)).status).toBe(200);
      expectRefused(await send(after, fresh), 'NONCE_REUSED');
      expectRefused(await send(after, login), 'NONCE_EXPIRED');
    } finally {
      await after.stop();
    }
  });
});

describe('Redis: two gates on a private Redis that loses what it held', () => {
  const KEY_PREFIX = 'x404replay:';
  let redis: PrivateRedis;
  let raw: Redis;
  let gateA: GateProcess;
  let gateB: GateProcess;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    raw = new Redis(redis.url, { maxRetriesPerRequest: 0, retryStrategy: () => 100 });
    raw.on('error', () => undefined);
    const env = { JWT_SECRET: testSecret(), REDIS_URL: redis.url, REDIS_KEY_PREFIX: KEY_PREFIX };
    [gateA, gateB] = await Promise.all([startGate({ rpcUrl: localnet.url, env }), startGate({ rpcUrl: localnet.url, env })]);
  });
  afterAll(async () => {
    raw?.disconnect();
    await Promise.all([gateA?.stop('SIGKILL'), gateB?.stop('SIGKILL')]);
    await redis?.remove();
  });

  /** A login whose nonce came from A, signed and spent at B, refused when sent again at either. */
  async function spentLogin(): Promise<{ login: Record<string, string>; nonce: string }> {
    const nonce = await nonceFrom(gateA);
    const login = signedLogin(newWallet(), nonce);
    const first = await send(gateB, login);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expectRefused(await send(gateA, login), 'NONCE_REUSED');
    return { login, nonce };
  }

  async function health(gate: GateProcess): Promise<Record<string, string>> {
    const result = await get(`${gate.url}/health`);
    expect(result.status).toBe(200);
    return result.body.checks as Record<string, string>;
  }

  it('after FLUSHALL: the replay answers 401 NONCE_EXPIRED at both gates, and new logins work', async () => {
    const { login } = await spentLogin();
    await raw.flushall();
    expectRefused(await send(gateA, login), 'NONCE_EXPIRED');
    expectRefused(await send(gateB, login), 'NONCE_EXPIRED');
    expect(await freshLoginPasses(gateA, gateB)).toBeLessThan(50);
    expect(await freshLoginPasses(gateB, gateA)).toBeLessThan(50);
    // Converged within a canary interval and a re-read (2 s + 1 s, src/nonce/redis-epochs.ts): from
    // then on, nonces from either gate work at the other at once.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    for (let round = 0; round < 5; round += 1) {
      expect(await freshLoginPasses(gateA, gateB)).toBe(0);
      expect(await freshLoginPasses(gateB, gateA)).toBe(0);
    }
    expectRefused(await send(gateB, login), 'NONCE_EXPIRED');
    expect(await health(gateA)).toMatchObject({ nonceStore: 'ok', clock: 'ok' });
  });

  it('after Redis restarts empty (no persistence): 401, and the gates recover by themselves', async () => {
    const { login } = await spentLogin();
    await redis.stop();
    await redis.start();
    for (const gate of [gateA, gateB]) {
      for (let attempt = 0; (await health(gate)).nonceStore !== 'ok'; attempt += 1) {
        expect(attempt).toBeLessThan(100);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    expectRefused(await send(gateA, login), 'NONCE_EXPIRED');
    expectRefused(await send(gateB, login), 'NONCE_EXPIRED');
    // Each gate re-read every epoch on reconnecting (before /health said ok): nothing left to learn.
    for (let round = 0; round < 5; round += 1) {
      expect(await freshLoginPasses(gateA, gateB)).toBe(0);
      expect(await freshLoginPasses(gateB, gateA)).toBe(0);
    }
  });

  it('after the key holding the nonce\'s bucket is evicted (DEL): 401', async () => {
    const { login, nonce } = await spentLogin();
    const bucket = (decodeBase32(nonce) as Buffer)[8]!;
    expect(await raw.del(`${KEY_PREFIX}spent:{e${bucket}}`)).toBe(1);
    expectRefused(await send(gateB, login), 'NONCE_EXPIRED');
    expectRefused(await send(gateA, login), 'NONCE_EXPIRED');
    expect(await freshLoginPasses(gateA, gateB)).toBeLessThan(50);
  });
});

describe('Redis: gates whose clocks are 5 minutes apart', () => {
  const FIVE_MINUTES = 300_000;
  let redis: PrivateRedis;
  let raw: Redis;
  /** The machine's clock; MAX_CLOCK_SKEW_MS 1 s, so a record outlives its nonce by 2 s. */
  let onTime: GateProcess;
  /** 5 minutes behind, default MAX_CLOCK_SKEW_MS (30 s). */
  let behind: GateProcess;
  /** 5 minutes behind, with MAX_CLOCK_SKEW_MS raised to 10 minutes: it serves, so only the store's clock stands in the way. */
  let behindTolerated: GateProcess;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    raw = new Redis(redis.url);
    const env = { JWT_SECRET: testSecret(), REDIS_URL: redis.url, NONCE_TTL_SECONDS: '2' };
    [onTime, behind, behindTolerated] = await Promise.all([
      startGate({ rpcUrl: localnet.url, env: { ...env, MAX_CLOCK_SKEW_MS: '1000' } }),
      startGate({ rpcUrl: localnet.url, env: { ...env, ...clockOffEnv(-FIVE_MINUTES) } }),
      startGate({ rpcUrl: localnet.url, env: { ...env, ...clockOffEnv(-FIVE_MINUTES), MAX_CLOCK_SKEW_MS: '600000' } }),
    ]);
  });
  afterAll(async () => {
    raw?.disconnect();
    await Promise.all([onTime, behind, behindTolerated].map((gate) => gate?.stop('SIGKILL')));
    await redis?.remove();
  });

  it('a gate whose clock is off says why in /health and its metrics, and answers 503 to nonces and logins', async () => {
    const checks = (await get(`${behind.url}/health`)).body.checks;
    expect(checks.nonceStore).toBe('ok');
    expect(checks.clock).toMatch(/^its clock is 300\.\d s behind the nonce store's \(Redis TIME\), more than MAX_CLOCK_SKEW_MS \(30 s\) allows/);
    expect((await get(`${onTime.url}/health`)).body.checks.clock).toBe('ok');
    const metrics = (await get(`${behind.url}/metrics`)).text ?? "";
    const offset = Number(/^x404_clock_offset_seconds (\S+)$/m.exec(metrics)?.[1]);
    expect(offset).toBeGreaterThan(-301);
    expect(offset).toBeLessThan(-299);

    const nonce = await get(`${behind.url}/x404_auth/blacklist`);
    expect(nonce.status).toBe(503);
    expect(nonce.body.error).toBe('UPSTREAM_UNAVAILABLE');
    expect(nonce.body.message).toMatch(/clock is 300\.\d s behind/);
    expect(Number(nonce.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(nonce.headers.get('x-404-nonce')).toBeNull();
    expect(nonce.body.nonceSpent).toBe(false);
    const login = await send(behind, signedLogin(newWallet(), await nonceFrom(onTime)));
    expect(login.status).toBe(503);
    expect(login.body).toMatchObject({ error: 'UPSTREAM_UNAVAILABLE', nonceSpent: false });
    expect(login.body.token).toBeUndefined();
  });

  it('a nonce spent at one gate and replayed at another after its record expired on the store\'s clock is refused, though the other\'s clock calls it young', async () => {
    const nonce = await nonceFrom(onTime);
    const login = signedLogin(newWallet(), nonce);
    expect((await send(onTime, login)).status).toBe(200);
    const bucket = (decodeBase32(nonce) as Buffer)[8]!;
    const member = (decodeBase32(nonce) as Buffer).subarray(8, 24).toString('base64url');
    const key = `x404:spent:{e${bucket}}`;
    expect(await raw.zscore(key, member)).not.toBeNull();
    // The nonce lives 2 s and its record 2 s more, on Redis's clock: wait until Redis forgot it.
    for (let attempt = 0; (await raw.zscore(key, member)) !== null; attempt += 1) {
      expect(attempt).toBeLessThan(100);
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Any spend in the bucket forgets expired records; the gates also sweep every 15 s.
      await raw.eval("local t = redis.call('TIME') return redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (t[1] * 1000 + math.floor(t[2] / 1000)))", 1, key);
    }
    // By the tolerated gate's clock (5 minutes behind) the nonce was issued 5 minutes from now and is
    // young; an instance judging on its own clock would take it, as nothing records it any more.
    expectRefused(await send(behindTolerated, login), 'NONCE_EXPIRED');
    expectRefused(await send(onTime, login), 'NONCE_EXPIRED');
    expect((await send(behind, login)).status).toBe(503);
  });

  it('a gate that tolerates its clock still spends a nonce at most once with the others', async () => {
    const nonce = await nonceFrom(onTime);
    const login = signedLogin(newWallet(), nonce);
    const answers = await Promise.all([send(onTime, login), send(behindTolerated, login), send(onTime, login), send(behindTolerated, login)]);
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    for (const answer of answers.filter((each) => each.status !== 200)) expectRefused(answer, 'NONCE_REUSED');
  });
});

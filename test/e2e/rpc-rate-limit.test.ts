import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { associatedTokenAddress } from '../../src/chain/ata.js';
import { TOKEN_PROGRAM_IDS } from '../../src/chain/token-programs.js';
import { demoMint } from 'x404-localnet/fixture.js';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';
import { blacklistPolicy, get, getNonce, newWallet, publicKeyOf, signedHeaders } from '../helpers/client.js';
import { startGate, type GateProcess } from '../helpers/gate.js';

/**
 * A provider that answers HTTP 429 (the local chain's RPC_REQUESTS_PER_SECOND, over HTTP): what a
 * user signing in sees. Either the gate waits out the provider's Retry-After and the login
 * succeeds, or, when that does not fit in LOGIN_TIMEOUT_MS, it answers 503 with a Retry-After — and
 * a token is never issued without the chain having answered the read.
 */
let chain: LocalnetHandle;
const gates: GateProcess[] = [];
const usdc = demoMint('usdc');
const policy = blacklistPolicy({ excluded: [usdc] });

beforeAll(async () => {
  chain = await startLocalnet({ port: 0, recordCalls: 1000 });
});
afterEach(async () => {
  chain.provider.set({ latencyMs: 0, requestsPerSecond: 0 });
  await Promise.all(gates.splice(0).map((gate) => gate.stop('SIGKILL')));
});
afterAll(async () => {
  await chain?.close();
});

async function gate(env: Record<string, string> = {}): Promise<GateProcess> {
  const started = await startGate({ rpcUrl: chain.url, env: { RPC_RETRIES: '2', ...env } });
  gates.push(started);
  return started;
}

/** A signed blacklist login of a fresh wallet (the nonce route does not read the chain). */
async function signedLogin(target: GateProcess): Promise<{ wallet: string; headers: Record<string, string> }> {
  const secretKey = newWallet();
  const { nonce, mechanism } = await getNonce(target.url, 'blacklist');
  return { wallet: publicKeyOf(secretKey), headers: { ...signedHeaders(secretKey, nonce, 'blacklist', mechanism), ...policy } };
}

/** Uses up the provider's allowance, as other clients of the same plan would. */
async function drainAllowance(): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await fetch(chain.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"getSlot"}' });
  }
}

/**
 * Keys the chain answered reads of (not the calls refused with 429) since `seq`: those of
 * getMultipleAccounts, and the owner of getTokenAccountsByOwner (the default blacklist's read).
 */
function answeredKeys(since: number): Set<string> {
  const keys = new Set<string>();
  for (const call of chain.calls(since).calls) {
    if (call.method === 'getMultipleAccounts') for (const key of (call.params as [string[]])[0]) keys.add(key);
    if (call.method === 'getTokenAccountsByOwner') keys.add((call.params as [string])[0]);
  }
  return keys;
}

/** What a read of the wallet's usdc holdings asks for: its ATAs, or the wallet itself (every account it owns). */
const ata = (wallet: string): string[] => [wallet, ...TOKEN_PROGRAM_IDS.map((program) => associatedTokenAddress(wallet, usdc, program))];

describe('the provider answers 429', () => {
  /** A signed login sent once the provider allows 1 request/s and that allowance is spent. */
  async function loginWhileRateLimited(env?: Record<string, string>) {
    const target = await gate(env);
    const login = await signedLogin(target);
    chain.provider.set({ requestsPerSecond: 1 });
    await drainAllowance();
    chain.resetStats();
    const mark = chain.calls().last;
    return { login, mark, result: await get(`${target.url}/x404_auth/blacklist`, login.headers) };
  }

  it('the login waits out its Retry-After and succeeds, with the read done', async () => {
    const { login, mark, result } = await loginWhileRateLimited();
    expect(result.status).toBe(200);
    expect(typeof result.body.token).toBe('string');
    expect(chain.stats().rateLimited).toBeGreaterThanOrEqual(1);
    // The token came after an answered read of the wallet's account.
    expect(ata(login.wallet).some((key) => answeredKeys(mark).has(key))).toBe(true);
  });

  it('when the Retry-After does not fit in LOGIN_TIMEOUT_MS: 503 with Retry-After, no token, and the chain never answered', async () => {
    const { mark, result } = await loginWhileRateLimited({ LOGIN_TIMEOUT_MS: '500' });
    expect(result.status).toBe(503);
    expect(result.body.error).toBe('UPSTREAM_UNAVAILABLE');
    expect(result.body.token).toBeUndefined();
    expect(Number(result.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(chain.stats().rateLimited).toBeGreaterThanOrEqual(1);
    expect(answeredKeys(mark).size).toBe(0);
  });

  it('a burst of first sign-ins under a low rate limit: each login gets a token only after its read was answered, the others 503', async () => {
    const target = await gate({ LOGIN_TIMEOUT_MS: '3000' });
    const logins = await Promise.all(Array.from({ length: 40 }, () => signedLogin(target)));
    chain.provider.set({ requestsPerSecond: 2 });
    const mark = chain.calls().last;
    // Other clients of the plan keep using it while the burst is served.
    let draining = true;
    const drainer = (async () => {
      while (draining) {
        await drainAllowance();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const results = await Promise.all(
      logins.map(async (login, i) => {
        await new Promise((resolve) => setTimeout(resolve, i * 5));
        return get(`${target.url}/x404_auth/blacklist`, login.headers);
      }),
    );
    draining = false;
    await drainer;

    const answered = answeredKeys(mark);
    expect(chain.stats().rateLimited).toBeGreaterThan(0);
    results.forEach((result, i) => {
      expect([200, 503]).toContain(result.status);
      if (result.status === 200) {
        expect(ata(logins[i]!.wallet).some((key) => answered.has(key))).toBe(true);
      } else {
        expect(result.body.error).toBe('UPSTREAM_UNAVAILABLE');
        expect(result.body.token).toBeUndefined();
        expect(Number(result.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    });
  });
});

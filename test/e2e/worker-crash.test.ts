import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGate, type RunningGate } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';
import { blacklistPolicy, getNonce, newWallet, signedHeaders } from '../helpers/client.js';
import { testSecret } from '../helpers/gate.js';

/**
 * A verify worker thread dies while logins are in flight over HTTP. The gate runs in this test's
 * own process (startGate, as `npm start` wires it; its workers run dist/workers/verify.js, built by
 * `npm test`), so the test can reach the pool's threads (RunningGate.verifyWorkers) and terminate one.
 */
const WORKER_THREADS = 2;
let localnet: LocalnetHandle;
let gate: RunningGate;
let url: string;

beforeAll(async () => {
  localnet = await startLocalnet({ port: 0 });
  const config = loadConfig({
    JWT_SECRET: testSecret(),
    SOLANA_RPC_URL: localnet.url,
    HOST: '127.0.0.1',
    PORT: '0',
    WORKER_THREADS: String(WORKER_THREADS),
    RATE_LIMIT_PER_MINUTE: '0',
  });
  gate = await startGate(config, pino({ level: 'silent' }));
  url = `http://127.0.0.1:${gate.port}/x404_auth/blacklist`;
});
afterAll(async () => {
  await gate?.stop();
  await localnet?.close();
});

/** Signed login headers, nonce issued and challenge signed beforehand. */
async function prepareLogins(count: number): Promise<Record<string, string>[]> {
  const gateUrl = url.slice(0, url.indexOf('/x404_auth'));
  return Promise.all(
    Array.from({ length: count }, async () => {
      const { nonce } = await getNonce(gateUrl, 'blacklist');
      return { ...signedHeaders(newWallet(), nonce, 'blacklist'), ...blacklistPolicy() };
    }),
  );
}

/** Status of each login, or 'no answer' when none came within 15 s. */
async function sendAll(logins: Record<string, string>[], onFirstAnswer: () => void): Promise<(number | 'no answer')[]> {
  let answered = false;
  return Promise.all(
    logins.map(async (headers) => {
      try {
        const response = await fetch(url, { headers, signal: AbortSignal.timeout(15_000) });
        await response.text();
        if (!answered) {
          answered = true;
          onFirstAnswer();
        }
        return response.status;
      } catch {
        return 'no answer' as const;
      }
    }),
  );
}

async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`never happened: ${what}`);
}

describe('a verify worker thread dies mid-login', () => {
  it('every in-flight login answers (200, or 500 for those it held), the pool is refilled, later logins succeed', async () => {
    expect(gate.verifyWorkers()).toHaveLength(WORKER_THREADS);
    let crashedLogins = 0;
    // Logins flow in batches; the thread terminated right after the first answer usually holds
    // the next batch. Try a few bursts until one shows the crash landing on logins in flight.
    for (let burst = 0; burst < 5 && crashedLogins === 0; burst++) {
      const logins = await prepareLogins(300);
      const before = [...gate.verifyWorkers()];
      let victim: (typeof before)[number] | undefined;
      const statuses = await sendAll(logins, () => {
        victim = gate.verifyWorkers()[0];
        void victim?.terminate();
      });
      expect(victim).toBeDefined();
      // None hangs, nothing but success or the internal error of a lost verification.
      expect(statuses.filter((status) => status !== 200 && status !== 500)).toEqual([]);
      crashedLogins = statuses.filter((status) => status === 500).length;
      // The pool replaces the dead thread and is back to full size.
      await eventually(() => gate.verifyWorkers().length === WORKER_THREADS && !gate.verifyWorkers().includes(victim!), 'the pool replaced the thread');
      expect(before).toContain(victim);
    }
    expect(crashedLogins).toBeGreaterThan(0);

    const later = await sendAll(await prepareLogins(50), () => {});
    expect(later).toEqual(later.map(() => 200));
  });
});

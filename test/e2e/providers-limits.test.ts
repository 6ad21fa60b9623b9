import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { demoMint } from 'x404-localnet/fixture.js';
import { tokenTransfer } from 'x404-localnet/recipes.js';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';
import { blacklistPolicy, get, getNonce, newWallet, signedHeaders, type HttpResult } from '../helpers/client.js';
import { startGate, type GateProcess } from '../helpers/gate.js';
import { expectToken, fixtureWallet, newWallet as newKeyedWallet } from './features-kit.js';

/**
 * The gate behind providers that limit callers the way public providers document it (the local
 * chain's provider profiles, docs/local-chain.md "Provider profiles"): batches refused, capped per
 * method class, a budget counted in calls, a first endpoint refusing program scans. Every sign-in is
 * answered as the chain says; a 503 only where the limit leaves no other answer.
 */
let chain: LocalnetHandle;
const gates: GateProcess[] = [];
const usdc = demoMint('usdc');
const lock = demoMint('lock');
const THOUSAND = '1000000000';

beforeAll(async () => {
  chain = await startLocalnet({ port: 0 });
});
afterEach(async () => {
  chain.profile.change('none');
  await Promise.all(gates.splice(0).map((gate) => gate.stop('SIGKILL')));
});
afterAll(async () => {
  await chain?.close();
});

async function gate(rpcUrl: string, env: Record<string, string> = {}): Promise<GateProcess> {
  const started = await startGate({ rpcUrl, env: { RPC_RETRIES: '2', RPC_TIMEOUT_MS: '5000', ...env } });
  gates.push(started);
  return started;
}

/** Runs `count` tasks over `connections` parallel lanes, results in order. */
async function inParallel<T>(count: number, connections: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

/** A first sign-in of a never-seen wallet under the blacklist feature (it holds nothing: the chain says yes). */
async function firstBlacklistSignIn(target: GateProcess): Promise<HttpResult> {
  const secretKey = newWallet();
  const { nonce, mechanism } = await getNonce(target.url, 'blacklist');
  return get(`${target.url}/x404_auth/blacklist`, { ...signedHeaders(secretKey, nonce, 'blacklist', mechanism), ...blacklistPolicy({ excluded: [usdc] }) });
}

function statuses(results: HttpResult[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of results) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

describe('batches off (every JSON-RPC array refused with HTTP 400)', () => {
  it('400 first sign-ins at 64 connections are all answered as the chain says', async () => {
    chain.profile.change('batches-off');
    const target = await gate(chain.url);
    chain.resetStats();
    const results = await inParallel(400, 64, () => firstBlacklistSignIn(target));
    expect(statuses(results)).toEqual({ 200: 400 });
    for (const result of results) expect(typeof result.body.token).toBe('string');
    // Arrays were refused at first (the gate did not know) ...
    expect(chain.stats().provider.refusedRequests).toBeGreaterThan(0);
    // ... and it learned: the next sign-ins send every call alone, nothing refused.
    chain.resetStats();
    const later = await inParallel(64, 64, () => firstBlacklistSignIn(target));
    expect(statuses(later)).toEqual({ 200: 64 });
    expect(chain.stats().provider.refusedCalls).toBe(0);
  }, 120_000);

  it('RPC_BATCH=off sends no array at all', async () => {
    chain.profile.change('batches-off');
    const target = await gate(chain.url, { RPC_BATCH: 'off' });
    chain.resetStats();
    const results = await inParallel(40, 16, () => firstBlacklistSignIn(target));
    expect(statuses(results)).toEqual({ 200: 40 });
    expect(chain.stats().provider.refusedCalls).toBe(0);
  }, 60_000);
});

describe('at most 10 history calls per array', () => {
  /** A wallet that received 1,000 `lock` 60 days ago and holds it since. */
  function longHolder(): Uint8Array {
    const state = chain.state;
    const wallet = newKeyedWallet();
    const account = state.addTokenAccount({ owner: wallet.publicKey, mint: lock, amount: BigInt(THOUSAND), program: 'token' });
    const other = newKeyedWallet();
    const otherAccount = state.addTokenAccount({ owner: other.publicKey, mint: lock, amount: 10n ** 15n, program: 'token' });
    tokenTransfer(state, {
      wallet: wallet.publicKey,
      walletTokenAccount: account,
      counterparty: other.publicKey,
      counterpartyTokenAccount: otherAccount,
      mint: lock,
      decimals: 6,
      walletBefore: null,
      walletAfter: BigInt(THOUSAND),
      daysAgo: 60,
    });
    return wallet.secretKey;
  }

  /** Each wallet signs in to timelock (held ≥ 30 days) at once. */
  function timelockSignIns(url: string, wallets: Uint8Array[]) {
    const policy = { required_mint: lock, mint_amount: THOUSAND, min_hold_duration_days: '30' };
    return Promise.all(
      wallets.map(async (secretKey) => {
        const { nonce, mechanism } = await getNonce(url, 'timelock');
        return get(`${url}/x404_auth/timelock`, { ...signedHeaders(secretKey, nonce, 'timelock', mechanism), ...policy });
      }),
    );
  }

  it('40 concurrent timelock sign-ins all get their token, none 503', async () => {
    chain.profile.change('history-batch-10');
    const wallets = Array.from({ length: 40 }, () => longHolder());
    const target = await gate(chain.url);
    chain.resetStats();
    const results = await timelockSignIns(target.url, wallets);
    expect(statuses(results)).toEqual({ 200: 40 });
    results.forEach((result, i) => expectToken(result, 'timelock', wallets[i]!));
  }, 120_000);

  it('RPC_BATCH_CAPS=history:10 keeps every array within the cap: nothing refused', async () => {
    chain.profile.change('history-batch-10');
    const wallets = Array.from({ length: 20 }, () => longHolder());
    const target = await gate(chain.url, { RPC_BATCH_CAPS: 'history:10' });
    chain.resetStats();
    const results = await timelockSignIns(target.url, wallets);
    expect(statuses(results)).toEqual({ 200: 20 });
    expect(chain.stats().provider.refusedCalls).toBe(0);
  }, 120_000);
});

describe('a first endpoint that refuses getProgramAccounts (-32010, no secondary index)', () => {
  let refusing: LocalnetHandle;
  beforeAll(async () => {
    refusing = await startLocalnet({ port: 0, profile: { getProgramAccounts: 'refused' } });
  });
  afterAll(async () => {
    await refusing?.close();
  });

  const refusedScans = (): number => refusing.stats().provider.refusedByMethod.getProgramAccounts?.['gpa-refused'] ?? 0;

  async function nodebtSignIn(target: GateProcess, secretKey: Uint8Array): Promise<HttpResult> {
    const { nonce, mechanism } = await getNonce(target.url, 'nodebt');
    return get(`${target.url}/x404_auth/nodebt`, signedHeaders(secretKey, nonce, 'nodebt', mechanism));
  }

  it('nodebt answers within LOGIN_TIMEOUT_MS=2000 from the second endpoint; the first gets only the first refused scans and keeps serving the rest', async () => {
    refusing.resetStats();
    // Within 2 s or a 503: every 200 below was answered in time.
    const target = await gate(`${refusing.url},${chain.url}`, { LOGIN_TIMEOUT_MS: '2000' });
    const wallet = fixtureWallet('no-debt');
    const first = await nodebtSignIn(target, wallet);
    expectToken(first, 'nodebt', wallet, { totalDebtUsd: '0' });
    const afterFirst = refusedScans();
    expect(afterFirst).toBeGreaterThan(0);
    for (let i = 0; i < 10; i++) expectToken(await nodebtSignIn(target, wallet), 'nodebt', wallet, { totalDebtUsd: '0' });
    const together = await Promise.all(Array.from({ length: 10 }, () => nodebtSignIn(target, wallet)));
    for (const result of together) expectToken(result, 'nodebt', wallet, { totalDebtUsd: '0' });
    // The first endpoint is not failing: when the second one stumbles, it serves the other reads
    // again (it is the current endpoint), and still gets no scan.
    // Which endpoint takes a given retry depends on timing (hedges, cool-downs), so the first
    // endpoint must have served some of these reads, not each one.
    const tokenAccountReads = refusing.stats().calls.getTokenAccountsByOwner ?? 0;
    for (let i = 0; i < 5; i++) {
      chain.faults.set({ mode: 'http500', methods: ['getTokenAccountsByOwner'], count: 1 });
      expect((await firstBlacklistSignIn(target)).status).toBe(200);
      expectToken(await nodebtSignIn(target, wallet), 'nodebt', wallet, { totalDebtUsd: '0' });
    }
    expect(refusing.stats().calls.getTokenAccountsByOwner ?? 0).toBeGreaterThan(tokenAccountReads);
    chain.faults.clear();
    // Not one refused scan per login: none after the first login's.
    expect(refusedScans()).toBe(afterFirst);
    expect(afterFirst).toBeLessThanOrEqual(5);
  }, 60_000);

  it('when every endpoint refuses the scans, nodebt answers 503 at once, and the endpoint is not asked again', async () => {
    refusing.resetStats();
    const target = await gate(refusing.url, { LOGIN_TIMEOUT_MS: '8000' });
    const wallet = fixtureWallet('no-debt');
    const first = await nodebtSignIn(target, wallet);
    expect(first.status).toBe(503);
    expect(first.body.error).toBe('UPSTREAM_UNAVAILABLE');
    expect(Number(first.headers.get('retry-after'))).toBeGreaterThan(0);
    const afterFirst = refusedScans();
    const again = await nodebtSignIn(target, wallet);
    expect(again.status).toBe(503);
    expect(refusedScans()).toBe(afterFirst);
  }, 60_000);
});

describe('a budget of 150 calls per second, every batch member counted', () => {
  it('600 first sign-ins at 64 connections: ≥ 97 % answered as the chain says, the rest 503 with Retry-After, ≤ 5 % of calls refused', async () => {
    chain.profile.change('per-call-budget');
    const target = await gate(chain.url, { RPC_CALLS_PER_SECOND: '150' });
    chain.resetStats();
    const results = await inParallel(600, 64, () => firstBlacklistSignIn(target));
    const counts = statuses(results);
    const others = results.filter((result) => result.status !== 200);
    for (const result of others) {
      expect(result.status).toBe(503);
      expect(result.body.error).toBe('UPSTREAM_UNAVAILABLE');
      expect(Number(result.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(counts[200] ?? 0).toBeGreaterThanOrEqual(Math.ceil(600 * 0.97));
    const provider = chain.stats().provider;
    console.log('per-call budget:', JSON.stringify({ statuses: counts, calls: provider.calls, httpRequests: provider.httpRequests, refusedCalls: provider.refusedCalls, reasons: provider.refusedByReason, byMethod: provider.refusedByMethod, refusedRequests: provider.refusedRequests }));
    expect(provider.refusedCalls).toBeLessThanOrEqual(provider.calls * 0.05);
  }, 180_000);

  it('without RPC_CALLS_PER_SECOND the gate learns the budget: 600 first sign-ins and on, ≥ 97 % answered as the chain says, ≤ 5 % of calls refused, and from 10 s after the first refusal the provider accepts ≥ 80 % of its budget', async () => {
    const BUDGET = 150;
    /** Seconds judged for convergence, from 10 s after the first refusal. */
    const JUDGED = 10;
    chain.profile.change({ preset: 'per-call-budget', callsPerSecond: BUDGET });
    const target = await gate(chain.url, {});
    chain.resetStats();
    // The gate's budget in force (x404_rpc_call_budget) over time: a second in which it let the gate
    // send ≥ 80 % of the provider's budget, and the provider accepted less, was one in which the gate
    // (this machine) could not send more; the loop did not hold it back.
    const budgets: { at: number; perSecond: number }[] = [];
    let running = true;
    // This process's own pace (it runs the local chain and the 64 clients): a 25 ms ticker that
    // fires far less than 40 times in a second shows a machine too loaded to offer the load.
    const ticks: number[] = [];
    const ticker = setInterval(() => ticks.push(Date.now()), 25);
    const watching = (async () => {
      while (running) {
        const text = await (await fetch(`${target.url}/metrics`)).text();
        const perSecond = Number(/^x404_rpc_call_budget (\S+)$/m.exec(text)?.[1]);
        budgets.push({ at: Date.now(), perSecond });
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    // 600 sign-ins, and on until JUDGED seconds past the first refusal + 10 s have been counted
    // (a condition on the chain's counters, not a duration); lanes stop taking new ones then. A
    // gate that never met the budget in its first 600 (a machine too slow to send 150 calls/s)
    // has nothing to converge to: it stops there.
    const judgedEnough = (): boolean => {
      const { startedAt, seconds } = chain.stats().provider.perSecond;
      const firstRefusal = seconds.findIndex((second) => second.refused > 0);
      return firstRefusal < 0 || (Date.now() - startedAt) / 1000 >= firstRefusal + 10 + JUDGED + 1;
    };
    let lastStartedAt = 0;
    const results: HttpResult[] = [];
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (results.length < 600 || (!judgedEnough() && results.length < 20_000)) {
          lastStartedAt = Date.now();
          const slot = results.length;
          results.push(undefined as unknown as HttpResult);
          results[slot] = await firstBlacklistSignIn(target);
        }
      }),
    );
    running = false;
    clearInterval(ticker);
    await watching;
    const counts = statuses(results);
    for (const result of results.filter((answer) => answer.status !== 200)) {
      expect([result.status, result.body.error]).toEqual([503, 'UPSTREAM_UNAVAILABLE']);
      expect(Number(result.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    const provider = chain.stats().provider;
    const { startedAt, seconds } = provider.perSecond;
    const firstRefusal = seconds.findIndex((second) => second.refused > 0);
    const ticksIn = (second: number): number => ticks.filter((at) => Math.floor((at - startedAt) / 1000) === second).length;
    /** The lowest budget in force seen in `second` (none sampled in it: the last one before). */
    const budgetIn = (second: number): number => {
      const inSecond = budgets.filter(({ at }) => Math.floor((at - startedAt) / 1000) === second).map(({ perSecond }) => perSecond);
      if (inSecond.length > 0) return Math.min(...inSecond);
      return budgets.filter(({ at }) => at < startedAt + second * 1000).at(-1)?.perSecond ?? 0;
    };
    console.log(
      'learned budget:',
      JSON.stringify({
        statuses: counts,
        calls: provider.calls,
        refused: provider.refusedCalls,
        firstRefusal,
        perSecond: seconds.map(({ calls, refused }, second) => `${calls - refused}/${refused}@${budgetIn(second)}~${ticksIn(second)}`).join(' '),
      }),
    );
    expect(counts[200] ?? 0).toBeGreaterThanOrEqual(Math.ceil(results.length * 0.97));
    expect(provider.refusedCalls).toBeLessThanOrEqual(provider.calls * 0.05);
    // Convergence, second by second: from 10 s after the first refusal until the last sign-in was
    // started (fewer than 64 in flight after it: the load ebbs), the provider accepted ≥ 80 % of
    // its budget — but in a second of a probe's refusal or the one after it (the provider's window
    // drains; a 429's Retry-After rests the endpoint), a second in which the learned budget let
    // the gate send ≥ 80 % of it (it plans 90 % per 1.05 s: the gate itself sent less), and a
    // second in which this machine was too loaded to offer the load (this process's ticker, which
    // shares it with the local chain and the clients, fired < 90 % of its 40 times).
    if (firstRefusal < 0) {
      console.log('learned budget: the gate never sent more than the provider\'s budget (a slow machine): no convergence to judge');
      return;
    }
    const lastBusy = Math.floor((lastStartedAt - startedAt) / 1000) - 1;
    expect(lastBusy - (firstRefusal + 10) + 1).toBeGreaterThanOrEqual(JUDGED);
    const heldBack: { second: number; accepted: number; budget: number; ticks: number }[] = [];
    let draining = 0;
    for (let second = firstRefusal + 10; second <= lastBusy; second++) {
      const accepted = seconds[second]!.calls - seconds[second]!.refused;
      const budget = budgetIn(second);
      if (accepted >= 0.8 * BUDGET || ticksIn(second) < 36) continue;
      if (seconds[second]!.refused > 0 || seconds[second - 1]!.refused > 0) draining++;
      else if ((budget * 0.9) / 1.05 < 0.8 * BUDGET) heldBack.push({ second, accepted, budget, ticks: ticksIn(second) });
    }
    expect(heldBack).toEqual([]);
    // Refusals come from the loop's probes (one every 10 s or so) and, on a loaded machine, from
    // requests held past their booked time: the low seconds they excuse are at most half of those judged.
    expect(draining).toBeLessThanOrEqual((lastBusy - firstRefusal - 9) / 2);
  }, 240_000);
});


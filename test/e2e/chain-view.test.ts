import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildDemoState, demoMint, demoWallet, type DemoWalletName } from 'x404-localnet/fixture.js';
import { blockTimeDaysAgo } from 'x404-localnet/recipes.js';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';
import type { ChainState } from 'x404-localnet/state.js';
import { blacklistPolicy, login, type HttpResult } from '../helpers/client.js';
import { startGate, type GateProcess } from '../helpers/gate.js';
import { expectRefusal, expectToken, newWallet } from './features-kit.js';

/**
 * One decision, one view of the chain; a history that may be cut short is unknown, not "new" or
 * "empty" (docs/solana-wire-format.md, "One view of the chain" and "History horizons"). The real
 * gate over HTTP against local chains whose ledger (packages/localnet/src/ledger.ts) lags behind the
 * balance reads, keeps only recent blocks, has no history or no block times — alone, and in a
 * failover list beside a healthy node. In every case the answer is the right one or a 503: never a
 * token from a view the decision should not have trusted.
 */
const DAY_SLOTS = 86_400_000 / 400;
const HISTORY_METHODS = ['getSignaturesForAddress', 'getTransaction'];
const secret = (name: DemoWalletName): Uint8Array => demoWallet(name).secretKey;
const lock = demoMint('lock');
const holdFor = (days: string) => ({ required_mint: lock, mint_amount: '1000000000', min_hold_duration_days: days });
const ageOf = (days: string) => ({ min_wallet_age_days: days });
const activityOf = (minimum: string, days: string) => ({ min_transactions: minimum, time_period_days: days });
/** The slot of the block produced `days` ago on this chain. */
const slotDaysAgo = (state: ChainState, days: number): number => state.slotAt(blockTimeDaysAgo(state, days));

let dir: string;
let policiesFile: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'x404-chain-view-'));
  policiesFile = join(dir, 'policies.json');
  writeFileSync(
    policiesFile,
    JSON.stringify({
      rules: {
        'not-old': { not: { feature: 'age', min_wallet_age_days: '90' } },
        'not-holder': { not: { feature: 'timelock', required_mint: lock, mint_amount: '1000000000', min_hold_duration_days: '30' } },
        'not-active': { not: { feature: 'activity', min_transactions: '5', time_period_days: '60' } },
      },
    }),
  );
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A 503 for an unreadable or incomplete chain: no token, and the body says so. */
function expectUnknown(result: HttpResult, message?: RegExp): Record<string, any> {
  const body = expectRefusal(result, 503, 'UPSTREAM_UNAVAILABLE');
  expect(Number(result.headers.get('retry-after'))).toBeGreaterThan(0);
  if (message) expect(body.message).toMatch(message);
  return body;
}

describe('one endpoint', () => {
  let chain: LocalnetHandle;
  let gate: GateProcess;
  beforeAll(async () => {
    chain = await startLocalnet({ recordCalls: 1000 });
    // The tests change the node's horizon between logins: the gate asks it every time (no cache).
    gate = await startGate({ rpcUrl: chain.url, env: { POLICIES_FILE: policiesFile, HISTORY_HORIZON_TTL_MS: '0' } });
  }, 30_000);
  afterAll(async () => {
    await gate?.stop('SIGKILL');
    await chain?.close();
  });
  beforeEach(() => {
    chain.ledger.reset();
    chain.faults.clear();
  });

  describe('a history node behind the balance read', () => {
    it('timelock: the history is read at least as new as the balance; a node two days behind cannot hide a sale and buy-back', async () => {
      // On a healthy node: sold to 400 a day ago, bought back 12 hours ago → not held 30 days.
      const healthy = expectRefusal(await login(gate.url, 'timelock', secret('lock-rebought'), holdFor('30')), 500, 'INSUFFICIENT_HOLD_DURATION');
      expect(healthy.holdDurationDays).toBeLessThan(1);

      // The history node two days behind would show only the 60-day-old purchase.
      chain.ledger.set({ slotsBehind: 2 * DAY_SLOTS, laggingMethods: HISTORY_METHODS });
      const mark = chain.calls().last;
      const slotBefore = chain.state.slot;
      expectUnknown(await login(gate.url, 'timelock', secret('lock-rebought'), holdFor('30')));
      const calls = chain.calls(mark).calls;
      const pages = calls.filter((call) => call.method === 'getSignaturesForAddress');
      expect(pages.length).toBeGreaterThan(0);
      for (const page of pages) {
        // The slot the balance was read at (the chain's, which a block clock may advance meanwhile).
        const minimum = (page.params as [string, { minContextSlot?: number }])[1].minContextSlot;
        expect(minimum).toBeGreaterThanOrEqual(slotBefore);
        expect(minimum).toBeLessThanOrEqual(chain.state.slot);
        expect(page.answer).toMatch(/^error -32016/);
      }
      expect(calls.some((call) => call.method === 'getTransaction')).toBe(false);
    });

    it('timelock: a history node that ignores minContextSlot is not trusted for it: 503, not the 60-day hold', async () => {
      // Its pages carry no slot, and lock-rebought bought back exactly what it sold: nothing in the
      // lagging history contradicts the balance. Only the node's refusal of a minimum proves its age.
      chain.ledger.set({ slotsBehind: 2 * DAY_SLOTS, laggingMethods: HISTORY_METHODS, honoursMinContextSlot: false });
      const mark = chain.calls().last;
      expectUnknown(await login(gate.url, 'timelock', secret('lock-rebought'), holdFor('30')), /ignores minContextSlot/);
      // The probe: a minimum no node can have reached, answered with a list instead of -32016.
      const probe = chain.calls(mark).calls.find((call) => call.method === 'getSignaturesForAddress' && (call.params as [string, { minContextSlot?: number }])[1].minContextSlot === Number.MAX_SAFE_INTEGER);
      expect(probe?.answer).toMatch(/entr/);
      // The same node honouring the parameter again is trusted again.
      chain.ledger.reset();
      expectRefusal(await login(gate.url, 'timelock', secret('lock-rebought'), holdFor('30')), 500, 'INSUFFICIENT_HOLD_DURATION');
    });

    it('timelock: a history that does not lead to the balance (a transaction missing) is unknown', async () => {
      // 1,000 received 60 days ago, +100 ten days ago — but the account holds 1,200: a move is missing.
      const wallet = newWallet();
      const account = chain.state.addTokenAccount({ owner: wallet.publicKey, mint: lock, amount: 1_200_000_000n, program: 'token' });
      for (const [before, after, daysAgo] of [[null, 1_000_000_000n, 60], [1_000_000_000n, 1_100_000_000n, 10]] as const) {
        chain.state.addTransaction({
          blockTime: blockTimeDaysAgo(chain.state, daysAgo),
          feePayer: wallet.publicKey,
          accountKeys: [account],
          instructions: [],
          tokenBalances: [{ account, mint: lock, owner: wallet.publicKey, decimals: 6, pre: before, post: after }],
        });
      }
      const body = expectUnknown(await login(gate.url, 'timelock', wallet.secretKey, holdFor('30')), /does not lead to its balance/);
      expect(body.history).toBe('incomplete');
    });

    it('not(timelock): a purchase the lagging node has not seen never reads as "not held"', async () => {
      // lock-new bought 1,000 three days ago: not held 30 days, so the `not` passes on a healthy node.
      expectToken(await login(gate.url, 'not-holder', secret('lock-new')), 'not-holder', secret('lock-new'));
      for (const honoursMinContextSlot of [true, false]) {
        chain.ledger.set({ slotsBehind: 4 * DAY_SLOTS, laggingMethods: HISTORY_METHODS, honoursMinContextSlot });
        expectUnknown(await login(gate.url, 'not-holder', secret('lock-new')));
      }
    });
  });

  describe('a node that keeps only recent blocks (getFirstAvailableBlock)', () => {
    it('age: an old wallet whose old transactions were pruned is unknown (503), not WALLET_TOO_NEW; a kept one still proves it', async () => {
      expectToken(await login(gate.url, 'age', secret('old'), ageOf('90')), 'age', secret('old'));
      chain.ledger.set({ firstAvailableBlock: slotDaysAgo(chain.state, 30) });
      // A fresh wallet: the gate remembers wallets it has proven old, and would not read again.
      const wallet = newWallet();
      chain.state.addTransaction({ blockTime: blockTimeDaysAgo(chain.state, 121), feePayer: wallet.publicKey, instructions: [] });
      chain.state.addTransaction({ blockTime: blockTimeDaysAgo(chain.state, 12), feePayer: wallet.publicKey, instructions: [] });
      const body = expectUnknown(await login(gate.url, 'age', wallet.secretKey, ageOf('90')), /keeps history only from a recent block/);
      expect(body.history).toBe('incomplete');
      expectToken(await login(gate.url, 'age', wallet.secretKey, ageOf('10')), 'age', wallet.secretKey);
    });

    it('age: an empty history is "too new" only from a node that keeps the ledger from genesis', async () => {
      const empty = newWallet();
      expectRefusal(await login(gate.url, 'age', empty.secretKey, ageOf('1')), 500, 'WALLET_TOO_NEW');
      chain.ledger.set({ firstAvailableBlock: slotDaysAgo(chain.state, 400) });
      expectUnknown(await login(gate.url, 'age', empty.secretKey, ageOf('1')));
    });

    it('a node without transaction history (-32011): 503', async () => {
      chain.ledger.set({ transactionHistory: false });
      expectUnknown(await login(gate.url, 'age', newWallet().secretKey, ageOf('1')), /-32011/);
      expectUnknown(await login(gate.url, 'activity', secret('quiet'), activityOf('5', '60')), /-32011/);
    });

    it('activity: "not enough" needs the whole period kept; a horizon older than the period is enough', async () => {
      expectRefusal(await login(gate.url, 'activity', secret('quiet'), activityOf('5', '60')), 500, 'INSUFFICIENT_ACTIVITY');
      chain.ledger.set({ firstAvailableBlock: slotDaysAgo(chain.state, 30) });
      // quiet's transaction of 50 days ago is pruned: the 60-day period may hold more than the node lists.
      expectUnknown(await login(gate.url, 'activity', secret('quiet'), activityOf('5', '60')), /inside the period/);
      // The node keeps 30 days, the period is 20: its count is complete.
      const body = expectRefusal(await login(gate.url, 'activity', secret('quiet'), activityOf('5', '20')), 500, 'INSUFFICIENT_ACTIVITY');
      expect(body.transactionCount).toBe(1);
    });
  });

  describe('history without block times', () => {
    beforeEach(() => chain.ledger.set({ blockTimes: false }));

    it('age, activity and timelock answer 503 rather than "too new", "not enough" or "not held long enough"', async () => {
      const wallet = newWallet();
      chain.state.addTransaction({ blockTime: blockTimeDaysAgo(chain.state, 200), feePayer: wallet.publicKey, instructions: [] });
      expectUnknown(await login(gate.url, 'age', wallet.secretKey, ageOf('90')), /no block time/);
      expectUnknown(await login(gate.url, 'activity', secret('quiet'), activityOf('5', '60')), /no block time/);
      expectUnknown(await login(gate.url, 'timelock', secret('lock-steady'), holdFor('30')), /no block time/);
    });
  });

  describe('rules: `not` never turns an unknown history into a pass', () => {
    it('not(age): passes a young wallet on a full node, and answers 503 against a short ledger or undated history', async () => {
      expectToken(await login(gate.url, 'not-old', secret('young')), 'not-old', secret('young'));
      chain.ledger.set({ firstAvailableBlock: slotDaysAgo(chain.state, 1) });
      expectUnknown(await login(gate.url, 'not-old', secret('young')));
      chain.ledger.reset();
      chain.ledger.set({ blockTimes: false });
      expectUnknown(await login(gate.url, 'not-old', secret('young')));
    });

    it('not(age): an old wallet behind a 30-day ledger is not let in as "new"', async () => {
      const veteran = newWallet();
      chain.state.addTransaction({ blockTime: blockTimeDaysAgo(chain.state, 121), feePayer: veteran.publicKey, instructions: [] });
      chain.state.addTransaction({ blockTime: blockTimeDaysAgo(chain.state, 3), feePayer: veteran.publicKey, instructions: [] });
      chain.ledger.set({ firstAvailableBlock: slotDaysAgo(chain.state, 30) });
      expectUnknown(await login(gate.url, 'not-old', veteran.secretKey));
      chain.ledger.reset();
      expectRefusal(await login(gate.url, 'not-old', veteran.secretKey), 403, 'RULE_NOT_MET');
    });

    it('not(activity): a short ledger inside the period answers 503', async () => {
      expectToken(await login(gate.url, 'not-active', secret('quiet')), 'not-active', secret('quiet'));
      chain.ledger.set({ firstAvailableBlock: slotDaysAgo(chain.state, 30) });
      expectUnknown(await login(gate.url, 'not-active', secret('quiet')));
    });
  });
});

describe('two endpoints (SOLANA_RPC_URL failover list)', () => {
  it('a -32016 from the first endpoint fails over to the second, which gives the right answer', async () => {
    const state = buildDemoState();
    const first = await startLocalnet({ state, ledger: { slotsBehind: 2 * DAY_SLOTS, laggingMethods: HISTORY_METHODS } });
    const second = await startLocalnet({ state });
    const gate = await startGate({ rpcUrl: `${first.url},${second.url}`, env: { RPC_HEDGE_MS: '0' } });
    try {
      expectRefusal(await login(gate.url, 'timelock', secret('lock-rebought'), holdFor('30')), 500, 'INSUFFICIENT_HOLD_DURATION');
      expect(first.stats().calls.getSignaturesForAddress).toBeGreaterThan(0); // asked, refused with -32016
      expect(second.stats().calls.getSignaturesForAddress).toBeGreaterThan(0);
      expectToken(await login(gate.url, 'timelock', secret('lock-steady'), holdFor('30')), 'timelock', secret('lock-steady'));
    } finally {
      await gate.stop('SIGKILL');
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('an endpoint behind the others is skipped: its stale balances are not used', async () => {
    // The second node is current: the wallet bought a banned token there. The first is 1,000
    // slots (~7 minutes) behind and has not seen the purchase.
    const now = Date.now();
    const behind = buildDemoState({ now });
    const current = buildDemoState({ now });
    const buyer = newWallet();
    current.addTokenAccount({ owner: buyer.publicKey, mint: demoMint('banned'), amount: 1n, program: 'token' });
    const stale = await startLocalnet({ state: behind, ledger: { slotsBehind: 1000 } });
    const fresh = await startLocalnet({ state: current });
    const gate = await startGate({ rpcUrl: `${stale.url},${fresh.url}`, env: { RPC_HEDGE_MS: '0' } });
    const policy = blacklistPolicy({ excluded: [demoMint('banned')] });
    try {
      // The gate has seen only the stale node: nothing tells it that node is behind yet.
      stale.faults.set({ mode: 'http500', count: 1 });
      expectToken(await login(gate.url, 'blacklist', secret('clean'), policy), 'blacklist', secret('clean'));
      // The current node answered (the stale one failed once): the gate knows how far the chain is.
      // The stale node's cool-down from that failure (≤ 100 ms, jittered) passes first, so that when
      // the current node fails next the stale one is the endpoint asked, not the one cooling longer.
      await new Promise((resolve) => setTimeout(resolve, 300));
      fresh.faults.set({ mode: 'http500', count: 1 });
      stale.resetStats();
      expectRefusal(await login(gate.url, 'blacklist', buyer.secretKey, policy), 500, 'HOLDS_BANNED_TOKEN');
      // The stale node was asked (the current one failed) and its answer refused as behind.
      expect(stale.stats().httpRequests).toBeGreaterThan(0);
      stale.resetStats();
      expectRefusal(await login(gate.url, 'blacklist', buyer.secretKey, policy), 500, 'HOLDS_BANNED_TOKEN');
      expect(stale.stats().httpRequests).toBe(0);
    } finally {
      await gate.stop('SIGKILL');
      await Promise.all([stale.close(), fresh.close()]);
    }
  });
});

/**
 * What an endpoint's refusals teach the client (batch-limits.ts) and how the call budget paces
 * (call-budget.ts), on a clock the test drives.
 */
import { describe, expect, it } from 'vitest';
import { BatchLimits, packBodies } from '../../src/chain/batch-limits.js';
import { CallBudget } from '../../src/chain/call-budget.js';

const policy = { enabled: true, caps: {}, maxCalls: 100, reprobeMs: 60_000 };
const member = (method: string, i = 0) => ({ method, json: JSON.stringify({ jsonrpc: '2.0', id: i, method, params: [] }) });
const sizes = (bodies: unknown[][]) => bodies.map((body) => body.length);

describe('BatchLimits', () => {
  it('a refused array of one class halves that class only; an accepted one is not lowered below what passed', () => {
    let at = 0;
    const limits = new BatchLimits(policy, () => at);
    limits.answered(Array(20).fill('getMultipleAccounts'));
    limits.refused([...Array(20).fill('getTransaction'), ...Array(5).fill('getMultipleAccounts')]);
    expect(limits.classCap('history')).toBe(10);
    expect(limits.classCap('other')).toBe(100);
    limits.refused(Array(10).fill('getTransaction'));
    expect(limits.classCap('history')).toBe(5);
    at += 1;
    expect(limits.snapshot()).toEqual({ history: 5 });
  });

  it('when no class carried more than passed before, the total is halved: batches off end at single calls', () => {
    const limits = new BatchLimits(policy, () => 0);
    for (let i = 0; i < 10 && limits.totalCap() > 1; i++) limits.refused(['getBalance', 'getTransaction', 'getProgramAccounts', 'searchAssets'].slice(0, Math.min(4, limits.totalCap())));
    // Each class had one call: the total is what was too much.
    expect(limits.totalCap()).toBe(1);
    expect(sizes(packBodies([member('getBalance'), member('getSlot'), member('getTransaction')], limits, 51_200))).toEqual([1, 1, 1]);
  });

  it('a learned limit is tried twice as high after RPC_REPROBE_MS, and forgotten past the most calls per body', () => {
    let at = 0;
    const limits = new BatchLimits(policy, () => at);
    limits.refused(Array(20).fill('getTransaction'));
    expect(limits.classCap('history')).toBe(10);
    at = 60_000;
    expect(limits.classCap('history')).toBe(20);
    at = 4 * 60_000;
    expect(limits.classCap('history')).toBe(100);
    expect(limits.snapshot()).toEqual({});
  });

  it('packBodies keeps class and method caps apart and RPC_BATCH=off packs one call per body', () => {
    const limits = new BatchLimits({ ...policy, caps: { history: 4, getTransaction: 2 } }, () => 0);
    const bodies = packBodies([...Array(5).fill(0).map((_, i) => member('getTransaction', i)), ...Array(4).fill(0).map((_, i) => member('getSignaturesForAddress', i)), member('getSlot')], limits, 51_200);
    for (const body of bodies) {
      expect(body.filter((m) => m.method === 'getTransaction').length).toBeLessThanOrEqual(2);
      expect(body.filter((m) => m.method !== 'getSlot').length).toBeLessThanOrEqual(4);
    }
    expect(bodies.flat()).toHaveLength(10);
    const off = new BatchLimits({ ...policy, enabled: false }, () => 0);
    expect(sizes(packBodies([member('getSlot'), member('getBalance')], off, 51_200))).toEqual([1, 1]);
  });
});

describe('CallBudget', () => {
  it('books calls so that no window of a second holds more than 90 % of the budget, as a provider counts them', () => {
    let at = 0;
    const budget = new CallBudget(150, () => at);
    // 135 planned: two 67-call batches fit one window; the third waits for the first to leave it.
    expect(budget.take(67)).toBe(0);
    expect(budget.take(67)).toBe(0);
    expect(budget.take(67)).toBe(1050);
    at = 500;
    // Booked behind the third (at 1000), and the second (at 0) leaves the window at 1000.
    expect(budget.waitFor(60)).toBe(550);
  });

  it('in any window, the calls booked stay within the plan, whatever the sizes and the moments (property)', () => {
    let at = 0;
    const budget = new CallBudget(150, () => at);
    const booked: [number, number][] = [];
    let seed = 7;
    const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 2000; i++) {
      at += random() * 40;
      const calls = 1 + Math.floor(random() * 100);
      booked.push([at + budget.take(calls), calls]);
    }
    for (const [time] of booked) {
      const inWindow = booked.filter(([other]) => other > time - 1000 && other <= time).reduce((sum, [, calls]) => sum + calls, 0);
      expect(inWindow).toBeLessThanOrEqual(135);
    }
    // Booked in order: first come, first served.
    for (let i = 1; i < booked.length; i++) expect(booked[i]![0]).toBeGreaterThanOrEqual(booked[i - 1]![0]);
  });

  it('a request larger than the whole plan goes alone, once the window before it is empty', () => {
    let at = 0;
    const budget = new CallBudget(100, () => at);
    expect(budget.take(10)).toBe(0);
    at = 100;
    expect(budget.take(200)).toBe(950);
    expect(budget.waitFor(1)).toBe(2000);
  });

  it('waitFor() tells the queue ahead without booking anything', () => {
    const budget = new CallBudget(10, () => 0);
    budget.take(9);
    const first = budget.waitFor(5);
    expect(budget.waitFor(5)).toBe(first);
    budget.take(5);
    expect(budget.waitFor(5)).toBeGreaterThan(first);
  });
});

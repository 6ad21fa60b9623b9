import { describe, expect, it } from 'vitest';
import { CallBudget } from '../../src/chain/call-budget.js';
import { LearnedBudget } from '../../src/chain/learned-budget.js';

/** A LearnedBudget on a clock the test moves. */
function budgetAt(start = 10_000) {
  let at = start;
  const learned = new LearnedBudget(() => at);
  return { learned, advance: (ms: number) => (at += ms), now: () => at };
}

/** `calls` sent and accepted now (one reply). */
function answered(learned: LearnedBudget, calls: number): void {
  learned.sent(calls);
  learned.accepted(calls);
}

/** Seconds of use without a refusal: the budget's planned share sent each second. */
function usedSeconds(learned: LearnedBudget, advance: (ms: number) => void, seconds: number): void {
  for (let second = 0; second < seconds; second++) {
    answered(learned, Math.ceil(learned.perSecond() * CallBudget.HEADROOM));
    advance(1000);
  }
}

describe('a call budget learned from a provider\'s refusals', () => {
  it('there is none until the provider refuses; then it is what the provider accepted in the second before, the refusing reply\'s accepted calls included', () => {
    const { learned, advance } = budgetAt();
    for (let i = 0; i < 9; i++) {
      answered(learned, 15);
      advance(100);
    }
    expect(learned.budget()).toBeUndefined();
    // A reply of 40 calls, 25 of them refused: the provider's window is full at 135 + 15.
    learned.sent(40);
    learned.accepted(15);
    learned.refused();
    expect(learned.perSecond()).toBe(150);
    expect(learned.ceiling()).toBe(150);
  });

  it('answers of the overflowing window read after the refusing one raise its measurement (a loaded client reads them late); later ones do not', () => {
    const { learned, advance } = budgetAt();
    answered(learned, 100);
    learned.refused();
    expect(learned.perSecond()).toBe(100);
    advance(200);
    learned.accepted(50);
    expect([learned.perSecond(), learned.ceiling()]).toEqual([150, 150]);
    advance(LearnedBudget.EPISODE_MS);
    learned.accepted(100);
    expect([learned.perSecond(), learned.ceiling()]).toEqual([150, 150]);
  });

  it('calls accepted more than two seconds before the refusal do not count; the busiest second of the last two does', () => {
    const { learned, advance } = budgetAt();
    answered(learned, 1000);
    advance(2500);
    answered(learned, 60);
    advance(600);
    answered(learned, 20);
    learned.refused();
    // The 1,000 are 3.1 s old; the 60 and the 20 are 600 ms apart: one second held 80.
    expect(learned.perSecond()).toBe(80);
  });

  it('one overflowing window is one measurement: its refusals never cut again; the first one\'s takes its highest measurement, a later one\'s none above the budget before it', () => {
    const { learned, advance } = budgetAt();
    answered(learned, 100);
    learned.refused();
    expect(learned.perSecond()).toBe(100);
    // Replies of the same window arriving later: the provider accepted 140 in all.
    for (let i = 0; i < 4; i++) {
      advance(100);
      answered(learned, 10);
      learned.refused();
    }
    expect([learned.perSecond(), learned.ceiling()]).toEqual([140, 140]);
    // Ten refusals in the next few hundred ms: still the same episode, no compounding cut.
    for (let i = 0; i < 10; i++) {
      advance(30);
      learned.refused();
    }
    expect(learned.perSecond()).toBe(140);
    // A later window: its measurements may lower the budget, never raise it.
    advance(2500);
    answered(learned, 120);
    learned.refused();
    expect(learned.perSecond()).toBe(120);
    advance(100);
    answered(learned, 30);
    learned.refused();
    expect([learned.perSecond(), learned.ceiling()]).toEqual([140, 150]);
  });

  it('a later refusal measures again: it lowers the budget to the provider\'s accepted rate, never below half of it, and never raises it', () => {
    const { learned, advance } = budgetAt();
    answered(learned, 200);
    learned.refused();
    expect(learned.perSecond()).toBe(200);
    advance(2500);
    // The provider now accepts 150 a second (its other clients are busier).
    answered(learned, 150);
    learned.refused();
    expect(learned.perSecond()).toBe(150);
    advance(2500);
    // A refusal after a quiet spell measures little: at most half of the budget goes.
    answered(learned, 10);
    learned.refused();
    expect(learned.perSecond()).toBe(75);
    advance(2500);
    // A refusal while the provider accepted more than the budget: a jitter, not a lower budget.
    answered(learned, 120);
    learned.refused();
    expect(learned.perSecond()).toBe(75);
    expect(learned.ceiling()).toBe(120);
  });

  it('below the measured ceiling it climbs back half the gap each second it is used, from QUIET_MS after the last refusal; idle seconds do not count', () => {
    const { learned, advance } = budgetAt();
    answered(learned, 160);
    learned.refused();
    advance(2500);
    answered(learned, 20);
    learned.refused();
    expect([learned.perSecond(), learned.ceiling()]).toEqual([80, 20]);
    advance(1500);
    // The provider accepted 160 a second again: the ceiling measured by the next refusal.
    answered(learned, 160);
    learned.refused();
    expect([learned.perSecond(), learned.ceiling()]).toEqual([80, 160]);
    advance(LearnedBudget.QUIET_MS - 1000);
    usedSeconds(learned, advance, 1);
    const climb = [learned.perSecond()];
    for (let second = 0; second < 4; second++) {
      usedSeconds(learned, advance, 1);
      climb.push(learned.perSecond());
    }
    expect(climb).toEqual([120, 140, 150, 155, 158]);
    // Idle: it stays.
    advance(3000);
    expect(learned.perSecond()).toBe(158);
  });

  it('at the ceiling it probes upwards by a twentieth a second: from QUIET_MS after a first, unpaced refusal, from PROBE_AFTER_MS after one the paced client met', () => {
    const { learned, advance } = budgetAt();
    answered(learned, 150);
    learned.refused();
    advance(LearnedBudget.EPISODE_MS);
    const seen: number[] = [];
    for (let second = 1; second <= 5; second++) {
      usedSeconds(learned, advance, 1);
      seen.push(learned.perSecond());
    }
    const first = seen.findIndex((rate) => rate > 150);
    expect(first).toBe((LearnedBudget.QUIET_MS - LearnedBudget.EPISODE_MS) / 1000 - 1);
    expect(seen.slice(first, first + 3)).toEqual([158, 166, 175]);
    // The probe meets the provider's budget: 150 accepted in the second before, refused beyond it. Confirmed: the next probe waits.
    advance(1100);
    answered(learned, 150);
    learned.refused();
    expect(learned.perSecond()).toBe(150);
    advance(LearnedBudget.EPISODE_MS);
    const after: number[] = [];
    for (let second = 1; second <= 12; second++) {
      usedSeconds(learned, advance, 1);
      after.push(learned.perSecond());
    }
    const probing = after.findIndex((rate) => rate > 150);
    expect(probing).toBe((LearnedBudget.PROBE_AFTER_MS - LearnedBudget.EPISODE_MS) / 1000 - 1);
    expect(after.slice(probing, probing + 2)).toEqual([158, 166]);
  });

  it('is forgotten a minute after the last refusal: the client sends unpaced again', () => {
    const { learned, advance } = budgetAt();
    answered(learned, 200);
    learned.refused();
    advance(LearnedBudget.FORGET_MS - 1);
    expect(learned.budget()).toBeDefined();
    advance(2);
    expect(learned.budget()).toBeUndefined();
  });

  it('a refusal of everything sent still leaves a budget of one call per second to climb from', () => {
    const { learned } = budgetAt();
    learned.sent(50);
    learned.refused();
    expect(learned.perSecond()).toBe(1);
  });
});

/**
 * The loop against a provider with a rolling one-second window, on a driven clock, and a client as
 * the e2e test drives the gate: 64 sign-ins in flight, each a request of 2 calls. As in
 * exchange.ts, a request books its calls in the budget in force and is sent when its booking comes;
 * the reply comes back about `rttMs` later and tells the budget what was accepted and refused
 * (rpc.ts), and a refused call is sent again. Round trips, sends and the clients' own work are
 * jittered (a seeded sequence), as they are: without jitter, the budget's windows echo the first
 * burst forever and some calendar seconds hold none. Calls accepted and refused at the provider,
 * per second.
 */
function simulate(options: { rttMs: number; seconds: number; budgetAt?: (ms: number) => number }) {
  const budgetAt = options.budgetAt ?? (() => 150);
  const CALLS = 2;
  let seed = 33;
  /** 0 ≤ n < 1, the same sequence every run. */
  const random = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  let at = 0;
  const learned = new LearnedBudget(() => at);
  const acceptedAt: number[] = [];
  const perSecond: { accepted: number; refused: number }[] = [];
  /** Each lane's next event: a send at `at`, or a reply at `at`. */
  const lanes = Array.from({ length: 64 }, () => ({ kind: 'book' as 'book' | 'send' | 'reply', at: 0, accepted: 0 }));
  /** The budget in force at each second's middle. */
  const rates: number[] = [];
  for (; at < options.seconds * 1000; at += 1) {
    if (at % 1000 === 500) rates.push(learned.perSecond());
    for (const lane of lanes) {
      if (lane.at > at) continue;
      if (lane.kind === 'reply') {
        learned.accepted(lane.accepted);
        if (lane.accepted < CALLS) learned.refused();
        // The next sign-in of this lane comes after its client's own work (a nonce, a signature).
        Object.assign(lane, { kind: 'book', at: at + Math.floor(random() * 40) });
        continue;
      }
      if (lane.kind === 'book') {
        lane.kind = 'send';
        lane.at = at + (learned.budget()?.take(CALLS) ?? 0) + Math.floor(random() * 5);
        if (lane.at > at) continue;
      }
      learned.sent(CALLS);
      // The provider: each call accepted while its last second holds fewer than its budget.
      const arrives = at + options.rttMs / 2;
      let accepted = 0;
      for (let call = 0; call < CALLS; call++) {
        while (acceptedAt.length > 0 && acceptedAt[0]! <= arrives - 1000) acceptedAt.shift();
        if (acceptedAt.length < budgetAt(arrives)) {
          acceptedAt.push(arrives);
          accepted++;
        }
      }
      const second = Math.floor(arrives / 1000);
      while (perSecond.length <= second) perSecond.push({ accepted: 0, refused: 0 });
      perSecond[second]!.accepted += accepted;
      perSecond[second]!.refused += CALLS - accepted;
      Object.assign(lane, { kind: 'reply', at: at + Math.max(1, Math.round(options.rttMs * (0.75 + random() / 2))), accepted });
    }
  }
  return perSecond.map((second, i) => ({ ...second, rate: rates[i] ?? 0 }));
}

describe('the loop against a provider counting calls in a rolling second (driven clock)', () => {
  /**
   * Judges seconds [from, to) against `budget`: the learned budget lets ≥ 80 % of it through in
   * every one (it plans HEADROOM of it per 1.05 s), and the provider accepted ≥ 80 % of it on
   * average. (How evenly a budget's calls fall into calendar seconds is call-budget.ts's pacing,
   * the same for RPC_CALLS_PER_SECOND; the e2e test holds every second.)
   */
  function judge(seconds: { accepted: number; refused: number; rate: number }[], from: number, to: number, budget: number) {
    const judged = seconds.slice(from, to);
    return {
      heldBack: judged.filter((second) => (second.rate * CallBudget.HEADROOM) / 1.05 < 0.8 * budget).map((second) => second.rate),
      mean: judged.reduce((sum, second) => sum + second.accepted, 0) / judged.length,
      refusing: judged.filter((second) => second.refused > 0).length,
    };
  }
  const refusedShare = (seconds: { accepted: number; refused: number }[]): number =>
    seconds.reduce((sum, second) => sum + second.refused, 0) / seconds.reduce((sum, second) => sum + second.accepted + second.refused, 0);

  for (const rttMs of [0, 80, 300]) {
    it(`round trip ${rttMs} ms: from 10 s after the first refusal the budget lets ≥ 80 % of the provider's through and the provider accepts that much, ≤ 5 % of all calls refused, a probe at most every 10 s`, () => {
      const seconds = simulate({ rttMs, seconds: 60 });
      const firstRefusal = seconds.findIndex((second) => second.refused > 0);
      expect(firstRefusal).toBe(0);
      const { heldBack, mean, refusing } = judge(seconds, firstRefusal + 10, seconds.length - 1, 150);
      expect(heldBack).toEqual([]);
      expect(mean).toBeGreaterThanOrEqual(0.8 * 150);
      // Refusals come from probes only: a second or two of them at most every PROBE_AFTER_MS.
      expect(refusing).toBeLessThanOrEqual(2 * Math.ceil((seconds.length - 11) / (LearnedBudget.PROBE_AFTER_MS / 1000)));
      expect(refusedShare(seconds)).toBeLessThanOrEqual(0.05);
    });
  }

  it('a provider whose budget doubles is followed by the probes: ≥ 80 % of the new budget within 30 s', () => {
    const seconds = simulate({ rttMs: 80, seconds: 90, budgetAt: (ms) => (ms < 30_000 ? 150 : 300) });
    const { heldBack, mean } = judge(seconds, 60, seconds.length - 1, 300);
    expect(heldBack).toEqual([]);
    expect(mean).toBeGreaterThanOrEqual(0.8 * 300);
  });

  it('a provider whose budget halves is followed at its first refusals', () => {
    const seconds = simulate({ rttMs: 80, seconds: 60, budgetAt: (ms) => (ms < 30_000 ? 300 : 150) });
    const { heldBack, mean } = judge(seconds, 32, seconds.length - 1, 150);
    expect(heldBack).toEqual([]);
    expect(mean).toBeGreaterThanOrEqual(0.8 * 150);
    // The change itself is refused for a second; after it, the probes' share.
    expect(refusedShare(seconds.slice(32))).toBeLessThanOrEqual(0.05);
  });
});

import { describe, expect, it } from 'vitest';
import { LearnedBudget } from '../../src/chain/learned-budget.js';

/** A LearnedBudget on a clock the test moves. */
function budgetAt(start = 10_000) {
  let at = start;
  const learned = new LearnedBudget(() => at);
  return { learned, advance: (ms: number) => (at += ms) };
}

describe('a call budget learned from a provider\'s refusals', () => {
  it('there is none until the provider refuses; then it is what the provider accepted in the second before', () => {
    const { learned, advance } = budgetAt();
    for (let i = 0; i < 10; i++) {
      learned.sent(30);
      advance(100);
    }
    expect(learned.budget()).toBeUndefined();
    // 270 calls in the last second (the bucket just entered is empty), 120 of them refused.
    learned.refused(120);
    expect(learned.perSecond()).toBe(150);
  });

  it('calls sent more than a second before the refusal do not count', () => {
    const { learned, advance } = budgetAt();
    learned.sent(1000);
    advance(1500);
    learned.sent(100);
    learned.refused(20);
    expect(learned.perSecond()).toBe(80);
  });

  it('one overflowing window cuts the budget once; a refusal a second later cuts it again', () => {
    const { learned, advance } = budgetAt();
    learned.sent(200);
    learned.refused(30);
    expect(learned.perSecond()).toBe(170);
    advance(50);
    learned.refused(10);
    expect(learned.perSecond()).toBe(170);
    advance(LearnedBudget.CUT_INTERVAL_MS);
    learned.refused(5);
    expect(learned.perSecond()).toBe(Math.floor(170 * LearnedBudget.CUT));
  });

  it('grows by a twentieth for each second it was used without a refusal, from five seconds after the last one, and not while idle', () => {
    const { learned, advance } = budgetAt();
    learned.sent(200);
    learned.refused(30);
    expect(learned.perSecond()).toBe(170);
    for (let second = 1; second < 5; second++) {
      learned.sent(150);
      advance(1000);
      expect(learned.perSecond()).toBe(170);
    }
    // Used: 90 % of the budget is what pacing lets through.
    learned.sent(150);
    advance(1000);
    expect(learned.perSecond()).toBe(Math.ceil(170 * 1.05));
    // Idle for a second: it stays.
    advance(1000);
    expect(learned.perSecond()).toBe(Math.ceil(170 * 1.05));
  });

  it('is forgotten a minute after the last refusal: the client sends unpaced again', () => {
    const { learned, advance } = budgetAt();
    learned.sent(200);
    learned.refused(30);
    advance(LearnedBudget.FORGET_MS - 1);
    expect(learned.budget()).toBeDefined();
    advance(2);
    expect(learned.budget()).toBeUndefined();
  });

  it('a refusal of everything sent still leaves a budget of one call per second to climb from', () => {
    const { learned } = budgetAt();
    learned.sent(50);
    learned.refused(50);
    expect(learned.perSecond()).toBe(1);
  });
});

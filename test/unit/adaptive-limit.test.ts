import { describe, expect, it } from 'vitest';
import { AdaptiveLimit } from '../../src/chain/adaptive-limit.js';

/** A limiter on a clock the test moves, with `n` requests held in flight (and any beyond queued). */
function limiter(options: { initial: number; min: number; max: number }) {
  let clock = 0;
  const limit = new AdaptiveLimit({ ...options, now: () => clock });
  const releases: (() => void)[] = [];
  const hold = (count: number): Promise<void>[] =>
    Array.from({ length: count }, () => limit.run(() => new Promise<void>((resolve) => releases.push(resolve))));
  return {
    limit,
    hold,
    advance: (ms: number) => void (clock += ms),
  };
}

/** A limiter with `held` requests (every slot in use) that has grown once (one answer at 80 ms). */
function grownOnce(options: { initial: number; min: number; max: number }, held = options.initial) {
  const made = limiter(options);
  made.hold(held);
  made.limit.succeeded(80);
  expect(made.limit.limit).toBe(options.initial + 1);
  return made;
}

describe('adaptive concurrency limit', () => {
  it('grows while answers come back near the lowest round trip and every slot is in use', async () => {
    const { limit, hold } = limiter({ initial: 4, min: 2, max: 16 });
    hold(20);
    await Promise.resolve();
    expect(limit.inFlight).toBe(4);
    expect(limit.queued).toBe(16);
    for (let i = 0; i < 3; i++) limit.succeeded(80);
    expect(limit.limit).toBe(7);
    // The freed slots go to queued requests at once.
    expect(limit.inFlight).toBe(7);
  });

  it('does not grow when the limit is not in use', () => {
    const { limit } = limiter({ initial: 4, min: 2, max: 16 });
    for (let i = 0; i < 10; i++) limit.succeeded(80);
    expect(limit.limit).toBe(4);
  });

  it('never grows above its maximum', () => {
    const { limit, hold } = limiter({ initial: 4, min: 2, max: 6 });
    hold(50);
    for (let i = 0; i < 100; i++) limit.succeeded(80);
    expect(limit.limit).toBe(6);
  });

  it('halves on overload (429, 5xx, timeouts), once per round trip, and never below its minimum', () => {
    const { limit, advance } = grownOnce({ initial: 16, min: 3, max: 64 });
    limit.overloaded();
    expect(limit.limit).toBe(8);
    // Requests sent together fail together: the rest of that round trip's failures count once.
    limit.overloaded();
    limit.overloaded();
    expect(limit.limit).toBe(8);
    for (let i = 0; i < 5; i++) {
      advance(100);
      limit.overloaded();
    }
    expect(limit.limit).toBe(3);
  });

  it('stops growing, without shrinking, while round trips are well above their minimum', () => {
    const { limit, advance } = grownOnce({ initial: 20, min: 2, max: 64 }, 30);
    for (let i = 0; i < 5; i++) {
      advance(100);
      limit.succeeded(400);
    }
    expect(limit.limit).toBe(21);
    limit.succeeded(90);
    expect(limit.limit).toBe(22);
  });

  it('grows by one per round trip after the first decrease, not by one per answer', () => {
    const { limit, hold } = limiter({ initial: 10, min: 2, max: 64 });
    hold(40);
    limit.overloaded();
    expect(limit.limit).toBe(5);
    for (let i = 0; i < 5; i++) limit.succeeded(80);
    expect(limit.limit).toBe(5);
    for (let i = 0; i < 3; i++) limit.succeeded(80);
    expect(limit.limit).toBe(6);
  });

  it('runs queued requests in order as slots free, and tells a watcher when one is free', async () => {
    const { limit } = limiter({ initial: 1, min: 1, max: 1 });
    const order: number[] = [];
    const releases: (() => void)[] = [];
    const tasks = [1, 2, 3].map((n) =>
      limit.run(async () => {
        order.push(n);
        await new Promise<void>((resolve) => releases.push(resolve));
      }),
    );
    let told = 0;
    limit.whenSlotFree(() => told++);
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([1]);
    expect(told).toBe(0);
    for (let i = 0; i < 3; i++) {
      releases.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(tasks);
    expect(order).toEqual([1, 2, 3]);
    expect(told).toBe(1);
    expect(limit.hasFreeSlot()).toBe(true);
  });

  it('after overload asks for batches to be spaced (from one round trip, doubling, at most 1 s), and forgets it as answers come back', () => {
    const { limit, advance } = limiter({ initial: 8, min: 2, max: 64 });
    limit.succeeded(80);
    expect(limit.spacingMs()).toBe(0);
    limit.overloaded();
    expect(limit.spacingMs()).toBe(80);
    for (let i = 0; i < 10; i++) {
      advance(100);
      limit.overloaded();
    }
    expect(limit.spacingMs()).toBe(1000);
    for (let i = 0; i < 200; i++) limit.succeeded(80);
    expect(limit.spacingMs()).toBe(0);
  });

  it('forgets an old minimum round trip: a provider that became slower for good is learned', () => {
    const { limit, advance } = limiter({ initial: 4, min: 2, max: 16 });
    limit.succeeded(20);
    expect(limit.minRttMs()).toBe(20);
    advance(10_001);
    limit.succeeded(90);
    expect(limit.minRttMs()).toBe(20);
    advance(10_001);
    limit.succeeded(95);
    expect(limit.minRttMs()).toBe(90);
  });
});

import { describe, expect, it } from 'vitest';
import { LruCache } from '../../src/lib/lru-cache.js';

describe('LruCache (two generations)', () => {
  it('never holds more than its capacity, and keeps what was used recently', () => {
    for (const capacity of [1, 2, 3, 10, 101]) {
      const cache = new LruCache<number, string>(capacity);
      for (let i = 0; i < 5 * capacity + 7; i++) {
        cache.set(i, `v${i}`);
        expect(cache.size).toBeLessThanOrEqual(capacity);
        // The entry just written is always there.
        expect(cache.get(i)).toBe(`v${i}`);
      }
    }
    const cache = new LruCache<string, number>(100);
    cache.set('hot', 1);
    for (let i = 0; i < 1_000; i++) {
      cache.set(`cold ${i}`, i);
      // Used once every 10 insertions: well within a generation (50), so never dropped.
      if (i % 10 === 0) expect(cache.get('hot')).toBe(1);
    }
    expect(cache.has('hot')).toBe(true);
    expect(cache.has('cold 0')).toBe(false);
    expect(cache.peek('cold 999')).toBe(999);
  });

  it('peek and has do not keep an entry alive; set replaces a value', () => {
    const cache = new LruCache<string, number>(4);
    cache.set('a', 1);
    cache.set('a', 2);
    expect(cache.get('a')).toBe(2);
    for (let i = 0; i < 4; i++) {
      expect(cache.peek('a') === undefined || cache.has('a')).toBe(true);
      cache.set(`x${i}`, i);
    }
    expect(cache.has('a')).toBe(false);
    cache.clear();
    expect(cache.size).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { scanKey, SharedScans } from '../../src/chain/shared-scans.js';
import type { KeyedAccount } from '../../src/chain/types.js';

/** A scan whose answer the test settles, counting how many were sent. */
function scans(windowMs: number) {
  let clock = 0;
  const shared = new SharedScans(windowMs, () => clock);
  const sent: { resolve: (accounts: KeyedAccount[]) => void; reject: (error: Error) => void }[] = [];
  const start = () => new Promise<KeyedAccount[]>((resolve, reject) => sent.push({ resolve, reject }));
  return { shared, sent, start, advance: (ms: number) => (clock += ms) };
}
const flush = () => new Promise((resolve) => setImmediate(resolve));
const ANSWER: KeyedAccount[] = [];

describe('SharedScans', () => {
  it('joins a scan in flight; keeps a kept answer for the window, forgets one not kept once answered', async () => {
    const { shared, sent, start, advance } = scans(5000);
    const kept = { viewSlot: 0, minSlot: 10, keep: true };
    const first = shared.read('a', kept, start);
    const second = shared.read('a', kept, start);
    expect(sent).toHaveLength(1);
    sent[0]!.resolve(ANSWER);
    expect(await first).toBe(await second);
    advance(4000);
    await shared.read('a', kept, start);
    expect(sent).toHaveLength(1);
    advance(1001);
    void shared.read('a', kept, start);
    expect(sent).toHaveLength(2);
    expect(shared.sharedCount()).toBe(2);

    const once = { viewSlot: 0, minSlot: 10, keep: false };
    const own = shared.read('b', once, start);
    void shared.read('b', once, start);
    expect(sent).toHaveLength(3);
    sent[2]!.resolve(ANSWER);
    await own;
    await flush();
    void shared.read('b', once, start);
    expect(sent).toHaveLength(4);
  });

  it('never hands a login an answer older than what it already read (minimum slot below its view)', () => {
    const { shared, sent, start } = scans(5000);
    void shared.read('a', { viewSlot: 0, minSlot: 10, keep: true }, start);
    void shared.read('a', { viewSlot: 10, minSlot: 10, keep: true }, start);
    expect(sent).toHaveLength(1);
    void shared.read('a', { viewSlot: 11, minSlot: 11, keep: true }, start);
    expect(sent).toHaveLength(2);
  });

  it('a failed scan fails every waiter and is not kept', async () => {
    const { shared, sent, start } = scans(5000);
    const at = { viewSlot: 0, minSlot: 0, keep: true };
    const waiters = [shared.read('a', at, start), shared.read('a', at, start)];
    sent[0]!.reject(new Error('503'));
    for (const waiter of waiters) await expect(waiter).rejects.toThrow('503');
    void shared.read('a', at, start);
    expect(sent).toHaveLength(2);
  });

  it('a window of 0 shares nothing', () => {
    const { shared, sent, start } = scans(0);
    void shared.read('a', { viewSlot: 0, minSlot: 0, keep: true }, start);
    void shared.read('a', { viewSlot: 0, minSlot: 0, keep: true }, start);
    expect(sent).toHaveLength(2);
  });

  it('keys by program, filters and slice', () => {
    const filters = [{ memcmp: { offset: 0, bytes: '2' } }];
    expect(scanKey('P', filters, undefined)).not.toBe(scanKey('P', filters, { offset: 0, length: 66 }));
    expect(scanKey('P', filters, undefined)).not.toBe(scanKey('Q', filters, undefined));
    expect(scanKey('P', filters, undefined)).toBe(scanKey('P', [{ memcmp: { offset: 0, bytes: '2' } }], undefined));
  });
});

import { describe, expect, it } from 'vitest';
import { upstreamUnavailable } from '../../src/errors.js';
import type { MintChain, SignatureStatus } from '../../src/mint/chain.js';
import { MemoryReservationStore } from '../../src/mint/memory-store.js';
import { startReservationTracker } from '../../src/mint/tracker.js';

/**
 * The tracker's decisions, one by one, on a chain whose answers the test sets: a mint once the
 * signature is confirmed; a release when it landed with an error, or when the block height at
 * `confirmed` is past its bound and a history that reaches back to it does not have it; nothing on
 * a read that failed, before the bound, or from a node whose history starts after the reservation.
 * (End to end: test/e2e/mint.test.ts, test/e2e/mint-exact.test.ts.)
 */
class FakeChain implements Pick<MintChain, 'signatureStatuses' | 'confirmedHeight' | 'historyStatuses'> {
  /** What the status cache knows. */
  statuses = new Map<string, SignatureStatus | null>();
  /** What the history knows (beyond the status cache). */
  history = new Map<string, SignatureStatus>();
  height = 1_000;
  historyFrom = 0;
  failing = false;
  historyFailing = false;
  /** Called after the block height read (a landing in between). */
  afterHeight: (() => void) | undefined;

  async signatureStatuses(signatures: readonly string[]) {
    if (this.failing) throw upstreamUnavailable('test');
    return signatures.map((signature) => this.statuses.get(signature) ?? null);
  }

  /** The slot the history read was asked to be at least at. */
  historyMinSlot: number | undefined;

  async confirmedHeight() {
    if (this.failing) throw upstreamUnavailable('test');
    this.afterHeight?.();
    return { height: this.height, slot: 7_000 };
  }

  async historyStatuses(signatures: readonly string[], minSlot: number) {
    if (this.failing || this.historyFailing) throw upstreamUnavailable('test');
    this.historyMinSlot = minSlot;
    return signatures.map((signature) => ({ status: this.statuses.get(signature) ?? this.history.get(signature) ?? null, historyFrom: this.historyFrom }));
  }
}

async function setup() {
  const store = new MemoryReservationStore();
  await store.install('m', { issued: 0, wallets: new Map() });
  const chain = new FakeChain();
  const events: string[] = [];
  const tracker = startReservationTracker({
    store,
    chain: chain as unknown as MintChain,
    mints: () => ['m'],
    intervalMs: 3_600_000,
    events: { confirmed: (_mint, n) => events.push(`confirmed ${n}`), released: (_mint, n, why) => events.push(`${why} ${n}`), error: () => events.push('error') },
  });
  /** `bound`: the reservation's lastValidBlockHeight; the chain's height is 1,000. */
  const reserve = (id: string, wallet: string, bound = 2_000, slot = 50) => store.reserve('m', { id, wallet, blockhash: 'bh', lastValidBlockHeight: bound, slot, perWallet: 1, supply: undefined });
  return { store, chain, events, tracker, reserve };
}

describe('the reservation tracker', () => {
  it('confirms a landed mint, releases a failed one and one past its bound that history does not have, keeps the rest', async () => {
    const { store, chain, events, tracker, reserve } = await setup();
    await reserve('landed', 'a');
    await reserve('failed', 'b');
    await reserve('expired', 'c', 900);
    await reserve('pending', 'd');
    await reserve('processed', 'e');
    await reserve('at-bound', 'f', 1_000);
    chain.statuses.set('landed', { err: null, confirmationStatus: 'confirmed' });
    chain.statuses.set('failed', { err: { InstructionError: [0, { Custom: 4 }] }, confirmationStatus: 'confirmed' });
    chain.statuses.set('processed', { err: null, confirmationStatus: 'processed' });
    await tracker.runOnce();
    tracker.stop();
    expect(events.sort()).toEqual(['confirmed 1', 'expired 1', 'failed 1']);
    expect(await store.counts('m')).toEqual({ issued: 1, reserved: 3, wallet: 0 });
    expect((await store.pending('m', 10)).map((entry) => entry.id).sort()).toEqual(['at-bound', 'pending', 'processed']);
    // The released wallets may reserve again; the confirmed one may not.
    expect((await reserve('again-b', 'b')).outcome).toBe('reserved');
    expect((await reserve('again-c', 'c')).outcome).toBe('reserved');
    expect((await reserve('again-a', 'a')).outcome).toBe('limit');
  });

  it('a mint past the status cache, found in history, is issued, not released', async () => {
    const { store, chain, tracker, reserve } = await setup();
    await reserve('old', 'a', 900);
    chain.history.set('old', { err: null, confirmationStatus: 'finalized' });
    await tracker.runOnce();
    tracker.stop();
    expect(await store.counts('m', 'a')).toEqual({ issued: 1, reserved: 0, wallet: 1 });
    // Asked of a node at least at the bank whose height showed the bound passed.
    expect(chain.historyMinSlot).toBe(7_000);
  });

  it('a transaction that lands after the status read is found by the history read and is a mint', async () => {
    const { store, chain, tracker, reserve } = await setup();
    await reserve('late', 'a', 900);
    chain.afterHeight = () => chain.statuses.set('late', { err: null, confirmationStatus: 'finalized' });
    await tracker.runOnce();
    tracker.stop();
    expect(await store.counts('m')).toEqual({ issued: 1, reserved: 0, wallet: 0 });
  });

  it('a node whose history starts after the reservation proves nothing: kept', async () => {
    const { store, chain, events, tracker, reserve } = await setup();
    await reserve('x', 'a', 900, 50);
    chain.historyFrom = 51;
    await tracker.runOnce();
    expect(events).toEqual([]);
    expect(await store.counts('m', 'a')).toEqual({ issued: 0, reserved: 1, wallet: 1 });
    chain.historyFrom = 50;
    await tracker.runOnce();
    tracker.stop();
    expect(events).toEqual(['expired 1']);
    expect(await store.counts('m', 'a')).toEqual({ issued: 0, reserved: 0, wallet: 0 });
  });

  it('releases nothing while the chain cannot be read, nor when only the history read fails', async () => {
    const { store, chain, events, tracker, reserve } = await setup();
    await reserve('x', 'a', 900);
    chain.failing = true;
    await tracker.runOnce();
    chain.failing = false;
    chain.historyFailing = true;
    await tracker.runOnce();
    tracker.stop();
    expect(events).toEqual(['error', 'error']);
    expect(await store.counts('m', 'a')).toEqual({ issued: 0, reserved: 1, wallet: 1 });
  });
});

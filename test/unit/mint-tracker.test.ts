import { describe, expect, it } from 'vitest';
import { upstreamUnavailable } from '../../src/errors.js';
import type { MintChain, SignatureStatus } from '../../src/mint/chain.js';
import { MemoryReservationStore } from '../../src/mint/memory-store.js';
import { startReservationTracker } from '../../src/mint/tracker.js';

/**
 * The tracker's decisions, one by one, on a chain whose answers the test sets: a mint when the
 * signature is confirmed, a release when it landed with an error or its blockhash expired without
 * it, nothing when the chain cannot be read or the blockhash is still valid — and a transaction that
 * lands between the two reads is a mint, not a release. (End to end: test/e2e/mint.test.ts.)
 */
class FakeChain implements Pick<MintChain, 'signatureStatuses' | 'blockhashesValid'> {
  statuses = new Map<string, SignatureStatus | null>();
  valid = new Map<string, boolean>();
  failing = false;
  /** Called between the first and second status read (a landing in between). */
  afterValidity: (() => void) | undefined;

  async signatureStatuses(signatures: readonly string[]) {
    if (this.failing) throw upstreamUnavailable('test');
    return signatures.map((signature) => this.statuses.get(signature) ?? null);
  }

  async blockhashesValid(blockhashes: readonly string[]) {
    if (this.failing) throw upstreamUnavailable('test');
    const answer = blockhashes.map((blockhash) => this.valid.get(blockhash) ?? true);
    this.afterValidity?.();
    return answer;
  }
}

async function setup() {
  const store = new MemoryReservationStore();
  const chain = new FakeChain();
  const events: string[] = [];
  const tracker = startReservationTracker({
    store,
    chain: chain as unknown as MintChain,
    mints: () => ['m'],
    intervalMs: 3_600_000,
    events: { confirmed: (_mint, n) => events.push(`confirmed ${n}`), released: (_mint, n, why) => events.push(`${why} ${n}`), error: () => events.push('error') },
  });
  const reserve = (id: string, wallet: string, blockhash = 'bh') => store.reserve('m', { id, wallet, blockhash, perWallet: 1, supply: undefined });
  return { store, chain, events, tracker, reserve };
}

describe('the reservation tracker', () => {
  it('confirms a landed mint, releases a failed one and an expired one, keeps a pending one', async () => {
    const { store, chain, events, tracker, reserve } = await setup();
    await reserve('landed', 'a');
    await reserve('failed', 'b');
    await reserve('expired', 'c', 'old');
    await reserve('pending', 'd');
    await reserve('processed', 'e');
    chain.statuses.set('landed', { err: null, confirmationStatus: 'confirmed' });
    chain.statuses.set('failed', { err: { InstructionError: [0, { Custom: 4 }] }, confirmationStatus: 'confirmed' });
    chain.statuses.set('processed', { err: null, confirmationStatus: 'processed' });
    chain.valid.set('old', false);
    await tracker.runOnce();
    tracker.stop();
    expect(events.sort()).toEqual(['confirmed 1', 'expired 1', 'failed 1']);
    expect(await store.counts('m')).toEqual({ issued: 1, reserved: 2, wallet: 0 });
    expect((await store.pending('m', 10)).map((entry) => entry.id).sort()).toEqual(['pending', 'processed']);
    // The released wallets may reserve again; the confirmed one may not.
    expect((await reserve('again-b', 'b')).outcome).toBe('reserved');
    expect((await reserve('again-c', 'c')).outcome).toBe('reserved');
    expect((await reserve('again-a', 'a')).outcome).toBe('limit');
  });

  it('a transaction that lands between the status read and the blockhash check is a mint', async () => {
    const { store, chain, tracker, reserve } = await setup();
    await reserve('late', 'a', 'old');
    chain.valid.set('old', false);
    chain.afterValidity = () => chain.statuses.set('late', { err: null, confirmationStatus: 'finalized' });
    await tracker.runOnce();
    tracker.stop();
    expect(await store.counts('m')).toEqual({ issued: 1, reserved: 0, wallet: 0 });
  });

  it('releases nothing while the chain cannot be read', async () => {
    const { store, chain, events, tracker, reserve } = await setup();
    await reserve('x', 'a', 'old');
    chain.valid.set('old', false);
    chain.failing = true;
    await tracker.runOnce();
    tracker.stop();
    expect(events).toEqual(['error']);
    expect(await store.counts('m', 'a')).toEqual({ issued: 0, reserved: 1, wallet: 1 });
  });
});

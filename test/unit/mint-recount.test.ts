import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import type { MintChain } from '../../src/mint/chain.js';
import { MemoryReservationStore } from '../../src/mint/memory-store.js';
import { Recounts } from '../../src/mint/recount.js';
import { ReservationCountsLost } from '../../src/mint/store.js';
import type { MintConfig } from '../../src/mint/types.js';

/**
 * Lost counts on their way back (src/mint/recount.ts), on a chain whose heights the test sets: the
 * signer's history is not read until the confirmed bank's height is past the bound read when the
 * loss was seen; until then the mint has no counts (nothing can be co-signed) and Retry-After
 * follows the blocks left; a rebuild another instance claimed is not run twice.
 */
const gate = Keypair.generate();
const mint = {
  name: 'drop',
  signer: { address: gate.publicKey.toBase58(), publicKey: gate.publicKey.toBytes() },
  template: { program: 'spl-token', signer: gate.publicKey.toBytes(), mint: Keypair.generate().publicKey.toBytes(), amount: 1n, allowPrograms: [] },
} as unknown as MintConfig;

function setup() {
  const store = new MemoryReservationStore();
  const chain = { height: 1_000, pages: 0 };
  const fake = {
    latestBound: async () => ({ lastValidBlockHeight: 1_150, slot: 9 }),
    confirmedHeight: async () => ({ height: chain.height, slot: 10 }),
    signaturesPage: async () => {
      chain.pages++;
      return { entries: [], historyFrom: 0 };
    },
    transactions: async () => [],
  } as unknown as MintChain;
  const events: string[] = [];
  const recounts = new Recounts({ store, chain: fake, mints: () => new Map([[mint.name, mint]]), events: { lost: () => events.push('lost'), rebuilt: (_m, issued) => events.push(`rebuilt ${issued}`) } });
  return { store, chain, recounts, events };
}

describe('lost counts', () => {
  it('are rebuilt only once the confirmed height is past the bound read when the loss was seen', async () => {
    const { store, chain, recounts, events } = setup();
    await recounts.checkAll();
    await recounts.step();
    expect(recounts.isLost('drop')).toBe(true);
    expect(chain.pages).toBe(0);
    await expect(store.counts('drop', 'w')).rejects.toBeInstanceOf(ReservationCountsLost);
    // 151 blocks left, and 32 for a lagging node, at ~0.4 s each, and a little more.
    expect(recounts.retryAfterSeconds('drop')).toBe(Math.ceil((183 * 400) / 1000) + 2);

    chain.height = 1_182;
    await recounts.step();
    expect(chain.pages).toBe(0);
    chain.height = 1_183;
    await recounts.step();
    expect(chain.pages).toBe(1);
    expect(recounts.isLost('drop')).toBe(false);
    expect(await store.counts('drop', 'w')).toEqual({ issued: 0, reserved: 0, wallet: 0 });
    expect(events).toEqual(['lost', 'rebuilt 0']);
  });

  it('another instance\'s claim: no second rebuild; its new epoch ends the wait', async () => {
    const { store, chain, recounts } = setup();
    let claimed = true;
    store.claimRecount = async () => !claimed;
    recounts.noteLost('drop');
    chain.height = 2_000;
    await recounts.step();
    expect(chain.pages).toBe(0);
    expect(recounts.isLost('drop')).toBe(true);
    // The other instance installs the counts.
    await store.install('drop', { issued: 3, wallets: new Map([['w', 1]]) });
    claimed = false;
    await recounts.step();
    expect(recounts.isLost('drop')).toBe(false);
    expect(chain.pages).toBe(0);
    expect(await store.counts('drop', 'w')).toEqual({ issued: 3, reserved: 0, wallet: 1 });
  });
});

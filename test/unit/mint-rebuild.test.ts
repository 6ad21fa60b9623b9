import { Keypair, PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import type { HistoryEntry, LandedTransaction, MintChain } from '../../src/mint/chain.js';
import { HISTORY_PAGE, rebuildCounts } from '../../src/mint/rebuild.js';
import type { MintConfig } from '../../src/mint/types.js';
import { buildTokenMint } from '../helpers/mint.js';

/**
 * Counts rebuilt from the gate key's history (src/mint/rebuild.ts), on a history the test writes:
 * successful template transactions counted per name and fee payer, failed and foreign ones not;
 * phases of one on-chain mint split by blockTime; pages walked with `before`; a pruned node's end
 * of history refused rather than taken for the start.
 */
const gate = Keypair.generate();
const token = Keypair.generate().publicKey;
const BLOCKHASH = Keypair.generate().publicKey.toBase58();
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 11, 1, 16);

function mintConfig(name: string, window: { startMs?: number; endMs?: number } = {}, mint: PublicKey = token): MintConfig {
  return {
    name,
    signer: { address: gate.publicKey.toBase58(), publicKey: gate.publicKey.toBytes() },
    template: { program: 'spl-token', signer: gate.publicKey.toBytes(), mint: mint.toBytes(), amount: 1n, allowPrograms: [] },
    startMs: window.startMs,
    endMs: window.endMs,
  } as unknown as MintConfig;
}

interface Written {
  bytes: Uint8Array;
  err: unknown;
  blockTimeMs: number;
}

class History implements Pick<MintChain, 'signaturesPage' | 'transactions'> {
  readonly entries: { signature: string; tx: Written }[] = [];
  historyFrom = 0;
  pages = 0;
  readonly minSlots = new Set<number>();

  add(payer: Keypair, options: { err?: unknown; atMs?: number; mint?: PublicKey; amount?: bigint } = {}): void {
    const bytes = buildTokenMint({ payer, gate: gate.publicKey, mint: options.mint ?? token, amount: options.amount ?? 1n, blockhash: BLOCKHASH, computeUnitLimit: 100_000 + this.entries.length });
    // Newest first, as the node lists them.
    this.entries.unshift({ signature: `sig${this.entries.length}`, tx: { bytes, err: options.err ?? null, blockTimeMs: options.atMs ?? T0 } });
  }

  async signaturesPage(_address: string, before: string | undefined, limit: number, minSlot: number) {
    this.pages++;
    this.minSlots.add(minSlot);
    const from = before === undefined ? 0 : this.entries.findIndex((entry) => entry.signature === before) + 1;
    const entries: HistoryEntry[] = this.entries.slice(from, from + limit).map(({ signature, tx }) => ({ signature, slot: 1, err: tx.err, blockTime: tx.blockTimeMs / 1000 }));
    return { entries, historyFrom: this.historyFrom };
  }

  async transactions(signatures: readonly string[]): Promise<(LandedTransaction | null)[]> {
    return signatures.map((signature) => {
      const tx = this.entries.find((entry) => entry.signature === signature)?.tx;
      return tx ? { bytes: tx.bytes, err: tx.err, blockTime: tx.blockTimeMs / 1000 } : null;
    });
  }
}

const summary = (counts: Map<string, { issued: number; wallets: ReadonlyMap<string, number> }>) =>
  Object.fromEntries([...counts].map(([name, { issued, wallets }]) => [name, { issued, wallets: Object.fromEntries(wallets) }]));

describe('counts rebuilt from the chain', () => {
  it('counts successful template mints per fee payer; not failed ones, nor other mints of the same key', async () => {
    const history = new History();
    const [a, b] = [Keypair.generate(), Keypair.generate()];
    history.add(a);
    history.add(b);
    history.add(a);
    history.add(b, { err: { InstructionError: [1, { Custom: 0 }] } });
    history.add(b, { mint: Keypair.generate().publicKey });
    history.add(b, { amount: 2n });
    const counts = await rebuildCounts([mintConfig('drop')], history as unknown as MintChain);
    expect(summary(counts)).toEqual({ drop: { issued: 3, wallets: { [a.publicKey.toBase58()]: 2, [b.publicKey.toBase58()]: 1 } } });
  });

  it('phases of one on-chain mint take a transaction by its blockTime, else the first name', async () => {
    const history = new History();
    const [early, late, outside] = [Keypair.generate(), Keypair.generate(), Keypair.generate()];
    history.add(early, { atMs: T0 + 10 });
    history.add(late, { atMs: T0 + HOUR + 10 });
    history.add(outside, { atMs: T0 + 5 * HOUR });
    const phases = [mintConfig('allowlist', { startMs: T0, endMs: T0 + HOUR }), mintConfig('public', { startMs: T0 + HOUR, endMs: T0 + 2 * HOUR })];
    const counts = await rebuildCounts(phases, history as unknown as MintChain);
    expect(summary(counts)).toEqual({
      allowlist: { issued: 2, wallets: { [early.publicKey.toBase58()]: 1, [outside.publicKey.toBase58()]: 1 } },
      public: { issued: 1, wallets: { [late.publicKey.toBase58()]: 1 } },
    });
  });

  it('walks every page with `before`', async () => {
    const history = new History();
    const wallet = Keypair.generate();
    for (let i = 0; i < HISTORY_PAGE + 5; i++) history.add(wallet);
    const counts = await rebuildCounts([mintConfig('drop')], history as unknown as MintChain, 4_242);
    expect(history.pages).toBe(2);
    // Every page from a node at the bank that showed the in-flight blockhashes expired, at least.
    expect([...history.minSlots]).toEqual([4_242]);
    expect(counts.get('drop')!.issued).toBe(HISTORY_PAGE + 5);
  }, 60_000);

  it('refuses the end of a pruned node\'s history, and a listed transaction the node cannot serve', async () => {
    const history = new History();
    history.add(Keypair.generate());
    history.historyFrom = 1_000;
    await expect(rebuildCounts([mintConfig('drop')], history as unknown as MintChain)).rejects.toThrow(/slot 1000/);
    history.historyFrom = 0;
    history.transactions = async (signatures) => signatures.map(() => null);
    await expect(rebuildCounts([mintConfig('drop')], history as unknown as MintChain)).rejects.toThrow(/getTransaction has no/);
  });
});

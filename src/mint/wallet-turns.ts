/**
 * One co-sign at a time per wallet and mint, in this process: a wallet's next request starts once
 * its previous one has answered, so it reads the counts that one left (MINT_LIMIT_REACHED at the
 * pre-check, no simulation) rather than every copy being simulated at once. Exact either way — the
 * reservation decides — but a wallet that posts five copies costs one simulation, not five. Only
 * after the fee payer's signature verified: no one queues behind a wallet that is not theirs.
 */
export class WalletTurns {
  private readonly tails = new Map<string, Promise<void>>();

  /** Waits for the wallet's turn; the returned function ends it (call it exactly once). */
  async take(mint: string, wallet: string): Promise<() => void> {
    const key = `${mint} ${wallet}`;
    const before = this.tails.get(key);
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    const tail = before === undefined ? mine : before.then(() => mine);
    this.tails.set(key, tail);
    if (before !== undefined) await before;
    return () => {
      done();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
  }
}

/**
 * What part of the ledger this node serves — what a real node's health and configuration decide,
 * beside the per-request faults of faults.ts:
 *
 * - `slotsBehind`: it answers as of that many slots before the chain's slot: `context.slot`,
 *   `getSlot`, and history (signatures and transactions after that slot are not there yet). With
 *   `laggingMethods`, only those methods lag — e.g. the history methods alone: the history node of
 *   a load-balanced provider behind the node that answers balances.
 * - `honoursMinContextSlot`: a `minContextSlot` above its slot is refused with -32016 ("Minimum
 *   context slot has not been reached", `data.contextSlot`), as the validator does (agave
 *   rpc/src/rpc.rs `get_bank_with_config`); false models a node that ignores the parameter.
 * - `firstAvailableBlock`: what getFirstAvailableBlock answers; history older than it is not served
 *   (a node that keeps only recent blocks). 0: the ledger from genesis.
 * - `transactionHistory`: false — getSignaturesForAddress and getTransaction answer -32011
 *   ("Transaction history is not available from this node").
 * - `blockTimes`: false — history carries `blockTime: null` (as for the oldest blocks of mainnet),
 *   and getBlockTime answers null.
 *
 * Settable in-process (`handle.ledger.set`) and over HTTP (`POST /__localnet/ledger`); a field left
 * out keeps its value.
 */
export interface LedgerSettings {
  slotsBehind: number;
  /** Methods that lag by `slotsBehind`; null: every method. */
  laggingMethods: string[] | null;
  honoursMinContextSlot: boolean;
  firstAvailableBlock: number;
  transactionHistory: boolean;
  blockTimes: boolean;
}

export const DEFAULT_LEDGER: Readonly<LedgerSettings> = {
  slotsBehind: 0,
  laggingMethods: null,
  honoursMinContextSlot: true,
  firstAvailableBlock: 0,
  transactionHistory: true,
  blockTimes: true,
};

export class NodeLedger {
  private settings: LedgerSettings = { ...DEFAULT_LEDGER };

  /** Validates and applies; a field left out keeps its value. Throws on a bad value. */
  set(change: Partial<Record<keyof LedgerSettings, unknown>>): LedgerSettings {
    const next = { ...this.settings };
    for (const [key, value] of Object.entries(change)) {
      if (value === undefined) continue;
      switch (key as keyof LedgerSettings) {
        case 'slotsBehind':
        case 'firstAvailableBlock':
          if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new Error(`${key} must be a non-negative integer`);
          next[key as 'slotsBehind' | 'firstAvailableBlock'] = value;
          break;
        case 'laggingMethods':
          if (value !== null && !(Array.isArray(value) && value.every((method) => typeof method === 'string'))) throw new Error('laggingMethods must be null or an array of method names');
          next.laggingMethods = value === null ? null : [...(value as string[])];
          break;
        case 'honoursMinContextSlot':
        case 'transactionHistory':
        case 'blockTimes':
          if (typeof value !== 'boolean') throw new Error(`${key} must be true or false`);
          next[key as 'honoursMinContextSlot' | 'transactionHistory' | 'blockTimes'] = value;
          break;
        default:
          throw new Error(`unknown ledger setting ${key}`);
      }
    }
    this.settings = next;
    return this.current();
  }

  reset(): void {
    this.settings = { ...DEFAULT_LEDGER };
  }

  current(): LedgerSettings {
    return { ...this.settings, laggingMethods: this.settings.laggingMethods === null ? null : [...this.settings.laggingMethods] };
  }

  /** The slot this node answers `method` at, when the chain is at `chainSlot`. */
  slotFor(chainSlot: number, method: string): number {
    const { slotsBehind, laggingMethods } = this.settings;
    if (slotsBehind === 0 || (laggingMethods !== null && !laggingMethods.includes(method))) return chainSlot;
    return Math.max(0, chainSlot - slotsBehind);
  }

  get view(): Readonly<LedgerSettings> {
    return this.settings;
  }
}

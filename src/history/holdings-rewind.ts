import type { ChainTransaction, TokenBalance } from '../chain/types.js';

/**
 * Rewinding a wallet's holdings of one mint through its transactions, newest first, using the
 * token balances the node records before and after each transaction (meta.pre/postTokenBalances).
 *
 * Holdings are the summed amounts of the tracked token accounts (those the balance was counted
 * over: WalletHoldings.countedAccounts), matched by address through accountKeys[accountIndex], so
 * transactions old enough to lack the `owner` field still count. Where `owner` is recorded, an
 * entry counts only while the wallet owns the account: handing an account to another owner
 * (SetAuthority) is a change of holdings even though the amount stays.
 */
export interface TrackedHoldings {
  wallet: string;
  mint: string;
  /** Token account addresses whose balances make up the holdings. */
  accounts: ReadonlySet<string>;
}

/** The wallet's holdings of the mint in each tracked account the balance list names. */
function heldPerAccount(balances: readonly TokenBalance[], transaction: ChainTransaction, tracked: TrackedHoldings): Map<string, bigint> {
  const held = new Map<string, bigint>();
  for (const balance of balances) {
    if (balance.mint !== tracked.mint) continue;
    if (balance.owner !== undefined && balance.owner !== tracked.wallet) continue;
    const account = transaction.accountKeys[balance.accountIndex];
    if (account !== undefined && tracked.accounts.has(account)) held.set(account, (held.get(account) ?? 0n) + balance.amount);
  }
  return held;
}

/** How much the transaction changed the holdings (post − pre); an account absent from a list held 0 there. */
export function holdingsChange(transaction: ChainTransaction, tracked: TrackedHoldings): bigint {
  const sum = (held: Map<string, bigint>): bigint => [...held.values()].reduce((total, amount) => total + amount, 0n);
  return sum(heldPerAccount(transaction.postTokenBalances, transaction, tracked)) - sum(heldPerAccount(transaction.preTokenBalances, transaction, tracked));
}

/**
 * The rewind, account by account: besides the running total, what each tracked account held just
 * after the next (older) transaction to undo. A transaction's recorded balance of an account must
 * be exactly that — at the account's newest transaction, what it holds now. When it is not, the
 * history lacks a transaction in between: the node answered from a slot behind the balance read
 * (it ignored `minContextSlot`, or its history lags), or has a gap. Such a history proves nothing.
 *
 * What an account holds now: `current` (each account's amount, when the balance was read from the
 * wallet's token-account list), else the balance goes to the first tracked account that shows up
 * — under HOLDINGS_SCOPE=ata the tracked accounts are the mint's ATAs under both token programs,
 * and only the one of the mint's own program can hold it.
 */
export class HoldingsRewind {
  /** The summed holdings just after the next transaction to undo (at first: the balance now). */
  holdings: bigint;
  private readonly held = new Map<string, bigint>();
  private unattributed: bigint;

  constructor(
    private readonly tracked: TrackedHoldings,
    balance: bigint,
    private readonly current?: ReadonlyMap<string, bigint>,
  ) {
    this.holdings = balance;
    this.unattributed = balance;
  }

  /**
   * Undoes `transaction`: `holdings` becomes what was held just before it. Returns the tracked
   * account whose recorded balance does not follow on from the rewind, if any (then stop: the
   * history is incomplete).
   */
  undo(transaction: ChainTransaction): string | undefined {
    const after = heldPerAccount(transaction.postTokenBalances, transaction, this.tracked);
    const before = heldPerAccount(transaction.preTokenBalances, transaction, this.tracked);
    for (const account of new Set([...after.keys(), ...before.keys()])) {
      const recorded = after.get(account) ?? 0n;
      if (recorded !== (this.held.get(account) ?? this.heldNow(account))) return account;
      const previous = before.get(account) ?? 0n;
      this.held.set(account, previous);
      this.holdings += previous - recorded;
    }
    return undefined;
  }

  private heldNow(account: string): bigint {
    if (this.current !== undefined) return this.current.get(account) ?? 0n;
    const amount = this.unattributed;
    this.unattributed = 0n;
    return amount;
  }
}

import type { ChainTransaction, TokenBalance } from '../../chain/types.js';

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

function heldIn(balances: readonly TokenBalance[], transaction: ChainTransaction, tracked: TrackedHoldings): bigint {
  let total = 0n;
  for (const balance of balances) {
    if (balance.mint !== tracked.mint) continue;
    if (balance.owner !== undefined && balance.owner !== tracked.wallet) continue;
    const account = transaction.accountKeys[balance.accountIndex];
    if (account !== undefined && tracked.accounts.has(account)) total += balance.amount;
  }
  return total;
}

/** How much the transaction changed the holdings (post − pre); an account absent from a list held 0 there. */
export function holdingsChange(transaction: ChainTransaction, tracked: TrackedHoldings): bigint {
  return heldIn(transaction.postTokenBalances, transaction, tracked) - heldIn(transaction.preTokenBalances, transaction, tracked);
}

/** The holdings just before `transaction`, given the holdings just after it. */
export function holdingsBefore(after: bigint, transaction: ChainTransaction, tracked: TrackedHoldings): bigint {
  return after - holdingsChange(transaction, tracked);
}

/**
 * Walks newest → oldest from the current holdings and returns the first (newest) transaction
 * before which the holdings were below `amount` — the moment the uninterrupted hold began — or
 * undefined when they stayed at or above it through all of `transactions`. `holdings` is the
 * running value, updated in place so callers can continue with the next batch.
 */
export function findHoldStart(
  state: { holdings: bigint },
  amount: bigint,
  transactions: readonly ChainTransaction[],
  tracked: TrackedHoldings,
): ChainTransaction | undefined {
  for (const transaction of transactions) {
    state.holdings = holdingsBefore(state.holdings, transaction, tracked);
    if (state.holdings < amount) return transaction;
  }
  return undefined;
}

import { GateError } from '../errors.js';
import { defineFeature } from './types.js';

/**
 * balance: the wallet's own account holds at least `min_lamports` (its SOL, not wrapped SOL in a
 * token account). The account is read with the login's associated token accounts, one
 * getMultipleAccounts for both (WalletHoldings.lamports); a wallet with no account holds 0.
 */
export interface BalanceParams {
  minLamports: bigint;
}

export const balanceFeature = defineFeature('balance', {
  cost: 'accounts',
  params: (values): BalanceParams => ({ minLamports: values.min_lamports }),
  readsWalletAccount: () => true,

  async check(_wallet, { minLamports }, { holdings }) {
    const lamports = await holdings.lamports();
    if (lamports >= minLamports) return {};
    throw new GateError(500, 'INSUFFICIENT_SOL', `Wallet holds ${lamports} lamports; at least ${minLamports} are required`, {
      extra: { required: minLamports.toString(), found: lamports.toString() },
    });
  },
});

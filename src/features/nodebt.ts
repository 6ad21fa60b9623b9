import { GateError } from '../errors.js';
import { LENDING_PROTOCOLS, readDebt, type LendingProtocol, type ProtocolDebt } from '../lending/debt.js';
import { USD_DECIMALS } from '../lending/usd.js';
import { formatFixedCeil } from '../lib/fixed.js';
import { defineFeature } from './types.js';

/**
 * nodebt: the wallet's borrowed value across the named lending protocols is ≤ max_debt_allowed
 * (USD, default 0). Debt the gate can see but cannot price (see src/lending/debt.ts) is never
 * covered by an allowance: fail closed.
 */
export interface NodebtParams {
  protocols: LendingProtocol[];
  /** USD × 10^18. */
  maxDebtUsdWad: bigint;
}

const ALIASES: Readonly<Record<'kamino' | 'save' | 'solend' | 'marginfi', LendingProtocol>> = { kamino: 'kamino', save: 'save', solend: 'save', marginfi: 'marginfi' };
/** USD shown with cents and a bit more; the comparison itself uses all 18 decimals. */
const SHOWN_DECIMALS = 6;

export const nodebtFeature = defineFeature('nodebt', {
  cost: 'scan',
  params(values): NodebtParams {
    const named = values.check_protocols;
    return { protocols: named.length === 0 ? [...LENDING_PROTOCOLS] : [...new Set(named.map((name) => ALIASES[name]))], maxDebtUsdWad: values.max_debt_allowed };
  },

  async check(wallet, { protocols, maxDebtUsdWad }, { chain }) {
    const debts = await Promise.all(protocols.map((protocol) => readDebt[protocol](chain, wallet)));
    const totalWad = debts.reduce((sum, debt) => sum + debt.debtUsdWad, 0n);
    const unpriced = debts.flatMap((debt) => debt.unpriced);
    const debtUsdByProtocol = Object.fromEntries(debts.map((debt) => [debt.protocol, usd(debt.debtUsdWad)]));
    if (unpriced.length === 0 && totalWad <= maxDebtUsdWad) {
      return { totalDebtUsd: usd(totalWad), debtUsdByProtocol };
    }

    const max = usd(maxDebtUsdWad);
    const summary = debts.filter(owesSomething).map(describeDebt).join('; ');
    const reason = unpriced.length > 0 ? `debt of unknown USD value cannot be checked against the allowance of $${max}` : `total $${usd(totalWad)} exceeds the allowance of $${max}`;
    throw new GateError(500, 'HAS_DEBT', `Wallet has lending debt: ${summary}; ${reason}`, {
      extra: {
        totalDebtUsd: usd(totalWad),
        maxDebtAllowed: max,
        debts: debts.map((debt) => ({
          protocol: debt.protocol,
          debtUsd: usd(debt.debtUsdWad),
          accounts: debt.accounts,
          ...(debt.unpriced.length > 0 ? { unpriced: debt.unpriced } : {}),
        })),
      },
    });
  },
});

function usd(wad: bigint): string {
  return formatFixedCeil(wad, USD_DECIMALS, SHOWN_DECIMALS);
}

function owesSomething(debt: ProtocolDebt): boolean {
  return debt.debtUsdWad > 0n || debt.unpriced.length > 0;
}

function describeDebt(debt: ProtocolDebt): string {
  const priced = `${debt.protocol} $${usd(debt.debtUsdWad)}`;
  return debt.unpriced.length > 0 ? `${priced} plus unpriced: ${debt.unpriced.join(', ')}` : priced;
}

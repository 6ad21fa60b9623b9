import type { HoldingsScope } from '../chain/wallet-holdings.js';
import { GateError } from '../errors.js';
import { defineFeature } from './types.js';

/**
 * docs/api.md §5: holds none of `excluded_mints`, and no mint above its `max_holdings` entry — in
 * any token account it owns, unless the policy's `scope` is `ata` (src/chain/wallet-holdings.ts).
 */
export interface BlacklistParams {
  excludedMints: string[];
  maxHoldings: Map<string, bigint>;
  /** The policy's `scope`, when it names one. */
  scope: HoldingsScope | undefined;
}

/**
 * The mints a policy names, each once, worked out once per parsed policy (parsed policies are
 * cached and reused: src/policy/parse-headers.ts), so a login builds no list: it is also the
 * `heldMints` the login plans its reads with, the same array.
 */
const mintLists = new WeakMap<BlacklistParams, readonly string[]>();
function mintsOf(params: BlacklistParams): readonly string[] {
  let mints = mintLists.get(params);
  if (mints === undefined) {
    mints = [...new Set([...params.excludedMints, ...params.maxHoldings.keys()])];
    mintLists.set(params, mints);
  }
  return mints;
}

export const blacklistFeature = defineFeature('blacklist', {
  cost: 'accounts',
  params: (values): BlacklistParams => ({ excludedMints: values.excluded_mints, maxHoldings: values.max_holdings, scope: values.scope }),

  heldMints: mintsOf,
  deniesHoldings: true,
  holdingsScope: ({ scope }) => scope,

  async check(_wallet, params, { holdings }) {
    const { excludedMints, maxHoldings } = params;
    const mints = mintsOf(params);
    if (mints.length === 0) return {};
    const balances = await holdings.balances(mints);

    for (const mint of excludedMints) {
      const balance = balances.get(mint) ?? 0n;
      if (balance > 0n) {
        throw new GateError(500, 'HOLDS_BANNED_TOKEN', `Wallet holds banned token ${mint} (balance ${balance})`, {
          extra: { mint, balance: balance.toString() },
        });
      }
    }
    for (const [mint, maximum] of maxHoldings) {
      const balance = balances.get(mint) ?? 0n;
      if (balance > maximum) {
        throw new GateError(403, 'EXCEEDS_MAX_HOLDING', `Wallet holds ${balance} of token ${mint}, above the maximum of ${maximum}`, {
          extra: { mint, balance: balance.toString(), maximum: maximum.toString() },
        });
      }
    }
    return {};
  },
});

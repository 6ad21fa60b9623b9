import type { HoldingsScope } from '../chain/wallet-holdings.js';
import type { ParsedRequirement } from '../contract/values.js';
import { GateError, invalidHeader } from '../errors.js';
import { reportRequirement } from './requirements.js';
import { defineFeature } from './types.js';

/**
 * tier: `tier_config` gives any of bronze, silver, gold a `{mint, amount}` requirement; the highest
 * tier whose requirement the wallet meets wins and is returned as `tier` (body and token claim).
 */
export const TIERS = ['gold', 'silver', 'bronze'] as const; // highest first
export type TierName = (typeof TIERS)[number];

export interface TierParams {
  /** Configured tiers, highest first. */
  tiers: { tier: TierName; requirement: ParsedRequirement }[];
  /** The policy's `scope`, when it names one. */
  scope: HoldingsScope | undefined;
}

export const tierFeature = defineFeature('tier', {
  cost: 'accounts',
  params(values): TierParams {
    const config = values.tier_config;
    const tiers = TIERS.flatMap((tier) => {
      const requirement = config[tier];
      return requirement === undefined ? [] : [{ tier, requirement }];
    });
    if (tiers.length === 0) throw invalidHeader('tier_config', 'must configure at least one of bronze, silver, gold');
    return { tiers, scope: values.scope };
  },

  heldMints: ({ tiers }) => tiers.map(({ requirement }) => requirement.mint),
  holdingsScope: ({ scope }) => scope,

  async check(_wallet, { tiers }, { holdings }) {
    const balances = await holdings.balances([...new Set(tiers.map((t) => t.requirement.mint))]);
    const report = tiers.map(({ tier, requirement }) => ({ tier, ...reportRequirement(requirement, balances) }));
    const winner = report.find((entry) => entry.met);
    if (winner) return { tier: winner.tier };

    const lowest = report[report.length - 1]!;
    throw new GateError(
      500,
      'INSUFFICIENT_TOKENS',
      `Wallet meets no tier; the lowest configured tier, ${lowest.tier}, needs ${lowest.required} of ${lowest.mint} and the wallet has ${lowest.balance}`,
      { extra: { requirements: report } },
    );
  },
});

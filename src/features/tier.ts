import type { HoldingsScope } from '../chain/wallet-holdings.js';
import { GateError, invalidHeader } from '../errors.js';
import { jsonHeader, requireHeaders } from '../lib/header-values.js';
import { holdingsScopeHeader, SCOPE_HEADER } from './lib/holdings-scope.js';
import { reportRequirement, tokenRequirement, type TokenRequirement } from './lib/requirement.js';
import type { Feature } from './types.js';

/**
 * tier: `tier_config` gives any of bronze, silver, gold a `{mint, amount}` requirement; the highest
 * tier whose requirement the wallet meets wins and is returned as `tier` (body and token claim).
 */
export const TIERS = ['gold', 'silver', 'bronze'] as const; // highest first
export type TierName = (typeof TIERS)[number];

export interface TierParams {
  /** Configured tiers, highest first. */
  tiers: { tier: TierName; requirement: TokenRequirement }[];
  /** The policy's `scope`, when it names one. */
  scope: HoldingsScope | undefined;
}

export const tierFeature: Feature<TierParams> = {
  name: 'tier',
  policyHeaders: ['tier_config', SCOPE_HEADER],
  geoRequired: false,
  cost: 'accounts',
  failures: [{ status: 500, code: 'INSUFFICIENT_TOKENS' }],
  limits: [{ status: 500, code: 'HOLDINGS_LIMIT' }],

  parse(headers) {
    requireHeaders(headers, ['tier_config']);
    const parsed = jsonHeader('tier_config', headers.get('tier_config') as string);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw invalidHeader('tier_config', 'must be a JSON object with any of "bronze", "silver", "gold", each {"mint", "amount"}');
    }
    const config = parsed as Record<string, unknown>;
    const unknown = Object.keys(config).find((key) => !(TIERS as readonly string[]).includes(key));
    if (unknown !== undefined) throw invalidHeader('tier_config', `unknown tier ${JSON.stringify(unknown.slice(0, 40))}; tiers are bronze, silver, gold`);
    const tiers = TIERS.filter((tier) => tier in config).map((tier) => ({
      tier,
      requirement: tokenRequirement('tier_config', config[tier], `tier ${tier}`),
    }));
    if (tiers.length === 0) throw invalidHeader('tier_config', 'must configure at least one of bronze, silver, gold');
    return { tiers, scope: holdingsScopeHeader(headers) };
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
};

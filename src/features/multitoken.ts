import type { HoldingsScope } from '../chain/wallet-holdings.js';
import type { ParsedRequirement } from '../contract/values.js';
import { GateError, invalidHeader } from '../errors.js';
import { reportRequirement } from './requirements.js';
import { defineFeature } from './types.js';

/**
 * multitoken: a portfolio of `{mint, amount}` requirements, of which every one (`ALL`, the
 * default), at least one (`ANY`), or at least N (an integer 1..M) must be met. A requirement is
 * met when the wallet's balance of the mint (both token programs; which accounts count:
 * src/chain/wallet-holdings.ts) is ≥ amount.
 */
export interface MultitokenParams {
  requirements: ParsedRequirement[];
  /** How many requirements must be met. */
  needed: number;
  /** As the policy said it, for messages and the failure body. */
  mode: string;
  /** The policy's `scope`, when it names one. */
  scope: HoldingsScope | undefined;
}

export const multitokenFeature = defineFeature('multitoken', {
  cost: 'accounts',
  params(values): MultitokenParams {
    const requirements = values.required_tokens;
    if (requirements.length === 0) throw invalidHeader('required_tokens', 'must list at least one requirement');
    const mode = values.verification_mode;
    const needed = mode === 'ALL' ? requirements.length : mode === 'ANY' ? 1 : mode;
    if (needed > requirements.length) throw invalidHeader('verification_mode', `${needed} is not between 1 and the ${requirements.length} listed requirements`);
    return { requirements, needed, mode: String(mode), scope: values.scope };
  },

  heldMints: ({ requirements }) => requirements.map((requirement) => requirement.mint),
  holdingsScope: ({ scope }) => scope,

  async check(_wallet, { requirements, needed, mode }, { holdings }) {
    const balances = await holdings.balances([...new Set(requirements.map((r) => r.mint))]);
    const report = requirements.map((requirement) => reportRequirement(requirement, balances));
    const met = report.filter((entry) => entry.met).length;
    if (met >= needed) return { requirementsMet: met, requirementsTotal: requirements.length };

    const shortfalls = report.filter((entry) => !entry.met).map((entry) => `${entry.mint}: has ${entry.balance}, needs ${entry.required}`);
    throw new GateError(
      500,
      'INSUFFICIENT_TOKENS',
      `Wallet meets ${met} of ${requirements.length} token requirements; mode ${mode} needs ${needed}. Not met: ${shortfalls.join('; ')}`,
      { extra: { mode, requirementsNeeded: needed, requirementsMet: met, requirements: report } },
    );
  },
});

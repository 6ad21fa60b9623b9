import type { HoldingsScope } from '../chain/wallet-holdings.js';
import { GateError, invalidHeader } from '../errors.js';
import { describe, jsonHeader, MAX_LIST_ENTRIES, requireHeaders } from '../lib/header-values.js';
import { holdingsScopeHeader, SCOPE_HEADER } from './lib/holdings-scope.js';
import { reportRequirement, tokenRequirement, type TokenRequirement } from './lib/requirement.js';
import type { Feature } from './types.js';

/**
 * multitoken: a portfolio of `{mint, amount}` requirements, of which every one (`ALL`, the
 * default), at least one (`ANY`), or at least N (an integer 1..M) must be met. A requirement is
 * met when the wallet's balance of the mint (both token programs; which accounts count:
 * src/chain/wallet-holdings.ts) is ≥ amount.
 */
export interface MultitokenParams {
  requirements: TokenRequirement[];
  /** How many requirements must be met. */
  needed: number;
  /** As the policy said it, for messages and the failure body. */
  mode: string;
  /** The policy's `scope`, when it names one. */
  scope: HoldingsScope | undefined;
}

export const multitokenFeature: Feature<MultitokenParams> = {
  name: 'multitoken',
  policyHeaders: ['required_tokens', 'verification_mode', SCOPE_HEADER],
  geoRequired: false,
  cost: 'accounts',
  failures: [{ status: 500, code: 'INSUFFICIENT_TOKENS' }],
  limits: [{ status: 500, code: 'HOLDINGS_LIMIT' }],

  parse(headers) {
    requireHeaders(headers, ['required_tokens']);
    const parsed = jsonHeader('required_tokens', headers.get('required_tokens') as string);
    if (!Array.isArray(parsed)) throw invalidHeader('required_tokens', 'must be a JSON array of {"mint", "amount"} objects');
    if (parsed.length === 0) throw invalidHeader('required_tokens', 'must list at least one requirement');
    if (parsed.length > MAX_LIST_ENTRIES) {
      throw invalidHeader('required_tokens', `has ${parsed.length} entries; at most ${MAX_LIST_ENTRIES} are allowed`);
    }
    const requirements = parsed.map((entry, index) => tokenRequirement('required_tokens', entry, `entry ${index}`));
    const { needed, mode } = verificationMode(headers.get('verification_mode'), requirements.length);
    return { requirements, needed, mode, scope: holdingsScopeHeader(headers) };
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
};

/** `ALL` (default, also for an empty value), `ANY`, or an integer N with 1 ≤ N ≤ M. */
function verificationMode(raw: string | undefined, total: number): { needed: number; mode: string } {
  const text = (raw ?? '').trim().toUpperCase();
  if (text === '' || text === 'ALL') return { needed: total, mode: 'ALL' };
  if (text === 'ANY') return { needed: 1, mode: 'ANY' };
  if (/^\d{1,4}$/.test(text)) {
    const needed = Number(text);
    if (needed >= 1 && needed <= total) return { needed, mode: String(needed) };
    throw invalidHeader('verification_mode', `${needed} is not between 1 and the ${total} listed requirements`);
  }
  throw invalidHeader('verification_mode', `${describe(raw)} is not ALL, ANY or a number of requirements`);
}

import type { HoldingsPlan, HoldingsScope } from '../chain/wallet-holdings.js';
import type { Feature } from './types.js';

/** One check of a login: a feature with its parameters, and whether a rule negates it (an odd number of `not` above it). */
export interface PlannedCheck {
  module: Feature<any>;
  params: unknown;
  negated: boolean;
}

/**
 * What the checks of one login will read of the wallet's tokens (src/chain/wallet-holdings.ts).
 * A mint counts every token account the wallet owns when a check needs that:
 * - its policy says `"scope": "all"`;
 * - it is a deny condition — the check fails on a balance too high (Feature.deniesHoldings), or a
 *   check that fails on one too low is negated — and its scope (the policy's, else
 *   `defaultScope`, HOLDINGS_SCOPE) is `all`: "holds none of the excluded tokens" means none, in
 *   any account.
 * Every other mint is counted from the wallet's associated token accounts.
 */
export function holdingsPlan(checks: Iterable<PlannedCheck>, defaultScope: HoldingsScope): HoldingsPlan {
  const mints = new Set<string>();
  const everyAccountMints = new Set<string>();
  let tokenAccounts = false;
  let walletAccount = false;
  for (const { module, params, negated } of checks) {
    const held = module.heldMints?.(params) ?? [];
    for (const mint of held) mints.add(mint);
    if (countsEveryAccount(module, params, negated, defaultScope)) for (const mint of held) everyAccountMints.add(mint);
    tokenAccounts ||= module.readsTokenAccounts?.(params) ?? false;
    walletAccount ||= module.readsWalletAccount?.(params) ?? false;
  }
  return { mints: [...mints], everyAccountMints: [...everyAccountMints], tokenAccounts, walletAccount };
}

function countsEveryAccount(module: Feature<any>, params: unknown, negated: boolean, defaultScope: HoldingsScope): boolean {
  const scope = module.holdingsScope?.(params);
  if (scope === 'all') return true;
  const deny = (module.deniesHoldings ?? false) !== negated;
  return deny && (scope ?? defaultScope) === 'all';
}

/**
 * A feature at its own path: the same plan, worked out once per parsed policy (parsed policies
 * are shared between logins: src/policy/parse-headers.ts, named policies) and default scope. The
 * plan keeps `heldMints`' own array as `mints` when nothing is deduplicated away, so a feature
 * asking for exactly its mints is answered without a set.
 */
const featurePlans = new WeakMap<object, Partial<Record<HoldingsScope, HoldingsPlan>>>();
export function featureHoldingsPlan(module: Feature<any>, params: unknown, heldMints: readonly string[], defaultScope: HoldingsScope): HoldingsPlan {
  const key = params as object;
  let byScope = featurePlans.get(key);
  let plan = byScope?.[defaultScope];
  if (plan !== undefined) return plan;
  const everyAccount = countsEveryAccount(module, params, false, defaultScope);
  // tier may name one mint for several tiers: each mint is read once.
  const everyAccountMints = !everyAccount ? [] : new Set(heldMints).size === heldMints.length ? heldMints : [...new Set(heldMints)];
  plan = { mints: heldMints, everyAccountMints, tokenAccounts: module.readsTokenAccounts?.(params) ?? false, walletAccount: module.readsWalletAccount?.(params) ?? false };
  if (byScope === undefined) featurePlans.set(key, (byScope = {}));
  byScope[defaultScope] = plan;
  return plan;
}

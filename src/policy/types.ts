import type { FeatureName } from '../contract/features.js';
import type { MintConfig } from '../mint/types.js';
import type { Rule } from '../rules/types.js';
import type { NamedPolicy } from './named-policy.js';

export type { NamedPolicy } from './named-policy.js';

export type PolicyMode = 'open' | 'pinned';

export interface PolicySet {
  mode: PolicyMode;
  /** Where it was read from, for logs. */
  source: string;
  byFeature: Readonly<Record<FeatureName, ReadonlyMap<string, NamedPolicy>>>;
  /** Policy names per feature, sorted. */
  names: Readonly<Record<FeatureName, readonly string[]>>;
  /** What the nonce body adds for each feature (`,"policyMode":…,"policies":[…]`), pre-serialized. */
  nonceBodySuffix: Readonly<Record<FeatureName, string>>;
  /** Rules by name (src/rules): whole launch conditions, served at /x404_auth/<rule>. */
  rules: ReadonlyMap<string, Rule>;
  /** Rule names, sorted. */
  ruleNames: readonly string[];
  /** What a rule's nonce body adds (`,"rule":…,"rules":[…]`), pre-serialized. */
  ruleNonceBodySuffix: ReadonlyMap<string, string>;
  /** Mints the gate co-signs (src/mint), by name, served at /x404_mint/<name>. */
  mints: ReadonlyMap<string, MintConfig>;
  /** The body of GET /x404_policies, pre-serialized. */
  listingJson: string;
}

/** Header and query parameter that select a named policy. */
export const POLICY_HEADER = 'x-404-policy';
export const POLICY_QUERY = 'policy';
export const DEFAULT_POLICY = 'default';

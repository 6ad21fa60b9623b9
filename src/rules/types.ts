import type { FeatureName } from '../contract/features.js';
import type { NamedPolicy } from '../policy/named-policy.js';
import type { WalletList } from './wallet-list.js';

/**
 * Rules (docs/rules.md): an operator's whole launch condition as one tree, loaded from the
 * `"rules"` object of POLICIES_FILE and served at /x404_auth/<rule> like a feature. Leaves are
 * feature checks (the same parameters a feature's headers or an operator policy give) or wallet
 * lists; inner nodes combine them. Everything here is built once when the file is loaded and shared,
 * read-only, by every login.
 */
export type RuleNode = AllNode | AnyNode | AtLeastNode | NotNode | RuleLeaf;
export type RuleLeaf = FeatureLeaf | WalletsLeaf;

interface Located {
  /** Where the node sits in its rule, e.g. `$.all[2].any[0]` (what answers and start-up errors name). */
  path: string;
}

export interface AllNode extends Located {
  kind: 'all';
  children: RuleNode[];
}

export interface AnyNode extends Located {
  kind: 'any';
  children: RuleNode[];
}

/** Passes when at least `needed` of `children` pass (N-of-M). */
export interface AtLeastNode extends Located {
  kind: 'atLeast';
  needed: number;
  children: RuleNode[];
}

export interface NotNode extends Located {
  kind: 'not';
  child: RuleNode;
}

export interface FeatureLeaf extends Located {
  kind: 'feature';
  /** Position among the rule's leaves, in tree order (the token's `lvs` claim has one character per leaf). */
  index: number;
  feature: FeatureName;
  /**
   * The leaf's policy: an operator policy it names (`"policy": "launch"`), or its own fields turned
   * into one exactly as a named policy is (headers, digest, parsed parameters, geolocation policy).
   */
  policy: NamedPolicy;
  /** The operator policy's name when the leaf referred to one. */
  policyName: string | undefined;
  /**
   * An odd number of `not` above it: the rule needs the check to FAIL. Its balances then become a
   * deny condition (src/features/lib/holdings-plan.ts): a `not` over tier must see every account.
   */
  negated: boolean;
}

export interface WalletsLeaf extends Located {
  kind: 'wallets';
  index: number;
  /** The file as the rule names it (relative to POLICIES_FILE's folder). */
  file: string;
  list: WalletList;
}

export interface Rule {
  name: string;
  root: RuleNode;
  /** Every leaf, in tree order. */
  leaves: RuleLeaf[];
  /**
   * The token's `pol`: base64url SHA-256 of the tree as loaded — every leaf's policy headers, every
   * wallet list's contents (its digest), the shape. Any change to what the rule checks changes it,
   * and tokens issued before then stop passing re-authentication and forward auth.
   */
  digest: string;
  /** The balances any leaf may ask for (their ATAs are derived beside the signature check). */
  heldMints: readonly string[];
  /** The tree as loaded, for GET /x404_policies: policy references resolved, wallet lists summarised. */
  listing: unknown;
}

/** Limits of one rule (docs/rules.md). */
export const MAX_RULE_DEPTH = 8;
export const MAX_RULE_LEAVES = 32;

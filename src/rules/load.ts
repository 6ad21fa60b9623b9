import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { FEATURE_NAMES, isFeatureName, type FeatureName } from '../contract/features.js';
import { FEATURES } from '../features/registry.js';
import type { NamedPolicy } from '../policy/named-policy.js';
import { MAX_RULE_DEPTH, MAX_RULE_LEAVES, type Rule, type RuleLeaf, type RuleNode } from './types.js';
import { loadWalletList, type WalletList } from './wallet-list.js';

/**
 * The `"rules"` object of POLICIES_FILE → Rule trees (docs/rules.md). Every leaf goes through its
 * feature's own parser (by way of `compilePolicy`, exactly as a named policy does), every wallet
 * list is read, and any problem stops start-up with a message naming the rule, the path in its tree
 * and the field. Nothing about a rule is decided per request.
 */
export interface RuleSources {
  /** Named policies by feature, already compiled: a leaf may refer to one. */
  policies: Readonly<Record<FeatureName, ReadonlyMap<string, NamedPolicy>>>;
  /** Turns a leaf's fields into a policy, as POLICIES_FILE's named policies are (throws through `fail`). */
  compilePolicy(feature: FeatureName, name: string, fields: Record<string, unknown>, fail: (why: string) => never): NamedPolicy;
  /** Folder wallet list files are relative to (POLICIES_FILE's). */
  baseDir: string;
  /** Lists already read, by absolute path (SIGHUP reads them in a worker: src/rules/read-lists.ts). */
  preloaded?: ReadonlyMap<string, WalletList> | undefined;
}

/** Rule names take the place of a feature's: in the path, the challenge and the token's `feature`. */
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const NODE_KEYS = ['all', 'any', 'atLeast', 'not', 'feature', 'wallets'] as const;

export function buildRules(document: unknown, sources: RuleSources, fail: (why: string) => never): Map<string, Rule> {
  if (!isPlainObject(document)) fail('"rules" must be an object of named rules, e.g. {"launch": {"all": […]}}');
  const rules = new Map<string, Rule>();
  const lowerNames = new Map<string, string>();
  // One list read once, however many leaves name it.
  const lists = new Map<string, WalletList>(sources.preloaded);
  for (const [name, tree] of Object.entries(document as Record<string, unknown>)) {
    const where = `rule ${JSON.stringify(name.slice(0, 70))}`;
    if (!NAME_PATTERN.test(name)) fail(`${where}: a rule name is 1–64 letters, digits, '_', '.' or '-', starting with a letter or digit`);
    // The challenge upper-cases the name: two names that differ only in case would sign the same constant.
    const lower = name.toLowerCase();
    if ((FEATURE_NAMES as readonly string[]).includes(lower)) fail(`${where}: a rule may not take a feature's name (${FEATURE_NAMES.join(', ')})`);
    const clash = lowerNames.get(lower);
    if (clash !== undefined) fail(`${where}: differs from rule ${JSON.stringify(clash)} only in case`);
    lowerNames.set(lower, name);
    rules.set(name, compileRule(name, tree, sources, lists, (path, why) => fail(`${where} at ${path}: ${why}`)));
  }
  return rules;
}

type Fail = (path: string, why: string) => never;

function compileRule(name: string, tree: unknown, sources: RuleSources, lists: Map<string, WalletList>, fail: Fail): Rule {
  const leaves: RuleLeaf[] = [];
  const root = compileNode(tree, '$', 1, { sources, lists, leaves, fail, negated: false });
  const heldMints = new Set<string>();
  for (const leaf of leaves) {
    if (leaf.kind !== 'feature') continue;
    const module = FEATURES[leaf.feature];
    for (const mint of module.heldMints?.(leaf.policy.params) ?? []) heldMints.add(mint);
  }
  const listing = describe(root);
  return {
    name,
    root,
    leaves,
    digest: createHash('sha256').update(stableJson({ rule: listing })).digest('base64url'),
    heldMints: [...heldMints],
    listing,
  };
}

interface Compilation {
  sources: RuleSources;
  lists: Map<string, WalletList>;
  leaves: RuleLeaf[];
  fail: Fail;
  /** Under an odd number of `not`. */
  negated: boolean;
}

function compileNode(node: unknown, path: string, depth: number, compilation: Compilation): RuleNode {
  const { leaves } = compilation;
  const fail: Fail = compilation.fail;
  if (depth > MAX_RULE_DEPTH) fail(path, `the tree is deeper than ${MAX_RULE_DEPTH} levels`);
  if (!isPlainObject(node)) fail(path, 'must be an object: {"all": […]}, {"any": […]}, {"atLeast": N, "of": […]}, {"not": {…}}, {"feature": …} or {"wallets": "file"}');
  const fields = node as Record<string, unknown>;
  const kinds = NODE_KEYS.filter((key) => key in fields);
  if (kinds.length !== 1) {
    fail(path, kinds.length === 0 ? `has none of ${NODE_KEYS.join(', ')}` : `has both ${kinds.join(' and ')}; each node is exactly one of them`);
  }
  const kind = kinds[0]!;
  const allowedKeys = kind === 'atLeast' ? ['atLeast', 'of'] : kind === 'feature' || kind === 'wallets' ? undefined : [kind];
  if (allowedKeys) {
    const extra = Object.keys(fields).find((key) => !allowedKeys.includes(key));
    if (extra !== undefined) fail(path, `unknown key ${JSON.stringify(extra.slice(0, 40))} beside "${kind}"`);
  }

  switch (kind) {
    case 'all':
    case 'any': {
      const children = childList(fields[kind], `${path}.${kind}`, fail);
      return { kind, path, children: children.map((child, i) => compileNode(child, `${path}.${kind}[${i}]`, depth + 1, compilation)) };
    }
    case 'atLeast': {
      const children = childList(fields.of, `${path}.of`, fail);
      const needed = fields.atLeast;
      if (typeof needed !== 'number' || !Number.isInteger(needed) || needed < 1 || needed > children.length) {
        fail(path, `"atLeast" must be a whole number from 1 to the ${children.length} entries of "of"`);
      }
      return { kind, path, needed, children: children.map((child, i) => compileNode(child, `${path}.of[${i}]`, depth + 1, compilation)) };
    }
    case 'not':
      return { kind, path, child: compileNode(fields.not, `${path}.not`, depth + 1, { ...compilation, negated: !compilation.negated }) };
    case 'wallets':
    case 'feature': {
      if (leaves.length >= MAX_RULE_LEAVES) fail(path, `a rule has at most ${MAX_RULE_LEAVES} leaves`);
      const leaf = kind === 'wallets' ? walletsLeaf(fields, path, leaves.length, compilation) : featureLeaf(fields, path, leaves.length, compilation);
      leaves.push(leaf);
      return leaf;
    }
  }
}

function childList(value: unknown, path: string, fail: Fail): unknown[] {
  if (!Array.isArray(value) || value.length === 0) fail(path, 'must be a non-empty array of nodes');
  return value as unknown[];
}

function featureLeaf(fields: Record<string, unknown>, path: string, index: number, { sources, fail: failAt, negated }: Compilation): RuleLeaf {
  const fail: Fail = failAt;
  const { feature, policy: policyName, ...policyFields } = fields;
  if (typeof feature !== 'string' || !isFeatureName(feature)) {
    fail(path, `"feature" must be one of ${FEATURE_NAMES.join(', ')}`);
  }
  if (policyName !== undefined) {
    if (typeof policyName !== 'string') fail(path, '"policy" must be the name of one of the feature\'s policies');
    const extra = Object.keys(policyFields)[0];
    if (extra !== undefined) fail(path, `field ${extra}: a leaf names a policy or gives its own fields, not both`);
    const policy = sources.policies[feature].get(policyName);
    if (policy === undefined) {
      const known = [...sources.policies[feature].keys()];
      fail(path, `${feature} has no policy ${JSON.stringify(policyName.slice(0, 64))}; its policies: ${known.length === 0 ? '(none)' : known.join(', ')}`);
    }
    return { kind: 'feature', path, index, feature, policy, policyName, negated };
  }
  const policy = sources.compilePolicy(feature, path, policyFields, (why) => fail(path, `${feature} ${why}`));
  return { kind: 'feature', path, index, feature, policy, policyName: undefined, negated };
}

function walletsLeaf(fields: Record<string, unknown>, path: string, index: number, { sources, lists, fail: failAt }: Compilation): RuleLeaf {
  const fail: Fail = failAt;
  const file = fields.wallets;
  if (typeof file !== 'string' || file.trim() === '') fail(path, '"wallets" must name a file of addresses, one per line');
  const extra = Object.keys(fields).find((key) => key !== 'wallets');
  if (extra !== undefined) fail(path, `unknown key ${JSON.stringify(extra.slice(0, 40))} beside "wallets"`);
  const absolute = resolve(sources.baseDir, file);
  let list = lists.get(absolute);
  if (list === undefined) {
    try {
      list = loadWalletList(absolute);
    } catch (error) {
      return fail(path, `wallet list ${(error as Error).message}`);
    }
    lists.set(absolute, list);
  }
  return { kind: 'wallets', path, index, file, list };
}

/** The tree as loaded: what GET /x404_policies shows and what the rule's digest is taken over. */
function describe(node: RuleNode): unknown {
  switch (node.kind) {
    case 'all':
    case 'any':
      return { [node.kind]: node.children.map(describe) };
    case 'atLeast':
      return { atLeast: node.needed, of: node.children.map(describe) };
    case 'not':
      return { not: describe(node.child) };
    case 'feature':
      return { feature: node.feature, ...(node.policyName === undefined ? {} : { policy: node.policyName }), headers: node.policy.headers, pol: node.policy.digest };
    case 'wallets':
      return { wallets: node.file, addresses: node.list.size, digest: node.list.digest };
  }
}

/** JSON with object keys sorted at every level: one text per value, whatever the file's key order. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, nested]) => `${JSON.stringify(key)}:${stableJson(nested)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

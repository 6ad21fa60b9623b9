import { GateError } from '../errors.js';
import { FEATURES } from '../features/registry.js';
import type { HeaderBag } from '../lib/header-values.js';
import { POLICY_HEADER } from '../policy/types.js';
import type { LeafOutcome, RuleOutcome } from './evaluate.js';
import type { Rule, RuleLeaf, RuleNode } from './types.js';

/**
 * What a rule's sign-in answers (docs/rules.md, "Answers"): the success body and the token's
 * claims when it passes, and the deciding leaf's own error when it fails, so an existing client
 * shows the message it would for that feature alone.
 */

/** Every header that states a policy of some feature (geolocation included), and X-404-Policy. */
const POLICY_HEADERS: ReadonlySet<string> = new Set([POLICY_HEADER, ...Object.values(FEATURES).flatMap((module) => module.policyHeaders)]);

/**
 * A rule is the operator's: a request may not add policy headers beside it, whatever they say
 * (there is no one feature they could be compared with). The caller's position (X-Lat, X-Long)
 * is not a policy and is read by leaves that turn geolocation on.
 */
export function refuseHeadersBesideRule(rule: Rule, headers: HeaderBag, policyQuery: string | undefined): void {
  if (policyQuery !== undefined) {
    throw new GateError(401, 'POLICY_MISMATCH', `?policy= cannot be sent to rule "${rule.name}": the operator's rule is checked as it is`);
  }
  for (const name of headers.keys()) {
    if (POLICY_HEADERS.has(name)) {
      throw new GateError(401, 'POLICY_MISMATCH', `Header ${name} cannot be sent to rule "${rule.name}": the operator's rule is checked as it is; send none of the features' policy headers`);
    }
  }
}

/** Per leaf: `{path, feature | wallets, passed}` plus a passing feature's results; `passed: null` when the outcome did not need it. */
export function ruleAnswer(rule: Rule, outcome: RuleOutcome): Record<string, unknown> {
  return { rule: rule.name, leaves: outcome.leaves.map(describeLeaf) };
}

function describeLeaf({ leaf, state, results, error }: LeafOutcome): Record<string, unknown> {
  const what = leaf.kind === 'wallets' ? { wallets: leaf.file } : { feature: leaf.feature, ...(leaf.policyName === undefined ? {} : { policy: leaf.policyName }) };
  const passed = state === 'passed' ? true : state === 'failed' ? false : null;
  return { path: leaf.path, ...what, passed, ...(state === 'passed' ? results : {}), ...(error ? { error: error.code } : {}) };
}

/**
 * `rul` names the rule; `lvs` holds one character per leaf in tree order — `1` passed, `0` failed,
 * `-` not needed, `?` could not be read (the rule was decided without it) — so a relying party can
 * see, e.g., whether the wallet got in through the snapshot list or through the collection.
 */
export function ruleClaims(rule: Rule, outcome: RuleOutcome): Record<string, unknown> {
  return { rul: rule.name, lvs: outcome.leaves.map(({ state }) => LEAF_MARK[state]).join('') };
}

const LEAF_MARK = { passed: '1', failed: '0', skipped: '-', unknown: '?' } as const;

/**
 * The deciding leaf's status, code and message, with the rule's name and the path of every leaf
 * that counted against the wallet: one that failed, or, under a `not`, one that passed.
 */
export function ruleFailure(rule: Rule, outcome: RuleOutcome): GateError {
  const deciding = outcome.error!;
  const failed = outcome.leaves
    .filter(({ leaf, state }) => (isNegated(rule.root, leaf) ? state === 'passed' : state === 'failed'))
    .map(({ leaf }) => leaf.path);
  return new GateError(deciding.httpStatus, deciding.code, deciding.message, {
    ...deciding.options,
    extra: { ...deciding.options.extra, rule: rule.name, failed },
  });
}

/** Whether `leaf` sits under an odd number of `not`s (its passing counts against the wallet). */
function isNegated(node: RuleNode, leaf: RuleLeaf, negated = false): boolean | undefined {
  if (node === leaf) return negated;
  if (node.kind === 'not') return isNegated(node.child, leaf, !negated);
  if (node.kind === 'feature' || node.kind === 'wallets') return undefined;
  for (const child of node.children) {
    const found = isNegated(child, leaf, negated);
    if (found !== undefined) return found;
  }
  return undefined;
}

import type { HeaderBag } from '../lib/header-values.js';

/**
 * The policy a token is issued under: the feature's policy headers that the request carried,
 * exactly as sent, keys in ascending order (so canonical.ts serializes it as it is). Undefined when
 * the request carried none.
 */
export function policyOf(headers: HeaderBag, policyHeaderNames: readonly string[]): Record<string, string> | undefined {
  let policy: Record<string, string> | undefined;
  for (const name of sortedNames(policyHeaderNames)) {
    const value = headers.get(name);
    if (value === undefined) continue;
    policy ??= {};
    policy[name] = value;
  }
  return policy;
}

/** Callers pass the same few name lists on every request: sort each once. */
const sortedNameLists = new WeakMap<readonly string[], readonly string[]>();
function sortedNames(names: readonly string[]): readonly string[] {
  let sorted = sortedNameLists.get(names);
  if (sorted === undefined) {
    sorted = [...names].sort();
    sortedNameLists.set(names, sorted);
  }
  return sorted;
}

/**
 * The canonical JSON of a policy, digested by the gate (digest-node.ts) and by relying parties
 * (digest-web.ts, the verifier): an object of lower-case policy header name →
 * header value exactly as sent, keys ascending, no whitespace. The values are strings, so sorting
 * the one level of keys is the whole canonical form. Pure JavaScript, so it runs on edge runtimes.
 */
export function canonicalPolicyJson(policy: Readonly<Record<string, string>>): string {
  const names = Object.keys(policy);
  // Objects built in ascending key order (as policyOf builds them) serialize canonically as they are.
  if (isAscending(names)) return JSON.stringify(policy);
  const sorted: Record<string, string> = {};
  for (const name of names.sort()) sorted[name] = policy[name] as string;
  return JSON.stringify(sorted);
}

function isAscending(names: string[]): boolean {
  for (let i = 1; i < names.length; i++) if ((names[i - 1] as string) >= (names[i] as string)) return false;
  return true;
}

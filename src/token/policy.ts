import { createHash } from 'node:crypto';
import type { HeaderBag } from '../features/types.js';

/**
 * The policy a token was issued under: the feature's policy headers that the request carried,
 * exactly as sent. `pol` = base64url(SHA-256(canonical JSON)), where canonical JSON is an object
 * of lower-case header name → header value with keys in ascending order and no whitespace.
 * Relying parties recompute it (src/verifier) to check a token was issued under their policy.
 */
export function policyOf(headers: HeaderBag, policyHeaderNames: readonly string[]): Record<string, string> | undefined {
  let policy: Record<string, string> | undefined;
  for (const name of [...policyHeaderNames].sort()) {
    const value = headers.get(name);
    if (value === undefined) continue;
    policy ??= {};
    policy[name] = value;
  }
  return policy;
}

export function canonicalPolicyJson(policy: Record<string, string>): string {
  const sorted: Record<string, string> = {};
  for (const name of Object.keys(policy).sort()) sorted[name] = policy[name] as string;
  return JSON.stringify(sorted);
}

export function policyDigest(policy: Record<string, string>): string {
  return createHash('sha256').update(canonicalPolicyJson(policy)).digest('base64url');
}

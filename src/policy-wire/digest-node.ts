import { createHash } from 'node:crypto';
import { canonicalPolicyJson } from './canonical.js';

/**
 * The token's `pol` on the gate: base64url(SHA-256(canonical JSON of the policy headers)), with
 * node:crypto; digest-web.ts computes the same with WebCrypto for the verifier and the SDK.
 *
 * Digests of recent canonical policies are kept. A launch sends one policy with every request, and SHA-256
 * of the same text never changes, so the hash is computed once per distinct policy. Bounded in
 * entries and in text length, so policies an attacker makes up only cost misses. In front of it,
 * the last policy seen: the same entries have the same canonical JSON, so a run of requests under
 * one policy skips building the JSON too.
 */
const DIGEST_CACHE_ENTRIES = 1024;
const DIGEST_CACHE_MAX_TEXT = 2048;
const digestByJson = new Map<string, string>();
let lastPolicy: { names: string[]; values: string[]; digest: string } | undefined;

export function policyDigest(policy: Record<string, string>): string {
  const names = Object.keys(policy);
  if (lastPolicy !== undefined && sameEntries(lastPolicy, names, policy)) return lastPolicy.digest;
  const json = canonicalPolicyJson(policy);
  let digest = digestByJson.get(json);
  if (digest === undefined) {
    digest = createHash('sha256').update(json).digest('base64url');
    if (json.length <= DIGEST_CACHE_MAX_TEXT) {
      // Oldest first out (Map keeps insertion order).
      if (digestByJson.size >= DIGEST_CACHE_ENTRIES) digestByJson.delete(digestByJson.keys().next().value as string);
      digestByJson.set(json, digest);
    }
  }
  if (json.length <= DIGEST_CACHE_MAX_TEXT) lastPolicy = { names, values: names.map((name) => policy[name] as string), digest };
  return digest;
}

function sameEntries(last: { names: string[]; values: string[] }, names: string[], policy: Record<string, string>): boolean {
  if (names.length !== last.names.length) return false;
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    if (name !== last.names[i] || policy[name] !== last.values[i]) return false;
  }
  return true;
}

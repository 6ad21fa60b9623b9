import { canonicalPolicyJson } from '../lib/canonical-policy.js';
import { policyToHeaders, type Feature, type PolicyFor } from '../sdk/policy.js';

/**
 * The token's `pol` claim for a policy, computed as the gate does (src/token/policy.ts):
 * base64url(SHA-256(canonical JSON)), canonical JSON being the object of lower-case policy header
 * name → header value exactly as sent, keys ascending, no whitespace. WebCrypto, so it runs on edge
 * runtimes. The canonical form itself is shared with the gate (src/lib/canonical-policy.ts).
 */
export { canonicalPolicyJson };

function base64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export async function policyHeadersDigest(policyHeaders: Readonly<Record<string, string>>): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(canonicalPolicyJson(policyHeaders)));
  return base64Url(new Uint8Array(digest));
}

/** The `pol` a token gets when `authenticate` signs in with this feature and policy object. */
export function policyDigest<F extends Feature>(feature: F, policy: PolicyFor<F>): Promise<string> {
  return policyHeadersDigest(policyToHeaders(feature, policy).policy);
}

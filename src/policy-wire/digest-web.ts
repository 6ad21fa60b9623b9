import type { FeatureName, PolicyFor } from '../contract/features.js';
import { canonicalPolicyJson } from './canonical.js';
import { policyToHeaders } from './to-headers.js';

/**
 * The token's `pol` claim computed as the gate does (digest-node.ts), with WebCrypto so it runs
 * in browsers and on edge runtimes: base64url(SHA-256(canonical JSON)), canonical JSON being the
 * object of lower-case policy header name → header value exactly as sent, keys ascending, no
 * whitespace.
 */
export async function policyHeadersDigest(policyHeaders: Readonly<Record<string, string>>): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(canonicalPolicyJson(policyHeaders)));
  return base64Url(new Uint8Array(digest));
}

/** The `pol` a token gets when `authenticate` signs in with this feature and policy object. */
export function policyDigest<F extends FeatureName>(feature: F, policy: PolicyFor<F>): Promise<string> {
  return policyHeadersDigest(policyToHeaders(feature, policy).policy);
}

function base64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

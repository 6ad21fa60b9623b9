/**
 * x404-gate/verifier: for the backend that trusts the gate's tokens. jose + WebCrypto only, so it
 * runs in Node, Deno, Bun, Cloudflare Workers and other edge runtimes.
 */
export { GateTokenError, verifyGateToken, type GateKeySource, type GateTokenErrorCode, type VerifyGateTokenOptions } from './verify.js';
export { canonicalPolicyJson } from '../policy-wire/canonical.js';
export { policyDigest, policyHeadersDigest } from '../policy-wire/digest-web.js';
export type { GateTokenClaims } from '../sdk/claims.js';
export type { FeatureName as Feature, PolicyByFeature, PolicyFor } from '../contract/features.js';

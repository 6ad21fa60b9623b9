/**
 * x404-gate/verifier: for the backend that trusts the gate's tokens. jose + WebCrypto only, so it
 * runs in Node, Deno, Bun, Cloudflare Workers and other edge runtimes.
 */
export { GateTokenError, verifyGateToken, type GateKeySource, type GateTokenErrorCode, type VerifyGateTokenOptions } from './verify.js';
export { canonicalPolicyJson, policyDigest, policyHeadersDigest } from './policy-digest.js';
export type { GateTokenClaims } from '../sdk/claims.js';
export type { Feature, PolicyByFeature, PolicyFor } from '../sdk/policy.js';

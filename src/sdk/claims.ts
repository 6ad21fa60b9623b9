import type { ConcreteSignMode } from './proof.js';

/**
 * The claims of a gate token, read WITHOUT checking its signature — for display and for skipping a
 * round trip with a token that has obviously expired. Never trust these for access decisions: a
 * backend verifies the token with `verifyGateToken` (x404-gate/verifier).
 */
export interface GateTokenClaims {
  /** The wallet (base58 public key). */
  sub: string;
  feature: string;
  /** Issued at / expires at, in seconds since the epoch. */
  iat: number;
  exp: number;
  jti: string;
  /** base64url(SHA-256(canonical JSON of the policy headers the gate checked)). */
  pol?: string;
  /** The gate operator's policy the token was issued under, when it was a named one. */
  pnm?: string;
  /** How the wallet proved itself, when not with the challenge string: `siws`, `offchain` or `memo-tx`. */
  sgm?: ConcreteSignMode;
  /** The gate operator's rule the token was issued under (`feature` carries the same name). */
  rul?: string;
  /** A rule's leaves in tree order: `1` passed, `0` failed, `-` not needed, `?` could not be read. */
  lvs?: string;
  /** The gate's JWT_ISSUER / JWT_AUDIENCE, when set (always `iss` with EdDSA/ES256 tokens). */
  iss?: string;
  aud?: string | string[];
  /** Feature results, e.g. `tier`. */
  [result: string]: unknown;
}

function base64UrlToText(segment: string): string {
  const base64 = segment.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(segment.length / 4) * 4, '=');
  const binary = atob(base64);
  return new TextDecoder().decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
}

/** The payload of a JWT, or undefined when it is not a well-formed gate token. */
export function decodeTokenClaims(token: string): GateTokenClaims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[1] === undefined) return undefined;
  try {
    const claims: unknown = JSON.parse(base64UrlToText(parts[1]));
    if (claims === null || typeof claims !== 'object') return undefined;
    const { sub, feature, exp } = claims as Record<string, unknown>;
    if (typeof sub !== 'string' || typeof feature !== 'string' || typeof exp !== 'number') return undefined;
    return claims as GateTokenClaims;
  } catch {
    return undefined;
  }
}

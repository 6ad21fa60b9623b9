import { errors as joseErrors, jwtVerify } from 'jose';
import type { GateTokenClaims } from '../sdk/claims.js';
import { isFeature, type Feature, type PolicyFor } from '../sdk/policy.js';
import { policyDigest } from './policy-digest.js';

export type GateTokenErrorCode = 'INVALID_TOKEN' | 'TOKEN_EXPIRED' | 'FEATURE_MISMATCH' | 'POLICY_MISMATCH' | 'WALLET_MISMATCH';

/** Why a token was refused; `code` is stable, the message is for logs. */
export class GateTokenError extends Error {
  override readonly name = 'GateTokenError';
  constructor(
    readonly code: GateTokenErrorCode,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
}

export interface VerifyGateTokenOptions<F extends Feature> {
  /** The gate's JWT_SECRET. */
  secret: string | Uint8Array;
  /** The feature the token must have been issued for. */
  feature: F;
  /** When given, the token must have been issued under exactly this policy (the object the page passed to `authenticate`). */
  policy?: PolicyFor<F>;
  /** When given, the token must belong to this wallet (base58). */
  wallet?: string;
  /** Seconds of clock skew tolerated on `exp`/`iat`; default 0. */
  clockToleranceSeconds?: number;
}

/**
 * Verify a token issued by the gate: HS256 only (the algorithm is pinned, so `none` or an
 * asymmetric-key confusion cannot pass), signature, expiry, then `feature`, `pol` and the wallet.
 * Resolves the claims or rejects with GateTokenError. Runs in Node and on edge runtimes (jose, WebCrypto).
 */
export async function verifyGateToken<F extends Feature>(token: string, options: VerifyGateTokenOptions<F>): Promise<GateTokenClaims> {
  if (!isFeature(options.feature)) throw new TypeError(`feature must be a gate feature name, got "${String(options.feature)}"`);
  const key = typeof options.secret === 'string' ? new TextEncoder().encode(options.secret) : options.secret;
  if (key.length === 0) throw new TypeError('secret must not be empty');

  let claims: GateTokenClaims;
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: ['HS256'],
      requiredClaims: ['sub', 'feature', 'exp', 'iat'],
      clockTolerance: options.clockToleranceSeconds ?? 0,
    });
    claims = payload as GateTokenClaims;
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) throw new GateTokenError('TOKEN_EXPIRED', 'The token has expired', { cause: error });
    throw new GateTokenError('INVALID_TOKEN', `The token is not a valid gate token: ${(error as Error).message}`, { cause: error });
  }

  if (claims.feature !== options.feature) {
    throw new GateTokenError('FEATURE_MISMATCH', `The token is for feature "${String(claims.feature)}", not "${options.feature}"`);
  }
  if (options.wallet !== undefined && claims.sub !== options.wallet) {
    throw new GateTokenError('WALLET_MISMATCH', `The token belongs to wallet ${String(claims.sub)}, not ${options.wallet}`);
  }
  if (options.policy !== undefined) {
    const expected = await policyDigest(options.feature, options.policy);
    if (claims.pol !== expected) {
      throw new GateTokenError('POLICY_MISMATCH', 'The token was issued under a different policy than the one given');
    }
  }
  return claims;
}

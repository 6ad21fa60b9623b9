import { base64url, createLocalJWKSet, createRemoteJWKSet, errors as joseErrors, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { decodeBase58 } from '../lib/base58.js';
import type { GateTokenClaims } from '../sdk/claims.js';
import { isReducedScalar, strictEd25519KeyRefusal, weakPointEncoding } from '../signature/strict-ed25519.js';
import { isFeatureName as isFeature, type FeatureName as Feature, type PolicyFor } from '../contract/features.js';
import { policyDigest } from '../policy-wire/digest-web.js';

export type GateTokenErrorCode = 'INVALID_TOKEN' | 'TOKEN_EXPIRED' | 'FEATURE_MISMATCH' | 'POLICY_MISMATCH' | 'WALLET_MISMATCH' | 'JWKS_UNAVAILABLE';

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

/** Where the key comes from: the gate's JWT_SECRET (HS256), or its public keys (EdDSA / ES256). */
export type GateKeySource =
  | {
      /** The gate's JWT_SECRET (JWT_ALG=HS256). */
      secret: string | Uint8Array;
      jwks?: undefined;
    }
  | {
      /**
       * The gate's public keys (JWT_ALG=EdDSA or ES256): the URL of its `/.well-known/jwks.json`
       * (fetched and cached by jose: refetched after 10 minutes, or on an unknown kid at most every
       * 30 s), or a key set `{keys: […]}` you hold yourself.
       */
      jwks: string | URL | JSONWebKeySet;
      secret?: undefined;
    };

interface VerifyCommon {
  /** The token's `iss` must be this (the gate's JWT_ISSUER); recommended with `jwks`. */
  issuer?: string;
  /** The token's `aud` must include this (the gate's JWT_AUDIENCE). */
  audience?: string;
  /** When given, the token must belong to this wallet (base58). */
  wallet?: string;
  /** Seconds of clock skew tolerated on `exp`/`iat`; default 0. */
  clockToleranceSeconds?: number;
}

/** What the token must have been issued for: a feature (under a policy, when given), or one of the gate's rules. */
export type VerifyGateTokenOptions<F extends Feature> = GateKeySource &
  VerifyCommon &
  (
    | {
        /** The feature the token must have been issued for. */
        feature: F;
        rule?: undefined;
        /** When given, the token must have been issued under exactly this policy (the object the page passed to `authenticate`). */
        policy?: PolicyFor<F>;
        /** When given, the token must have been issued under this operator policy of the gate (its `pnm`). */
        policyName?: string;
        rulePol?: undefined;
      }
    | {
        /** The gate's rule the token must have been issued under (its `rul`). */
        rule: string;
        feature?: undefined;
        policy?: undefined;
        policyName?: undefined;
        /**
         * When given, the rule's `pol` as the gate lists it now (GET /x404_policies, `rules.<name>.pol`):
         * a token issued before the rule changed is refused.
         */
        rulePol?: string;
      }
  );

/** One remote key set per URL, so its cache is shared by every call (jose refetches it on its own). */
const remoteSets = new Map<string, JWTVerifyGetKey>();
const localSets = new WeakMap<JSONWebKeySet, { getKey: JWTVerifyGetKey; algorithms: string[] }>();
/** The gate's asymmetric algorithms; jose only pairs each with a key of its type (OKP for EdDSA, EC P-256 for ES256). */
const ASYMMETRIC_ALGORITHMS = ['EdDSA', 'ES256'];

function keyFor(source: GateKeySource): { key: Uint8Array | JWTVerifyGetKey; algorithms: string[]; remote: boolean } {
  if (source.jwks === undefined) {
    const key = typeof source.secret === 'string' ? new TextEncoder().encode(source.secret) : source.secret;
    if (!key || key.length === 0) throw new TypeError('secret must not be empty (or pass jwks for a gate that signs with EdDSA/ES256)');
    return { key, algorithms: ['HS256'], remote: false };
  }
  if (typeof source.jwks === 'string' || source.jwks instanceof URL) {
    const url = new URL(source.jwks);
    let set = remoteSets.get(url.href);
    if (set === undefined) {
      const remote = createRemoteJWKSet(url);
      set = strictKeyLookup(remote, () => remote.jwks());
      remoteSets.set(url.href, set);
    }
    return { key: set, algorithms: ASYMMETRIC_ALGORITHMS, remote: true };
  }
  let local = localSets.get(source.jwks);
  if (local === undefined) {
    const algorithms = algorithmsOf(source.jwks);
    const weak = weakEd25519Key(source.jwks, undefined);
    if (weak) throw new TypeError(`jwks: ${weak}`);
    local = { getKey: createLocalJWKSet(source.jwks), algorithms };
    localSets.set(source.jwks, local);
  }
  return { key: local.getKey, algorithms: local.algorithms, remote: false };
}

/** The algorithms the keys themselves allow: Ed25519 → EdDSA, P-256 → ES256. Never HS256 or none. */
function algorithmsOf(set: JSONWebKeySet): string[] {
  if (!Array.isArray(set?.keys)) throw new TypeError('jwks must be a URL or a JSON Web Key Set {keys: [...]}');
  const algorithms = new Set<string>();
  for (const jwk of set.keys) {
    if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') algorithms.add('EdDSA');
    else if (jwk.kty === 'EC' && jwk.crv === 'P-256') algorithms.add('ES256');
  }
  if (algorithms.size === 0) throw new TypeError('jwks holds no Ed25519 or P-256 key');
  return [...algorithms];
}

/**
 * The gate's strict ed25519 rules (src/signature/strict-ed25519.ts) applied to its key set: an
 * Ed25519 key of small order or not canonically encoded is one anyone can make signatures for, so a
 * token "signed" by it proves nothing. A set held locally is refused when given (TypeError); a
 * fetched set is checked at each lookup, as jose may have refetched it.
 */
function strictKeyLookup(getKey: JWTVerifyGetKey, currentSet: () => JSONWebKeySet | undefined): JWTVerifyGetKey {
  return async (header, token) => {
    const key = await getKey(header, token);
    if (header.alg === 'EdDSA' || header.alg === 'Ed25519') {
      const weak = weakEd25519Key(currentSet(), header.kid);
      if (weak) throw new GateTokenError('INVALID_TOKEN', `The gate's key set is unsafe: ${weak}`);
    }
    return key;
  };
}

/** Why an Ed25519 key of the set (those under `kid`, when given) is refused, or undefined. */
function weakEd25519Key(set: JSONWebKeySet | undefined, kid: string | undefined): string | undefined {
  for (const jwk of set?.keys ?? []) {
    if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || (kid !== undefined && jwk.kid !== kid)) continue;
    let raw: Uint8Array;
    try {
      raw = base64url.decode(String(jwk.x));
    } catch {
      continue; // not base64url: jose refuses to import it
    }
    const refusal = raw.length === 32 ? strictEd25519KeyRefusal(raw) : undefined;
    if (refusal) return `Ed25519 key ${jwk.kid === undefined ? '' : `"${jwk.kid}" `}is refused: ${refusal.message}`;
  }
  return undefined;
}

/** An EdDSA token's signature under the same rules: R not of small order and canonically encoded, S below ℓ. */
function weakTokenSignature(token: string): string | undefined {
  let signature: Uint8Array;
  try {
    signature = base64url.decode(token.slice(token.lastIndexOf('.') + 1));
  } catch {
    return 'its signature is not base64url';
  }
  if (signature.length !== 64) return 'its signature is not 64 bytes';
  const r = weakPointEncoding(signature, 0);
  if (r !== undefined) return `its signature's R is ${r === 'small order' ? 'a point of small order' : 'not canonically encoded'}`;
  if (!isReducedScalar(signature, 32)) return "its signature's S is not below the group order";
  return undefined;
}

/**
 * A token's wallet must be one a signature can come from: a gate before strict signature checks
 * could be made to sign a token for a key of small order (such as the System Program's address)
 * without anyone holding it. Only an address of 32 bytes is judged; other subjects are left alone.
 */
function weakWallet(sub: unknown): string | undefined {
  if (typeof sub !== 'string') return undefined;
  const key = decodeBase58(sub);
  const refusal = key?.length === 32 ? strictEd25519KeyRefusal(key) : undefined;
  return refusal && `The token's wallet ${sub} is an address no key signs for (${refusal.message}); no gate with strict signature checks issues such a token`;
}

/**
 * Verify a token issued by the gate: the signature (HS256 with `secret`, or EdDSA/ES256 with the
 * gate's `jwks`; the allowed algorithms follow from the key, never from the token, so `alg: none`
 * and algorithm confusion cannot pass; Ed25519 keys and signatures held to the gate's strict rules),
 * a wallet a signature can come from, expiry, `iss`/`aud` when asked, then `feature` or `rule`, the
 * policy (`pol` for `policy`, `pnm` for `policyName`, `pol` for `rulePol`) and the wallet. Resolves the claims or rejects with
 * GateTokenError. Runs in Node and on edge runtimes (jose, WebCrypto, fetch).
 */
export async function verifyGateToken<F extends Feature>(token: string, options: VerifyGateTokenOptions<F>): Promise<GateTokenClaims> {
  if (options.rule !== undefined) {
    if (typeof options.rule !== 'string' || options.rule === '') throw new TypeError('rule must be the name of one of the gate\'s rules');
  } else if (!isFeature(options.feature)) {
    throw new TypeError(`feature must be a gate feature name, got "${String(options.feature)}"`);
  }
  const { key, algorithms, remote } = keyFor(options);

  let claims: GateTokenClaims;
  try {
    const { payload, protectedHeader } = await jwtVerify(token, key as Uint8Array, {
      algorithms,
      requiredClaims: ['sub', 'feature', 'exp', 'iat'],
      clockTolerance: options.clockToleranceSeconds ?? 0,
      ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
      ...(options.audience === undefined ? {} : { audience: options.audience }),
    });
    claims = payload as GateTokenClaims;
    const weakSignature = protectedHeader.alg === 'EdDSA' || protectedHeader.alg === 'Ed25519' ? weakTokenSignature(token) : undefined;
    if (weakSignature) throw new GateTokenError('INVALID_TOKEN', `The token is not a valid gate token: ${weakSignature}`);
  } catch (error) {
    if (error instanceof GateTokenError) throw error;
    if (error instanceof joseErrors.JWTExpired) throw new GateTokenError('TOKEN_EXPIRED', 'The token has expired', { cause: error });
    if (remote && keySetUnavailable(error)) {
      throw new GateTokenError('JWKS_UNAVAILABLE', `The gate's key set could not be fetched: ${(error as Error).message}`, { cause: error });
    }
    if (error instanceof joseErrors.JWKSNoMatchingKey) throw new GateTokenError('INVALID_TOKEN', 'The token was not signed by a key of the gate\'s key set', { cause: error });
    throw new GateTokenError('INVALID_TOKEN', `The token is not a valid gate token: ${(error as Error).message}`, { cause: error });
  }

  const unsigned = weakWallet(claims.sub);
  if (unsigned) throw new GateTokenError('INVALID_TOKEN', unsigned);
  const expected = options.rule ?? options.feature;
  if (claims.feature !== expected) {
    throw new GateTokenError('FEATURE_MISMATCH', `The token is for ${typeof claims.rul === 'string' ? 'rule' : 'feature'} "${String(claims.feature)}", not "${expected}"`);
  }
  if (options.wallet !== undefined && claims.sub !== options.wallet) {
    throw new GateTokenError('WALLET_MISMATCH', `The token belongs to wallet ${String(claims.sub)}, not ${options.wallet}`);
  }
  if (options.rule !== undefined) {
    if (claims.rul !== options.rule) throw new GateTokenError('POLICY_MISMATCH', `The token was not issued under rule "${options.rule}"`);
    if (options.rulePol !== undefined && claims.pol !== options.rulePol) {
      throw new GateTokenError('POLICY_MISMATCH', `The token was issued under rule "${options.rule}" as it was before it changed; the wallet must sign in again`);
    }
    return claims;
  }
  if (options.policyName !== undefined && claims.pnm !== options.policyName) {
    throw new GateTokenError('POLICY_MISMATCH', `The token was issued under ${typeof claims.pnm === 'string' ? `policy "${claims.pnm}"` : 'no named policy'}, not "${options.policyName}"`);
  }
  if (options.policy !== undefined) {
    const digest = await policyDigest(options.feature, options.policy);
    if (claims.pol !== digest) {
      throw new GateTokenError('POLICY_MISMATCH', 'The token was issued under a different policy than the one given');
    }
  }
  return claims;
}

/** Fetching the key set failed (network, timeout, not 200, not a key set), as opposed to a bad token. */
function keySetUnavailable(error: unknown): boolean {
  if (error instanceof joseErrors.JWKSTimeout || error instanceof joseErrors.JWKSInvalid) return true;
  if (!(error instanceof joseErrors.JOSEError)) return true;
  return error.code === 'ERR_JOSE_GENERIC';
}

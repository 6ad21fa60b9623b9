import { HmacSha256 } from '../lib/hmac-sha256.js';
import { createSigner, createVerifier, TokenError } from 'fast-jwt';
import type { JwtAlg } from '../config.js';
import { randomBytesFromPool } from '../lib/random-pool.js';
import type { TokenKey } from './keys.js';
import { WEAK_SUBJECTS } from './weak-subjects.js';

/**
 * The gate's tokens: HS256 with JWT_SECRET (the spec's default), or EdDSA / ES256 with the keys of
 * JWT_PRIVATE_KEYS_FILE (src/token/keys.ts), every token then carrying the `kid` of the key that
 * signed it. fast-jwt signs in about 10 µs (HS256) or 35–50 µs (EdDSA, ES256) here, against about
 * 180 µs for jose, whose every call hops through WebCrypto (bench/tokens.ts); jose stays the
 * relying parties' verifier (src/verifier) because it runs on edge runtimes. Both produce and
 * accept standard RFC 7519 tokens. Verification caches results per token (fast-jwt's LRU), so a
 * re-authentication or a forward-auth check of a token seen before costs a hash, not a signature.
 */
export interface GateClaims {
  sub: string;
  feature: string;
  iat: number;
  exp: number;
  jti: string;
  pol: string;
  /** The operator policy's name (src/policy), when the token was issued under a named one. */
  pnm?: string;
  /** How the wallet proved itself (X-404-Sign-Mode) when not with the challenge string: siws, offchain or memo-tx. */
  sgm?: string;
  /** The rule signed in to (src/rules); `feature` then carries the same name. */
  rul?: string;
  /** A rule's leaves in tree order: 1 passed, 0 failed, - not needed, ? unread (src/rules/answer.ts). */
  lvs?: string;
  [result: string]: unknown;
}

export type TokenCheck = { claims: GateClaims; problem?: undefined } | { claims?: undefined; problem: 'expired' | 'invalid'; why: string };

export interface TokenService {
  readonly alg: JwtAlg;
  sign(claims: { sub: string; feature: string; pol: string; pnm?: string | undefined; sgm?: string } & Record<string, unknown>): string;
  /** The claims of a valid, unexpired token, or undefined (the re-authentication hot path). */
  verify(token: string): GateClaims | undefined;
  /** Like verify, saying why a token is refused (forward auth answers with the reason). */
  check(token: string): TokenCheck;
  /** The public keys as a JWK set (JSON text), for EdDSA and ES256; undefined with HS256. */
  readonly jwks: string | undefined;
}

export interface TokenSettings {
  alg: JwtAlg;
  /** JWT_SECRET: the HS256 key (with an asymmetric algorithm it only keys the nonces, elsewhere). */
  secret: string;
  /** The keys for EdDSA / ES256, signing key first. */
  keys?: readonly TokenKey[] | undefined;
  issuer?: string | undefined;
  audience?: string | undefined;
  expirySeconds: number;
  now?: () => number;
}

const RESERVED_CLAIMS = new Set(['sub', 'feature', 'iat', 'exp', 'jti', 'pol', 'pnm', 'sgm', 'nbf', 'iss', 'aud']);
const REQUIRED_CLAIMS = ['sub', 'feature', 'exp', 'iat', 'jti'];
const MAX_TOKEN_LENGTH = 8192;
const VERIFY_CACHE_ENTRIES = 10_000;

type Verify = (token: string) => unknown;

/** What every verifier of this gate requires beyond the signature (fast-jwt createVerifier options). */
interface ClaimChecks {
  requiredClaims: string[];
  allowedIss?: string;
  allowedAud?: string;
}

/**
 * With JWT_ISSUER / JWT_AUDIENCE set, a token is accepted (re-authentication, forward auth, its
 * cookie) only when it carries them: another gate sharing JWT_SECRET, or one of the same keys
 * under another name, signs tokens this one must not take. fast-jwt checks a listed claim only
 * when present, so it is required too.
 */
function claimChecks(issuer: string | undefined, audience: string | undefined): ClaimChecks {
  const requiredClaims = [...REQUIRED_CLAIMS];
  if (issuer !== undefined) requiredClaims.push('iss');
  if (audience !== undefined) requiredClaims.push('aud');
  return { requiredClaims, ...(issuer === undefined ? {} : { allowedIss: issuer }), ...(audience === undefined ? {} : { allowedAud: audience }) };
}

export function createTokenService(settings: TokenSettings): TokenService {
  const { alg, issuer, audience, expirySeconds } = settings;
  const now = settings.now ?? Date.now;
  const accepted = claimChecks(issuer, audience);
  const { signer, verifierFor, jwks } = alg === 'HS256' ? symmetric(settings.secret, accepted) : asymmetric(alg, settings.keys ?? [], accepted);

  const check = (token: string): TokenCheck => {
    if (token.length > MAX_TOKEN_LENGTH) return { problem: 'invalid', why: 'the token is too long' };
    const verify = verifierFor(token);
    if (!verify) return { problem: 'invalid', why: 'the token was not signed by a key of this gate' };
    try {
      const claims = verify(token) as GateClaims;
      if (typeof claims.sub !== 'string' || typeof claims.feature !== 'string' || typeof claims.exp !== 'number') {
        return { problem: 'invalid', why: 'the token lacks the gate claims' };
      }
      if (WEAK_SUBJECTS.has(claims.sub)) return { problem: 'invalid', why: 'the token names a wallet anyone can sign for (a small-order or non-canonical key)' };
      return { claims };
    } catch (error) {
      if (error instanceof TokenError && error.code === TokenError.codes.expired) return { problem: 'expired', why: 'the token has expired' };
      if (error instanceof TokenError && (error.code === TokenError.codes.invalidClaimValue || error.code === TokenError.codes.missingRequiredClaim)) {
        return { problem: 'invalid', why: `the token was not issued by this gate (${error.message})` };
      }
      return { problem: 'invalid', why: 'the token is malformed or its signature does not verify' };
    }
  };

  return {
    alg,
    jwks,
    sign(claims) {
      const iat = Math.floor(now() / 1000);
      // One pass, in the order tokens have always had: the check's results, iss, aud, sub,
      // feature, pol, pnm, sgm, iat, exp, jti.
      const payload: Record<string, unknown> = {};
      for (const name in claims) {
        if (!RESERVED_CLAIMS.has(name)) payload[name] = claims[name];
      }
      // HS256 without JWT_ISSUER/JWT_AUDIENCE stays byte-compatible with the tokens of earlier versions.
      if (issuer !== undefined) payload.iss = issuer;
      if (audience !== undefined) payload.aud = audience;
      payload.sub = claims.sub;
      payload.feature = claims.feature;
      payload.pol = claims.pol;
      if (claims.pnm !== undefined) payload.pnm = claims.pnm;
      if (claims.sgm !== undefined) payload.sgm = claims.sgm;
      payload.iat = iat;
      payload.exp = iat + expirySeconds;
      payload.jti = randomBytesFromPool(16).toString('base64url');
      return signer(payload);
    },
    // The re-authentication hot path: the same steps as check, without building a result object.
    verify(token) {
      if (token.length > MAX_TOKEN_LENGTH) return undefined;
      const verify = verifierFor(token);
      if (!verify) return undefined;
      try {
        const claims = verify(token) as GateClaims;
        if (typeof claims.sub !== 'string' || typeof claims.feature !== 'string' || typeof claims.exp !== 'number') return undefined;
        if (WEAK_SUBJECTS.has(claims.sub)) return undefined;
        return claims;
      } catch {
        return undefined;
      }
    },
    check,
  };
}

/** The header every HS256 token carries, as fast-jwt writes it (`{"alg":"HS256","typ":"JWT"}`). */
const HS256_HEADER_SEGMENT = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

function symmetric(secret: string, accepted: ClaimChecks): { signer: (payload: Record<string, unknown>) => string; verifierFor: (token: string) => Verify | undefined; jwks: undefined } {
  // Signed here rather than by fast-jwt's createSigner: the same bytes (its header, the payload as
  // JSON.stringify writes it, HMAC-SHA256 of the two base64url segments; test/unit/tokens.test.ts
  // checks them against fast-jwt's), without its generic path (~5 µs → ~2.6 µs a token), and the
  // MAC without an Hmac object per token (src/lib/hmac-sha256.ts).
  const hmac = new HmacSha256(secret);
  const signer = (payload: Record<string, unknown>): string => {
    const input = `${HS256_HEADER_SEGMENT}.${Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url')}`;
    return `${input}.${hmac.digest(input).toString('base64url')}`;
  };
  const verify: Verify = createVerifier({ key: secret, algorithms: ['HS256'], cache: VERIFY_CACHE_ENTRIES, ...accepted });
  return { signer, verifierFor: () => verify, jwks: undefined };
}

/**
 * One verifier per key, each allowing only its key's algorithm. A token picks its verifier by its
 * header segment: the gate writes the same header for every token of a key
 * (`{"alg":…,"typ":"JWT","kid":…}`), so one map lookup finds the key without decoding anything.
 * A header written differently is decoded and matched by `kid` and `alg`; any other header
 * (`alg: none`, HS256 while the gate is asymmetric, an unknown kid) has no verifier: refused.
 */
function asymmetric(
  alg: JwtAlg,
  keys: readonly TokenKey[],
  accepted: ClaimChecks,
): { signer: (payload: Record<string, unknown>) => string; verifierFor: (token: string) => Verify | undefined; jwks: string } {
  const signing = keys[0];
  if (!signing?.privateKey || signing.alg !== alg) throw new Error(`the first token key must be a private ${alg} key`);
  const signer = createSigner({ key: signing.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string, algorithm: alg, kid: signing.kid });

  const bySegment = new Map<string, Verify>();
  const byKid = new Map<string, { alg: string; verify: Verify }>();
  for (const key of keys) {
    const verify: Verify = createVerifier({
      key: key.publicKey.export({ format: 'pem', type: 'spki' }) as string,
      algorithms: [key.alg],
      cache: VERIFY_CACHE_ENTRIES,
      ...accepted,
    });
    bySegment.set(Buffer.from(JSON.stringify({ alg: key.alg, typ: 'JWT', kid: key.kid })).toString('base64url'), verify);
    byKid.set(key.kid, { alg: key.alg, verify });
  }

  const verifierFor = (token: string): Verify | undefined => {
    const dot = token.indexOf('.');
    if (dot <= 0) return undefined;
    const segment = token.slice(0, dot);
    return bySegment.get(segment) ?? verifierByHeader(segment);
  };
  const verifierByHeader = (segment: string): Verify | undefined => {
    if (segment.length > 1024) return undefined;
    let header: unknown;
    try {
      header = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    const { kid, alg: headerAlg } = (header ?? {}) as { kid?: unknown; alg?: unknown };
    const known = typeof kid === 'string' ? byKid.get(kid) : undefined;
    return known !== undefined && known.alg === headerAlg ? known.verify : undefined;
  };

  return { signer, verifierFor, jwks: JSON.stringify({ keys: keys.map((key) => key.publicJwk) }) };
}

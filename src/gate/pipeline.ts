import type { ChainReader } from '../chain/types.js';
import { ataMintsOf, walletHoldings } from '../chain/wallet-holdings.js';
import { decodeBase58 } from '../lib/base58.js';
import type { Config } from '../config.js';
import { GateError, invalidHeader, missingHeader } from '../errors.js';
import { featureHoldingsPlan } from '../features/holdings-plan.js';
import { FEATURES } from '../features/registry.js';
import type { FeatureName } from '../contract/features.js';
import type { HeaderBag } from '../lib/header-values.js';
import { checkLocation, type GeoPolicy } from '../geo/locate.js';
import { sessionCookie } from '../http/cookie.js';
import type { AcceptedNonce, NonceCodec } from '../nonce/codec.js';
import { NonceStoreUnavailable, type ConsumedNonceStore, type SpendOutcome } from '../nonce/store.js';
import { parsePolicyHeaders } from '../policy/parse-headers.js';
import { resolvePolicy } from '../policy/resolve.js';
import { POLICY_HEADER, type NamedPolicy, type PolicySet } from '../policy/types.js';
import { evaluateRule } from '../rules/evaluate.js';
import { refuseHeadersBesideRule, ruleAnswer, ruleClaims, ruleFailure } from '../rules/answer.js';
import type { Rule } from '../rules/types.js';
import { invalidSignature, readProof, signModeOf, SIGNATURE_FAILED, type Proof } from '../sign-modes/read-proof.js';
import { nonceSignInOffer } from '../sign-modes/offer.js';
import type { SignatureVerifier } from '../signature/verifier.js';
import { policyDigest } from '../policy-wire/digest-node.js';
import { policyOf } from '../policy-wire/from-headers.js';
import type { GateClaims, TokenService } from '../token/jwt.js';
import type { Metrics } from '../metrics/metrics.js';
import { boundLogin, type LoginRun } from './login-deadline.js';

/**
 * Everything `GET /x404_auth/{feature}` (or `/x404_auth/{rule}`) does, in contract order (docs/api.md §2–§6):
 * classify → parse headers and resolve the policy (or take the rule) → accept nonce → read the proof
 * of the sign mode → verify signature → spend nonce → the feature's checks and geolocation (or the
 * rule's tree, src/rules) → sign token → respond. Each step is a named function below; the HTTP layer
 * only reads the request and writes what this returns. A login runs under LOGIN_TIMEOUT_MS
 * (login-deadline.ts): its chain reads carry the deadline, and past it the answer is a 503.
 */
export interface GateDependencies {
  config: Config;
  nonces: NonceCodec;
  consumedNonces: ConsumedNonceStore;
  signatures: SignatureVerifier;
  /** Replaced as a whole when SIGHUP reloads JWT_PRIVATE_KEYS_FILE. */
  tokens: TokenService;
  /** Operator policies (POLICIES_FILE), replaced as a whole when SIGHUP reloads the file; undefined without a file. */
  policies?: PolicySet | undefined;
  chain: ChainReader;
  now(): number;
  /** Login latency and nonce-store outcomes (src/metrics); optional. */
  metrics?: Pick<Metrics, 'startLoginTimer' | 'countNonceStoreOp'>;
}

export interface AuthRequest {
  /** The path's name: a feature, or a rule's name when `rule` is set. */
  feature: string;
  /** The rule at /x404_auth/<rule> (src/rules), looked up by the HTTP layer; undefined for a feature. */
  rule?: Rule | undefined;
  /** Request path without the query string: part of the challenge. */
  path: string;
  headers: HeaderBag;
  /** `?policy=` (read by the HTTP layer only when POLICIES_FILE is set); the header X-404-Policy says the same. */
  policyQuery?: string | undefined;
  /**
   * When the request was read (performance.now() ms), if the server awaited anything before
   * handing it over (the rate limiter); otherwise the pipeline's own start. LOGIN_TIMEOUT_MS counts from it.
   */
  receivedAtMs?: number;
}

export interface GateResponse {
  status: number;
  body: Record<string, unknown>;
  /** The body already serialized, for hot paths whose values need no escaping; wins over `body`. */
  json?: string;
  headers?: Record<string, string>;
}

export type RequestKind = 'reauth' | 'nonce' | 'login';

const NO_STORE = { 'Cache-Control': 'no-store' };
const NO_MINTS: readonly string[] = [];

/** Nonce issuance and re-authentication answer synchronously; a login returns a promise. */
export function handleAuthRequest(request: AuthRequest, deps: GateDependencies): GateResponse | Promise<GateResponse> {
  const { kind, claims } = classify(request, deps.tokens);
  switch (kind) {
    case 'reauth':
      return reauthenticate(request, claims as GateClaims, deps);
    case 'nonce':
      return issueNonce(request, deps);
    case 'login':
      return timedLogin(request, deps);
  }
}

/** docs/api.md §2, rows 1–5. */
export function classify(request: AuthRequest, tokens: TokenService): { kind: RequestKind; claims?: GateClaims } {
  const { headers, feature } = request;
  const presentSignatureHeaders = SIGNATURE_HEADERS.filter((name) => headers.has(name));
  const jwt = headers.get('x-jwt');
  if (jwt !== undefined) {
    const claims = tokens.verify(jwt);
    if (claims && claims.feature === feature) return { kind: 'reauth', claims };
    if (presentSignatureHeaders.length === 0) {
      throw new GateError(401, 'INVALID_TOKEN', 'Token is invalid, expired, or was issued for another feature');
    }
  }
  if (presentSignatureHeaders.length === 0) return { kind: 'nonce' };
  if (presentSignatureHeaders.length < SIGNATURE_HEADERS.length) {
    throw missingHeader(SIGNATURE_HEADERS.filter((name) => !headers.has(name)).map(displayName));
  }
  return { kind: 'login' };
}

const SIGNATURE_HEADERS = ['x-404-nonce', 'x-404-signature', 'x-404-addr'] as const;
const DISPLAY_NAMES: Record<string, string> = {
  'x-404-nonce': 'X-404-Nonce',
  'x-404-signature': 'X-404-Signature',
  'x-404-addr': 'X-404-Addr',
  'x-404-feature': 'X-404-Feature',
};
const displayName = (name: string): string => DISPLAY_NAMES[name] ?? name;

function issueNonce({ feature, rule }: AuthRequest, { nonces, config, policies }: GateDependencies): GateResponse {
  const { nonce, issuedAtMs, expiresInSeconds } = nonces.issue(feature);
  const body: Record<string, unknown> = { status: 'nonce_ready', nonce, mechanism: config.mechanism, expiresIn: expiresInSeconds };
  let suffix = '';
  if (rule && policies) {
    Object.assign(body, { rule: rule.name, rules: policies.ruleNames });
    suffix = policies.ruleNonceBodySuffix.get(rule.name) ?? '';
  } else if (policies) {
    Object.assign(body, { policyMode: policies.mode, policies: policies.names[feature as FeatureName] });
    if (policies.ruleNames.length > 0) body.rules = policies.ruleNames;
    suffix = policies.nonceBodySuffix[feature as FeatureName];
  }
  const signIn = nonceSignInOffer(config, feature, issuedAtMs);
  Object.assign(body, signIn.offer);
  return {
    status: 200,
    body,
    // The same bytes JSON.stringify writes: the nonce is base32, the mechanism [A-Za-z0-9]
    // (validated at start-up) and expiresIn an integer, so nothing needs escaping; the policy
    // names (POLICIES_FILE) and the sign-in offer are serialized once.
    json: `{"status":"nonce_ready","nonce":"${nonce}","mechanism":"${config.mechanism}","expiresIn":${expiresInSeconds}${suffix}${signIn.jsonSuffix}}`,
    headers: { 'X-404-Nonce': nonce, 'X-404-Mechanism': config.mechanism, ...NO_STORE },
  };
}

/**
 * docs/api.md §6: a valid token for this feature; policy headers, when sent, must match `pol`. Under a
 * named policy (resolvePolicy) the token must have been issued under that policy as it is now: a
 * token from before a SIGHUP reload changed the policy answers POLICY_MISMATCH. Without a policy
 * name the token's own (`pnm`) is the one checked, so POLICY_MODE=pinned needs no X-404-Policy
 * to re-authenticate. A rule's token passes while the rule is what it was (`rul`, `pol`).
 */
function reauthenticate(request: AuthRequest, claims: GateClaims, deps: GateDependencies): GateResponse {
  const { feature, headers, rule } = request;
  if (rule) {
    refuseHeadersBesideRule(rule, headers, request.policyQuery);
    if (claims.rul !== rule.name || claims.pol !== rule.digest) {
      throw new GateError(401, 'POLICY_MISMATCH', `Token was not issued under rule "${rule.name}" as it is now; sign in again`);
    }
  } else {
    const module = FEATURES[feature as FeatureName];
    const named = tokenPolicy(request, claims, deps);
    if (named !== undefined) {
      if (claims.pol !== named.digest) {
        throw new GateError(401, 'POLICY_MISMATCH', `Token was not issued under policy "${named.name}" as it is now; sign in again`);
      }
    } else {
      const policy = policyOf(headers, module.policyHeaders);
      if (policy && policyDigest(policy) !== claims.pol) {
        throw new GateError(401, 'POLICY_MISMATCH', 'Token was issued under a different policy than this request carries; sign in again');
      }
    }
  }
  return {
    status: 200,
    body: {
      success: true,
      alreadyAuthenticated: true,
      publicKey: claims.sub,
      feature,
      expiresAt: new Date(claims.exp * 1000).toISOString(),
    },
    headers: NO_STORE,
  };
}

/** The named policy a re-authentication is checked against: the one the request names, else the token's own. */
function tokenPolicy(request: AuthRequest, claims: GateClaims, deps: GateDependencies): NamedPolicy | undefined {
  const feature = request.feature as FeatureName;
  const named = request.headers.has(POLICY_HEADER) || request.policyQuery !== undefined;
  if (!named && typeof claims.pnm === 'string' && deps.policies) {
    const policy = deps.policies.byFeature[feature].get(claims.pnm);
    if (policy === undefined) throw new GateError(401, 'POLICY_MISMATCH', `Policy "${claims.pnm.slice(0, 64)}" no longer exists; sign in again`);
    return resolvePolicy(feature, request.headers, claims.pnm, deps.policies);
  }
  return resolvePolicy(feature, request.headers, request.policyQuery, deps.policies);
}

async function timedLogin(request: AuthRequest, deps: GateDependencies): Promise<GateResponse> {
  const done = deps.metrics?.startLoginTimer(request.feature);
  const answer = boundLogin(request.receivedAtMs, deps, (run) => login(request, deps, run));
  if (!done) return answer;
  try {
    const response = await answer;
    done('success');
    return response;
  } catch (error) {
    done(error instanceof GateError ? error.code : 'INTERNAL_ERROR');
    throw error;
  }
}

/** `run` carries the login's deadline (LOGIN_TIMEOUT_MS, see login-deadline.ts); after every await, stillWanted(). */
async function login(request: AuthRequest, deps: GateDependencies, run: LoginRun): Promise<GateResponse> {
  const { feature, headers } = request;
  const wallet = parseWallet(headers, feature);
  const check = request.rule ? ruleCheck(request, request.rule) : featureCheck(request, deps);

  const mode = signModeOf(headers, deps.config);

  const nonce = headers.get('x-404-nonce') as string;
  // Synchronous unless the nonce names a store epoch this instance has not learnt yet.
  const accepted = await deps.nonces.accept(nonce, feature);
  const proof = readProof(mode, { feature, path: request.path, headers, wallet, nonce, accepted, config: deps.config, nowMs: deps.now() });
  const checked = check.start(wallet, deps.chain.withDeadline(run.workDeadline), deps, run.workDeadline);
  await verifySignature(proof, wallet, check.verifyTaskMints, deps);
  run.stillWanted();
  await spendNonce(accepted, deps, run);
  run.stillWanted();

  const passed = await checked();
  run.stillWanted();
  return issueToken(request, wallet.address, passed, deps, mode);
}

/**
 * What a login checks once the signature is verified and the nonce spent: a feature (under the
 * request's own policy headers or a named policy) or a rule. Built before the nonce is touched, so
 * bad input answers 400 and leaves no state behind.
 */
interface LoginCheck {
  /**
   * Mints whose ATAs the verify task derives if not cached yet (verifySignature): a rule's, whose
   * balances are read after the signature. A feature's read started by start() derives its own.
   */
  verifyTaskMints: readonly string[];
  /**
   * Called before the signature is verified; returns the check, run once it is verified and the
   * nonce spent. Beside the signature it may start only what is cheap and named by the operator
   * (WalletHoldings.prefetch of a named policy's ATAs, one shared getMultipleAccounts), never a
   * read a caller without the wallet's key chose (its own policy) or could make expensive
   * (history, scans, DAS).
   * `chain` carries the login's deadline (`deadlineMs`, performance.now() ms); reads that do not
   * go through it (DAS) take the deadline itself.
   */
  start(wallet: Wallet, chain: ChainReader, deps: GateDependencies, deadlineMs: number): () => Promise<Passed>;
}

/** What a passed check puts in the success body and in the token. */
interface Passed {
  /** `pol`: the digest of what was checked. */
  pol: string;
  /** Claims beside the standard ones (a feature's results, `pnm`, `rul`, `lvs`). */
  claims: Record<string, unknown>;
  /** Fields of the success body beside success, token, publicKey and feature. */
  body: Record<string, unknown>;
}

/**
 * A feature under a named operator policy (parsed when the file was loaded), or, in
 * POLICY_MODE=open without a name, under the request's own policy headers.
 */
function featureCheck(request: AuthRequest, deps: GateDependencies): LoginCheck {
  const { headers } = request;
  const feature = request.feature as FeatureName;
  const module = FEATURES[feature];
  const named = resolvePolicy(feature, headers, request.policyQuery, deps.policies);
  // The request's own policy headers: parsed once per distinct set of values (src/policy/parse-headers.ts).
  const own = named === undefined ? parsePolicyHeaders(module, headers) : undefined;
  const geo: GeoPolicy = { ...(own ? own.geo : named!.geo), latitude: headers.get('x-lat'), longitude: headers.get('x-long') };
  const params = own ? own.params : named!.params;
  const heldMints = own ? own.heldMints : (module.heldMints?.(params) ?? NO_MINTS);
  // Which of them count every token account (src/features/holdings-plan.ts), worked out once per policy.
  const plan = featureHoldingsPlan(module, params, heldMints, deps.config.holdingsScope);
  // Read beside the signature only what the operator named, and only ATAs: the caller's own policy
  // (up to 100 mints of its choosing) and every token-account read wait for a verified signature, so
  // a request without the wallet's key reads nothing it chose (docs/architecture.md, "The read beside the signature").
  const prefetch = named !== undefined && !plan.tokenAccounts;
  return {
    // ATA balances not read beside the signature have their ATAs derived in the verify task.
    verifyTaskMints: prefetch ? NO_MINTS : ataMintsOf(plan),
    start(wallet, chain, { config, now }, deadlineMs) {
      const holdings = walletHoldings(chain, wallet.address, plan);
      if (prefetch) holdings.prefetch();
      return async () => {
        const results = await module.check(wallet.address, params, { chain, holdings, config, now, deadlineMs });
        checkLocation(geo);
        return { pol: own ? own.pol : named!.digest, claims: named ? { ...results, pnm: named.name } : results, body: results };
      };
    },
  };
}

/** A rule (src/rules): its whole tree from this one signature; the caller can neither add to it nor weaken it. */
function ruleCheck(request: AuthRequest, rule: Rule): LoginCheck {
  refuseHeadersBesideRule(rule, request.headers, request.policyQuery);
  return {
    verifyTaskMints: rule.heldMints,
    // A rule reads nothing before the signature: its wallet lists may decide it without a read (src/rules/evaluate.ts).
    start: (wallet, chain, { config, now }, deadlineMs) => async () => {
      const outcome = await evaluateRule(rule, wallet, { chain, config, now, deadlineMs, latitude: request.headers.get('x-lat'), longitude: request.headers.get('x-long') });
      // Undecided (a leaf it needs could not be read): fail closed with that leaf's error, a 503 for an unreadable chain.
      if (outcome.passed === undefined) throw outcome.error;
      if (!outcome.passed) throw ruleFailure(rule, outcome);
      return { pol: rule.digest, claims: ruleClaims(rule, outcome), body: ruleAnswer(rule, outcome) };
    },
  };
}

interface Wallet {
  address: string;
  publicKey: Uint8Array;
}

function parseWallet(headers: HeaderBag, feature: string): Wallet {
  const declared = headers.get('x-404-feature');
  if (declared === undefined) throw missingHeader(['X-404-Feature']);
  if (declared !== feature) {
    throw new GateError(400, 'FEATURE_MISMATCH', `X-404-Feature is ${JSON.stringify(declared.slice(0, 32))} but the path is /x404_auth/${feature}`);
  }
  const address = headers.get('x-404-addr') as string;
  const publicKey = decodeBase58(address);
  if (publicKey?.length !== 32) throw invalidHeader('X-404-Addr', 'must be the base58 encoding of a 32-byte ed25519 public key');
  return { address, publicKey };
}

/**
 * In the worker pool, whatever the mode: the bytes the wallet signed are in the proof. The same task
 * derives the wallet's ATAs of `mints` that are not cached yet (src/signature/verify-task.ts).
 */
async function verifySignature(proof: Proof, wallet: Wallet, mints: readonly string[], { signatures, chain }: GateDependencies): Promise<void> {
  const seeds = mints.length > 0 ? chain.atasToDerive(wallet.address, mints) : [];
  const { valid, atas } = await signatures.verify(wallet.publicKey, proof.signed, proof.signature, seeds);
  if (atas.length > 0) chain.rememberAtas(seeds, atas);
  if (!valid) {
    throw invalidSignature(proof.mode === 'challenge' ? SIGNATURE_FAILED : `Signature verification failed: X-404-Signature must be X-404-Addr's ed25519 signature of the ${proof.mode} message in X-404-Message`);
  }
}

/** Records in `run` what happened to the nonce, so a later 503 can say whether it is spent (and release it). */
async function spendNonce(nonce: AcceptedNonce, { consumedNonces, metrics, nonces }: GateDependencies, run: LoginRun): Promise<void> {
  let outcome: SpendOutcome;
  run.nonce = 'spending';
  try {
    outcome = await consumedNonces.consume(nonce);
    metrics?.countNonceStoreOp('consume', outcome === 'spent' ? 'first' : outcome);
  } catch (error) {
    run.nonce = error instanceof NonceStoreUnavailable && !error.mayHaveSpent ? 'unspent' : 'unknown';
    metrics?.countNonceStoreOp('consume', 'error');
    // Single use cannot be guaranteed without the store: fail closed.
    throw new GateError(503, 'UPSTREAM_UNAVAILABLE', 'The nonce store is unavailable, so single use cannot be guaranteed; no token was issued. Retry shortly.', {
      headers: { 'Retry-After': '2' },
    });
  }
  if (outcome !== 'spent') {
    run.nonce = 'unspent';
    throw nonces.spendRefusal(outcome);
  }
  run.nonce = 'spent';
  run.nonceId = nonce.id;
}

/** `pol` is the digest of what was checked; `pnm` a named policy, `rul` a rule; `sgm` how the wallet signed, beyond the challenge. */
function issueToken({ feature, headers }: AuthRequest, wallet: string, passed: Passed, { tokens, config }: GateDependencies, signMode: Proof['mode']): GateResponse {
  // No `sgm` for the seed's own proof: such tokens keep exactly the claims of earlier versions.
  const token = tokens.sign({ ...passed.claims, sub: wallet, feature, pol: passed.pol, ...(signMode === 'challenge' ? {} : { sgm: signMode }) });
  const responseHeaders = config.setCookie ? { ...NO_STORE, 'Set-Cookie': sessionCookie(token, headers, config) } : NO_STORE;
  const body = { success: true, token, publicKey: wallet, feature, ...passed.body };
  // The same bytes JSON.stringify writes, without scanning the token for characters to escape: it
  // is base64url and dots, the wallet base58 (parseWallet decoded it). Only when the check added nothing.
  const json = isEmpty(passed.body) ? `{"success":true,"token":"${token}","publicKey":"${wallet}","feature":${JSON.stringify(feature)}}` : undefined;
  return { status: 200, body, json, headers: responseHeaders };
}

function isEmpty(record: Record<string, unknown>): boolean {
  for (const _ in record) return false;
  return true;
}

import { featurePath } from './challenge.js';
import { decodeTokenClaims } from './claims.js';
import { X404Error } from './errors.js';
import { describeFailure, errorFromResponse, getFeature, retryAfterSeconds, type Fetch, type GateResponse } from './http.js';
import { FEATURES, isFeature, policyToHeaders, type Feature, type GeoPolicy, type PolicyFor } from './policy.js';
import { chooseSignMode, signProof, type ConcreteSignMode, type GateSignInOffer, type SignMode } from './proof.js';
import { resolveSigner, type ResolvedSigner, type Signer } from './signer.js';
import { sharedDefaultStorage, storageKey, type TokenStorage } from './storage.js';

export type AuthStep = 'reauthenticating' | 'requesting-nonce' | 'signing' | 'logging-in';

interface AuthenticateBase {
  /** Where the gate is served, e.g. `https://gate.example.com` (no trailing `/x404_auth`). */
  baseUrl: string;
  signer: Signer;
  /** Where tokens are kept; default localStorage in browsers, memory elsewhere. `false`: never reuse or keep a token. */
  storage?: TokenStorage | false;
  /** Defaults to the global fetch. */
  fetch?: Fetch;
  /** Aborts the sign-in; it then rejects with the signal's reason (an AbortError), not an X404Error. */
  signal?: AbortSignal;
  /** Told each step as it starts, e.g. to show "Check your wallet…" during `signing`. */
  onProgress?: (step: AuthStep) => void;
  /**
   * How the wallet proves itself (see SignMode): default `auto` — Sign In With Solana when the
   * wallet has `signIn` and the gate offers it, the challenge with `signMessage` otherwise, a memo
   * transaction for a wallet that only signs transactions or says `hardware: true`.
   */
  signMode?: SignMode;
}

/**
 * What the wallet is checked against: a `feature` with `policy`, the feature's headers as an object
 * (see PolicyByFeature), or with `policyName`, one of the gate's operator policies (GET
 * /x404_policies), sent as X-404-Policy — the page then sends no policy headers of its own (a pinned
 * gate's default policy is `policyName: 'default'`), only the caller's position (`lat`, `long`)
 * when the policy needs it; or one of the gate's `rule`s (a launch's whole condition, checked from
 * the same one signature), with at most the caller's position.
 */
export type AuthenticateOptions<F extends Feature> = AuthenticateBase &
  (
    | ({ feature: F; rule?: undefined } & ({ policy: PolicyFor<F>; policyName?: undefined } | { policyName: string; policy?: PolicyFor<F> | Pick<GeoPolicy, 'lat' | 'long'> }))
    | { rule: string; feature?: undefined; policyName?: undefined; policy?: Pick<GeoPolicy, 'lat' | 'long'> }
  );

export interface AuthResult {
  token: string;
  /** The wallet, base58. */
  publicKey: string;
  /** The feature signed in to, or the rule's name (the gate answers a rule under `feature` too). */
  feature: string;
  /** The rule signed in to, when it was one. */
  rule?: string;
  /** true when a stored token was accepted and nothing was signed. */
  alreadyAuthenticated: boolean;
  /** The gate's whole success body, including feature results such as `tier`. */
  body: Record<string, unknown>;
  /** How the wallet signed in: now, or for the stored token that was reused. */
  signMode: ConcreteSignMode;
}

const NONCE_HEADER = 'x-404-nonce';
const MECHANISM_HEADER = 'x-404-mechanism';

/**
 * Sign in to a gate feature: reuse a stored token when the gate still accepts it, otherwise run
 * nonce → challenge → sign → login (docs/api.md §4) and store the new token. Every failure is an
 * X404Error whose `code` is the gate's (docs/api.md) or NONCE_ERROR / SIGNING_ERROR (docs/api.md §7).
 */
export async function authenticate<F extends Feature>(options: AuthenticateOptions<F>): Promise<AuthResult> {
  const { signal, onProgress } = options;
  const rule = options.rule;
  if (rule !== undefined && !RULE_NAME.test(rule)) throw new TypeError(`rule must be a rule's name (letters, digits, '_', '.', '-'); got "${String(rule)}"`);
  if (rule === undefined && !isFeature(options.feature)) {
    throw new TypeError(`feature must be one of ${FEATURES.join(', ')}; got "${String(options.feature)}"`);
  }
  // A rule is served like a feature: its name takes the feature's place in the path and the challenge.
  const feature: string = rule ?? (options.feature as F);
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const endpoint = `${baseUrl}${featurePath(feature)}`;
  const fetchImpl: Fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const storage = options.storage === false ? undefined : (options.storage ?? sharedDefaultStorage());
  // Under an operator policy or a rule nothing is filled in for the page: what it sends must be the operator's.
  const headers =
    rule !== undefined
      ? { policy: {}, location: policyToHeaders('age', { lat: options.policy?.lat, long: options.policy?.long }).location }
      : options.policy === undefined && options.policyName !== undefined
        ? { policy: {}, location: {} }
        : policyToHeaders(options.feature as F, options.policy, { defaults: options.policyName === undefined });
  const selection: Record<string, string> = options.policyName === undefined ? {} : { 'x-404-policy': options.policyName };

  let signer: ResolvedSigner;
  try {
    signer = await resolveSigner(options.signer);
  } catch (error) {
    throw new X404Error('SIGNING_ERROR', `The wallet cannot sign: ${describeFailure(error)}`, 0, undefined, { cause: error });
  }
  const key = storageKey(baseUrl, feature, signer.address);

  if (storage) {
    const requiredMode = options.signMode === undefined || options.signMode === 'auto' ? undefined : options.signMode;
    const reused = await reauthenticate(fetchImpl, endpoint, feature, signer.address, { ...headers.policy, ...selection }, storage, key, requiredMode, onProgress, signal);
    if (reused) return reused;
  }

  onProgress?.('requesting-nonce');
  const { nonce, mechanism, offer } = await requestNonce(fetchImpl, endpoint, signal);

  onProgress?.('signing');
  let mode: ConcreteSignMode;
  let proof: Record<string, string>;
  try {
    mode = chooseSignMode(options.signMode ?? 'auto', signer, offer);
    proof = await signProof({ mode, signer, feature, nonce, mechanism, offer });
  } catch (error) {
    throw new X404Error('SIGNING_ERROR', `The challenge was not signed: ${describeFailure(error)}`, 0, undefined, { cause: error });
  }

  onProgress?.('logging-in');
  const loginHeaders = {
    ...headers.policy,
    ...headers.location,
    ...selection,
    ...proof,
    'x-404-nonce': nonce,
    'x-404-feature': feature,
  };
  const sendLogin = async (): Promise<GateResponse> => {
    try {
      return await getFeature(fetchImpl, endpoint, loginHeaders, signal);
    } catch (error) {
      rethrowAbort(signal);
      throw new X404Error('NETWORK_ERROR', `The gate at ${baseUrl} could not be reached: ${describeFailure(error)}`, 0, undefined, { cause: error });
    }
  };
  let response = await sendLogin();
  // The gate could not read the chain in time but gave the nonce back: the same signed request
  // may go again, once, without asking the wallet a second time.
  const retryAfterMs = sameRequestRetryDelayMs(response);
  if (retryAfterMs !== undefined) {
    await sleep(retryAfterMs, signal);
    response = await sendLogin();
  }
  const body = response.body;
  if (response.status !== 200 || body?.success !== true || typeof body.token !== 'string') throw errorFromResponse(response);

  // Keeping the token is a convenience: a full or blocked storage must not fail a sign-in that succeeded.
  // It is kept under the account that signed (a wallet's signIn may answer for another than the connected one).
  const signedAs = proof['x-404-addr'] as string;
  await Promise.resolve(storage?.set(signedAs === signer.address ? key : storageKey(baseUrl, feature, signedAs), body.token)).catch(() => undefined);
  return { token: body.token, publicKey: signedAs, feature, ...(rule === undefined ? {} : { rule }), alreadyAuthenticated: false, body, signMode: mode };
}

/** A rule's name: what POLICIES_FILE allows (it is part of a path and of the challenge). */
const RULE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * docs/api.md §6: a stored token sent as x-jwt with the policy headers answers 200 while it is valid
 * for this feature and policy. Any 401 (expired, other secret, other policy) drops it and the
 * caller signs again; an unreachable gate is left to the nonce step to report.
 */
async function reauthenticate(
  fetchImpl: Fetch,
  endpoint: string,
  feature: string,
  wallet: string,
  policyHeaders: Record<string, string>,
  storage: TokenStorage,
  key: string,
  /** An explicit signMode: a stored token that was signed another way is not reused. */
  requiredMode: ConcreteSignMode | undefined,
  onProgress: ((step: AuthStep) => void) | undefined,
  signal: AbortSignal | undefined,
): Promise<AuthResult | undefined> {
  // Storage trouble only costs a signature, so it never fails the sign-in.
  const token = await Promise.resolve(storage.get(key)).catch(() => undefined);
  const forget = (): Promise<void> => Promise.resolve(storage.remove(key)).catch(() => undefined);
  if (!token) return undefined;
  const claims = decodeTokenClaims(token);
  if (!claims || claims.exp * 1000 <= Date.now() || claims.sub !== wallet || claims.feature !== feature) {
    await forget();
    return undefined;
  }
  if (requiredMode !== undefined && (claims.sgm ?? 'challenge') !== requiredMode) return undefined;

  onProgress?.('reauthenticating');
  let response: GateResponse;
  try {
    response = await getFeature(fetchImpl, endpoint, { ...policyHeaders, 'x-jwt': token, 'x-404-feature': feature }, signal);
  } catch {
    rethrowAbort(signal);
    return undefined;
  }
  const body = response.body;
  if (response.status === 200 && body?.success === true && body.alreadyAuthenticated === true && body.publicKey === wallet) {
    const rule = typeof claims.rul === 'string' ? { rule: claims.rul } : {};
    return { token, publicKey: wallet, feature, ...rule, alreadyAuthenticated: true, body, signMode: claims.sgm ?? 'challenge' };
  }
  if (response.status === 401 || response.status === 200) {
    await forget();
    return undefined;
  }
  throw errorFromResponse(response);
}

async function requestNonce(fetchImpl: Fetch, endpoint: string, signal: AbortSignal | undefined): Promise<{ nonce: string; mechanism: string; offer: GateSignInOffer }> {
  let response: GateResponse;
  try {
    response = await getFeature(fetchImpl, endpoint, {}, signal);
  } catch (error) {
    rethrowAbort(signal);
    throw new X404Error('NONCE_ERROR', `No nonce: the gate at ${endpoint} could not be reached (${describeFailure(error)})`, 0, undefined, { cause: error });
  }
  if (response.status !== 200) {
    const gateError = errorFromResponse(response);
    const retryAfter = retryAfterSeconds(response.headers);
    throw new X404Error('NONCE_ERROR', `No nonce: the gate answered ${response.status} (${gateError.message})`, response.status, response.body, {
      cause: gateError,
      ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
    });
  }
  // The headers are the spec's channel; the body repeats them (docs/api.md §3), which keeps a gate
  // behind a proxy that strips Access-Control-Expose-Headers usable.
  const nonce = response.headers.get(NONCE_HEADER) ?? stringField(response.body, 'nonce');
  const mechanism = response.headers.get(MECHANISM_HEADER) ?? stringField(response.body, 'mechanism');
  if (!nonce || !mechanism) {
    throw new X404Error('NONCE_ERROR', 'No nonce: the gate answered without X-404-Nonce and X-404-Mechanism', response.status, response.body);
  }
  return { nonce, mechanism, offer: signInOfferOf(response.body) };
}

/** `signModes` and `siws` of the nonce body, when they have the expected shape (anything else: none). */
function signInOfferOf(body: Record<string, unknown> | undefined): GateSignInOffer {
  const offer: GateSignInOffer = {};
  const modes = body?.signModes;
  if (Array.isArray(modes) && modes.every((mode) => typeof mode === 'string')) offer.signModes = modes;
  const siws = body?.siws as Record<string, unknown> | undefined;
  if (siws && typeof siws.domain === 'string' && typeof siws.chainId === 'string' && Array.isArray(siws.resources) && siws.resources.every((r) => typeof r === 'string')) {
    offer.siws = {
      domain: siws.domain,
      chainId: siws.chainId,
      resources: siws.resources as string[],
      ...(Array.isArray(siws.domains) && siws.domains.every((d) => typeof d === 'string') ? { domains: siws.domains as string[] } : {}),
      ...(typeof siws.statement === 'string' ? { statement: siws.statement } : {}),
      ...(typeof siws.issuedAt === 'string' ? { issuedAt: siws.issuedAt } : {}),
    };
  }
  return offer;
}

/** Longest wait for Retry-After before the one retry of a login answered 503 with `nonceSpent: false`. */
const MAX_LOGIN_RETRY_WAIT_MS = 10_000;

/** When to send the same login again: a 503 whose nonce is not spent, after its Retry-After (at most MAX_LOGIN_RETRY_WAIT_MS). */
function sameRequestRetryDelayMs(response: GateResponse): number | undefined {
  if (response.status !== 503 || response.body?.nonceSpent !== false) return undefined;
  return Math.min((retryAfterSeconds(response.headers) ?? 1) * 1000, MAX_LOGIN_RETRY_WAIT_MS);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  rethrowAbort(signal);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** An aborted sign-in rejects with the signal's reason (an AbortError), as fetch itself does. */
function rethrowAbort(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason;
}

function stringField(body: Record<string, unknown> | undefined, name: string): string | undefined {
  const value = body?.[name];
  return typeof value === 'string' ? value : undefined;
}

import type { Config } from '../config.js';
import { GateError } from '../errors.js';
import { isFeatureName, type FeatureName } from '../features/names.js';
import type { HeaderBag } from '../lib/header-values.js';
import { readCookie } from '../http/cookie.js';
import { POLICY_HEADER, type NamedPolicy, type PolicySet } from '../policy/types.js';

const RULE_HEADER = 'x-404-rule';
import type { GateClaims, TokenService } from '../token/jwt.js';
import type { GateResponse } from './pipeline.js';

/**
 * `/x404_verify`: forward auth for a reverse proxy (nginx auth_request, Traefik ForwardAuth, Caddy
 * forward_auth, Envoy ext_authz). The proxy asks, for each request to a protected route, whether
 * the token it carries (Authorization: Bearer, x-jwt, or the X404_COOKIE cookie) is valid and meets
 * the route's requirements (`feature`, `policy` or `rule`, in the query or as X-404-Feature /
 * X-404-Policy / X-404-Rule headers). 200 with the wallet in X-404-Wallet and the claims as JSON, or
 * 401 with the reason — never 400, even for a requirement the gate does not know: proxies turn any
 * other status into a 500 for the user.
 *
 * Requirements given both in the query and in a header must agree: proxies that pass the client's
 * headers through (Traefik, Envoy) would otherwise let a client pick a laxer requirement. A token
 * issued under a named policy passes only while that policy is unchanged, so tightening a policy
 * (SIGHUP) sends its holders back to sign in. Answered synchronously: a token seen before costs a
 * cache lookup (src/token/jwt.ts), nothing here awaits.
 */
export interface ForwardAuthRequest {
  headers: HeaderBag;
  /** The raw query string (`feature=…&policy=…`), as the proxy configuration wrote it. */
  query: string;
}

export interface ForwardAuthDependencies {
  config: Pick<Config, 'cookieName'>;
  tokens: TokenService;
  policies?: PolicySet | undefined;
}

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="x404"', 'Cache-Control': 'no-store' };
const refuse = (code: string, message: string): GateError => new GateError(401, code, message, { headers: CHALLENGE });

export function handleForwardAuth(request: ForwardAuthRequest, deps: ForwardAuthDependencies): GateResponse {
  const { headers } = request;
  const query = request.query === '' ? undefined : new URLSearchParams(request.query);
  const requiredFeature = requirement(query?.getAll('feature'), headers.get('x-404-feature'), 'X-404-Feature', 'FEATURE_MISMATCH');
  let requiredRule = requirement(query?.getAll('rule'), headers.get(RULE_HEADER), 'X-404-Rule', 'POLICY_MISMATCH');
  // A rule is served like a feature, so a route may also name it as its feature.
  if (requiredFeature !== undefined && !isFeatureName(requiredFeature)) {
    if (!deps.policies?.rules.has(requiredFeature)) {
      throw refuse('FEATURE_MISMATCH', `This gate has no feature or rule ${JSON.stringify(requiredFeature.slice(0, 64))}; check the route's configuration`);
    }
    if (requiredRule !== undefined && requiredRule !== requiredFeature) {
      throw refuse('POLICY_MISMATCH', `The route's requirements disagree: feature ${JSON.stringify(requiredFeature)} and rule ${JSON.stringify(requiredRule.slice(0, 64))}`);
    }
    requiredRule = requiredFeature;
  }
  const requiredPolicy = requirement(query?.getAll('policy'), headers.get(POLICY_HEADER), 'X-404-Policy', 'POLICY_MISMATCH');

  const token = presentedToken(headers, deps.config.cookieName);
  if (token === undefined) {
    throw refuse('MISSING_TOKEN', `No token: send it as Authorization: Bearer <token>, in x-jwt, or in the ${deps.config.cookieName} cookie`);
  }
  const checked = deps.tokens.check(token);
  if (checked.problem === 'expired') throw refuse('TOKEN_EXPIRED', 'The token has expired; sign in again');
  if (checked.problem !== undefined) throw refuse('INVALID_TOKEN', `The token is not valid: ${checked.why}`);
  const claims = checked.claims;

  if (requiredFeature !== undefined && claims.feature !== requiredFeature) {
    throw refuse('FEATURE_MISMATCH', `The token is for feature ${JSON.stringify(claims.feature)}, but this route requires ${requiredFeature}`);
  }
  if (requiredRule !== undefined || typeof claims.rul === 'string') {
    if (requiredPolicy !== undefined) throw refuse('POLICY_MISMATCH', `This route requires policy ${JSON.stringify(requiredPolicy.slice(0, 64))}, which a rule's token does not carry`);
    checkRule(claims, requiredRule, deps.policies);
  } else {
    checkPolicy(claims, requiredPolicy, deps.policies);
  }

  const answerHeaders: Record<string, string> = { 'Cache-Control': 'no-store', 'X-404-Wallet': claims.sub, 'X-404-Feature': claims.feature };
  if (typeof claims.pnm === 'string') answerHeaders['X-404-Policy'] = claims.pnm;
  if (typeof claims.rul === 'string') answerHeaders['X-404-Rule'] = claims.rul;
  if (typeof claims.tier === 'string') answerHeaders['X-404-Tier'] = claims.tier;
  answerHeaders['X-404-Sign-Mode'] = typeof claims.sgm === 'string' ? claims.sgm : 'challenge';
  return { status: 200, body: claims, headers: answerHeaders };
}

/**
 * One requirement from the query and/or a header. Every value given must be the same: a proxy may
 * append the client's query to its own (`?policy=launch&policy=free`), and which one a parser
 * would pick is not something to rely on. Any disagreement → 401.
 */
function requirement(fromQuery: string[] | undefined, fromHeader: string | undefined, header: string, code: string): string | undefined {
  const values = fromQuery?.filter((value) => value !== '') ?? [];
  if (fromHeader !== undefined) values.push(fromHeader);
  const first = values[0];
  for (const value of values) {
    if (value !== first) {
      throw refuse(code, `The route's requirements disagree: ${JSON.stringify((first as string).slice(0, 64))} and ${JSON.stringify(value.slice(0, 64))} (query or ${header})`);
    }
  }
  return first;
}

function presentedToken(headers: HeaderBag, cookieName: string): string | undefined {
  const authorization = headers.get('authorization');
  if (authorization !== undefined && authorization.length > 7 && authorization.slice(0, 7).toLowerCase() === 'bearer ') {
    return authorization.slice(7).trim();
  }
  return headers.get('x-jwt') ?? readCookie(headers.get('cookie'), cookieName);
}

function checkPolicy(claims: GateClaims, required: string | undefined, policies: PolicySet | undefined): void {
  if (required !== undefined) {
    const feature = claims.feature as FeatureName;
    const policy = policies?.byFeature[feature]?.get(required);
    if (policy === undefined) {
      // 401, never 400: nginx auth_request turns anything but 2xx/401/403 into a 500 for the user.
      throw refuse('POLICY_MISMATCH', `This gate has no policy ${JSON.stringify(required.slice(0, 64))} for ${claims.feature}${policies ? `; policies: ${policies.names[feature]?.join(', ') || '(none)'}` : ' (POLICIES_FILE is not set)'}`);
    }
    if (claims.pnm !== required) {
      throw refuse('POLICY_MISMATCH', `The token was issued under ${claims.pnm === undefined ? 'no named policy' : `policy ${JSON.stringify(claims.pnm)}`}, but this route requires policy ${JSON.stringify(required)}`);
    }
    stillCurrent(claims, policy);
    return;
  }
  if (policies === undefined) return;
  if (claims.pnm === undefined) {
    if (policies.mode === 'pinned') throw refuse('POLICY_MISMATCH', 'The token was not issued under a named policy, and this gate only accepts its own policies (POLICY_MODE=pinned)');
    return;
  }
  const policy = policies.byFeature[claims.feature as FeatureName]?.get(claims.pnm);
  if (policy === undefined) throw refuse('POLICY_MISMATCH', `Policy ${JSON.stringify(claims.pnm)} no longer exists; sign in again`);
  stillCurrent(claims, policy);
}

/** A rule's token (`rul`) passes only where its rule is required or nothing is, and only while the rule is unchanged. */
function checkRule(claims: GateClaims, required: string | undefined, policies: PolicySet | undefined): void {
  if (required !== undefined && !policies?.rules.has(required)) {
    throw refuse('POLICY_MISMATCH', `This gate has no rule ${JSON.stringify(required.slice(0, 64))}${policies?.ruleNames.length ? `; rules: ${policies.ruleNames.join(', ')}` : ''}`);
  }
  if (typeof claims.rul !== 'string') throw refuse('POLICY_MISMATCH', `The token was not issued under a rule, but this route requires rule ${JSON.stringify(required)}`);
  if (required !== undefined && claims.rul !== required) {
    throw refuse('POLICY_MISMATCH', `The token was issued under rule ${JSON.stringify(claims.rul)}, but this route requires rule ${JSON.stringify(required)}`);
  }
  const rule = policies?.rules.get(claims.rul);
  if (rule === undefined) throw refuse('POLICY_MISMATCH', `Rule ${JSON.stringify(claims.rul)} no longer exists; sign in again`);
  if (claims.pol !== rule.digest) throw refuse('POLICY_MISMATCH', `Rule "${rule.name}" has changed since the token was issued; sign in again`);
}

function stillCurrent(claims: GateClaims, policy: NamedPolicy): void {
  if (claims.pol !== policy.digest) throw refuse('POLICY_MISMATCH', `Policy "${policy.name}" has changed since the token was issued; sign in again`);
}

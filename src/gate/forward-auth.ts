import type { Config } from '../config.js';
import { GateError } from '../errors.js';
import { isFeatureName, type FeatureName } from '../contract/features.js';
import type { HeaderBag } from '../lib/header-values.js';
import { readCookie } from '../http/cookie.js';
import { POLICY_HEADER, type NamedPolicy, type PolicySet } from '../policy/types.js';
import type { GateClaims, TokenService } from '../token/jwt.js';
import type { GateResponse } from './pipeline.js';

const RULE_HEADER = 'x-404-rule';
export const FORWARD_AUTH_PATH = '/x404_verify';
const SUBPATH_PREFIX = `${FORWARD_AUTH_PATH}/`;

/**
 * `/x404_verify`: forward auth for a reverse proxy (nginx auth_request, Traefik ForwardAuth, Caddy
 * forward_auth, Envoy ext_authz). The proxy asks, for each request to a protected route, whether
 * the token it carries (Authorization: Bearer, x-jwt, or the X404_COOKIE cookie) is valid and meets
 * the route's requirements (`feature`, `policy` or `rule`, in the query or as X-404-Feature /
 * X-404-Policy / X-404-Rule headers). 200 with the wallet in X-404-Wallet and the claims as JSON, or
 * 401 with the reason — never 400, even for a requirement the gate does not know: proxies turn any
 * other status into a 500 for the user.
 *
 * A route's requirements are typed by hand into proxy configurations, so whatever the gate cannot
 * read as one is refused (401 INVALID_REQUIREMENT), never dropped: a parameter it does not know, in
 * another case, repeated or empty, a `policy` without its `feature`, a path other than
 * `/x404_verify` (`/x404_verify/?policy=…` would otherwise have its query ignored). The one
 * exception is opt-in: with FORWARD_AUTH_SUBPATHS=true, `/x404_verify/<guarded path>` is answered
 * for Envoy's ext_authz (path_prefix), whose query is the guarded request's and not configuration:
 * requirements then come from headers only, and a query parameter named like one is refused.
 *
 * Requirements given both in the query and in a header must agree: proxies that pass the client's
 * headers through (nginx, Traefik, Envoy) would otherwise let a client pick a laxer requirement. A
 * token issued under a named policy passes only while that policy is unchanged, so tightening a
 * policy (SIGHUP) sends its holders back to sign in. Answered synchronously: a token seen before
 * costs a cache lookup (src/token/jwt.ts), nothing here awaits.
 */
export interface ForwardAuthRequest {
  headers: HeaderBag;
  /** The request path without the query: `/x404_verify`, or anything else the server routed here (isForwardAuthPath). */
  path: string;
  /** The raw query string (`feature=…&policy=…`), without the `?`. */
  query: string;
}

export interface ForwardAuthDependencies {
  config: Pick<Config, 'cookieName' | 'forwardAuthSubpaths'>;
  tokens: TokenService;
  policies?: PolicySet | undefined;
}

/**
 * The paths answered here: every spelling of /x404_verify with anything after it, any case, so a
 * mistyped route (`/x404_verify/`, `/X404_VERIFY`) gets a 401 saying what is wrong rather than a
 * 404, which nginx would turn into a 500.
 */
export function isForwardAuthPath(path: string): boolean {
  return path.length >= FORWARD_AUTH_PATH.length && path.slice(0, FORWARD_AUTH_PATH.length).toLowerCase() === FORWARD_AUTH_PATH;
}

/** The answer's header when the route named no policy or rule in POLICY_MODE=open (docs/launch-operations.md). */
export const POLICY_CHECKED_HEADER = 'X-404-Policy-Checked';

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="x404"', 'Cache-Control': 'no-store' };
const refuse = (code: string, message: string): GateError => new GateError(401, code, message, { headers: CHALLENGE });
const unreadable = (why: string): GateError => refuse('INVALID_REQUIREMENT', `The route's requirements cannot be read: ${why}; no token passes this route until its configuration is fixed`);
const quoted = (text: string): string => JSON.stringify(text.slice(0, 64));

export function handleForwardAuth(request: ForwardAuthRequest, deps: ForwardAuthDependencies): GateResponse {
  const { headers } = request;
  const route = routeRequirements(request, deps.config.forwardAuthSubpaths);
  const requiredFeature = requirement(route.feature, headers.get('x-404-feature'), 'X-404-Feature', 'FEATURE_MISMATCH');
  let requiredRule = requirement(route.rule, headers.get(RULE_HEADER), 'X-404-Rule', 'POLICY_MISMATCH');
  const requiredPolicy = requirement(route.policy, headers.get(POLICY_HEADER), 'X-404-Policy', 'POLICY_MISMATCH');
  // A policy's name means something only within its feature: `?policy=launch` alone would accept
  // any feature's token issued under any policy of that name.
  if (requiredPolicy !== undefined && requiredFeature === undefined) {
    throw unreadable(`policy ${quoted(requiredPolicy)} is named without its feature (add feature=<feature>, or X-404-Feature)`);
  }
  // A rule is served like a feature, so a route may also name it as its feature.
  if (requiredFeature !== undefined && !isFeatureName(requiredFeature)) {
    if (!deps.policies?.rules.has(requiredFeature)) {
      throw refuse('FEATURE_MISMATCH', `This gate has no feature or rule ${quoted(requiredFeature)}; check the route's configuration`);
    }
    if (requiredRule !== undefined && requiredRule !== requiredFeature) {
      throw refuse('POLICY_MISMATCH', `The route's requirements disagree: feature ${JSON.stringify(requiredFeature)} and rule ${quoted(requiredRule)}`);
    }
    requiredRule = requiredFeature;
  }

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
  // The route checked no policy: in POLICY_MODE=open the token's conditions may be whatever its
  // holder chose (an empty blacklist, say). Said in the answer so it shows in the proxy's logs.
  if (requiredPolicy === undefined && requiredRule === undefined && deps.policies?.mode !== 'pinned') answerHeaders[POLICY_CHECKED_HEADER] = 'none';
  return { status: 200, body: claims, headers: answerHeaders };
}

type RequirementName = 'feature' | 'policy' | 'rule';
const REQUIREMENT_NAMES: readonly RequirementName[] = ['feature', 'policy', 'rule'];
type Requirements = Partial<Record<RequirementName, string>>;
/** A guarded request's query parameter that would read as a requirement: refused rather than ignored in subpath mode. */
const LOOKS_LIKE_REQUIREMENT = /^(?:x-?404[-_]?)?(?:feature|policy|rule)s?(?:\[\])?$/i;

/** The requirements the route wrote in the query, read strictly (see the module comment). */
function routeRequirements({ path, query }: ForwardAuthRequest, subpaths: boolean): Requirements {
  if (path === FORWARD_AUTH_PATH) return queryRequirements(query);
  if (subpaths && path.startsWith(SUBPATH_PREFIX)) {
    refuseRequirementsInGuardedQuery(query);
    return {};
  }
  throw unreadable(
    `forward auth is served at ${FORWARD_AUTH_PATH} exactly, and this route asked ${quoted(path)}` +
      (path.startsWith(SUBPATH_PREFIX) ? ` (${SUBPATH_PREFIX}<path>, as Envoy's path_prefix asks, needs FORWARD_AUTH_SUBPATHS=true)` : ''),
  );
}

function queryRequirements(query: string): Requirements {
  const found: Requirements = {};
  if (query === '') return found;
  for (const part of query.split('&')) {
    const equals = part.indexOf('=');
    const name = equals < 0 ? part : part.slice(0, equals);
    if (!(REQUIREMENT_NAMES as readonly string[]).includes(name)) {
      const lower = name.toLowerCase();
      throw unreadable(
        (REQUIREMENT_NAMES as readonly string[]).includes(lower)
          ? `parameter ${quoted(name)} must be written ${lower} (lower case)`
          : `${name === '' ? 'an empty parameter' : `unknown parameter ${quoted(name)}`}; the parameters are feature, policy and rule`,
      );
    }
    const key = name as RequirementName;
    if (found[key] !== undefined) throw unreadable(`parameter ${key} is given more than once`);
    const value = equals < 0 ? undefined : decodeQueryValue(part.slice(equals + 1));
    if (value === undefined || value === '') throw unreadable(`parameter ${key} has no readable value`);
    found[key] = value;
  }
  return found;
}

function refuseRequirementsInGuardedQuery(query: string): void {
  if (query === '') return;
  for (const part of query.split('&')) {
    const equals = part.indexOf('=');
    const raw = equals < 0 ? part : part.slice(0, equals);
    const name = decodeQueryValue(raw) ?? raw;
    if (LOOKS_LIKE_REQUIREMENT.test(name)) {
      throw unreadable(`the guarded request's query has ${quoted(name)}, which reads as a requirement; under ${SUBPATH_PREFIX}<path> requirements come from the X-404-Feature, X-404-Policy and X-404-Rule headers only`);
    }
  }
}

/** As URLSearchParams decodes a value (`+` is a space); undefined for a malformed escape. */
function decodeQueryValue(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/**
 * One requirement from the route and/or a header. When both give one they must be the same: a
 * proxy passes the client's headers to the gate, and a client must not be able to pick a laxer
 * requirement. Any disagreement → 401.
 */
function requirement(fromRoute: string | undefined, fromHeader: string | undefined, header: string, code: string): string | undefined {
  if (fromRoute !== undefined && fromHeader !== undefined && fromRoute !== fromHeader) {
    throw refuse(code, `The route's requirements disagree: ${quoted(fromRoute)} and ${quoted(fromHeader)} (query and ${header})`);
  }
  return fromRoute ?? fromHeader;
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

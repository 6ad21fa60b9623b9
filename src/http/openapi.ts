/**
 * The OpenAPI 3.1 description of the whole gate, served at /openapi.json. Built from small tables
 * (the features' headers, the error codes of each status) so it reads like docs/api.md and a new
 * feature or code is one line. test/e2e/openapi.test.ts checks real answers of every route against it.
 * The served document also names the operator policies the gate has loaded (POLICIES_FILE), so it
 * is built per configuration (buildOpenApiDocument) and rebuilt when SIGHUP reloads them.
 */

import { SIGN_MODES } from '../config.js';
import { FEATURE_NAMES, type FeatureName } from '../features/names.js';
import { MAX_COLLECTIONS, MAX_CREATORS } from '../features/collection.js';
import { FEATURES } from '../features/registry.js';
import type { Rule } from '../rules/types.js';
import { mintPaths, mintSchemas } from './openapi-mint.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };


const MINT: JsonObject = { type: 'string', pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$', description: 'base58 address (32 bytes)' };
const AMOUNT: JsonObject = { type: 'string', pattern: '^[0-9]{1,20}$', description: 'integer amount in the token\'s base units' };
const DECIMAL: JsonObject = { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' };
const NUMBER_TEXT: JsonObject = { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$', description: 'a non-negative number' };
const REQUIREMENT: JsonObject = { type: 'object', required: ['mint', 'amount'], properties: { mint: MINT, amount: AMOUNT } };

/** A request header: its value is either a plain string (`schema`) or JSON text (`json`). */
interface HeaderSpec {
  name: string;
  description: string;
  /** Must be sent when signing in (not for nonce issuance or re-authentication). */
  requiredToSignIn?: boolean;
  schema?: JsonObject;
  json?: JsonObject;
  example?: Json;
}

const GEO_HEADERS = (required: boolean): HeaderSpec[] => [
  {
    name: 'geo_code',
    description: `"true" enables the geolocation check after the chain checks${required ? '' : '; absent means off'}.`,
    requiredToSignIn: required,
    schema: { type: 'string', enum: ['true', 'false'] },
    example: 'false',
  },
  {
    name: 'geo_code_locs',
    description: 'Comma-separated ISO 3166-1 alpha-2 codes the location must be in (case-insensitive); empty: any valid location.',
    requiredToSignIn: required,
    schema: { type: 'string', maxLength: 1200 },
    example: 'DE,FR',
  },
  { name: 'X-Lat', description: 'Latitude in decimal degrees, when geo_code is "true".', schema: { type: 'string' }, example: '48.8566' },
  { name: 'X-Long', description: 'Longitude in decimal degrees, when geo_code is "true".', schema: { type: 'string' }, example: '2.3522' },
];

/** The features that read balances: which token accounts count (docs/features.md, "Which token accounts count"). */
const SCOPE: HeaderSpec = {
  name: 'scope',
  description:
    '"all": every token account the wallet owns counts; "ata": its associated token accounts only — faster, and a holder who keeps a token in another account passes a deny condition anyway. Absent: HOLDINGS_SCOPE (default "all") for deny conditions, the associated token accounts for positive ones.',
  schema: { type: 'string', enum: ['all', 'ata'] },
  example: 'all',
};

/** docs/api.md §5, one row per feature. */
const FEATURE_HEADERS: Record<FeatureName, HeaderSpec[]> = {
  blacklist: [
    {
      name: 'excluded_mints',
      description: 'JSON array of mints the wallet must not hold (at most 100).',
      requiredToSignIn: true,
      json: { type: 'array', items: MINT, maxItems: 100 },
      example: '["EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"]',
    },
    {
      name: 'max_holdings',
      description: 'JSON object mint → largest allowed balance, as an integer string in base units (at most 100 entries).',
      requiredToSignIn: true,
      json: { type: 'object', additionalProperties: AMOUNT, maxProperties: 100 },
      example: '{"DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263":"1000000000"}',
    },
    SCOPE,
    ...GEO_HEADERS(true),
  ],
  timelock: [
    { name: 'required_mint', description: 'The mint that must be held.', requiredToSignIn: true, schema: MINT },
    { name: 'mint_amount', description: 'Balance that must be held, in base units.', requiredToSignIn: true, schema: AMOUNT },
    {
      name: 'min_hold_duration_days',
      description: 'Days the balance must have stayed at or above mint_amount without interruption.',
      requiredToSignIn: true,
      schema: NUMBER_TEXT,
    },
    SCOPE,
    ...GEO_HEADERS(false),
  ],
  multitoken: [
    {
      name: 'required_tokens',
      description: 'JSON array of {mint, amount} requirements (at most 100).',
      requiredToSignIn: true,
      json: { type: 'array', items: REQUIREMENT, maxItems: 100 },
    },
    {
      name: 'verification_mode',
      description: '"ALL" (default): every requirement; "ANY": at least one; an integer N: at least N.',
      schema: { type: 'string', pattern: '^(ALL|ANY|[0-9]+)$' },
    },
    SCOPE,
    ...GEO_HEADERS(false),
  ],
  activity: [
    { name: 'min_transactions', description: 'Successful transactions needed in the period.', requiredToSignIn: true, schema: { type: 'string', pattern: '^[0-9]+$' } },
    { name: 'time_period_days', description: 'The period, in days back from now.', requiredToSignIn: true, schema: NUMBER_TEXT },
    { name: 'min_volume', description: 'Summed absolute SOL balance change needed (decimal SOL; default 0).', schema: DECIMAL },
    {
      name: 'transaction_types',
      description: 'JSON array of the transaction types that count; empty: any.',
      json: { type: 'array', items: { type: 'string', enum: ['transfer', 'swap', 'nft', 'stake'] } },
    },
    ...GEO_HEADERS(false),
  ],
  tier: [
    {
      name: 'tier_config',
      description: 'JSON object with any of bronze, silver, gold, each {mint, amount}; the highest tier met wins.',
      requiredToSignIn: true,
      json: {
        type: 'object',
        properties: { bronze: REQUIREMENT, silver: REQUIREMENT, gold: REQUIREMENT },
        additionalProperties: false,
        minProperties: 1,
      },
    },
    SCOPE,
    ...GEO_HEADERS(false),
  ],
  nodebt: [
    {
      name: 'check_protocols',
      description: 'JSON array of lending protocols to check: kamino, save (alias solend), marginfi; empty: all.',
      json: { type: 'array', items: { type: 'string', enum: ['kamino', 'save', 'solend', 'marginfi'] } },
    },
    { name: 'max_debt_allowed', description: 'Largest total borrowed value allowed, USD (default 0).', schema: DECIMAL },
    ...GEO_HEADERS(false),
  ],
  age: [
    { name: 'min_wallet_age_days', description: 'The wallet\'s oldest transaction must be at least this many days old.', schema: NUMBER_TEXT },
    { name: 'min_first_transaction_days', description: 'Same threshold under its other name; the larger of the two applies.', schema: NUMBER_TEXT },
    ...GEO_HEADERS(false),
  ],
  collection: [
    {
      name: 'collections',
      description: `JSON array of verified collection addresses (at most ${MAX_COLLECTIONS}: each is a program scan per login): Token Metadata collection mints, Token-2022 groups, Core collections. At least one of collections and creators is needed.`,
      json: { type: 'array', items: MINT, maxItems: MAX_COLLECTIONS },
      example: '["J1S9H3QjnRtBbbuD4HjPV6RpRhwuk4zKbxsnCHuTgh9w"]',
    },
    {
      name: 'creators',
      description: `JSON array of verified first-creator addresses (at most ${MAX_CREATORS}), the older way of naming a collection (Token Metadata and compressed NFTs).`,
      json: { type: 'array', items: MINT, maxItems: MAX_CREATORS },
    },
    { name: 'min_count', description: 'How many NFTs must count, 1 to 1000 (default 1).', schema: { type: 'string', pattern: '^[0-9]+$' } },
    ...GEO_HEADERS(false),
  ],
};

const STATUS_TEXT: Record<number, string> = {
  400: 'A header is missing or invalid, or X-404-Feature does not match the path.',
  401: 'Nonce, signature or token refused, or the location is not allowed (status "locdeny").',
  403: 'The wallet does not meet the requirement.',
  404: 'No such route.',
  405: 'Only GET (and OPTIONS) are served.',
  429: 'Too many requests from this client address; see Retry-After.',
  431: 'The request headers are larger than the gate accepts.',
  500: 'The wallet does not meet the feature\'s requirement, the location could not be determined (status "locerror"), or an unexpected failure.',
  503: 'The chain (or the nonce store) could not be read within LOGIN_TIMEOUT_MS; no token was issued. See Retry-After. `nonceSpent: false`: the same signed request may be sent again after Retry-After; `true`: sign a new nonce.',
};

/** Codes every feature endpoint can answer with, by status (docs/api.md §2–§7). */
const COMMON_ERRORS: Record<number, string[]> = {
  400: ['MISSING_HEADER', 'INVALID_HEADER', 'FEATURE_MISMATCH'],
  401: ['INVALID_NONCE', 'NONCE_EXPIRED', 'NONCE_REUSED', 'INVALID_SIGNATURE', 'INVALID_TOKEN', 'POLICY_MISMATCH', 'LOCATION_DENIED'],
  429: ['RATE_LIMITED'],
  431: ['HEADERS_TOO_LARGE'],
  500: ['INTERNAL_ERROR', 'LOCATION_ERROR'],
  503: ['UPSTREAM_UNAVAILABLE'],
};

const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });
const headerRef = (name: string): JsonObject => ({ $ref: `#/components/headers/${name}` });
const JSON_TYPE = 'application/json';

/** `{error, message, status?}` with `error` restricted to the codes this answer can carry; a 503 always says `nonceSpent`. */
function errorSchema(codes: string[], status: number): JsonObject {
  const narrowed: JsonObject = { properties: { error: { enum: [...new Set(codes)].sort() } } };
  if (status === 503) narrowed.required = ['nonceSpent'];
  return { allOf: [ref('Error'), narrowed] };
}

function errorResponse(status: number, codes: string[], extraHeaders: string[] = []): JsonObject {
  const headers: JsonObject = { 'Access-Control-Allow-Origin': headerRef('AccessControlAllowOrigin') };
  for (const name of extraHeaders) headers[name] = headerRef(name.replace(/-/g, ''));
  return { description: STATUS_TEXT[status] ?? `HTTP ${status}`, headers, content: { [JSON_TYPE]: { schema: errorSchema(codes, status) } } };
}

function headerParameter(spec: HeaderSpec): JsonObject {
  const required = spec.requiredToSignIn ? ' Required to sign in.' : '';
  const parameter: JsonObject = { name: spec.name, in: 'header', required: false, description: spec.description + required };
  if (spec.json) parameter.content = { [JSON_TYPE]: { schema: spec.json } };
  else parameter.schema = spec.schema ?? { type: 'string' };
  if (spec.example !== undefined) parameter.example = spec.example;
  return parameter;
}

/** What the served document says about this gate's configuration. */
export interface OpenApiOptions {
  /** The operator policies per feature (POLICIES_FILE); absent: none. */
  policyNames?: Partial<Record<FeatureName, readonly string[]>> | undefined;
  policyMode?: 'open' | 'pinned';
  jwtAlg?: 'HS256' | 'EdDSA' | 'ES256';
  /** X404_COOKIE. */
  cookieName?: string;
  /** The rules (POLICIES_FILE), each served at /x404_auth/<rule>. */
  rules?: ReadonlyMap<string, Rule> | undefined;
  /** The mints (POLICIES_FILE "mints"), served at /x404_mint/<name>. */
  mintNames?: readonly string[] | undefined;
}

function policyParameters(feature: FeatureName, options: OpenApiOptions): JsonObject[] {
  const names = options.policyNames?.[feature] ?? [];
  const schema: JsonObject = names.length > 0 ? { type: 'string', enum: [...names] } : { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' };
  const pinned = options.policyMode === 'pinned';
  const description =
    (names.length > 0 ? `Selects one of this gate's policies for ${feature}: ${names.join(', ')} (GET /x404_policies lists them). ` : 'Selects a named operator policy (POLICIES_FILE; this gate has none for this feature). ') +
    (pinned
      ? 'This gate is pinned: without a name the feature\'s "default" policy applies, and policy headers, when sent, must equal the policy\'s (else 401 POLICY_MISMATCH).'
      : 'Without a name the request\'s own policy headers are the policy.');
  return [
    { name: 'X-404-Policy', in: 'header', required: false, description, schema },
    { name: 'policy', in: 'query', required: false, description: `Same as X-404-Policy, for clients that cannot add headers. ${description}`, schema },
  ];
}

/** A sign-in route's answers: the 200 (nonce, token or re-authentication) and an error response per status. */
function signInResponses(codes: { status: number; code: string }[]): JsonObject {
  const errors: Record<number, string[]> = structuredClone(COMMON_ERRORS);
  for (const { status, code } of codes) errors[status] = [...new Set([...(errors[status] ?? []), code])];
  const responses: JsonObject = {
    '200': {
      description:
        'One of three answers: a nonce (request without X-404-Nonce/X-404-Signature/X-404-Addr), a token (signed request that passed), or re-authentication (valid x-jwt).',
      headers: {
        'X-404-Nonce': headerRef('X404Nonce'),
        'X-404-Mechanism': headerRef('X404Mechanism'),
        'Cache-Control': headerRef('CacheControl'),
        'Access-Control-Allow-Origin': headerRef('AccessControlAllowOrigin'),
        'Access-Control-Expose-Headers': headerRef('AccessControlExposeHeaders'),
        'Set-Cookie': { description: 'With X404_SET_COOKIE=true, a sign-in sets the token as an HttpOnly cookie for forward auth.', schema: { type: 'string' } },
      },
      content: { [JSON_TYPE]: { schema: { oneOf: [ref('NonceReady'), ref('LoginSuccess'), ref('ReauthSuccess')] } } },
    },
  };
  for (const [status, list] of Object.entries(errors).sort(([a], [b]) => a.localeCompare(b))) {
    responses[status] = errorResponse(Number(status), list, status === '429' || status === '503' ? ['Retry-After'] : []);
  }
  return responses;
}

/** The parameters every sign-in route takes: the nonce, the proof, the name in X-404-Feature, a token. */
function signInParameters(name: string, mustEqual: string): JsonObject[] {
  return [
    { $ref: '#/components/parameters/CacheBuster' },
    { $ref: '#/components/parameters/Nonce' },
    { $ref: '#/components/parameters/Signature' },
    { $ref: '#/components/parameters/Addr' },
    { ...headerParameter({ name: 'X-404-Feature', description: `Must equal ${mustEqual}.`, requiredToSignIn: true }), schema: { type: 'string', const: name } },
    { $ref: '#/components/parameters/Jwt' },
    { $ref: '#/components/parameters/SignMode' },
    { $ref: '#/components/parameters/Message' },
  ];
}

/** A feature's "not met" and "bound reached" answers. */
const answersOf = (feature: FeatureName): { status: number; code: string }[] => [...FEATURES[feature].failures, ...(FEATURES[feature].limits ?? [])];

function featureGet(feature: FeatureName, options: OpenApiOptions): JsonObject {
  const responses = signInResponses(answersOf(feature));

  return {
    operationId: `auth_${feature}`,
    tags: ['authentication'],
    summary: `Nonce, sign-in or re-authentication for ${feature}`,
    description: [
      `1. Without X-404-Nonce, X-404-Signature and X-404-Addr: issues a nonce (X-404-Nonce, X-404-Mechanism headers; body NonceReady).`,
      `2. Sign the UTF-8 bytes of \`CHALLENGE::<nonce>::/x404_auth/${feature}::<mechanism>_${feature.toUpperCase()}\` with the wallet (ed25519) and send it base58-encoded in X-404-Signature, with X-404-Nonce, X-404-Addr, X-404-Feature and the feature's headers: answers LoginSuccess with a JWT.`,
      `   Other proofs of the same challenge (X-404-Sign-Mode, with the message in X-404-Message): siws (Sign In With Solana), offchain (the Solana off-chain message format, as Ledger signs it), memo-tx (a memo transaction that can never land).`,
      `3. With a valid x-jwt for this feature: answers ReauthSuccess without signing; if the feature's policy headers are sent too, they must match the token's \`pol\` (else 401 POLICY_MISMATCH).`,
    ].join('\n'),
    security: [{}, { gateToken: [] }],
    parameters: [
      ...signInParameters(feature, 'the feature of the path'),
      ...policyParameters(feature, options),
      ...FEATURE_HEADERS[feature].map(headerParameter),
    ],
    responses,
  };
}

/** GET /x404_auth/<rule>: the feature endpoint's pattern with the rule's name, no policy headers, and the failures of its leaves. */
function ruleGet(rule: Rule): JsonObject {
  // A rule answers with its deciding leaf's code (or an unreadable leaf's), and its own three.
  const codes = rule.leaves.flatMap((leaf) => (leaf.kind === 'wallets' ? [{ status: 403, code: 'WALLET_NOT_LISTED' }] : answersOf(leaf.feature)));
  if (JSON.stringify(rule.listing).includes('"not":')) codes.push({ status: 403, code: 'WALLET_DENIED' }, { status: 403, code: 'RULE_NOT_MET' });
  const responses = signInResponses(codes);
  return {
    operationId: `rule_${rule.name.replace(/[^A-Za-z0-9_]/g, '_')}`,
    tags: ['authentication'],
    summary: `Nonce, sign-in or re-authentication for rule ${rule.name} (${rule.leaves.length} leaves)`,
    description: [
      `The operator's rule ${rule.name} (GET /x404_policies shows its tree), checked whole from one signature. Sign \`CHALLENGE::<nonce>::/x404_auth/${rule.name}::<mechanism>_${rule.name.toUpperCase()}\` and send X-404-Feature: ${rule.name}.`,
      'No feature policy header, X-404-Policy or ?policy= may be sent beside it (401 POLICY_MISMATCH). A failure answers with the status and error of the leaf that decided it, plus `rule` and `failed` (the paths of the leaves that counted against the wallet).',
    ].join('\n\n'),
    security: [{}, { gateToken: [] }],
    parameters: [
      ...signInParameters(rule.name, 'the rule\'s name'),
      { name: 'X-Lat', in: 'header', required: false, description: 'Latitude, for leaves whose policy turns geolocation on.', schema: { type: 'string' } },
      { name: 'X-Long', in: 'header', required: false, description: 'Longitude, for leaves whose policy turns geolocation on.', schema: { type: 'string' } },
    ],
    responses,
  };
}

function preflight(feature: string): JsonObject {
  return {
    operationId: `preflight_${feature.replace(/[^A-Za-z0-9_]/g, '_')}`,
    tags: ['authentication'],
    summary: 'CORS preflight',
    description: 'Allows GET with every header this API names, from the configured origins (default any).',
    responses: {
      '204': {
        description: 'Preflight accepted.',
        headers: {
          'Access-Control-Allow-Origin': headerRef('AccessControlAllowOrigin'),
          'Access-Control-Allow-Methods': { schema: { type: 'string' }, example: 'GET, OPTIONS' },
          'Access-Control-Allow-Headers': { schema: { type: 'string' } },
          'Access-Control-Max-Age': { schema: { type: 'string', pattern: '^[0-9]+$' } },
        },
      },
    },
  };
}

function featurePaths(options: OpenApiOptions): JsonObject {
  const paths: JsonObject = {};
  for (const feature of FEATURE_NAMES) paths[`/x404_auth/${feature}`] = { get: featureGet(feature, options), options: preflight(feature) };
  for (const rule of options.rules?.values() ?? []) paths[`/x404_auth/${rule.name}`] = { get: ruleGet(rule), options: preflight(rule.name) };
  return paths;
}

function forwardAuth(options: OpenApiOptions): JsonObject {
  const cookieName = options.cookieName ?? 'x404_token';
  const requirement = (name: string, what: string): JsonObject[] => [
    { name, in: 'query', required: false, description: `The ${what} the protected route requires (at most once; an unknown, repeated or empty parameter is 401 INVALID_REQUIREMENT).`, schema: { type: 'string', minLength: 1 } },
    { name: `X-404-${name[0]!.toUpperCase()}${name.slice(1)}`, in: 'header', required: false, description: `The ${what} the protected route requires; when the query names one too, both must agree.`, schema: { type: 'string' } },
  ];
  const challenge = { 'WWW-Authenticate': { description: 'Bearer realm="x404"', required: true, schema: { type: 'string' } }, 'Cache-Control': headerRef('CacheControl') };
  return {
    get: {
      operationId: 'forward_auth',
      tags: ['forward auth'],
      summary: 'Is this token good for the protected route? (nginx auth_request, Traefik ForwardAuth, Caddy forward_auth, Envoy ext_authz)',
      description:
        'Any method is answered alike (proxies ask with the method of the request they guard, OPTIONS included). Not rate limited: the proxy calls once per request it guards. The token comes from `Authorization: Bearer`, `x-jwt` or the cookie; a token issued under a named policy passes only while that policy is unchanged. The query may hold only `feature`, `policy` and `rule`, each once, lower case, with a value, and `policy` only beside its `feature`; anything else, and any other path spelled like this one, is 401 `INVALID_REQUIREMENT` (with FORWARD_AUTH_SUBPATHS=true, `/x404_verify/<guarded path>` is answered too, requirements from headers only).',
      security: [{ bearerToken: [] }, { gateToken: [] }, { cookieToken: [] }],
      parameters: [
        ...requirement('feature', 'feature'),
        ...requirement('policy', 'operator policy (by name)'),
        ...requirement('rule', 'rule (by name; a rule may also be named as the feature)'),
        { name: 'Authorization', in: 'header', required: false, description: '`Bearer <token>`.', schema: { type: 'string' } },
        { $ref: '#/components/parameters/Jwt' },
        { name: cookieName, in: 'cookie', required: false, description: 'The token, as X404_SET_COOKIE sets it.', schema: { type: 'string' } },
      ],
      responses: {
        '200': {
          description: 'The token is valid and meets the requirements; the body is its claims.',
          headers: {
            'X-404-Wallet': { description: 'The wallet (the token\'s sub).', required: true, schema: MINT },
            'X-404-Feature': { description: 'The token\'s feature (a rule\'s name for a rule\'s token).', required: true, schema: { type: 'string' } },
            'X-404-Policy': { description: 'The operator policy the token was issued under, when it was a named one.', schema: { type: 'string' } },
            'X-404-Rule': { description: 'The rule the token was issued under, when it was one.', schema: { type: 'string' } },
            'X-404-Tier': { description: 'tier: the tier the wallet reached.', schema: { type: 'string', enum: ['bronze', 'silver', 'gold'] } },
            'X-404-Sign-Mode': { description: 'How the wallet signed in (the token\'s sgm; challenge when it has none).', schema: { enum: [...SIGN_MODES] } },
            'X-404-Policy-Checked': {
              description: 'none: the route named no policy or rule and the gate runs POLICY_MODE=open, so the token may have been issued under conditions its holder chose. Pin the route (policy=<name>, X-404-Policy) or run POLICY_MODE=pinned.',
              schema: { const: 'none' },
            },
            'Cache-Control': headerRef('CacheControl'),
          },
          content: { [JSON_TYPE]: { schema: ref('GateTokenClaims') } },
        },
        '401': { ...errorResponse(401, ['MISSING_TOKEN', 'INVALID_TOKEN', 'TOKEN_EXPIRED', 'FEATURE_MISMATCH', 'POLICY_MISMATCH', 'INVALID_REQUIREMENT']), headers: { ...(errorResponse(401, []).headers as JsonObject), ...challenge } },
        '431': errorResponse(431, ['HEADERS_TOO_LARGE']),
      },
    },
  };
}

const schemas: JsonObject = {
  NonceReady: {
    type: 'object',
    required: ['status', 'nonce', 'mechanism', 'expiresIn'],
    properties: {
      status: { const: 'nonce_ready' },
      nonce: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'Single use, bound to the feature; also in X-404-Nonce.' },
      mechanism: { type: 'string', description: 'Leading word of the challenge\'s feature constant; also in X-404-Mechanism.' },
      expiresIn: { type: 'integer', minimum: 1, description: 'Seconds until the nonce expires.' },
      policyMode: { type: 'string', enum: ['open', 'pinned'], description: 'Only when the gate has operator policies (POLICIES_FILE): POLICY_MODE.' },
      policies: { type: 'array', items: { type: 'string' }, description: 'Only when the gate has operator policies: the names of this feature\'s, for X-404-Policy or ?policy=.' },
      rule: { type: 'string', description: 'At /x404_auth/<rule>: the rule\'s name.' },
      rules: { type: 'array', items: { type: 'string' }, description: 'Only when the gate has rules: their names (each served at /x404_auth/<rule>).' },
      signModes: { type: 'array', items: { enum: [...SIGN_MODES] }, minItems: 1, description: 'The sign modes this gate accepts (SIGN_MODES), for X-404-Sign-Mode.' },
      siws: {
        type: 'object',
        description: 'Only when siws is accepted: what a Sign In With Solana input needs besides the nonce, the address and issuedAt.',
        required: ['domain', 'domains', 'chainId', 'resources', 'issuedAt'],
        properties: {
          domain: { type: 'string', description: 'The first of SIWS_DOMAINS (for clients that are not a page).' },
          domains: { type: 'array', items: { type: 'string' }, description: 'SIWS_DOMAINS: a page puts its own host in the message (wallets compare the domain with the page\'s origin); the gate refuses any other.' },
          statement: { type: 'string', description: 'SIWS_STATEMENT, when set: the text to show (not checked).' },
          chainId: { type: 'string', description: 'SIWS_CHAIN_ID: the Chain ID the message must carry.' },
          resources: { type: 'array', items: { type: 'string' }, description: 'Must be listed in the message: x404:<feature> binds the feature.' },
          issuedAt: { type: 'string', format: 'date-time', description: 'When this nonce was issued, by the gate\'s clock: the message\'s Issued At must lie within the nonce\'s life, so a caller whose clock is off uses this.' },
        },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  },
  LoginSuccess: {
    type: 'object',
    required: ['success', 'token', 'publicKey', 'feature'],
    properties: {
      success: { const: true },
      token: { type: 'string', pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$', description: 'JWT (HS256, or EdDSA/ES256 with a kid per JWT_ALG); claims in GateTokenClaims.' },
      publicKey: MINT,
      feature: { type: 'string', description: 'The feature, or the rule\'s name at /x404_auth/<rule>.' },
      tier: { type: 'string', enum: ['bronze', 'silver', 'gold'], description: 'tier: the highest tier met.' },
      collectionNfts: { type: 'integer', minimum: 1, description: 'collection: the NFTs counted (the count stops once min_count is reached).' },
      standardsChecked: {
        type: 'array',
        items: { type: 'string', enum: ['token-metadata', 'token-2022', 'core', 'das'] },
        description: 'collection: the NFT standards read before the answer was known.',
      },
      rule: { type: 'string', description: 'At /x404_auth/<rule>: the rule\'s name.' },
      leaves: {
        type: 'array',
        description: 'At /x404_auth/<rule>: each leaf in tree order, with its feature\'s results when it passed; passed null: the outcome was decided without it.',
        items: {
          type: 'object',
          required: ['path', 'passed'],
          properties: {
            path: { type: 'string', description: 'Where the leaf sits, e.g. $.all[2].any[0].' },
            feature: { type: 'string' },
            policy: { type: 'string' },
            wallets: { type: 'string', description: 'A wallet list leaf: the list\'s file; it passes when the list holds the wallet.' },
            passed: { type: ['boolean', 'null'] },
            error: { type: 'string', description: 'The code the leaf answered when it failed (or could not be read).' },
          },
          additionalProperties: true,
        },
      },
    },
    not: { required: ['alreadyAuthenticated'] },
    additionalProperties: true,
    description: 'Feature results (e.g. tier, walletAgeDays) are added beside the fixed fields.',
  },
  ReauthSuccess: {
    type: 'object',
    required: ['success', 'alreadyAuthenticated', 'publicKey', 'feature', 'expiresAt'],
    properties: {
      success: { const: true },
      alreadyAuthenticated: { const: true },
      publicKey: MINT,
      feature: { type: 'string', description: 'The feature, or the rule\'s name at /x404_auth/<rule>.' },
      expiresAt: { type: 'string', format: 'date-time', description: 'When the token expires.' },
    },
    additionalProperties: false,
  },
  Error: {
    type: 'object',
    required: ['error', 'message'],
    properties: {
      error: { type: 'string', description: 'Stable code to switch on.' },
      message: { type: 'string', description: 'What failed, with the numbers (mint, current, required).' },
      status: { type: 'string', enum: ['locdeny', 'locerror'], description: 'Set for location outcomes (docs/api.md §7).' },
      missing: { type: 'array', items: { type: 'string' }, description: 'MISSING_HEADER: the headers that were missing.' },
      header: { type: 'string', description: 'INVALID_HEADER: the header that was invalid.' },
      field: { type: 'string', description: 'INVALID_SIGNATURE of a sign mode\'s message: the field that does not match (e.g. domain, Expiration Time, recentBlockhash, instructions).' },
      mint: MINT,
      balance: AMOUNT,
      maximum: AMOUNT,
      requirements: { type: 'array', items: { type: 'object' }, description: 'multitoken, tier: each requirement with the balance found.' },
      rule: { type: 'string', description: 'A rule\'s sign-in: the rule\'s name (the rest of the body is the deciding leaf\'s answer).' },
      failed: { type: 'array', items: { type: 'string' }, description: 'A rule\'s sign-in: the paths of the leaves that counted against the wallet.' },
      list: { type: 'string', description: 'WALLET_NOT_LISTED / WALLET_DENIED: the wallet list\'s file.' },
      required: { type: ['integer', 'string'], description: 'MISSING_COLLECTION_NFT, COLLECTION_LIMIT: min_count; timelock: the amount required (base units, a string).' },
      found: { type: 'integer', description: 'MISSING_COLLECTION_NFT, COLLECTION_LIMIT: the NFTs counted; HOLDINGS_LIMIT: the token accounts the wallet owns (as listed).' },
      byStandard: { type: 'object', additionalProperties: { type: 'integer' }, description: 'MISSING_COLLECTION_NFT, COLLECTION_LIMIT: NFTs counted per standard read.' },
      standardsChecked: { type: 'array', items: { type: 'string' }, description: 'MISSING_COLLECTION_NFT, COLLECTION_LIMIT: the standards read.' },
      setting: { type: 'string', description: 'COLLECTION_LIMIT, HOLDINGS_LIMIT (TOKEN_ACCOUNTS_MAX): the configured bound that was reached.' },
      bound: { type: 'integer', description: 'COLLECTION_LIMIT, HOLDINGS_LIMIT: that bound\'s value.' },
      nonceSpent: {
        type: 'boolean',
        description:
          'UPSTREAM_UNAVAILABLE (503): false when the nonce is not spent (the gate gave it back), so the same signed request may be sent again after Retry-After; true when it is spent or may be, so a new nonce must be signed.',
      },
    },
    additionalProperties: true,
  },
  Health: {
    type: 'object',
    required: ['status', 'service'],
    properties: {
      status: { const: 'ok' },
      service: { type: 'string' },
      checks: { type: 'object', additionalProperties: { type: 'string' }, description: 'Dependencies: "ok" or why they are degraded.' },
    },
    additionalProperties: true,
  },
  GateTokenClaims: {
    type: 'object',
    description: 'Claims of the token in LoginSuccess (verify with HS256 and JWT_SECRET, or with EdDSA/ES256 and the keys at /.well-known/jwks.json).',
    required: ['sub', 'feature', 'iat', 'exp', 'jti', 'pol'],
    properties: {
      sub: { ...MINT, description: 'The wallet.' },
      feature: { type: 'string', description: 'The feature, or the rule\'s name for a rule\'s token.' },
      iat: { type: 'integer' },
      exp: { type: 'integer' },
      jti: { type: 'string' },
      pol: { type: 'string', description: 'base64url(SHA-256(canonical JSON of the policy headers checked)); canonical: lower-case header name → value as sent, keys sorted, no whitespace.' },
      pnm: { type: 'string', description: 'The operator policy (POLICIES_FILE) the token was issued under, when it was a named one.' },
      rul: { type: 'string', description: 'The rule the token was issued under; `pol` is then the digest of the rule\'s whole tree.' },
      lvs: { type: 'string', pattern: '^[-01?]+$', description: 'A rule\'s leaves in tree order: 1 passed, 0 failed, - not needed, ? could not be read.' },
      sgm: { enum: SIGN_MODES.filter((mode) => mode !== 'challenge'), description: 'How the wallet proved itself (X-404-Sign-Mode) when it was not the challenge string: absent means challenge.' },
      iss: { type: 'string', description: 'JWT_ISSUER, when set (always with EdDSA/ES256).' },
      aud: { type: 'string', description: 'JWT_AUDIENCE, when set.' },
      tier: { type: 'string', enum: ['bronze', 'silver', 'gold'] },
    },
    additionalProperties: true,
  },
  PolicyListing: {
    type: 'object',
    required: ['mode', 'policies'],
    properties: {
      mode: { type: 'string', enum: ['open', 'pinned'], description: 'POLICY_MODE.' },
      policies: {
        type: 'object',
        description: 'feature → policy name → the policy.',
        propertyNames: { enum: [...FEATURE_NAMES] },
        additionalProperties: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            required: ['pol', 'headers'],
            properties: {
              pol: { type: 'string', description: 'The `pol` of tokens issued under this policy.' },
              headers: { type: 'object', additionalProperties: { type: 'string' }, description: 'The policy headers exactly as a request would carry them.' },
            },
            additionalProperties: false,
          },
        },
      },
      rules: {
        type: 'object',
        description: 'rule name → the rule: the `pol` of its tokens and its tree as loaded (policy references resolved to their headers, wallet lists as file, size and digest).',
        additionalProperties: {
          type: 'object',
          required: ['pol', 'tree'],
          properties: {
            pol: { type: 'string', description: 'The `pol` of tokens issued under this rule: base64url SHA-256 of the tree as loaded.' },
            tree: { type: 'object', description: 'all / any / atLeast+of / not nodes; feature leaves with their headers and pol; wallet leaves with file, addresses and digest.' },
          },
          additionalProperties: false,
        },
      },
    },
    additionalProperties: false,
  },
  JsonWebKeySet: {
    type: 'object',
    required: ['keys'],
    properties: {
      keys: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          required: ['kty', 'kid', 'alg', 'use'],
          properties: {
            kty: { enum: ['OKP', 'EC'] },
            crv: { enum: ['Ed25519', 'P-256'] },
            alg: { enum: ['EdDSA', 'ES256'] },
            use: { const: 'sig' },
            kid: { type: 'string', description: 'RFC 7638 thumbprint unless the key file names it; tokens carry it in their header.' },
            x: { type: 'string' },
            y: { type: 'string' },
          },
          not: { required: ['d'] },
        },
      },
    },
  },
};

const responseHeaders: JsonObject = {
  X404Nonce: { description: 'The nonce (nonce issuance only): letters and digits, so a SIWS message can carry it.', schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } },
  X404Mechanism: { description: 'The challenge mechanism, e.g. SERVICE404 (nonce issuance only).', schema: { type: 'string' } },
  CacheControl: { schema: { type: 'string' }, example: 'no-store' },
  RetryAfter: { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } },
  AccessControlAllowOrigin: { schema: { type: 'string' }, example: '*' },
  AccessControlExposeHeaders: { schema: { type: 'string' }, example: 'X-404-Nonce, X-404-Mechanism' },
};

const parameters: JsonObject = {
  CacheBuster: { name: '_t', in: 'query', required: false, description: 'Ignored; clients add it to defeat caches.', schema: { type: 'string' } },
  Nonce: headerParameter({ name: 'X-404-Nonce', description: 'The nonce from step 1.', requiredToSignIn: true, schema: { type: 'string', maxLength: 64 } }),
  Signature: headerParameter({ name: 'X-404-Signature', description: 'base58 ed25519 signature (64 bytes) of the challenge.', requiredToSignIn: true }),
  Addr: headerParameter({ name: 'X-404-Addr', description: 'The wallet: base58 ed25519 public key (32 bytes).', requiredToSignIn: true, schema: MINT }),
  Jwt: headerParameter({ name: 'x-jwt', description: 'A token from an earlier sign-in, to re-authenticate without signing.' }),
  SignMode: headerParameter({
    name: 'X-404-Sign-Mode',
    description:
      'How the wallet proves the challenge (default challenge): challenge (signMessage over the challenge text), siws (a Sign In With Solana message in X-404-Message naming one of SIWS_DOMAINS, this nonce, this wallet, Chain ID SIWS_CHAIN_ID and the resource x404:<feature>), offchain (the Solana off-chain message whose body is the challenge; X-404-Message optional), memo-tx (a legacy or v0 transaction in X-404-Message, fee payer = the wallet as sole signer, zero blockhash, one Memo instruction carrying the challenge after optional compute-budget ones). The nonce answer lists the accepted modes (signModes).',
    schema: { enum: [...SIGN_MODES] },
  }),
  Message: headerParameter({
    name: 'X-404-Message',
    description: 'siws, offchain, memo-tx: base64 (standard, padded) of the signed message or transaction, at most 4096 bytes (1232 for a transaction). A malformed one is 400 INVALID_HEADER; one that does not prove this challenge for this wallet is 401 INVALID_SIGNATURE naming the field.',
    schema: { type: 'string', maxLength: 5464, pattern: '^[A-Za-z0-9+/]+={0,2}$' },
  }),
};

export function buildOpenApiDocument(options: OpenApiOptions = {}): JsonObject {
  return {
  openapi: '3.1.0',
  info: {
    title: 'x404 gate',
    version: '0.1.0',
    summary: 'Wallet-signature gate for Solana: nonce, ed25519 challenge, on-chain policy checks, JWT.',
    description: [
      'A caller obtains a one-time nonce, signs `CHALLENGE::<nonce>::<path>::<MECHANISM>_<FEATURE>` with its wallet, and sends the signature with the feature\'s policy headers; the gate checks the wallet on chain and returns a JWT bound to the wallet, the feature and the policy.',
      'All inputs are request headers (GET, no body), except POST /x404_mint/{name}, which takes a JSON body. Every response carries CORS headers and exposes X-404-Nonce and X-404-Mechanism. Any path not listed answers 404 `{"error":"NOT_FOUND"}`; any method a route does not list answers 405 `METHOD_NOT_ALLOWED`.',
      'Error bodies are `{error, message, status?}`; `error` is a stable code (see each response), `status` is `locdeny`/`locerror` for location outcomes.',
    ].join('\n\n'),
    license: { name: 'MIT', identifier: 'MIT' },
  },
  jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
  tags: [
    { name: 'authentication', description: 'The feature endpoints (docs/api.md §2–§4).' },
    { name: 'forward auth', description: 'For reverse proxies and relying parties: check tokens, list policies, publish keys.' },
    { name: 'operations', description: 'Health, metrics and this document.' },
    { name: 'minting', description: 'Co-signed mints (docs/minting.md): the gate signs a mint transaction once it passed the mint\'s rule, once per wallet.' },
  ],
  paths: {
    '/health': {
      get: {
        operationId: 'health',
        tags: ['operations'],
        summary: 'Liveness and dependency status',
        responses: {
          '200': { description: 'The gate is serving.', content: { [JSON_TYPE]: { schema: ref('Health') } } },
          '405': errorResponse(405, ['METHOD_NOT_ALLOWED']),
        },
      },
    },
    '/metrics': {
      get: {
        operationId: 'metrics',
        tags: ['operations'],
        summary: 'Prometheus metrics (text exposition format)',
        responses: {
          '200': { description: 'Metrics in the Prometheus text format, version 0.0.4.', content: { 'text/plain': { schema: { type: 'string' } } } },
          '405': errorResponse(405, ['METHOD_NOT_ALLOWED']),
        },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'openapi',
        tags: ['operations'],
        summary: 'This document',
        responses: {
          '200': { description: 'The OpenAPI 3.1 description of the gate.', content: { [JSON_TYPE]: { schema: { type: 'object', required: ['openapi', 'paths'] } } } },
          '405': errorResponse(405, ['METHOD_NOT_ALLOWED']),
        },
      },
    },
    '/x404_verify': forwardAuth(options),
    '/x404_policies': {
      get: {
        operationId: 'policies',
        tags: ['forward auth'],
        summary: 'The operator policies (POLICIES_FILE) and the `pol` of each',
        responses: {
          '200': { description: 'Every named policy per feature; empty without POLICIES_FILE.', headers: { 'Cache-Control': headerRef('CacheControl') }, content: { [JSON_TYPE]: { schema: ref('PolicyListing') } } },
          '405': errorResponse(405, ['METHOD_NOT_ALLOWED']),
        },
      },
    },
    '/.well-known/jwks.json': {
      get: {
        operationId: 'jwks',
        tags: ['forward auth'],
        summary: 'The public keys that verify the gate\'s tokens (JWT_ALG EdDSA or ES256)',
        responses: {
          '200': {
            description: `The key set; may be cached for the max-age given.${options.jwtAlg === undefined || options.jwtAlg === 'HS256' ? ' (This gate signs with HS256 and answers 404.)' : ''}`,
            headers: { 'Cache-Control': { required: true, schema: { type: 'string', pattern: '^public, max-age=[0-9]+$' } } },
            content: { 'application/jwk-set+json': { schema: ref('JsonWebKeySet') } },
          },
          '404': errorResponse(404, ['NOT_FOUND']),
          '405': errorResponse(405, ['METHOD_NOT_ALLOWED']),
        },
      },
    },
    ...featurePaths(options),
    ...mintPaths(options.mintNames),
  },
  components: {
    schemas: { ...schemas, ...mintSchemas },
    headers: responseHeaders,
    parameters,
    responses: {
      NotFound: errorResponse(404, ['NOT_FOUND']),
    },
    securitySchemes: {
      gateToken: { type: 'apiKey', in: 'header', name: 'x-jwt', description: 'A gate token, for re-authentication.' },
      bearerToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A gate token (forward auth).' },
      cookieToken: { type: 'apiKey', in: 'cookie', name: options.cookieName ?? 'x404_token', description: 'A gate token in the X404_COOKIE cookie (forward auth).' },
    },
  },
  };
}

/** The document of a gate with the default configuration (HS256, no operator policies). */
export const openApiDocument: JsonObject = buildOpenApiDocument();

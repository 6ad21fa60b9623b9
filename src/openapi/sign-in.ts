import { FEATURE_CONTRACTS, FEATURE_NAMES, policyHeaderSpecs, type FeatureContract, type FeatureName } from '../contract/features.js';
import { GEO_HEADERS, LOCATION_HEADERS } from '../contract/headers.js';
import type { Rule } from '../rules/types.js';
import { COMMON_ERRORS, errorResponse } from './errors.js';
import { contractParameter, headerParameter } from './headers.js';
import { headerRef, JSON_TYPE, ref, type JsonObject } from './json.js';

/**
 * The sign-in routes: /x404_auth/<feature> for each feature of the contract (its headers, its
 * answers) and /x404_auth/<rule> for each of the operator's rules (its leaves' answers).
 */
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
  const errors: Record<number, string[]> = Object.fromEntries(Object.entries(COMMON_ERRORS).map(([status, codes]) => [status, [...codes]]));
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
export function answersOf(feature: FeatureName): { status: number; code: string }[] {
  const contract: FeatureContract = FEATURE_CONTRACTS[feature];
  return [...contract.failures, ...(contract.limits ?? [])];
}

/** The feature's policy headers (the geolocation ones required where its contract says so) and the caller's position. */
function featureHeaderParameters(feature: FeatureName): JsonObject[] {
  const geoRequired = FEATURE_CONTRACTS[feature].geo === 'required';
  const specs = policyHeaderSpecs(feature).map((spec) => (geoRequired && GEO_HEADERS.some((geo) => geo.name === spec.name) ? { ...spec, required: true } : spec));
  return [...specs, ...LOCATION_HEADERS].map(contractParameter);
}

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
      ...featureHeaderParameters(feature),
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
      ...LOCATION_HEADERS.map((spec) => contractParameter({ ...spec, description: `${spec.description} For leaves whose policy turns geolocation on.` })),
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

export function featurePaths(options: OpenApiOptions): JsonObject {
  const paths: JsonObject = {};
  for (const feature of FEATURE_NAMES) paths[`/x404_auth/${feature}`] = { get: featureGet(feature, options), options: preflight(feature) };
  for (const rule of options.rules?.values() ?? []) paths[`/x404_auth/${rule.name}`] = { get: ruleGet(rule), options: preflight(rule.name) };
  return paths;
}


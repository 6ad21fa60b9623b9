/**
 * The OpenAPI 3.1 description of the whole gate, served at /openapi.json, built from the gate's
 * contract (src/contract): the features' headers and answers, the error codes, the mint template.
 * It names the operator policies, rules and mints the gate has loaded (POLICIES_FILE), so it is
 * built per configuration and rebuilt when SIGHUP reloads them. test/e2e/openapi.test.ts checks
 * real answers of every route against it.
 */
import { parameters, responseHeaders, schemas } from './components.js';
import { errorResponse } from './errors.js';
import { forwardAuth } from './forward-auth.js';
import { headerRef, JSON_TYPE, ref, type JsonObject } from './json.js';
import { mintPaths, mintSchemas } from './mint.js';
import { featurePaths, type OpenApiOptions } from './sign-in.js';

export type { OpenApiOptions } from './sign-in.js';

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

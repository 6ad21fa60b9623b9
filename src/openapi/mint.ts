/**
 * The mint routes in the OpenAPI document, projected from the one description of a mint template
 * (src/contract/mint.ts): the configuration's schema from its fields, the error enums from its
 * refusals, INVALID_TRANSACTION's `reason` enum from its reasons. document.ts adds them.
 */
import { RULE_REFUSALS } from '../contract/errors.js';
import { FEATURE_NAMES } from '../contract/features.js';
import { MAX_MINT_BODY_BYTES, MINT_FIELDS, MINT_PROGRAM_TEXT, MINT_QUERY_ERRORS, MINT_REFUSALS, MINT_STATE_FIELDS, TRANSACTION_REASONS } from '../contract/mint.js';
import { JSON_TYPE, ref, type JsonObject } from './json.js';
import { answersOf } from './sign-in.js';



export const mintSchemas: JsonObject = {
  MintConfiguration: {
    type: 'object',
    description: 'GET /x404_mint/<name>: what a page needs to build the transaction, and the counts. Template fields appear for the templates that have them.',
    required: ['name', 'signer', 'program', 'perWallet', 'supply', 'issued', 'reserved', 'start', 'end', 'allowPrograms'],
    properties: {
      ...Object.fromEntries(MINT_STATE_FIELDS.map((field) => [field.json, { ...field.schema, description: field.description } as JsonObject])),
      ...Object.fromEntries(MINT_FIELDS.filter((field) => field.json !== undefined).map((field) => [field.json!, { ...field.schema, description: field.description } as JsonObject])),
      tokenProgram: { type: 'string', description: 'spl-token, token-2022: the token program\'s id.' },
    },
    additionalProperties: false,
  },
  MintRequest: {
    type: 'object',
    required: ['transaction'],
    properties: {
      transaction: { type: 'string', maxLength: 1644, pattern: '^[A-Za-z0-9+/]*={0,2}$', description: 'The wire transaction (legacy or v0), standard base64 with padding, signed by its fee payer; the gate\'s signature slot may be zeros.' },
    },
  },
  MintSuccess: {
    type: 'object',
    required: ['success', 'signature', 'transaction', 'lastValidBlockHeight', 'remaining'],
    properties: {
      success: { const: true },
      signature: { type: 'string', description: 'The transaction\'s signature (its fee payer\'s): its id on-chain.' },
      transaction: { type: 'string', description: 'The transaction as sent, every signature in place (base64).' },
      lastValidBlockHeight: { type: 'integer', description: 'No block above this height can include it.' },
      remaining: { type: 'integer', minimum: 0, description: 'Mints this wallet may still get (per_wallet minus its issued and reserved).' },
    },
    additionalProperties: false,
  },
};

function errorResponse(status: number, codes: string[], description: string): JsonObject {
  const narrowed: JsonObject = { properties: { error: { enum: [...new Set(codes)].sort() } } };
  if (codes.includes('INVALID_TRANSACTION')) {
    (narrowed.properties as JsonObject).reason = { enum: Object.keys(TRANSACTION_REASONS), description: 'INVALID_TRANSACTION: why (docs/minting.md lists them).' };
  }
  return {
    description,
    headers: { 'Access-Control-Allow-Origin': { $ref: '#/components/headers/AccessControlAllowOrigin' } },
    content: { [JSON_TYPE]: { schema: { allOf: [ref('Error'), narrowed] } } },
  };
}

/** The refusals of POST by status, plus what any request can meet. */
function postResponses(): JsonObject {
  const byStatus = new Map<number, string[]>();
  const add = (status: number, code: string): void => void byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  for (const { status, code } of MINT_REFUSALS) add(status, code);
  // The rule's refusals are 403 with the deciding leaf's code (a sign-in answers some of them 500 or 401).
  for (const code of RULE_REFUSALS) add(403, code);
  const mintStatus = (status: number): number => (status === 400 || status === 429 || status === 503 ? status : 403);
  for (const feature of FEATURE_NAMES) {
    for (const { status, code } of answersOf(feature)) if (!byStatus.get(mintStatus(status))?.includes(code)) add(mintStatus(status), code);
  }
  add(403, 'LOCATION_DENIED');
  add(500, 'LOCATION_ERROR');
  add(500, 'INTERNAL_ERROR');
  add(405, 'METHOD_NOT_ALLOWED');
  add(429, 'RATE_LIMITED');
  const responses: JsonObject = {
    '200': { description: 'Co-signed, simulated and sent.', headers: { 'Cache-Control': { $ref: '#/components/headers/CacheControl' } }, content: { [JSON_TYPE]: { schema: ref('MintSuccess') } } },
  };
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const when = MINT_REFUSALS.filter((refusal) => refusal.status === status).map((refusal) => `${refusal.code}: ${refusal.when}`);
    responses[String(status)] = errorResponse(status, codes, when.length > 0 ? when.join('; ') + (status === 403 ? '; or the rule\'s refusal (its deciding leaf\'s code, with `rule` and `failed`)' : '') : `HTTP ${status}`);
  }
  return responses;
}

export function mintPaths(mintNames: readonly string[] | undefined): JsonObject {
  const name: JsonObject = {
    name: 'name',
    in: 'path',
    required: true,
    description: mintNames && mintNames.length > 0 ? `One of this gate's mints: ${mintNames.join(', ')}.` : 'A mint of POLICIES_FILE "mints" (this gate has none).',
    schema: mintNames && mintNames.length > 0 ? { type: 'string', enum: [...mintNames] } : { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' },
  };
  const templates = Object.entries(MINT_PROGRAM_TEXT).map(([program, text]) => `- \`${program}\`: ${text}.`).join('\n');
  return {
    '/x404_mint/{name}': {
      parameters: [name],
      get: {
        operationId: 'mint_configuration',
        tags: ['minting'],
        summary: 'A mint\'s configuration and counts; with ?wallet=, whether that wallet may mint now',
        parameters: [
          {
            name: 'wallet',
            in: 'query',
            required: false,
            description: 'A wallet\'s address: the answer adds `wallet` — whether a POST from it would be co-signed now (`error`: the code it would get) and its remaining mints. Kept a few seconds per wallet; rate-limited per client.',
            schema: { type: 'string' },
          },
        ],
        responses: {
          '200': { description: 'The configuration (never the signer\'s key file) and its counts.', headers: { 'Cache-Control': { $ref: '#/components/headers/CacheControl' } }, content: { [JSON_TYPE]: { schema: ref('MintConfiguration') } } },
          '400': errorResponse(400, MINT_QUERY_ERRORS.map((error) => error.code), MINT_QUERY_ERRORS.map((error) => `${error.code}: ${error.when}`).join('; ')),
          '404': errorResponse(404, ['NOT_FOUND'], 'No mint of that name.'),
          '405': errorResponse(405, ['METHOD_NOT_ALLOWED'], 'Only GET and POST.'),
          '429': errorResponse(429, ['RATE_LIMITED'], 'Too many requests from this client address.'),
          '500': errorResponse(500, ['MINT_MISCONFIGURED', 'INTERNAL_ERROR'], 'MINT_MISCONFIGURED: the signer does not hold the mint\'s on-chain role (mint authority, thirdPartySigner).'),
          '503': errorResponse(503, ['MINT_RECOUNTING', 'UPSTREAM_UNAVAILABLE'], 'MINT_RECOUNTING: the counts are being rebuilt from the chain (Retry-After); UPSTREAM_UNAVAILABLE: the reservation store (Redis) or the chain could not be read, or the mint\'s on-chain authority is not known yet.'),
        },
      },
      post: {
        operationId: 'mint_cosign',
        tags: ['minting'],
        summary: 'Co-sign one mint transaction: checked against the template and the mint\'s rule, then signed, simulated and sent',
        description: [
          'The wallet signs first (its signature is its proof of control); the gate checks, cheapest first, signs last and sends. Checks: the transaction decodes and is exactly the template (400 INVALID_TRANSACTION with `reason`); the time window (403); the fee payer\'s signature (401); the blockhash, valid at `confirmed` (400 BLOCKHASH_NOT_CONFIRMED, BLOCKHASH_EXPIRED); supply and quota (403; 503 MINT_RECOUNTING while the counts are rebuilt from the chain); the mint\'s rule on the chain as it is now (its refusal, or 503); simulation (422), before anything is reserved; the reservation, atomic across instances (403). Templates:',
          templates,
          `Send X-Lat / X-Long when the rule asks for a location. Body at most ${MAX_MINT_BODY_BYTES} bytes.`,
        ].join('\n\n'),
        parameters: [
          { name: 'X-Lat', in: 'header', required: false, description: 'Latitude, for rules whose leaves turn geolocation on.', schema: { type: 'string' } },
          { name: 'X-Long', in: 'header', required: false, description: 'Longitude, likewise.', schema: { type: 'string' } },
        ],
        requestBody: { required: true, content: { [JSON_TYPE]: { schema: ref('MintRequest') } } },
        responses: postResponses(),
      },
    },
  };
}

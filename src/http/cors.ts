import type { Config } from '../config.js';
import { FEATURE_NAMES, policyHeaderSpecs } from '../contract/features.js';
import { LOCATION_HEADERS, PROTOCOL_HEADERS } from '../contract/headers.js';

/** Every header a sign-in may send (src/contract), so a browser preflight for any feature passes. */
const ALLOWED_HEADERS = [
  ...new Set<string>([
    ...PROTOCOL_HEADERS,
    ...FEATURE_NAMES.flatMap((feature) => policyHeaderSpecs(feature).map((spec) => spec.name)),
    ...LOCATION_HEADERS.map((spec) => spec.name),
    'Content-Type',
    'Authorization',
  ]),
].join(', ');

export interface Cors {
  /** Headers for an actual response, given the request's Origin. */
  headersFor(origin: string | undefined): Record<string, string>;
  /** Headers for a preflight answer. */
  preflightFor(origin: string | undefined): Record<string, string>;
}

export function createCors(config: Config): Cors {
  const anyOrigin = config.corsOrigins.includes('*');
  const allowed = new Set(config.corsOrigins);
  const base = { 'Access-Control-Expose-Headers': 'X-404-Nonce, X-404-Mechanism' };
  const wildcard = { ...base, 'Access-Control-Allow-Origin': '*' };
  const preflightExtra = {
    // POST: the mint route (/x404_mint/<name>), whose JSON body makes browsers ask first.
    'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
    'Access-Control-Allow-Headers': ALLOWED_HEADERS,
    'Access-Control-Max-Age': '600',
  };
  const wildcardPreflight = { ...wildcard, ...preflightExtra };

  const headersFor = (origin: string | undefined): Record<string, string> => {
    if (anyOrigin) return wildcard;
    if (origin !== undefined && allowed.has(origin)) return { ...base, 'Access-Control-Allow-Origin': origin, Vary: 'Origin' };
    return { ...base, Vary: 'Origin' };
  };
  return {
    headersFor,
    preflightFor: (origin) => (anyOrigin ? wildcardPreflight : { ...headersFor(origin), ...preflightExtra }),
  };
}

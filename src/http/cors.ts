import type { Config } from '../config.js';

/** Every header docs/api.md names, so a browser preflight for any feature passes. */
const ALLOWED_HEADERS = [
  'X-404-Nonce',
  'X-404-Signature',
  'X-404-Addr',
  'X-404-Feature',
  'X-404-Policy',
  'X-404-Sign-Mode',
  'X-404-Message',
  'x-jwt',
  'excluded_mints',
  'max_holdings',
  'geo_code',
  'geo_code_locs',
  'X-Lat',
  'X-Long',
  'required_mint',
  'mint_amount',
  'min_hold_duration_days',
  'required_tokens',
  'verification_mode',
  'min_transactions',
  'time_period_days',
  'min_volume',
  'transaction_types',
  'tier_config',
  'check_protocols',
  'max_debt_allowed',
  'min_wallet_age_days',
  'min_first_transaction_days',
  'collections',
  'creators',
  'min_count',
  'scope',
  'Content-Type',
  'Authorization',
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

import type { ValueSpec } from './values.js';

/**
 * One request header of a feature's policy: its name, the kind of value it carries (values.ts),
 * whether a sign-in must send it, and the words the docs, the OpenAPI document and the SDK show.
 */
export interface HeaderSpec {
  /** Lower case, as the gate reads it (HTTP header names are case-insensitive). */
  readonly name: string;
  readonly value: ValueSpec;
  /** Must be sent to sign in (not to ask for a nonce or to re-authenticate). */
  readonly required?: boolean;
  /** The text an absent or blank header is read as. */
  readonly default?: string;
  readonly description: string;
  readonly example?: string;
}

/** The largest number of entries in a JSON list or object header, unless a feature bounds it tighter. */
export const MAX_LIST_ENTRIES = 100;

/**
 * Which token accounts count toward a balance, for the features that read balances
 * (docs/features.md, "Which token accounts count").
 */
export const SCOPE_HEADER = {
  name: 'scope',
  value: { kind: 'choice', values: ['all', 'ata'] },
  description:
    '"all": every token account the wallet owns counts; "ata": its associated token accounts only — faster, and a holder who keeps a token in another account passes a deny condition anyway. Absent: HOLDINGS_SCOPE (default "all") for deny conditions, the associated token accounts for positive ones.',
  example: 'all',
} as const satisfies HeaderSpec;

/**
 * The geolocation policy every feature accepts after its chain checks (docs/api.md §5). They are
 * policy headers (part of the token's `pol`); a feature whose contract says `geo: 'required'`
 * must be sent both.
 */
export const GEO_HEADERS = [
  {
    name: 'geo_code',
    value: { kind: 'boolean' },
    description: '"true" enables the geolocation check after the chain checks; absent means off where it is optional.',
    example: 'false',
  },
  {
    name: 'geo_code_locs',
    value: { kind: 'countries', maxLength: 1200 },
    description: 'Comma-separated ISO 3166-1 alpha-2 codes the location must be in (case-insensitive); empty: any valid location.',
    example: 'DE,FR',
  },
] as const satisfies readonly HeaderSpec[];

/** The caller's position, read when geo_code is "true": not part of the policy. */
export const LOCATION_HEADERS = [
  { name: 'x-lat', value: { kind: 'number', max: 90 }, description: 'Latitude in decimal degrees, when geo_code is "true".', example: '48.8566' },
  { name: 'x-long', value: { kind: 'number', max: 180 }, description: 'Longitude in decimal degrees, when geo_code is "true".', example: '2.3522' },
] as const satisfies readonly HeaderSpec[];

/** The headers of the sign-in protocol itself (docs/api.md §3–§6), as browsers send them. */
export const PROTOCOL_HEADERS = [
  'X-404-Nonce',
  'X-404-Signature',
  'X-404-Addr',
  'X-404-Feature',
  'X-404-Policy',
  'X-404-Sign-Mode',
  'X-404-Message',
  'x-jwt',
] as const;

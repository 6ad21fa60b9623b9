import { feature as countryFeature, iso1A2Code } from '@rapideditor/country-coder';
import { GEO_HEADERS } from '../contract/headers.js';
import { GateError, invalidHeader } from '../errors.js';
import type { HeaderBag } from '../lib/header-values.js';
import { booleanHeader, requireHeaders } from '../lib/header-values.js';

/**
 * Geolocation (docs/api.md §5): coordinates are resolved to a country offline, with the borders
 * bundled in @rapideditor/country-coder, so the check makes no network call and cannot leak
 * users' positions to a third party.
 */
export interface GeoPolicy {
  enabled: boolean;
  /** Upper-case ISO 3166-1 alpha-2 codes; empty = any valid location. */
  allowedCountries: string[];
  latitude: string | undefined;
  longitude: string | undefined;
}

export const GEO_POLICY_HEADERS: readonly string[] = GEO_HEADERS.map((spec) => spec.name);

export function parseGeoPolicy(headers: HeaderBag, required: boolean): GeoPolicy {
  if (required) requireHeaders(headers, GEO_POLICY_HEADERS);
  const enabledRaw = headers.get('geo_code');
  const enabled = enabledRaw === undefined ? false : booleanHeader('geo_code', enabledRaw);
  const allowedCountries = parseCountryList('geo_code_locs', headers.get('geo_code_locs') ?? '');
  return { enabled, allowedCountries, latitude: headers.get('x-lat'), longitude: headers.get('x-long') };
}

/** Comma-separated ISO 3166-1 alpha-2 codes, upper-cased; blank: none (any location). */
export function parseCountryList(name: string, raw: string): string[] {
  const codes = raw
    .split(',')
    .map((code) => code.trim().toUpperCase())
    .filter(Boolean);
  if (codes.length > 300) throw invalidHeader(name, 'lists more than 300 countries');
  for (const code of codes) {
    if (!/^[A-Z]{2}$/.test(code) || countryFeature(code) === null) {
      throw invalidHeader(name, `${JSON.stringify(code.slice(0, 10))} is not an ISO 3166-1 alpha-2 country code`);
    }
  }
  return codes;
}

/** Runs after the feature's chain checks (spec order); throws locerror / locdeny. */
export function checkLocation(policy: GeoPolicy): { country: string | null } | undefined {
  if (!policy.enabled) return undefined;
  const latitude = coordinate(policy.latitude, 90);
  const longitude = coordinate(policy.longitude, 180);
  if (latitude === undefined || longitude === undefined) {
    throw new GateError(500, 'LOCATION_ERROR', 'Location could not be determined: X-Lat and X-Long must be decimal degrees within range', {
      location: 'locerror',
    });
  }
  const country = iso1A2Code([longitude, latitude]);
  if (policy.allowedCountries.length > 0 && (country === null || !policy.allowedCountries.includes(country))) {
    throw new GateError(401, 'LOCATION_DENIED', `Location ${country ?? 'outside any country'} is not allowed (allowed: ${policy.allowedCountries.join(', ')})`, {
      location: 'locdeny',
    });
  }
  return { country };
}

function coordinate(raw: string | undefined, limit: number): number | undefined {
  if (raw === undefined || !/^\s*[-+]?(\d{1,3}(\.\d{0,15})?|\.\d{1,15})\s*$/.test(raw)) return undefined;
  const value = Number(raw);
  return Number.isFinite(value) && Math.abs(value) <= limit ? value : undefined;
}

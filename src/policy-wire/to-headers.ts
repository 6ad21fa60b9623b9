import { FEATURE_CONTRACTS, type FeatureName } from '../contract/features.js';

/**
 * A feature's policy as a plain object, turned into the header strings the gate reads
 * (docs/api.md §5). Strings pass through exactly as given, so a policy copied from raw headers works
 * too; booleans become "true"/"false", numbers and bigints their decimal text, a country list its
 * codes joined by commas, other arrays and objects JSON. `lat`/`long` are the caller's position
 * (X-Lat / X-Long), not part of the policy digest.
 *
 * The policy proper (what the gate digests into the token's `pol`) and the location come back
 * apart. A feature whose geolocation is required (blacklist) gets `geo_code` and `geo_code_locs`
 * defaulted off, exactly as the gate then sees them (`defaults: false` leaves them out: under an
 * operator policy the page sends only what it was given). The gate reads POLICIES_FILE with this
 * same function, so an object from that file digests to the `pol` of its tokens.
 */
export function policyToHeaders(
  feature: FeatureName,
  policy: object | undefined,
  options: { defaults?: boolean } = {},
): { policy: Record<string, string>; location: Record<string, string> } {
  const entries: Record<string, unknown> = { ...(policy as Record<string, unknown> | undefined) };
  if (FEATURE_CONTRACTS[feature].geo === 'required' && options.defaults !== false) {
    entries.geo_code ??= false;
    entries.geo_code_locs ??= '';
  }
  const policyHeaders: Record<string, string> = {};
  const location: Record<string, string> = {};
  for (const [key, value] of Object.entries(entries)) {
    if (value === undefined || value === null) continue;
    const name = key.toLowerCase();
    const locationHeader = LOCATION_KEYS[name];
    if (locationHeader !== undefined) location[locationHeader] = headerText(name, value);
    else policyHeaders[name] = headerText(name, value);
  }
  return { policy: policyHeaders, location };
}

/** Keys of a policy object that are the caller's position, sent as X-Lat / X-Long. */
const LOCATION_KEYS: Readonly<Record<string, string>> = { lat: 'x-lat', long: 'x-long', 'x-lat': 'x-lat', 'x-long': 'x-long' };

/** Headers whose list is written comma-separated rather than as JSON (the `countries` kind). */
const COMMA_LISTS: ReadonlySet<string> = new Set(['geo_code_locs']);

function headerText(name: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean' || typeof value === 'number' || typeof value === 'bigint') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError(`policy.${name} must be a finite number`);
    return String(value);
  }
  if (COMMA_LISTS.has(name) && Array.isArray(value)) return value.join(',');
  // Amounts are strings on the wire; a bigint in a nested object would make JSON.stringify throw.
  return JSON.stringify(value, (_key, nested: unknown) => (typeof nested === 'bigint' ? nested.toString() : nested));
}

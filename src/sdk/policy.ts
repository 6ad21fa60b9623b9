/**
 * A feature's policy as a plain object, turned into the header strings the gate reads
 * (docs/api.md §5). Strings pass through exactly as given, so a policy copied from raw headers works
 * too; booleans become "true"/"false", numbers and bigints their decimal text, arrays and objects
 * JSON. `lat`/`long` are the caller's position (X-Lat / X-Long), not part of the policy digest.
 */

export const FEATURES = ['blacklist', 'timelock', 'multitoken', 'activity', 'tier', 'nodebt', 'age', 'collection'] as const;
export type Feature = (typeof FEATURES)[number];

/** Token amounts are integer strings in base units (what the chain stores), e.g. "1000000". */
export type Amount = string;

/** Geolocation, accepted by every feature (required by blacklist, where the SDK defaults it off). */
export interface GeoPolicy {
  geo_code?: boolean | 'true' | 'false';
  /** ISO 3166-1 alpha-2 codes; a list is joined with commas. Empty: any valid location passes. */
  geo_code_locs?: string | readonly string[];
  /** The caller's latitude and longitude, sent as X-Lat / X-Long when geo_code is on. */
  lat?: number | string;
  long?: number | string;
}

/**
 * Which token accounts count toward a balance: `all`, every one the wallet owns; `ata`, its
 * associated token accounts only (faster; a deny condition can then be bypassed). Absent: the
 * gate's HOLDINGS_SCOPE for deny conditions, the associated token accounts for positive ones.
 */
export interface HoldingsScopePolicy {
  scope?: 'all' | 'ata';
}

export interface BlacklistPolicy extends GeoPolicy, HoldingsScopePolicy {
  excluded_mints: readonly string[] | string;
  max_holdings: Readonly<Record<string, Amount>> | string;
}

export interface TimelockPolicy extends GeoPolicy, HoldingsScopePolicy {
  required_mint: string;
  mint_amount: Amount;
  min_hold_duration_days: number | string;
}

export interface TokenRequirement {
  mint: string;
  amount: Amount;
}

export interface MultitokenPolicy extends GeoPolicy, HoldingsScopePolicy {
  required_tokens: readonly TokenRequirement[] | string;
  verification_mode?: 'ALL' | 'ANY' | number | string;
}

export interface ActivityPolicy extends GeoPolicy {
  min_transactions: number | string;
  time_period_days: number | string;
  /** SOL, decimal string. */
  min_volume?: string;
  transaction_types?: readonly ('transfer' | 'swap' | 'nft' | 'stake')[] | string;
}

export interface TierPolicy extends GeoPolicy, HoldingsScopePolicy {
  tier_config: Readonly<Partial<Record<'bronze' | 'silver' | 'gold', TokenRequirement>>> | string;
}

export interface NodebtPolicy extends GeoPolicy {
  check_protocols?: readonly string[] | string;
  /** USD, decimal string. */
  max_debt_allowed?: string;
}

export interface AgePolicy extends GeoPolicy {
  min_wallet_age_days?: number | string;
  min_first_transaction_days?: number | string;
}

export interface CollectionPolicy extends GeoPolicy {
  /** Verified collection addresses (Token Metadata collection mints, Token-2022 groups, Core collections). */
  collections?: readonly string[] | string;
  /** Verified first-creator addresses (Token Metadata, and compressed NFTs through DAS). */
  creators?: readonly string[] | string;
  /** How many NFTs must count (1..1000, default 1). */
  min_count?: number | string;
}

export interface PolicyByFeature {
  blacklist: BlacklistPolicy;
  timelock: TimelockPolicy;
  multitoken: MultitokenPolicy;
  activity: ActivityPolicy;
  tier: TierPolicy;
  nodebt: NodebtPolicy;
  age: AgePolicy;
  collection: CollectionPolicy;
}

export type PolicyFor<F extends Feature> = PolicyByFeature[F];

/** Keys of a policy object that are the caller's position, sent as X-Lat / X-Long. */
const LOCATION_HEADERS: Readonly<Record<string, string>> = { lat: 'x-lat', long: 'x-long', 'x-lat': 'x-lat', 'x-long': 'x-long' };

export function isFeature(value: string): value is Feature {
  return (FEATURES as readonly string[]).includes(value);
}

function headerText(name: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean' || typeof value === 'number' || typeof value === 'bigint') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError(`policy.${name} must be a finite number`);
    return String(value);
  }
  if (name === 'geo_code_locs' && Array.isArray(value)) return value.join(',');
  // Amounts are strings on the wire; a bigint in a nested object would make JSON.stringify throw.
  return JSON.stringify(value, (_key, nested: unknown) => (typeof nested === 'bigint' ? nested.toString() : nested));
}

/**
 * The policy's headers, lower-case names → values, split into the policy proper (what the gate
 * digests into the token's `pol`) and the caller's location. Absent (`undefined`/`null`) entries
 * are not sent. blacklist requires `geo_code` and `geo_code_locs` (docs/api.md §5), so they default
 * to off for it, exactly as the gate then sees them (`defaults: false` leaves them out: under an
 * operator policy the page sends only what it was given). The gate reads POLICIES_FILE with this
 * same function, so an object from that file digests to the `pol` of its tokens.
 */
export function policyToHeaders(
  feature: Feature,
  policy: object | undefined,
  options: { defaults?: boolean } = {},
): { policy: Record<string, string>; location: Record<string, string> } {
  const entries: Record<string, unknown> = { ...(policy as Record<string, unknown> | undefined) };
  if (feature === 'blacklist' && options.defaults !== false) {
    entries.geo_code ??= false;
    entries.geo_code_locs ??= '';
  }
  const policyHeaders: Record<string, string> = {};
  const location: Record<string, string> = {};
  for (const [key, value] of Object.entries(entries)) {
    if (value === undefined || value === null) continue;
    const name = key.toLowerCase();
    const locationHeader = LOCATION_HEADERS[name];
    if (locationHeader !== undefined) location[locationHeader] = headerText(name, value);
    else policyHeaders[name] = headerText(name, value);
  }
  return { policy: policyHeaders, location };
}

import { LruCache } from '../lib/lru-cache.js';
import type { Feature } from '../features/types.js';
import { parseGeoPolicy, type GeoPolicy } from '../geo/locate.js';
import type { HeaderBag } from '../lib/header-values.js';
import { policyDigest } from '../policy-wire/digest-node.js';
import { policyOf } from '../policy-wire/from-headers.js';

/**
 * A request's own policy (POLICY_MODE=open, no policy name): its feature's policy headers parsed,
 * the mints its checks will read, its geolocation policy and `pol`. All of it depends only on the
 * values of those headers (a feature's `parse` reads nothing else, and nothing wallet-specific),
 * and a launch sends the same ones with every login, so it is parsed once per distinct set of
 * values and shared between logins: nothing downstream writes to it (no feature's check changes
 * its params; the entry, its mints and its geolocation policy are frozen).
 *
 * Bounded: PARSED_POLICY_ENTRIES sets (least recently used dropped), each with a key of at most
 * MAX_KEY_CHARS characters (longer header sets are parsed every time, uncached), so at most
 * ~256 × (4 KB + the parsed values) ≈ 2 MB. A set that fails to parse is never cached: its error is
 * thrown again for each request.
 */
export interface ParsedPolicyHeaders<Params = unknown> {
  params: Params;
  heldMints: readonly string[];
  /** Without the request's coordinates (latitude, longitude undefined): the caller adds them. */
  geo: GeoPolicy;
  /** The digest of the policy headers sent (`pol`). */
  pol: string;
}

export const PARSED_POLICY_ENTRIES = 256;
const MAX_KEY_CHARS = 4096;
const NO_MINTS: readonly string[] = [];
const cache = new LruCache<string, ParsedPolicyHeaders>(PARSED_POLICY_ENTRIES);

/**
 * Per feature, the values of the last set parsed or found, and what they gave: a launch's logins
 * all send the same values, and comparing a handful of strings costs less than building,
 * flattening and hashing the cache key (~1.5 µs a login).
 */
const lastSeen = new Map<string, { values: (string | undefined)[]; parsed: ParsedPolicyHeaders }>();

export function parsePolicyHeaders<Params>(module: Feature<Params>, headers: HeaderBag): ParsedPolicyHeaders<Params> {
  const names = module.policyHeaders;
  const last = lastSeen.get(module.name);
  if (last !== undefined && names.every((name, i) => headers.get(name) === last.values[i])) return last.parsed as ParsedPolicyHeaders<Params>;
  const key = cacheKey(module, headers, names);
  // A set longer than the cache takes is parsed every time, and not remembered.
  if (key === undefined) return parse(module, headers);
  let parsed = cache.get(key) as ParsedPolicyHeaders<Params> | undefined;
  if (parsed === undefined) {
    parsed = parse(module, headers);
    cache.set(key, parsed);
  }
  lastSeen.set(module.name, { values: names.map((name) => headers.get(name)), parsed });
  return parsed;
}

/**
 * The feature's name, then each header as length:value (or '-' when absent): unambiguous whatever
 * the values contain. Undefined past MAX_KEY_CHARS.
 */
function cacheKey(module: Feature<unknown>, headers: HeaderBag, names: readonly string[]): string | undefined {
  let key = module.name;
  for (const name of names) {
    const value = headers.get(name);
    key += value === undefined ? '|-' : `|${value.length}:${value}`;
    if (key.length > MAX_KEY_CHARS) return undefined;
  }
  return key;
}

function parse<Params>(module: Feature<Params>, headers: HeaderBag): ParsedPolicyHeaders<Params> {
  // The order of the checks (and so of their errors) is that of a login without the cache.
  const { enabled, allowedCountries } = parseGeoPolicy(headers, module.geoRequired);
  const params = module.parse(headers);
  const heldMints = module.heldMints?.(params) ?? NO_MINTS;
  return Object.freeze({
    params,
    heldMints: Object.freeze(heldMints),
    geo: Object.freeze({ enabled, allowedCountries: Object.freeze(allowedCountries) as string[], latitude: undefined, longitude: undefined }),
    pol: policyDigest(policyOf(headers, module.policyHeaders) ?? {}),
  });
}

/** For tests. */
export function clearParsedPolicyHeaders(): void {
  cache.clear();
  lastSeen.clear();
}

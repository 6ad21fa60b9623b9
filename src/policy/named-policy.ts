import type { FeatureName } from '../contract/features.js';
import type { GeoPolicy } from '../geo/locate.js';

/**
 * Operator policies (POLICIES_FILE): per feature, named sets of the feature's policy headers,
 * fixed on the server. Everything a request needs is computed once when the file is loaded, so a
 * login under a named policy costs no more than one whose headers are the policy.
 */
export interface NamedPolicy {
  feature: FeatureName;
  name: string;
  /** The policy headers exactly as a request would carry them (lower-case name → value). */
  headers: Readonly<Record<string, string>>;
  /** The token's `pol` under this policy: the digest of `headers` (src/policy-wire/digest-node.ts). */
  digest: string;
  /** The feature's parsed parameters (Feature.parse of `headers`); read-only, shared by every login. */
  params: unknown;
  /** The geolocation policy (parseGeoPolicy of `headers`); the caller's position comes per request. */
  geo: Omit<GeoPolicy, 'latitude' | 'longitude'>;
}

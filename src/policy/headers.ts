import type { Feature } from '../features/types.js';
import { GEO_POLICY_HEADERS } from '../geo/locate.js';

const cache = new WeakMap<Feature, readonly string[]>();

/** The feature's own policy headers plus the geolocation policy every feature accepts. */
export function policyHeadersOf(module: Feature): readonly string[] {
  let names = cache.get(module);
  if (!names) {
    names = [...new Set([...module.policyHeaders, ...GEO_POLICY_HEADERS])];
    cache.set(module, names);
  }
  return names;
}

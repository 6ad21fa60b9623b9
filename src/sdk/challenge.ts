import type { Feature } from './policy.js';

/** The path the gate serves a feature on; it is also the `<path>` part of the challenge. */
export const featurePath = (feature: Feature): string => `/x404_auth/${feature}`;

/**
 * docs/api.md §4 / docs/api.md §4: `CHALLENGE::<nonce>::<path>::<MECHANISM>_<FEATURE>`, the mechanism
 * being the X-404-Mechanism the gate sent with the nonce (e.g. SERVICE404 → SERVICE404_BLACKLIST).
 */
export function buildChallenge(nonce: string, feature: Feature, mechanism: string): string {
  return `CHALLENGE::${nonce}::${featurePath(feature)}::${mechanism}_${feature.toUpperCase()}`;
}

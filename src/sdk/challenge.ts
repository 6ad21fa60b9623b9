/** The path the gate serves a feature (or a rule) on; it is also the `<path>` part of the challenge. */
export const featurePath = (feature: string): string => `/x404_auth/${feature}`;

/**
 * docs/api.md §4: `CHALLENGE::<nonce>::<path>::<MECHANISM>_<FEATURE>`, the mechanism being the
 * X-404-Mechanism the gate sent with the nonce (e.g. SERVICE404 → SERVICE404_BLACKLIST). A rule's
 * name takes the feature's place (SERVICE404_LAUNCH).
 */
export function buildChallenge(nonce: string, feature: string, mechanism: string): string {
  return `CHALLENGE::${nonce}::${featurePath(feature)}::${mechanism}_${feature.toUpperCase()}`;
}

/** CHALLENGE::<nonce>::<path>::<MECHANISM>_<FEATURE> (SEED-SPEC §2, CONTRACT §4). */
export function challengeFor(nonce: string, path: string, mechanism: string, feature: string): string {
  return `CHALLENGE::${nonce}::${path}::${mechanism}_${feature.toUpperCase()}`;
}

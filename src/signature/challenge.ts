/** CHALLENGE::<nonce>::<path>::<MECHANISM>_<FEATURE> (docs/api.md §4). */
export function challengeFor(nonce: string, path: string, mechanism: string, feature: string): string {
  return `CHALLENGE::${nonce}::${path}::${mechanism}_${feature.toUpperCase()}`;
}

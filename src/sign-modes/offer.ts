import type { Config, SignMode } from '../config.js';
import { siwsResource } from './siws.js';

/**
 * What the nonce response tells a page about signing in (docs/api.md §3's body, extended): the sign
 * modes this gate accepts and, with siws, what a Sign In With Solana input needs. The page (or the
 * SDK's `signMode: 'auto'`) builds the wallet's `signIn` input from it: `domain` is the page's own
 * host (wallets compare it with the page's origin; the gate refuses one not in `domains`), `nonce`
 * the nonce, `issuedAt` now, and `resources` as given (they bind the feature).
 */
export interface SignInOffer {
  signModes: readonly SignMode[];
  /**
   * `issuedAt`: when this nonce was issued, by the gate's clock, for the message's Issued At (the
   * gate requires it within the nonce's life, so a caller whose clock is off uses this one).
   */
  siws?: { domain: string; domains: readonly string[]; statement?: string; chainId: string; resources: string[]; issuedAt: string };
}

/** The offer for a nonce issued at `issuedAtMs`. */
export function signInOffer(config: Config, feature: string, issuedAtMs: number): SignInOffer {
  const offer: SignInOffer = { signModes: config.signModes };
  if (config.signModes.includes('siws')) {
    offer.siws = {
      domain: config.siwsDomains[0] as string,
      domains: config.siwsDomains,
      ...(config.siwsStatement === undefined ? {} : { statement: config.siwsStatement }),
      chainId: config.siwsChainId,
      resources: [siwsResource(feature)],
      issuedAt: new Date(issuedAtMs).toISOString(),
    };
  }
  return offer;
}

const cache = new WeakMap<Config, Map<string, { offer: SignInOffer; json: string }>>();

/**
 * The offer of one nonce, and the same as a suffix for a hand-serialised nonce body
 * (`,"signModes":[…],"siws":{…}`). Everything but the siws `issuedAt` is built once per
 * configuration and feature — the nonce path is hot; an ISO date has nothing to escape.
 */
export function nonceSignInOffer(config: Config, feature: string, issuedAtMs: number): { offer: SignInOffer; jsonSuffix: string } {
  let byFeature = cache.get(config);
  if (byFeature === undefined) cache.set(config, (byFeature = new Map()));
  let fixed = byFeature.get(feature);
  if (fixed === undefined) {
    const offer = signInOffer(config, feature, 0);
    const { issuedAt: _, ...siws } = offer.siws ?? {};
    const json = JSON.stringify(offer.siws ? { ...offer, siws } : offer).slice(1, -1);
    fixed = { offer, json: offer.siws ? json.slice(0, -1) : json }; // with siws: its object left open for issuedAt
    byFeature.set(feature, fixed);
  }
  if (!fixed.offer.siws) return { offer: fixed.offer, jsonSuffix: `,${fixed.json}` };
  const issuedAt = new Date(issuedAtMs).toISOString();
  return { offer: { ...fixed.offer, siws: { ...fixed.offer.siws, issuedAt } }, jsonSuffix: `,${fixed.json},"issuedAt":"${issuedAt}"}` };
}

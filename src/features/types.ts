import type { ChainReader } from '../chain/types.js';
import type { Config } from '../config.js';
import type { HeaderBag } from '../lib/header-values.js';
import type { FeatureName } from './names.js';


export interface FeatureContext {
  chain: ChainReader;
  config: Config;
  /** Milliseconds since the epoch (injectable for tests). */
  now(): number;
}

/** Feature results: merged into the success body and into the token's claims (e.g. `tier`). */
export type FeatureResults = Record<string, unknown>;

/**
 * One module per feature under src/features/, all of this shape. `parse` turns the feature's
 * headers into typed parameters or throws GateError 400 (MISSING_HEADER / INVALID_HEADER);
 * `check` reads the chain and returns results, or throws GateError with the contract's status and
 * code when the wallet does not meet the requirement (or 503 when the chain cannot be read).
 */
export interface Feature<Params = unknown> {
  name: FeatureName;
  /** Header names (lower case) whose values form the policy; their digest is the token's `pol`. */
  policyHeaders: readonly string[];
  /** blacklist requires the geolocation headers (docs/api.md §5); elsewhere absent means off. */
  geoRequired: boolean;
  parse(headers: HeaderBag): Params;
  /**
   * The mints whose balances `check` reads with getTokenBalances, when it reads any: their ATAs are
   * derived beside the signature check, off the event loop (ChainReader.atasToDerive).
   */
  heldMints?(params: Params): readonly string[];
  check(wallet: string, params: Params, context: FeatureContext): Promise<FeatureResults>;
}

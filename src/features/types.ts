import type { ChainReader } from '../chain/types.js';
import type { HoldingsScope, WalletHoldings } from '../chain/wallet-holdings.js';
import type { Config } from '../config.js';
import { FEATURE_CONTRACTS, policyHeaderSpecs, type FeatureAnswer, type FeatureName, type HeaderValues } from '../contract/features.js';
import type { HeaderBag } from '../lib/header-values.js';
import { readFeatureHeaders } from './read-headers.js';

export interface FeatureContext {
  chain: ChainReader;
  /** The wallet's tokens for this login, shared by every check of it (src/chain/wallet-holdings.ts). */
  holdings: WalletHoldings;
  config: Config;
  /** Milliseconds since the epoch (injectable for tests). */
  now(): number;
  /**
   * Aborted when the answer no longer depends on this check (a rule decided without it). The
   * chain reader a rule hands its leaves already refuses new reads then; a check that does costly
   * work of its own between reads (a DAS call, a long decode) looks at it first.
   */
  signal?: AbortSignal;
  /**
   * performance.now() ms by which the check's own reads outside the chain reader (a DAS call) must
   * end: the login's work deadline (LOGIN_TIMEOUT_MS). Absent: none.
   */
  deadlineMs?: number;
}

/** Feature results: merged into the success body and into the token's claims (e.g. `tier`). */
export type FeatureResults = Record<string, unknown>;

/**
 * What a check's reads cost, which orders the leaves of a rule (src/rules): `accounts` reads
 * accounts by address and the wallet's token-account lists (a round trip or two); `scan` scans a
 * program (getProgramAccounts: heavy for the provider, throttled by some); `history` pages a
 * wallet's transactions (many round trips).
 */
export type ReadCost = 'accounts' | 'scan' | 'history';

/**
 * A feature as the gate runs it: what its contract says (src/contract/features.ts) and what its
 * module under src/features/ adds. `parse` reads the feature's headers (src/features/read-headers.ts)
 * into typed parameters or throws GateError 400 (MISSING_HEADER / INVALID_HEADER); `check` reads
 * the chain and returns results, or throws GateError with the contract's status and code when the
 * wallet does not meet the requirement (or 503 when the chain cannot be read).
 */
export interface Feature<Params = unknown> {
  name: FeatureName;
  /** Header names (lower case) whose values form the policy, geolocation included; their digest is the token's `pol`. */
  policyHeaders: readonly string[];
  /** blacklist requires the geolocation headers (docs/api.md §5); elsewhere absent means off. */
  geoRequired: boolean;
  /** The costliest kind of read `check` may make. */
  cost: ReadCost;
  /**
   * The answers meaning "the wallet does not meet the requirement" (docs/api.md §5). Any other
   * error of `check` means the answer is unknown (the chain could not be read, a history bound was
   * hit): a rule never reads such an error as a failure, so `not` cannot turn it into a pass.
   */
  failures: readonly FeatureAnswer[];
  /** The answers meaning "the check hit a configured bound before it could decide" (HISTORY_LIMIT, …): never a failure of the wallet's. */
  limits: readonly FeatureAnswer[];
  parse(headers: HeaderBag): Params;
  /**
   * The mints whose balances `check` asks context.holdings for, when it asks for any. At its own
   * path the login reads them while the signature is being verified (WalletHoldings.prefetch); in
   * a rule, the balances of all its leaves are read together after it, their ATAs derived in the
   * verify task (ChainReader.atasToDerive).
   */
  heldMints?(params: Params): readonly string[];
  /**
   * The check fails when a balance is too HIGH (blacklist: any excluded mint, any mint above its
   * maximum), so hiding tokens could pass it: its balances count every token account the wallet
   * owns unless its scope is `ata` (src/features/lib/holdings-plan.ts). Under a rule's `not` the
   * roles swap: a check that fails when a balance is too low becomes the deny condition.
   */
  deniesHoldings?: boolean;
  /** The `scope` its policy names for its balances, when it names one (the `scope` header, src/contract/headers.ts). */
  holdingsScope?(params: Params): HoldingsScope | undefined;
  /** Whether `check` reads the wallet's whole token-account list (context.holdings.tokenAccounts()). */
  readsTokenAccounts?(params: Params): boolean;
  /** Whether `check` reads the wallet's own SOL (context.holdings.lamports()), read with the login's ATAs. */
  readsWalletAccount?(params: Params): boolean;
  check(wallet: string, params: Params, context: FeatureContext): Promise<FeatureResults>;
}

/** What a feature's module writes: its check, and how its header values become its parameters. */
export type FeatureModule<F extends FeatureName, Params> = Omit<Feature<Params>, 'name' | 'policyHeaders' | 'geoRequired' | 'failures' | 'limits' | 'parse'> & {
  /** The values its contract's reader gave, checked for what they mean together; throws 400 INVALID_HEADER. */
  params(values: HeaderValues<F>): Params;
};

/** The feature `name`: its contract, and the module that checks it. */
export function defineFeature<F extends FeatureName, Params>(name: F, module: FeatureModule<F, Params>): Feature<Params> {
  const contract = FEATURE_CONTRACTS[name];
  const { params, ...rest } = module;
  return {
    ...rest,
    name,
    policyHeaders: policyHeaderSpecs(name).map((spec) => spec.name),
    geoRequired: contract.geo === 'required',
    failures: contract.failures,
    limits: 'limits' in contract ? contract.limits : [],
    parse: (headers) => params(readFeatureHeaders(name, headers)),
  };
}

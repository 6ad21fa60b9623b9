import { GEO_HEADERS, MAX_LIST_ENTRIES, SCOPE_HEADER, type HeaderSpec } from './headers.js';
import type { ParsedValue, PolicyValue } from './values.js';

/**
 * The one description of each feature the gate serves at /x404_auth/<name>: its policy headers,
 * when a wallet passes, and the answers that mean it does not. The gate's header reader, the
 * OpenAPI document, the CORS preflight, the SDK's feature list, policy types and error codes, the
 * CLI's help and the tables of docs/api.md are projections of this object; a new feature is an
 * entry here plus its check in src/features/ (docs/architecture.md, "Where to add a feature").
 */

/** An answer that is not a token: a refusal of the wallet's, or a bound the check reached. */
export interface FeatureAnswer {
  readonly status: 403 | 500;
  readonly code: string;
  readonly when: string;
}

export interface FeatureContract {
  /** What a wallet must do to pass, in a sentence (docs, OpenAPI). */
  readonly passes: string;
  /** The feature's own policy headers, in the order the docs list them (geolocation excluded). */
  readonly headers: readonly HeaderSpec[];
  /** At least one of these headers must be sent. */
  readonly oneOf?: readonly string[];
  /** `required`: geo_code and geo_code_locs must be sent (blacklist); `optional`: absent means off. */
  readonly geo: 'required' | 'optional';
  /** The answers meaning "the wallet does not meet the requirement". */
  readonly failures: readonly FeatureAnswer[];
  /** The answers meaning "the check reached a configured bound before it could decide": never the wallet's failure. */
  readonly limits?: readonly FeatureAnswer[];
}

const ADDRESS_LIST = (maxItems: number, why?: string) => ({ kind: 'addresses', maxItems, ...(why === undefined ? {} : { why }) }) as const;
const HOLDINGS_LIMIT = { status: 500, code: 'HOLDINGS_LIMIT', when: 'the wallet owns more token accounts than TOKEN_ACCOUNTS_MAX' } as const;
const HISTORY_LIMIT = { status: 500, code: 'HISTORY_LIMIT', when: 'the history to read goes past HISTORY_MAX_PAGES or HISTORY_MAX_TRANSACTIONS' } as const;

/** `collections` and `creators`: each collection is a program scan per login, each creator a DAS search. */
export const MAX_COLLECTIONS = 10;
export const MAX_CREATORS = 10;
export const MAX_MIN_COUNT = 1000;

export const FEATURE_CONTRACTS = {
  blacklist: {
    passes: 'it holds none of the excluded mints and no mint above its maximum, in any token account it owns',
    headers: [
      {
        name: 'excluded_mints',
        value: ADDRESS_LIST(MAX_LIST_ENTRIES),
        required: true,
        description: `JSON array of mints the wallet must not hold (at most ${MAX_LIST_ENTRIES}).`,
        example: '["EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"]',
      },
      {
        name: 'max_holdings',
        value: { kind: 'amounts', maxItems: MAX_LIST_ENTRIES },
        required: true,
        description: `JSON object mint → largest allowed balance, as an integer string in base units (at most ${MAX_LIST_ENTRIES} entries).`,
        example: '{"DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263":"1000000000"}',
      },
      SCOPE_HEADER,
    ],
    geo: 'required',
    failures: [
      { status: 500, code: 'HOLDS_BANNED_TOKEN', when: 'it holds an excluded mint' },
      { status: 403, code: 'EXCEEDS_MAX_HOLDING', when: 'it holds more of a mint than its max_holdings entry' },
    ],
    limits: [HOLDINGS_LIMIT],
  },
  timelock: {
    passes: 'it has held at least an amount of a mint, without interruption, for N days',
    headers: [
      { name: 'required_mint', value: { kind: 'address' }, required: true, description: 'The mint that must be held.' },
      { name: 'mint_amount', value: { kind: 'amount' }, required: true, description: 'Balance that must be held, in base units.' },
      {
        name: 'min_hold_duration_days',
        value: { kind: 'number', max: 1_000_000 },
        required: true,
        description: 'Days the balance must have stayed at or above mint_amount without interruption.',
      },
      SCOPE_HEADER,
    ],
    geo: 'optional',
    failures: [
      { status: 500, code: 'INSUFFICIENT_BALANCE', when: 'it holds less than mint_amount now' },
      { status: 500, code: 'INSUFFICIENT_HOLD_DURATION', when: 'its balance was below mint_amount within the duration' },
    ],
    limits: [HISTORY_LIMIT, HOLDINGS_LIMIT],
  },
  multitoken: {
    passes: 'it holds all, any, or N of a list of token amounts',
    headers: [
      {
        name: 'required_tokens',
        value: { kind: 'requirements', maxItems: MAX_LIST_ENTRIES },
        required: true,
        description: `JSON array of {mint, amount} requirements (at most ${MAX_LIST_ENTRIES}).`,
      },
      {
        name: 'verification_mode',
        value: { kind: 'quantifier' },
        default: 'ALL',
        description: '"ALL" (default): every requirement; "ANY": at least one; an integer N: at least N.',
      },
      SCOPE_HEADER,
    ],
    geo: 'optional',
    failures: [{ status: 500, code: 'INSUFFICIENT_TOKENS', when: 'fewer requirements are met than the mode needs' }],
    limits: [HOLDINGS_LIMIT],
  },
  activity: {
    passes: 'it made enough transactions (of given types, moving enough SOL) in a period',
    headers: [
      { name: 'min_transactions', value: { kind: 'integer', min: 0, max: 1_000_000 }, required: true, description: 'Successful transactions needed in the period.' },
      { name: 'time_period_days', value: { kind: 'number', max: 1_000_000 }, required: true, description: 'The period, in days back from now.' },
      { name: 'min_volume', value: { kind: 'decimal', decimals: 9, unit: 'SOL' }, default: '0', description: 'Summed absolute SOL balance change needed (decimal SOL; default 0).' },
      {
        name: 'transaction_types',
        value: { kind: 'choices', values: ['transfer', 'swap', 'nft', 'stake'], maxItems: MAX_LIST_ENTRIES },
        default: '[]',
        description: 'JSON array of the transaction types that count; empty: any.',
      },
    ],
    geo: 'optional',
    failures: [{ status: 500, code: 'INSUFFICIENT_ACTIVITY', when: 'too few qualifying transactions, or too little SOL moved, in the period' }],
    limits: [HISTORY_LIMIT],
  },
  tier: {
    passes: 'it holds enough for bronze, silver or gold (the highest met goes in the token)',
    headers: [
      {
        name: 'tier_config',
        value: { kind: 'named-requirements', names: ['bronze', 'silver', 'gold'] },
        required: true,
        description: 'JSON object with any of bronze, silver, gold, each {mint, amount}; the highest tier met wins.',
      },
      SCOPE_HEADER,
    ],
    geo: 'optional',
    failures: [{ status: 500, code: 'INSUFFICIENT_TOKENS', when: 'no configured tier is met' }],
    limits: [HOLDINGS_LIMIT],
  },
  nodebt: {
    passes: 'it owes at most a USD amount on Save, Kamino and MarginFi',
    headers: [
      {
        name: 'check_protocols',
        value: { kind: 'choices', values: ['kamino', 'save', 'solend', 'marginfi'], maxItems: MAX_LIST_ENTRIES, listed: 'kamino, save (alias solend), marginfi' },
        default: '[]',
        description: 'JSON array of lending protocols to check: kamino, save (alias solend), marginfi; empty: all.',
      },
      { name: 'max_debt_allowed', value: { kind: 'decimal', decimals: 18, unit: 'USD' }, default: '0', description: 'Largest total borrowed value allowed, USD (default 0).' },
    ],
    geo: 'optional',
    failures: [{ status: 500, code: 'HAS_DEBT', when: 'its borrowed value is above the allowance, or cannot be priced' }],
  },
  age: {
    passes: 'its oldest transaction is old enough',
    headers: [
      { name: 'min_wallet_age_days', value: { kind: 'number', max: 1_000_000 }, description: "The wallet's oldest transaction must be at least this many days old." },
      { name: 'min_first_transaction_days', value: { kind: 'number', max: 1_000_000 }, description: 'Same threshold under its other name; the larger of the two applies.' },
    ],
    oneOf: ['min_wallet_age_days', 'min_first_transaction_days'],
    geo: 'optional',
    failures: [{ status: 500, code: 'WALLET_TOO_NEW', when: 'its oldest transaction is newer than the threshold' }],
    limits: [HISTORY_LIMIT],
  },
  collection: {
    passes: 'it holds NFTs of verified collections: Token Metadata, Token-2022 groups, Core, compressed',
    headers: [
      {
        name: 'collections',
        value: ADDRESS_LIST(MAX_COLLECTIONS, 'each is a program scan per login'),
        description: `JSON array of verified collection addresses (at most ${MAX_COLLECTIONS}: each is a program scan per login): Token Metadata collection mints, Token-2022 groups, Core collections. At least one of collections and creators is needed.`,
        example: '["J1S9H3QjnRtBbbuD4HjPV6RpRhwuk4zKbxsnCHuTgh9w"]',
      },
      {
        name: 'creators',
        value: ADDRESS_LIST(MAX_CREATORS, 'each is a DAS search per login'),
        description: `JSON array of verified first-creator addresses (at most ${MAX_CREATORS}), the older way of naming a collection (Token Metadata and compressed NFTs).`,
      },
      { name: 'min_count', value: { kind: 'integer', min: 1, max: MAX_MIN_COUNT }, default: '1', description: `How many NFTs must count, 1 to ${MAX_MIN_COUNT} (default 1).` },
    ],
    oneOf: ['collections', 'creators'],
    geo: 'optional',
    failures: [{ status: 500, code: 'MISSING_COLLECTION_NFT', when: 'it holds fewer NFTs of the listed collections or creators than min_count' }],
    limits: [
      { status: 500, code: 'COLLECTION_LIMIT', when: 'a DAS or scan bound stopped the count before min_count' },
      HOLDINGS_LIMIT,
    ],
  },
  balance: {
    passes: "its own SOL is at least an amount of lamports",
    headers: [
      {
        name: 'min_lamports',
        value: { kind: 'amount' },
        required: true,
        description: "Lamports the wallet's own account must hold at least, a whole number as a string (1 SOL = 1000000000).",
        example: '1000000000',
      },
    ],
    geo: 'optional',
    failures: [{ status: 500, code: 'INSUFFICIENT_SOL', when: 'its account holds fewer lamports than min_lamports' }],
  },
} as const satisfies Record<string, FeatureContract>;

export type FeatureContracts = typeof FEATURE_CONTRACTS;
export type FeatureName = keyof FeatureContracts;

/** In the order of the docs (and of every list projected from them). */
export const FEATURE_NAMES: readonly FeatureName[] = Object.keys(FEATURE_CONTRACTS) as FeatureName[];

const featureSet: ReadonlySet<string> = new Set(FEATURE_NAMES);
export const isFeatureName = (value: string): value is FeatureName => featureSet.has(value);

/** A feature's policy headers as sent: its own, then the geolocation policy. */
export function policyHeaderSpecs(feature: FeatureName): readonly HeaderSpec[] {
  return [...FEATURE_CONTRACTS[feature].headers, ...GEO_HEADERS];
}

type HeadersOf<F extends FeatureName> = FeatureContracts[F]['headers'][number];
type Given = { readonly required: true } | { readonly default: string };

/** The values the gate reads from a feature's own policy headers: absent optional ones are undefined. */
export type HeaderValues<F extends FeatureName> = {
  -readonly [H in HeadersOf<F> as H['name']]: H extends Given ? ParsedValue<H['value']> : ParsedValue<H['value']> | undefined;
};

/** The geolocation policy and the caller's position, which every feature's policy object may carry. */
export interface GeoPolicy {
  geo_code?: PolicyValue<(typeof GEO_HEADERS)[0]['value']>;
  /** ISO 3166-1 alpha-2 codes; a list is joined with commas. Empty: any valid location passes. */
  geo_code_locs?: PolicyValue<(typeof GEO_HEADERS)[1]['value']>;
  /** The caller's latitude and longitude, sent as X-Lat / X-Long when geo_code is on. */
  lat?: number | string;
  long?: number | string;
}

/**
 * A feature's policy as a caller writes it (the SDK's `policy`, POLICIES_FILE's entries): its
 * required headers, its optional ones, and the geolocation policy.
 */
export type PolicyFor<F extends FeatureName> = F extends FeatureName
  ? {
      -readonly [H in Extract<HeadersOf<F>, { readonly required: true }> as H['name']]: PolicyValue<H['value']>;
    } & {
      -readonly [H in Exclude<HeadersOf<F>, { readonly required: true }> as H['name']]?: PolicyValue<H['value']>;
    } & GeoPolicy
  : never;

export type PolicyByFeature = { [F in FeatureName]: PolicyFor<F> };

type AnswersOf<F extends FeatureName> = FeatureContracts[F] extends { limits: readonly FeatureAnswer[] }
  ? FeatureContracts[F]['failures'][number] | FeatureContracts[F]['limits'][number]
  : FeatureContracts[F]['failures'][number];

/** Every code a feature's check can refuse a wallet with, or stop at a bound with. */
export type FeatureAnswerCode = { [F in FeatureName]: AnswersOf<F>['code'] }[FeatureName];

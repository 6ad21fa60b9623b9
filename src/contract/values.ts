/**
 * The kinds of value a policy header carries. Headers are text: a kind says which texts are
 * accepted, what the gate reads from them (ParsedValue) and what a caller may write in a policy
 * object (PolicyValue, the SDK's side). Every projection — the gate's header reader, the OpenAPI
 * schemas, the SDK's types — switches on `kind`, so a new kind is added here first.
 */

/** A token amount in base units, as the chain stores it: an integer string such as "1000000". */
export type Amount = string;

/** "Hold at least `amount` base units of `mint`", as a caller writes it. */
export interface TokenRequirement {
  mint: string;
  amount: Amount;
}

/** The same, as the gate reads it. */
export interface ParsedRequirement {
  mint: string;
  amount: bigint;
}

export type ValueSpec =
  /** A base58 32-byte address. */
  | { readonly kind: 'address' }
  /** A token amount in base units: a non-negative integer, at most u64. */
  | { readonly kind: 'amount' }
  /** A whole number from `min` to `max`. */
  | { readonly kind: 'integer'; readonly min: number; readonly max: number }
  /** A non-negative number in plain decimal notation (`30`, `0.5`), at most `max`. */
  | { readonly kind: 'number'; readonly max: number }
  /** A non-negative decimal amount of `unit` with at most `decimals` places, read exactly (fixed point). */
  | { readonly kind: 'decimal'; readonly decimals: number; readonly unit: string }
  /** One of `values`, compared case-insensitively, read as written there. */
  | { readonly kind: 'choice'; readonly values: readonly string[] }
  /** `true` or `false`. */
  | { readonly kind: 'boolean' }
  /** ISO 3166-1 alpha-2 country codes separated by commas; blank: any. */
  | { readonly kind: 'countries'; readonly maxLength: number }
  /** `ALL`, `ANY` or a whole number N: how many of a list must hold. */
  | { readonly kind: 'quantifier' }
  /** JSON: an array of addresses; `why` says why `maxItems` is what it is. */
  | { readonly kind: 'addresses'; readonly maxItems: number; readonly why?: string }
  /** JSON: an object address → amount. */
  | { readonly kind: 'amounts'; readonly maxItems: number }
  /** JSON: an array of `{mint, amount}`. */
  | { readonly kind: 'requirements'; readonly maxItems: number }
  /** JSON: an object whose keys are some of `names`, each `{mint, amount}`. */
  | { readonly kind: 'named-requirements'; readonly names: readonly string[] }
  /** JSON: an array of some of `values` (compared case-insensitively); `listed` is how messages name them. */
  | { readonly kind: 'choices'; readonly values: readonly string[]; readonly maxItems: number; readonly listed?: string };

export type ValueKind = ValueSpec['kind'];

/** Whether the header's text is JSON (and so bounded by the JSON header limits). */
export const isJsonKind = (kind: ValueKind): boolean =>
  kind === 'addresses' || kind === 'amounts' || kind === 'requirements' || kind === 'named-requirements' || kind === 'choices';

type Item<List> = List extends readonly (infer Entry)[] ? Entry : never;

/** What the gate reads from a header of this kind. */
export type ParsedValue<V extends ValueSpec> = V extends { kind: 'address' }
  ? string
  : V extends { kind: 'amount' | 'decimal' }
    ? bigint
    : V extends { kind: 'integer' | 'number' }
      ? number
      : V extends { kind: 'choice'; values: infer Values }
        ? Item<Values>
        : V extends { kind: 'boolean' }
          ? boolean
          : V extends { kind: 'countries' }
            ? string[]
            : V extends { kind: 'quantifier' }
              ? 'ALL' | 'ANY' | number
              : V extends { kind: 'addresses' }
                ? string[]
                : V extends { kind: 'amounts' }
                  ? Map<string, bigint>
                  : V extends { kind: 'requirements' }
                    ? ParsedRequirement[]
                    : V extends { kind: 'named-requirements'; names: infer Names }
                      ? Partial<Record<Item<Names> & string, ParsedRequirement>>
                      : V extends { kind: 'choices'; values: infer Values }
                        ? Item<Values>[]
                        : never;

/**
 * What a caller may write for it in a policy object (the SDK turns it into the header's text). The
 * header's own text is always accepted too, exactly as it would be sent.
 */
export type PolicyValue<V extends ValueSpec> = V extends { kind: 'address' }
  ? string
  : V extends { kind: 'amount' }
    ? Amount | bigint
    : V extends { kind: 'decimal' }
      ? string
      : V extends { kind: 'integer' | 'number' }
        ? number | string
        : V extends { kind: 'choice'; values: infer Values }
          ? Item<Values> | (string & {})
          : V extends { kind: 'boolean' }
            ? boolean | 'true' | 'false'
            : V extends { kind: 'countries' }
              ? string | readonly string[]
              : V extends { kind: 'quantifier' }
                ? 'ALL' | 'ANY' | number | (string & {})
                : V extends { kind: 'addresses' }
                  ? readonly string[] | string
                  : V extends { kind: 'amounts' }
                    ? Readonly<Record<string, Amount>> | string
                    : V extends { kind: 'requirements' }
                      ? readonly TokenRequirement[] | string
                      : V extends { kind: 'named-requirements'; names: infer Names }
                        ? Readonly<Partial<Record<Item<Names> & string, TokenRequirement>>> | string
                        : V extends { kind: 'choices'; values: infer Values }
                          ? readonly Item<Values>[] | string
                          : never;

import { FEATURE_CONTRACTS, type FeatureName, type HeaderValues } from '../contract/features.js';
import type { HeaderSpec } from '../contract/headers.js';
import type { ParsedRequirement, ValueSpec } from '../contract/values.js';
import { GateError, invalidHeader, missingHeader } from '../errors.js';
import { parseCountryList } from '../geo/locate.js';
import { address, addressList, amountByAddress, baseUnits, booleanHeader, describe, jsonHeader, type HeaderBag } from '../lib/header-values.js';

/**
 * A feature's own policy headers read as its contract describes them (src/contract/features.ts):
 * the required ones are there, at least one of a `oneOf` group is, and each value sent is of its
 * kind — or the request ends here with 400 MISSING_HEADER / INVALID_HEADER naming the header.
 * An optional header with a default reads as that default when it is absent or blank. What a
 * value means beyond its kind (a mode within the list's length, a tier at least) is the
 * feature's to check.
 */
export function readFeatureHeaders<F extends FeatureName>(feature: F, headers: HeaderBag): HeaderValues<F> {
  const contract = FEATURE_CONTRACTS[feature];
  const specs: readonly HeaderSpec[] = contract.headers;
  const missing = specs.filter((spec) => spec.required === true && !headers.has(spec.name)).map((spec) => spec.name);
  if (missing.length > 0) throw missingHeader(missing);
  const oneOf: readonly string[] | undefined = 'oneOf' in contract ? contract.oneOf : undefined;
  if (oneOf !== undefined && !oneOf.some((name) => headers.has(name))) {
    throw new GateError(400, 'MISSING_HEADER', `Missing required header: ${oneOf.join(' or ')} (at least one)`, { extra: { missing: [...oneOf] } });
  }
  const values: Record<string, unknown> = {};
  for (const spec of specs) {
    const raw = headers.get(spec.name);
    const text = spec.default !== undefined && (raw === undefined || raw.trim() === '') ? spec.default : raw;
    values[spec.name] = text === undefined ? undefined : readValue(spec.name, text, spec.value);
  }
  return values as HeaderValues<F>;
}

/** One header's text as its kind reads it. */
export function readValue(name: string, raw: string, spec: ValueSpec): unknown {
  switch (spec.kind) {
    case 'address':
      return address(name, raw.trim());
    case 'amount':
      return baseUnits(name, raw.trim());
    case 'integer': {
      const value = nonNegativeInteger(name, raw, spec.max);
      if (value < spec.min) throw invalidHeader(name, `must be a whole number from ${spec.min} to ${spec.max}`);
      return value;
    }
    case 'number':
      return nonNegativeNumber(name, raw, spec.max);
    case 'decimal':
      return fixedPoint(name, raw, spec.decimals, spec.unit);
    case 'choice':
      return choice(name, raw, spec.values, undefined);
    case 'boolean':
      return booleanHeader(name, raw);
    case 'countries':
      return parseCountryList(name, raw);
    case 'quantifier':
      return quantifier(name, raw);
    case 'addresses':
      return addressList(name, raw, spec.maxItems, spec.why === undefined ? '' : ` (${spec.why})`);
    case 'amounts':
      return amountByAddress(name, raw, spec.maxItems);
    case 'requirements':
      return jsonList(name, raw, spec.maxItems, 'of {"mint", "amount"} objects').map((entry, index) => tokenRequirement(name, entry, `entry ${index}`));
    case 'named-requirements':
      return namedRequirements(name, raw, spec.names);
    case 'choices':
      return [...new Set(jsonList(name, raw, spec.maxItems, `of ${spec.listed ?? spec.values.join(', ')}`).map((entry) => choice(name, entry, spec.values, spec.listed)))];
  }
}

/** Plain decimal notation only: no exponents, hex, signs, `Infinity` or blanks. */
const PLAIN_DECIMAL = /^\d+(\.\d+)?$/;
const PLAIN_INTEGER = /^\d+$/;

/** A finite number ≥ 0 such as `30` or `0.5` (days). Capped so day arithmetic stays exact. */
export function nonNegativeNumber(name: string, raw: string, max = 1_000_000): number {
  const text = raw.trim();
  if (!PLAIN_DECIMAL.test(text)) throw invalidHeader(name, `${describe(raw)} is not a non-negative number`);
  const value = Number(text);
  if (!Number.isFinite(value) || value > max) throw invalidHeader(name, `${describe(raw)} is larger than ${max}`);
  return value;
}

/** A whole number ≥ 0 such as `10`. */
export function nonNegativeInteger(name: string, raw: string, max = Number.MAX_SAFE_INTEGER): number {
  const text = raw.trim();
  if (!PLAIN_INTEGER.test(text)) throw invalidHeader(name, `${describe(raw)} is not a non-negative whole number`);
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value > max) throw invalidHeader(name, `${describe(raw)} is larger than ${max}`);
  return value;
}

/**
 * A non-negative decimal string (`"1.5"`, `"0"`, `"250"`) as an exact fixed-point integer with
 * `decimals` fractional digits: `fixedPoint("x", "1.5", 9)` is 1_500_000_000n. More fractional
 * digits than `decimals` would need rounding, so they are refused rather than silently cut.
 */
export function fixedPoint(name: string, raw: string, decimals: number, unit: string): bigint {
  const text = raw.trim();
  if (!PLAIN_DECIMAL.test(text) || text.length > 60) {
    throw invalidHeader(name, `${describe(raw)} is not a non-negative decimal ${unit} amount such as "1.5"`);
  }
  const [whole = '0', fraction = ''] = text.split('.');
  if (fraction.length > decimals) throw invalidHeader(name, `${describe(raw)} has more than ${decimals} decimal places`);
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}

function choice(name: string, value: unknown, values: readonly string[], listed: string | undefined): string {
  const text = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
  const found = values.find((candidate) => candidate.toLowerCase() === text);
  if (found === undefined) {
    const supported = listed ?? values.map((candidate) => `"${candidate}"`).join(', ');
    throw new GateError(400, 'INVALID_HEADER', `Header ${name} is invalid: ${describe(value)} is not one of ${supported}`, {
      extra: { header: name, supported: [...values] },
    });
  }
  return found;
}

/** `ALL`, `ANY` or a whole number from 1 (whether it is at most the list's length is the feature's to say). */
function quantifier(name: string, raw: string): 'ALL' | 'ANY' | number {
  const text = raw.trim().toUpperCase();
  if (text === 'ALL' || text === 'ANY') return text;
  if (/^\d{1,4}$/.test(text) && Number(text) >= 1) return Number(text);
  throw invalidHeader(name, `${describe(raw)} is not ALL, ANY or a number of requirements`);
}

function jsonList(name: string, raw: string, maxItems: number, of: string): unknown[] {
  const parsed = jsonHeader(name, raw);
  if (!Array.isArray(parsed)) throw invalidHeader(name, `must be a JSON array ${of}`);
  if (parsed.length > maxItems) throw invalidHeader(name, `has ${parsed.length} entries; at most ${maxItems} are allowed`);
  return parsed;
}

/** A `{mint, amount}` JSON object; `where` says which entry of the header it was. */
export function tokenRequirement(name: string, value: unknown, where: string): ParsedRequirement {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidHeader(name, `${where} must be an object {"mint": "<address>", "amount": "<base units>"}`);
  }
  const entry = value as Record<string, unknown>;
  const unknownKeys = Object.keys(entry).filter((key) => key !== 'mint' && key !== 'amount');
  if (unknownKeys.length > 0) throw invalidHeader(name, `${where} has unknown field ${describe(unknownKeys[0])}`);
  if (!('mint' in entry) || !('amount' in entry)) throw invalidHeader(name, `${where} needs both "mint" and "amount"`);
  return { mint: address(name, entry.mint), amount: baseUnits(name, entry.amount) };
}

function namedRequirements(name: string, raw: string, names: readonly string[]): Record<string, ParsedRequirement> {
  const parsed = jsonHeader(name, raw);
  const shape = `a JSON object with any of ${names.map((entry) => `"${entry}"`).join(', ')}, each {"mint", "amount"}`;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalidHeader(name, `must be ${shape}`);
  const result: Record<string, ParsedRequirement> = {};
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (!names.includes(key)) throw invalidHeader(name, `unknown key ${describe(key.slice(0, 40))}; ${name} is ${shape}`);
    result[key] = tokenRequirement(name, value, key);
  }
  return result;
}

import { decodeBase58 } from './base58.js';
import { invalidHeader, missingHeader } from '../errors.js';

/** Request headers, names lower-cased, read synchronously from uWS before any await. */
export type HeaderBag = ReadonlyMap<string, string>;

/** Parsers for feature header values: each returns a typed value or throws 400 naming the header. */

export const MAX_LIST_ENTRIES = 100;
const U64_MAX = (1n << 64n) - 1n;

export function requiredHeader(headers: HeaderBag, name: string): string {
  const value = headers.get(name);
  if (value === undefined) throw missingHeader([name]);
  return value;
}

export function requireHeaders(headers: HeaderBag, names: readonly string[]): void {
  const missing = names.filter((name) => !headers.has(name));
  if (missing.length > 0) throw missingHeader(missing);
}

export function jsonHeader(name: string, raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw invalidHeader(name, 'not valid JSON');
  }
}

export function isBase58Address(value: unknown): value is string {
  if (typeof value !== 'string' || value.length < 32 || value.length > 44) return false;
  return decodeBase58(value)?.length === 32;
}

export function address(name: string, value: unknown): string {
  if (!isBase58Address(value)) throw invalidHeader(name, `${describe(value)} is not a base58 32-byte address`);
  return value;
}

/** A token amount in base units: a non-negative integer string (or a JSON safe integer) ≤ u64. */
export function baseUnits(name: string, value: unknown): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value !== 'string' || !/^\d{1,20}$/.test(value)) {
    throw invalidHeader(name, `${describe(value)} is not a non-negative integer amount in base units (send it as a string)`);
  }
  const amount = BigInt(value);
  if (amount > U64_MAX) throw invalidHeader(name, `${value} is larger than a token amount can be (u64)`);
  return amount;
}

export function addressList(name: string, raw: string): string[] {
  const parsed = jsonHeader(name, raw);
  if (!Array.isArray(parsed)) throw invalidHeader(name, 'must be a JSON array of mint addresses');
  if (parsed.length > MAX_LIST_ENTRIES) throw invalidHeader(name, `has ${parsed.length} entries; at most ${MAX_LIST_ENTRIES} are allowed`);
  return parsed.map((entry) => address(name, entry));
}

export function amountByAddress(name: string, raw: string): Map<string, bigint> {
  const parsed = jsonHeader(name, raw);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw invalidHeader(name, 'must be a JSON object mapping mint address to an amount string');
  }
  const entries = Object.entries(parsed as Record<string, unknown>);
  if (entries.length > MAX_LIST_ENTRIES) throw invalidHeader(name, `has ${entries.length} entries; at most ${MAX_LIST_ENTRIES} are allowed`);
  return new Map(entries.map(([mint, amount]) => [address(name, mint), baseUnits(name, amount)]));
}

export function booleanHeader(name: string, raw: string): boolean {
  const value = raw.trim().toLowerCase();
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw invalidHeader(name, `must be "true" or "false", got ${describe(raw)}`);
}

export function describe(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

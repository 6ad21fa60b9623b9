import { MAX_LIST_ENTRIES } from '../contract/headers.js';
import { invalidHeader, missingHeader } from '../errors.js';
import { decodeBase58 } from './base58.js';

/** Request headers, names lower-cased, read synchronously from uWS before any await. */
export type HeaderBag = ReadonlyMap<string, string>;

/** Parsers for feature header values: each returns a typed value or throws 400 naming the header. */

export { MAX_LIST_ENTRIES };

/**
 * The largest JSON header value read, in characters: 100 `{"mint","amount"}` entries (the longest
 * list any policy header may hold) take about 7,500, so twice that is room for whitespace.
 */
export const MAX_JSON_HEADER_CHARS = 16_384;
/**
 * The deepest nesting of a JSON header value: no policy header needs more than 2 (`required_tokens`,
 * `tier_config`: a list or object of `{mint, amount}`). Bounded so that nothing that reads or
 * describes a parsed value can be made to recurse by a caller.
 */
export const MAX_JSON_DEPTH = 4;
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

/** The header's JSON value, within MAX_JSON_HEADER_CHARS and MAX_JSON_DEPTH (checked before it is parsed), or 400 INVALID_HEADER. */
export function jsonHeader(name: string, raw: string): unknown {
  if (raw.length > MAX_JSON_HEADER_CHARS) throw invalidHeader(name, `is ${raw.length} characters long; a JSON header may have at most ${MAX_JSON_HEADER_CHARS}`);
  if (nestingDepth(raw) > MAX_JSON_DEPTH) throw invalidHeader(name, `nests arrays or objects more than ${MAX_JSON_DEPTH} levels deep`);
  try {
    return JSON.parse(raw);
  } catch {
    throw invalidHeader(name, 'not valid JSON');
  }
}

/** The deepest nesting of `[` and `{` outside strings, counted in one pass without parsing (the text may not be JSON at all). */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++; // backslash: the next character is escaped
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > deepest) deepest = depth;
    } else if (code === 0x5d || code === 0x7d) {
      depth--;
    }
  }
  return deepest;
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

/** A JSON array of addresses, at most `maxEntries` (MAX_LIST_ENTRIES unless a feature bounds it tighter, saying why in `because`). */
export function addressList(name: string, raw: string, maxEntries = MAX_LIST_ENTRIES, because = ''): string[] {
  const parsed = jsonHeader(name, raw);
  if (!Array.isArray(parsed)) throw invalidHeader(name, 'must be a JSON array of mint addresses');
  if (parsed.length > maxEntries) throw invalidHeader(name, `has ${parsed.length} entries; at most ${maxEntries} are allowed${because}`);
  return parsed.map((entry) => address(name, entry));
}

export function amountByAddress(name: string, raw: string, maxEntries = MAX_LIST_ENTRIES): Map<string, bigint> {
  const parsed = jsonHeader(name, raw);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw invalidHeader(name, 'must be a JSON object mapping mint address to an amount string');
  }
  const entries = Object.entries(parsed as Record<string, unknown>);
  if (entries.length > maxEntries) throw invalidHeader(name, `has ${entries.length} entries; at most ${maxEntries} are allowed`);
  return new Map(entries.map(([mint, amount]) => [address(name, mint), baseUnits(name, amount)]));
}

export function booleanHeader(name: string, raw: string): boolean {
  const value = raw.trim().toLowerCase();
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw invalidHeader(name, `must be "true" or "false", got ${describe(raw)}`);
}

const DESCRIBED_CHARS = 60;

/**
 * A value for an error message: its JSON text, cut to 60 characters. Total — it never throws,
 * whatever the value (a nesting too deep for JSON.stringify's recursion, a bigint, a cycle) —
 * because it runs while an error is being built: describing a bad value must not become a 500.
 * It writes at most 61 characters, so it recurses at most that deep and costs the same for a
 * value of any size.
 */
export function describe(value: unknown): string {
  const out = new BoundedText(DESCRIBED_CHARS + 1);
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') out.add(String(value));
  else writeJson(value, out);
  const text = out.text;
  return text.length > DESCRIBED_CHARS ? `${text.slice(0, DESCRIBED_CHARS - 3)}...` : text;
}

class BoundedText {
  text = '';
  constructor(private readonly limit: number) {}
  get full(): boolean {
    return this.text.length >= this.limit;
  }
  add(piece: string): void {
    if (!this.full) this.text += piece.length > this.limit ? piece.slice(0, this.limit) : piece;
  }
}

/** JSON.stringify's text of `value`, as far as `out` takes it. */
function writeJson(value: unknown, out: BoundedText): void {
  if (out.full) return;
  switch (typeof value) {
    case 'string':
      // Only the start can be shown: quoting the rest would cost time for nothing.
      out.add(JSON.stringify(value.length > DESCRIBED_CHARS ? value.slice(0, DESCRIBED_CHARS) : value));
      return;
    case 'number':
    case 'boolean':
      out.add(JSON.stringify(value));
      return;
    case 'bigint':
      out.add(value.toString());
      return;
    case 'object':
      break;
    default:
      out.add('null');
      return;
  }
  if (value === null) {
    out.add('null');
  } else if (Array.isArray(value)) {
    out.add('[');
    for (let i = 0; i < value.length && !out.full; i++) {
      if (i > 0) out.add(',');
      writeJson(value[i], out);
    }
    out.add(']');
  } else {
    out.add('{');
    let first = true;
    for (const key in value) {
      if (out.full) break;
      const entry = (value as Record<string, unknown>)[key];
      if (entry === undefined || typeof entry === 'function' || typeof entry === 'symbol') continue;
      if (!first) out.add(',');
      first = false;
      out.add(JSON.stringify(key.length > DESCRIBED_CHARS ? key.slice(0, DESCRIBED_CHARS) : key));
      out.add(':');
      writeJson(entry, out);
    }
    out.add('}');
  }
}

import { invalidHeader } from '../../errors.js';
import { describe } from '../../lib/header-values.js';

/**
 * Number-valued feature headers. Headers are text, so each parser says exactly which spellings it
 * accepts; anything else is a 400 naming the header (docs/api.md §7).
 */

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
 * digits than `decimals` would need rounding, so they are rejected rather than silently cut.
 */
export function fixedPoint(name: string, raw: string, decimals: number, unit: string): bigint {
  const text = raw.trim();
  if (!PLAIN_DECIMAL.test(text) || text.length > 60) {
    throw invalidHeader(name, `${describe(raw)} is not a non-negative decimal ${unit} amount such as "1.5"`);
  }
  const [whole = '0', fraction = ''] = text.split('.');
  if (fraction.length > decimals) {
    throw invalidHeader(name, `${describe(raw)} has more than ${decimals} decimal places`);
  }
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}

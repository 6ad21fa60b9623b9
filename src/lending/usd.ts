import { divideRoundingUp } from '../lib/fixed.js';

/**
 * USD amounts as exact fixed-point bigints with 18 decimals (WAD, Save's own scale). Conversions
 * from other scales round up: a debt is never under-stated by the arithmetic.
 */
export const USD_DECIMALS = 18;
export const WAD = 10n ** 18n;

/** Kamino's scaled fractions: value × 2^60. */
export function usdFromScaledFraction(sf: bigint): bigint {
  return divideRoundingUp(sf * WAD, 1n << 60n);
}

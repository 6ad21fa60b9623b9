/**
 * Exact decimal text for fixed-point bigints (lamports as SOL, WAD-scaled USD): results and
 * messages show exact values, never a float's rendering of them.
 */

/** `value / 10^decimals` as plain decimal text without trailing zeros: formatFixed(1_500_000_000n, 9) = "1.5". */
export function formatFixed(value: bigint, decimals: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** Ceiling division for non-negative bigints: amounts owed are rounded up, never down. */
export function divideRoundingUp(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator;
}

/**
 * `value / 10^decimals` shown with at most `shown` fractional digits, rounded up so a displayed
 * debt is never smaller than the real one: formatFixedCeil(1_234_567n, 6, 2) = "1.24".
 */
export function formatFixedCeil(value: bigint, decimals: number, shown: number): string {
  if (shown >= decimals) return formatFixed(value, decimals);
  const step = 10n ** BigInt(decimals - shown);
  return formatFixed(divideRoundingUp(value, step), shown);
}

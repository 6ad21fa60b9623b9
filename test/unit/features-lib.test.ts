import { describe, expect, it } from 'vitest';
import { GateError } from '../../src/errors.js';
import { divideRoundingUp, formatFixed, formatFixedCeil } from '../../src/lib/fixed.js';
import { fixedPoint, nonNegativeInteger, nonNegativeNumber } from '../../src/features/read-headers.js';
import { DAY_MS, daysSince } from '../../src/history/days.js';

describe('fixedPoint', () => {
  it('turns decimal text into exact integers', () => {
    expect(fixedPoint('v', '1.5', 9, 'SOL')).toBe(1_500_000_000n);
    expect(fixedPoint('v', '0.000000001', 9, 'SOL')).toBe(1n);
    expect(fixedPoint('v', ' 12 ', 9, 'SOL')).toBe(12_000_000_000n);
    expect(fixedPoint('v', '123456789012345678901234567890.1', 18, 'USD')).toBe(123456789012345678901234567890_100000000000000000n);
  });

  it.each(['1.', '.5', '-1', '1e3', '0x10', '1,5', 'NaN', '', '1.0000000001'])('rejects %j with 400 INVALID_HEADER', (raw) => {
    expect(() => fixedPoint('min_volume', raw, 9, 'SOL')).toThrow(GateError);
  });
});

describe('number headers', () => {
  it('accept plain non-negative decimals and integers only', () => {
    expect(nonNegativeNumber('d', '0')).toBe(0);
    expect(nonNegativeNumber('d', '2.25')).toBe(2.25);
    expect(nonNegativeInteger('n', '42')).toBe(42);
    expect(() => nonNegativeInteger('n', '4.2')).toThrow(GateError);
    expect(() => nonNegativeNumber('d', '2000000')).toThrow(/larger/);
  });
});

describe('formatting', () => {
  it('formats fixed-point values exactly', () => {
    expect(formatFixed(1_500_000_000n, 9)).toBe('1.5');
    expect(formatFixed(0n, 9)).toBe('0');
    expect(formatFixed(5n, 9)).toBe('0.000000005');
    expect(formatFixed(-25n, 1)).toBe('-2.5');
  });

  it('rounds debts up when showing fewer digits', () => {
    expect(formatFixedCeil(1_000_001n, 6, 2)).toBe('1.01');
    expect(formatFixedCeil(1_000_000n, 6, 2)).toBe('1');
    expect(divideRoundingUp(7n, 2n)).toBe(4n);
  });

  it('reports elapsed days rounded down to hundredths', () => {
    const now = 1_700_000_000_000;
    expect(daysSince(now, now - 13 * DAY_MS + 1)).toBe(12.99);
    expect(daysSince(now, now - 30 * DAY_MS)).toBe(30);
    expect(daysSince(now, now + 5)).toBe(0);
  });
});

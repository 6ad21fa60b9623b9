import { describe as group, expect, it } from 'vitest';
import { GateError } from '../../src/errors.js';
import { describe, jsonHeader, MAX_JSON_DEPTH, MAX_JSON_HEADER_CHARS } from '../../src/lib/header-values.js';

/** Building an error message must never become the error: describe() is total and bounded. */
group('describe (a value in an error message)', () => {
  it('writes what JSON.stringify writes, cut to 60 characters', () => {
    for (const value of ['abc', 'é"\\\n', 12.5, -0, true, null, [1, 'two', { three: 3 }], { a: [1, 2], b: 'x' }, 'x'.repeat(59), 'x'.repeat(100), Array.from({ length: 50 }, (_, i) => i)]) {
      const json = JSON.stringify(value);
      expect(describe(value)).toBe(json.length > 60 ? `${json.slice(0, 57)}...` : json);
    }
    expect(describe(undefined)).toBe('undefined');
  });

  it('never throws, whatever the value: nesting deeper than any stack, bigints, cycles, symbols, huge strings', () => {
    let deep: unknown[] = [];
    for (let i = 0; i < 1_000_000; i++) deep = [deep];
    expect(() => JSON.stringify(deep)).toThrow(RangeError); // what the message builder used to call
    expect(describe(deep)).toBe(`${'['.repeat(57)}...`);
    let deepObject: Record<string, unknown> = {};
    for (let i = 0; i < 1_000_000; i++) deepObject = { a: deepObject };
    expect(describe(deepObject)).toBe(`${'{"a":'.repeat(11)}{"...`);
    const cycle: Record<string, unknown> = { name: 'loop' };
    cycle.self = cycle;
    expect(describe(cycle).length).toBeLessThanOrEqual(60);
    expect(describe(12n)).toBe('12');
    expect(describe([1n, Symbol('s'), () => 1])).toBe('[1,null,null]');
    expect(describe(Symbol('s'))).toBe('Symbol(s)');
    expect(describe('y'.repeat(10_000_000))).toBe(`"${'y'.repeat(56)}...`);
  });
});

group('jsonHeader bounds', () => {
  const refusal = (raw: string): string => {
    try {
      jsonHeader('tier_config', raw);
    } catch (error) {
      expect(error).toBeInstanceOf(GateError);
      expect([(error as GateError).httpStatus, (error as GateError).code]).toEqual([400, 'INVALID_HEADER']);
      return (error as GateError).message;
    }
    throw new Error('accepted');
  };

  it(`accepts nesting up to ${MAX_JSON_DEPTH} levels and refuses deeper, counting brackets in strings as text`, () => {
    expect(jsonHeader('x', '[[[["a"]]]]')).toEqual([[[['a']]]]);
    expect(jsonHeader('x', '[{"mint":"[[[[[[","amount":"\\"{{{{"}]')).toEqual([{ mint: '[[[[[[', amount: '"{{{{' }]);
    expect(refusal('[[[[[]]]]]')).toBe(`Header tier_config is invalid: nests arrays or objects more than ${MAX_JSON_DEPTH} levels deep`);
    expect(refusal(`{"gold":${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}}`)).toContain('levels deep');
    // Not JSON at all, and unbalanced: still bounded, then refused as not JSON.
    expect(refusal('['.repeat(5000))).toContain('levels deep');
    expect(refusal(']]]]]]')).toBe('Header tier_config is invalid: not valid JSON');
  });

  it(`refuses values over ${MAX_JSON_HEADER_CHARS} characters before parsing them`, () => {
    const long = JSON.stringify(['x'.repeat(MAX_JSON_HEADER_CHARS)]);
    expect(refusal(long)).toBe(`Header tier_config is invalid: is ${long.length} characters long; a JSON header may have at most ${MAX_JSON_HEADER_CHARS}`);
    expect(jsonHeader('x', JSON.stringify('y'.repeat(MAX_JSON_HEADER_CHARS - 2)))).toHaveLength(MAX_JSON_HEADER_CHARS - 2);
  });
});

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalPolicyJson } from '../../src/policy-wire/canonical.js';
import { policyDigest } from '../../src/policy-wire/digest-node.js';
import { policyOf } from '../../src/policy-wire/from-headers.js';

describe('policy digest (pol claim)', () => {
  const headers = new Map([
    ['max_holdings', '{"m":"5"}'],
    ['excluded_mints', '["a","b"]'],
    ['geo_code', 'false'],
    ['x-404-addr', 'ignored'],
  ]);

  it('takes only the policy headers present, in name order, values exactly as sent', () => {
    const policy = policyOf(headers, ['geo_code', 'excluded_mints', 'max_holdings', 'geo_code_locs']);
    expect(canonicalPolicyJson(policy!)).toBe('{"excluded_mints":"[\\"a\\",\\"b\\"]","geo_code":"false","max_holdings":"{\\"m\\":\\"5\\"}"}');
  });

  it('is base64url SHA-256 of the canonical JSON, independent of header order', () => {
    const policy = policyOf(headers, ['max_holdings', 'excluded_mints', 'geo_code'])!;
    const expected = createHash('sha256').update(canonicalPolicyJson(policy)).digest('base64url');
    expect(policyDigest(policy)).toBe(expected);
    const reordered = policyOf(new Map([...headers].reverse()), ['excluded_mints', 'geo_code', 'max_holdings'])!;
    expect(policyDigest(reordered)).toBe(expected);
  });

  it('changes when any value changes', () => {
    const a = policyOf(headers, ['excluded_mints'])!;
    const b = policyOf(new Map([['excluded_mints', '["a"]']]), ['excluded_mints'])!;
    expect(policyDigest(a)).not.toBe(policyDigest(b));
  });

  it('is undefined when the request carries no policy header', () => {
    expect(policyOf(new Map([['x-jwt', 't']]), ['excluded_mints'])).toBeUndefined();
  });
});

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalPolicyJson } from '../../src/policy-wire/canonical.js';
import { policyDigest } from '../../src/policy-wire/digest-node.js';
import { policyOf } from '../../src/policy-wire/from-headers.js';

/** The digest computed from its definition, with no cache in the way. */
const reference = (policy: Record<string, string>): string => createHash('sha256').update(canonicalPolicyJson(policy)).digest('base64url');

describe('policy digest caching', () => {
  it('gives the defined digest for repeated, alternating and changed policies', () => {
    const a = { excluded_mints: '["A"]', geo_code: 'false', max_holdings: '{}' };
    const b = { excluded_mints: '["B"]', geo_code: 'false', max_holdings: '{}' };
    const sequence = [a, a, b, a, b, b, { ...a, geo_code: 'true' }, a, { geo_code: 'false', max_holdings: '{}' }, a, { ...a, extra: 'x' }, a];
    for (const policy of sequence) expect(policyDigest(policy)).toBe(reference(policy));
  });

  it('is the same for the same entries in any key order, different for any changed value', () => {
    const sorted = policyOf(new Map([['max_holdings', '{"m":"1"}'], ['excluded_mints', '[]']]), ['max_holdings', 'excluded_mints'])!;
    const unsorted = { max_holdings: '{"m":"1"}', excluded_mints: '[]' };
    expect(policyDigest(sorted)).toBe(policyDigest(unsorted));
    expect(policyDigest(unsorted)).toBe(reference(sorted));
    expect(policyDigest({ ...unsorted, max_holdings: '{"m":"2"}' })).not.toBe(policyDigest(unsorted));
  });

  it('stays correct past the cache bound and for texts too long to cache', () => {
    const policies = Array.from({ length: 2500 }, (_, i) => ({ excluded_mints: `["${i}"]`, geo_code: 'false' }));
    for (const policy of [...policies, ...policies.slice(0, 50)]) expect(policyDigest(policy)).toBe(reference(policy));
    const long = { excluded_mints: JSON.stringify(Array.from({ length: 100 }, (_, i) => `mint-${i}-`.padEnd(44, 'x'))) };
    expect(policyDigest(long)).toBe(reference(long));
    expect(policyDigest({ excluded_mints: long.excluded_mints.replace('mint-7-', 'mint-8-') })).not.toBe(policyDigest(long));
  });

  it('canonical JSON of an object built out of order equals that of the sorted one, integer-like keys included', () => {
    expect(canonicalPolicyJson({ b: '1', a: '2' })).toBe('{"a":"2","b":"1"}');
    expect(canonicalPolicyJson({ a: '2', b: '1' })).toBe('{"a":"2","b":"1"}');
    expect(canonicalPolicyJson({ '10': 'x', '9': 'y', a: 'z' })).toBe(JSON.stringify({ '9': 'y', '10': 'x', a: 'z' }));
  });
});

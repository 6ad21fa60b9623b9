import { describe, expect, it } from 'vitest';
import { FEATURES } from '../../src/features/registry.js';
import { parseGeoPolicy } from '../../src/geo/locate.js';
import { clearParsedPolicyHeaders, PARSED_POLICY_ENTRIES, parsePolicyHeaders } from '../../src/policy/parse-headers.js';
import { policyDigest } from '../../src/policy-wire/digest-node.js';
import { policyOf } from '../../src/policy-wire/from-headers.js';

/**
 * A request's own policy headers are parsed once per distinct set of values: every answer must be
 * what parsing those very headers gives, whatever was cached before.
 */
const MINT_A = 'GVA67q5JUQJSyCvK7gV6XmUoRAEJpdtSq7Z2VpMotxyy';
const MINT_B = '7jDnydfvyJ15KcgUWc8KFiC8waS2hnjigxw97CPzL2x9';
const blacklist = FEATURES.blacklist;
const headersOf = (entries: Record<string, string>): Map<string, string> => new Map(Object.entries(entries));
const policy = (excluded: string[], max: Record<string, string>, geo = 'false', locs = ''): Map<string, string> =>
  headersOf({ excluded_mints: JSON.stringify(excluded), max_holdings: JSON.stringify(max), geo_code: geo, geo_code_locs: locs });

/** What a login computed before the cache, from the same headers. */
function uncached(headers: Map<string, string>): unknown {
  const params = blacklist.parse(headers);
  const geo = parseGeoPolicy(headers, blacklist.geoRequired);
  return {
    params,
    heldMints: blacklist.heldMints!(params),
    geo: { ...geo, latitude: undefined, longitude: undefined },
    pol: policyDigest(policyOf(headers, blacklist.policyHeaders) ?? {}),
  };
}

describe('parsed policy headers cache', () => {
  it('answers each set of headers with its own parse, in any order of repeats and changes', () => {
    clearParsedPolicyHeaders();
    const sets = [
      policy([MINT_A], { [MINT_B]: '1000000' }),
      policy([MINT_B], { [MINT_B]: '1000000' }),
      policy([MINT_A], { [MINT_B]: '1000001' }),
      policy([MINT_A], { [MINT_B]: '1000000' }, 'true', 'US,FR'),
      policy([MINT_A], { [MINT_B]: '1000000' }, 'true', 'US'),
      policy([], {}),
    ];
    for (const headers of [...sets, ...sets.reverse(), ...sets]) expect(parsePolicyHeaders(blacklist, headers)).toEqual(uncached(headers));
  });

  it('tells an absent header from an empty one', () => {
    clearParsedPolicyHeaders();
    const a = headersOf({ excluded_mints: '[]', max_holdings: '{}', geo_code: 'false', geo_code_locs: '' });
    const b = headersOf({ excluded_mints: '[]', max_holdings: '{}', geo_code: 'false' }); // geo_code_locs absent: MISSING_HEADER
    expect(parsePolicyHeaders(blacklist, a)).toEqual(uncached(a));
    expect(() => parsePolicyHeaders(blacklist, b)).toThrow(expect.objectContaining({ code: 'MISSING_HEADER' }));
  });

  it('never caches a failure, and never serves a good parse for bad headers', () => {
    clearParsedPolicyHeaders();
    const good = policy([MINT_A], {});
    const bad = headersOf({ excluded_mints: '["not-a-mint"]', max_holdings: '{}', geo_code: 'false', geo_code_locs: '' });
    expect(parsePolicyHeaders(blacklist, good)).toEqual(uncached(good));
    for (let i = 0; i < 2; i++) expect(() => parsePolicyHeaders(blacklist, bad)).toThrow(expect.objectContaining({ code: 'INVALID_HEADER' }));
    expect(parsePolicyHeaders(blacklist, good)).toEqual(uncached(good));
  });

  it('stays correct past its bound and for header sets too long to cache', () => {
    clearParsedPolicyHeaders();
    const sets = Array.from({ length: PARSED_POLICY_ENTRIES + 20 }, (_, i) => policy([MINT_A], { [MINT_B]: String(i) }));
    for (const headers of [...sets, ...sets.slice(0, 30)]) expect(parsePolicyHeaders(blacklist, headers)).toEqual(uncached(headers));
    const long = policy([MINT_A], { [MINT_B]: '1' }, 'true', Array.from({ length: 300 }, () => 'US').join(',') + ' '.repeat(4000));
    expect(parsePolicyHeaders(blacklist, long)).toEqual(uncached(long));
  });

  it('keeps features apart', () => {
    clearParsedPolicyHeaders();
    const headers = headersOf({ required_mint: MINT_A, mint_amount: '5', min_hold_duration_days: '1', geo_code: 'false' });
    const timelock = FEATURES.timelock;
    expect(parsePolicyHeaders(timelock, headers).params).toEqual(timelock.parse(headers));
    expect(() => parsePolicyHeaders(blacklist, headers)).toThrow(expect.objectContaining({ code: 'MISSING_HEADER' }));
  });
});

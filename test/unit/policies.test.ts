import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { GateError } from '../../src/errors.js';
import { loadPolicyFile } from '../../src/policy/load.js';
import { resolvePolicy } from '../../src/policy/resolve.js';
import type { PolicySet } from '../../src/policy/types.js';
import { policyToHeaders } from '../../src/sdk/index.js';
import { policyDigest as gateDigest } from '../../src/policy-wire/digest-node.js';
import { policyOf } from '../../src/policy-wire/from-headers.js';
import { policyDigest } from '../../src/verifier/index.js';

/** POLICIES_FILE: read once, validated by the header parsers, resolved per request. */
const BONK = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const LAUNCH = { excluded_mints: [BONK], max_holdings: { [USDC]: '100000000000' }, geo_code: true, geo_code_locs: ['US', 'CA'] };
const FILE = {
  blacklist: { launch: LAUNCH, default: { excluded_mints: [], max_holdings: {} } },
  tier: { vip: { tier_config: { gold: { mint: USDC, amount: '5' } } } },
  multitoken: { pair: { required_tokens: `[{"mint":"${USDC}","amount":"1"}]`, verification_mode: 'ANY' } },
};

const dir = mkdtempSync(join(tmpdir(), 'x404-policies-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let count = 0;
function write(content: unknown, name = `p${count++}.json`): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}
const load = (content: unknown, mode: 'open' | 'pinned' = 'pinned'): PolicySet => loadPolicyFile(write(content), mode);

function startupError(content: unknown, name?: string): string {
  const path = write(content, name);
  try {
    loadPolicyFile(path, 'pinned');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe('POLICIES_FILE');
    expect((error as Error).message).toContain(path);
    return (error as Error).message;
  }
  throw new Error('the policy file was accepted');
}

function gateError(run: () => unknown): { status: number; code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (!(error instanceof GateError)) throw error;
    return { status: error.httpStatus, code: error.code, message: error.message };
  }
  throw new Error('no GateError');
}

describe('loading POLICIES_FILE', () => {
  it('turns JSON values into the exact header strings, precomputes params and the token\'s pol', () => {
    const set = load(FILE);
    const launch = set.byFeature.blacklist.get('launch')!;
    expect(launch.headers).toEqual({
      excluded_mints: JSON.stringify([BONK]),
      geo_code: 'true',
      geo_code_locs: 'US,CA',
      max_holdings: JSON.stringify({ [USDC]: '100000000000' }),
    });
    expect(launch.params).toEqual({ excludedMints: [BONK], maxHoldings: new Map([[USDC, 100_000_000_000n]]) });
    expect(launch.geo).toEqual({ enabled: true, allowedCountries: ['US', 'CA'] });
    expect(set.names).toMatchObject({ blacklist: ['default', 'launch'], tier: ['vip'], multitoken: ['pair'], age: [] });
    // A string value is taken as the header itself.
    expect(set.byFeature.multitoken.get('pair')!.headers.required_tokens).toBe(FILE.multitoken.pair.required_tokens);
  });

  it('gives pol = what a relying party computes from the same object, and what the gate digests from the same headers', async () => {
    const launch = load(FILE).byFeature.blacklist.get('launch')!;
    expect(launch.digest).toBe(await policyDigest('blacklist', LAUNCH));
    const sent = policyToHeaders('blacklist', LAUNCH).policy;
    expect(launch.digest).toBe(gateDigest(policyOf(new Map(Object.entries(sent)), ['excluded_mints', 'max_holdings', 'geo_code', 'geo_code_locs'])!));
  });

  it('pre-serializes the nonce body suffix and the /x404_policies listing', () => {
    const set = load(FILE);
    expect(JSON.parse(`{"a":1${set.nonceBodySuffix.blacklist}}`)).toEqual({ a: 1, policyMode: 'pinned', policies: ['default', 'launch'] });
    expect(JSON.parse(`{"a":1${set.nonceBodySuffix.age}}`)).toEqual({ a: 1, policyMode: 'pinned', policies: [] });
    const listing = JSON.parse(set.listingJson);
    expect(listing.mode).toBe('pinned');
    expect(Object.keys(listing.policies).sort()).toEqual(['blacklist', 'multitoken', 'tier']);
    expect(listing.policies.blacklist.launch).toEqual({ pol: set.byFeature.blacklist.get('launch')!.digest, headers: set.byFeature.blacklist.get('launch')!.headers });
  });

  it.each([
    ['an unknown feature', { blacklst: { launch: LAUNCH } }, /unknown feature "blacklst"/],
    ['an unknown field', { blacklist: { launch: { ...LAUNCH, max_holding: {} } } }, /blacklist policy "launch", field max_holding: unknown field; blacklist policies have excluded_mints, max_holdings, scope, geo_code, geo_code_locs/],
    ['a field the parser refuses', { blacklist: { launch: { ...LAUNCH, excluded_mints: ['not-a-mint'] } } }, /blacklist policy "launch", field excluded_mints: "not-a-mint" is not a base58 32-byte address/],
    ['an amount that is not an integer', { tier: { vip: { tier_config: { gold: { mint: USDC, amount: '1.5' } } } } }, /tier policy "vip", field tier_config: .*1\.5/],
    ['a bad country', { blacklist: { launch: { ...LAUNCH, geo_code_locs: 'USA' } } }, /blacklist policy "launch", field geo_code_locs: "USA" is not an ISO 3166-1/],
    ['a missing required field', { timelock: { hodl: { required_mint: USDC } } }, /timelock policy "hodl", fields? .*mint_amount.*missing/],
    ['the caller\'s position', { blacklist: { launch: { ...LAUNCH, lat: 48.1 } } }, /field lat: the caller's position/],
    ['a null value', { blacklist: { launch: { ...LAUNCH, geo_code: null } } }, /field geo_code: must not be null/],
    ['a bad policy name', { blacklist: { 'la unch': LAUNCH } }, /blacklist policy "la unch": a policy name is/],
    ['policies that are not an object', { blacklist: [LAUNCH] }, /blacklist: must be an object of named policies/],
    ['a top level that is not an object', [FILE], /must be a JSON object of features/],
    ['broken JSON', '{"blacklist": {', /is not valid JSON/],
  ])('stops start-up on %s, naming feature, policy and field', (_label, content, message) => {
    expect(startupError(content)).toMatch(message);
  });

  it('holds collection policies: JSON arrays and a number become the headers the feature parses', async () => {
    const holders = { collections: [BONK], creators: [USDC], min_count: 2 };
    const named = load({ collection: { holders } }).byFeature.collection.get('holders')!;
    expect(named.headers).toEqual({ collections: JSON.stringify([BONK]), creators: JSON.stringify([USDC]), min_count: '2' });
    expect(named.params).toEqual({ collections: [BONK], creators: [USDC], minCount: 2 });
    expect(named.digest).toBe(await policyDigest('collection', holders));
    expect(startupError({ collection: { bad: { collections: [], min_count: 1 } } })).toContain('collections');
  });

  it('refuses a file over 1 MiB, YAML, and a missing file', () => {
    const big = JSON.stringify({ blacklist: { launch: { ...LAUNCH, geo_code_locs: `${' '.repeat(1024 * 1024)}US` } } });
    expect(startupError(big)).toMatch(/is \d+ bytes; a policy file may be at most 1 MiB/);
    expect(startupError('blacklist: {}', 'policies.yaml')).toMatch(/YAML is not supported/);
    expect(() => loadPolicyFile(join(dir, 'absent.json'), 'open')).toThrow(/cannot be read \(ENOENT\)/);
  });
});

describe('resolving a request\'s policy', () => {
  const pinned = load(FILE, 'pinned');
  const open = load(FILE, 'open');
  const bag = (headers: Record<string, string>): ReadonlyMap<string, string> => new Map(Object.entries(headers));
  const launchHeaders = pinned.byFeature.blacklist.get('launch')!.headers;

  it('open mode without a name: the request headers are the policy (undefined); without a file too', () => {
    expect(resolvePolicy('blacklist', bag({ excluded_mints: '[]' }), undefined, open)).toBeUndefined();
    expect(resolvePolicy('blacklist', bag({ excluded_mints: '[]' }), undefined, undefined)).toBeUndefined();
  });

  it('a name from the header or the query selects the policy, in either mode', () => {
    for (const set of [open, pinned]) {
      expect(resolvePolicy('blacklist', bag({ 'x-404-policy': 'launch' }), undefined, set)?.name).toBe('launch');
      expect(resolvePolicy('blacklist', bag({}), 'launch', set)?.name).toBe('launch');
      expect(resolvePolicy('blacklist', bag({ 'x-404-policy': 'launch' }), 'launch', set)?.name).toBe('launch');
    }
  });

  it('pinned without a name: the feature\'s default policy, else 400 MISSING_HEADER', () => {
    expect(resolvePolicy('blacklist', bag({}), undefined, pinned)?.name).toBe('default');
    expect(gateError(() => resolvePolicy('tier', bag({ tier_config: '{}' }), undefined, pinned))).toMatchObject({ status: 400, code: 'MISSING_HEADER', message: expect.stringContaining('vip') });
  });

  it('an unknown name is 400 INVALID_HEADER naming it; header and query must agree', () => {
    expect(gateError(() => resolvePolicy('blacklist', bag({ 'x-404-policy': 'lanch' }), undefined, pinned))).toMatchObject({ status: 400, code: 'INVALID_HEADER', message: expect.stringContaining('"lanch"') });
    expect(gateError(() => resolvePolicy('tier', bag({}), 'launch', pinned))).toMatchObject({ status: 400, code: 'INVALID_HEADER', message: expect.stringContaining('"launch" for tier') });
    expect(gateError(() => resolvePolicy('blacklist', bag({ 'x-404-policy': 'launch' }), undefined, undefined))).toMatchObject({ status: 400, code: 'INVALID_HEADER', message: expect.stringContaining('POLICIES_FILE is not set') });
    expect(gateError(() => resolvePolicy('blacklist', bag({ 'x-404-policy': 'launch' }), 'default', pinned))).toMatchObject({ status: 400, code: 'INVALID_HEADER' });
  });

  it('policy headers sent with a named policy must equal it (all, some, or none of them)', () => {
    expect(resolvePolicy('blacklist', bag({ ...launchHeaders, 'x-404-policy': 'launch' }), undefined, pinned)?.name).toBe('launch');
    expect(resolvePolicy('blacklist', bag({ excluded_mints: launchHeaders.excluded_mints!, 'x-404-policy': 'launch' }), undefined, pinned)?.name).toBe('launch');
    expect(gateError(() => resolvePolicy('blacklist', bag({ ...launchHeaders, excluded_mints: '[]', 'x-404-policy': 'launch' }), undefined, pinned))).toMatchObject({
      status: 401,
      code: 'POLICY_MISMATCH',
      message: expect.stringContaining('excluded_mints'),
    });
    // The default policy too: a laxer geo setting is not "the default".
    expect(gateError(() => resolvePolicy('blacklist', bag({ geo_code: 'true' }), undefined, pinned))).toMatchObject({ status: 401, code: 'POLICY_MISMATCH' });
    // A header the policy leaves out differs as well.
    expect(gateError(() => resolvePolicy('multitoken', bag({ geo_code: 'false' }), 'pair', pinned))).toMatchObject({ status: 401, code: 'POLICY_MISMATCH' });
  });
});

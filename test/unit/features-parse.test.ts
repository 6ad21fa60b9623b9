import { describe, expect, it } from 'vitest';
import { GateError } from '../../src/errors.js';
import { activityFeature } from '../../src/features/activity.js';
import { ageFeature } from '../../src/features/age.js';
import { blacklistFeature } from '../../src/features/blacklist.js';
import { multitokenFeature } from '../../src/features/multitoken.js';
import { nodebtFeature } from '../../src/features/nodebt.js';
import { tierFeature } from '../../src/features/tier.js';
import { timelockFeature } from '../../src/features/timelock.js';
import type { Feature } from '../../src/features/types.js';

const MINT_A = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const MINT_B = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';

const bag = (headers: Record<string, string>) => new Map(Object.entries(headers));

/** The GateError a parse throws (status, code and the header it names). */
function rejection(feature: Feature<unknown>, headers: Record<string, string>): { status: number; code: string; body: Record<string, unknown> } {
  try {
    feature.parse(bag(headers));
  } catch (error) {
    if (!(error instanceof GateError)) throw error;
    return { status: error.httpStatus, code: error.code, body: error.body() };
  }
  throw new Error('parse accepted the headers');
}

describe('timelock headers', () => {
  const valid = { required_mint: MINT_A, mint_amount: '1000000000', min_hold_duration_days: '30' };

  it('parses mint, amount as a bigint and days', () => {
    expect(timelockFeature.parse(bag(valid))).toEqual({ mint: MINT_A, amount: 1_000_000_000n, minDays: 30 });
    expect(timelockFeature.parse(bag({ ...valid, min_hold_duration_days: '0.5' })).minDays).toBe(0.5);
  });

  it('names every missing header', () => {
    expect(rejection(timelockFeature, { required_mint: MINT_A })).toMatchObject({
      status: 400,
      code: 'MISSING_HEADER',
      body: { missing: ['mint_amount', 'min_hold_duration_days'] },
    });
  });

  it.each([
    ['required_mint', 'not-a-mint'],
    ['required_mint', '1111'],
    ['mint_amount', '1.5'],
    ['mint_amount', '-1'],
    ['mint_amount', '18446744073709551616'],
    ['mint_amount', '1e9'],
    ['min_hold_duration_days', '-3'],
    ['min_hold_duration_days', 'NaN'],
    ['min_hold_duration_days', 'Infinity'],
    ['min_hold_duration_days', '1e3'],
    ['min_hold_duration_days', ''],
  ])('rejects %s = %j with 400 INVALID_HEADER', (name, value) => {
    expect(rejection(timelockFeature, { ...valid, [name]: value })).toMatchObject({ status: 400, code: 'INVALID_HEADER', body: { header: name } });
  });

  it('accepts the largest u64 amount', () => {
    expect(timelockFeature.parse(bag({ ...valid, mint_amount: '18446744073709551615' })).amount).toBe(18_446_744_073_709_551_615n);
  });
});

describe('multitoken headers', () => {
  const tokens = JSON.stringify([
    { mint: MINT_A, amount: '5' },
    { mint: MINT_B, amount: '7' },
  ]);

  it('defaults to ALL and accepts ANY and N (case-insensitive)', () => {
    expect(multitokenFeature.parse(bag({ required_tokens: tokens }))).toMatchObject({ needed: 2, mode: 'ALL' });
    expect(multitokenFeature.parse(bag({ required_tokens: tokens, verification_mode: 'any' }))).toMatchObject({ needed: 1, mode: 'ANY' });
    expect(multitokenFeature.parse(bag({ required_tokens: tokens, verification_mode: '1' }))).toMatchObject({ needed: 1, mode: '1' });
    expect(multitokenFeature.parse(bag({ required_tokens: tokens })).requirements).toEqual([
      { mint: MINT_A, amount: 5n },
      { mint: MINT_B, amount: 7n },
    ]);
  });

  it.each(['0', '3', 'SOME', '-1', '1.5'])('rejects verification_mode %j (N must be 1..M)', (mode) => {
    expect(rejection(multitokenFeature, { required_tokens: tokens, verification_mode: mode })).toMatchObject({
      status: 400,
      code: 'INVALID_HEADER',
      body: { header: 'verification_mode' },
    });
  });

  it.each([
    ['not JSON', '[{'],
    ['not an array', JSON.stringify({ mint: MINT_A, amount: '1' })],
    ['empty', '[]'],
    ['entry not an object', JSON.stringify([MINT_A])],
    ['bad mint', JSON.stringify([{ mint: 'xyz', amount: '1' }])],
    ['decimal amount', JSON.stringify([{ mint: MINT_A, amount: '1.5' }])],
    ['negative amount', JSON.stringify([{ mint: MINT_A, amount: '-5' }])],
    ['missing amount', JSON.stringify([{ mint: MINT_A }])],
    ['unknown field', JSON.stringify([{ mint: MINT_A, amount: '1', extra: true }])],
    ['over 100 entries', JSON.stringify(Array.from({ length: 101 }, () => ({ mint: MINT_A, amount: '1' })))],
  ])('rejects required_tokens that is %s', (_, value) => {
    expect(rejection(multitokenFeature, { required_tokens: value })).toMatchObject({ status: 400, code: 'INVALID_HEADER' });
  });

  it('requires required_tokens', () => {
    expect(rejection(multitokenFeature, { verification_mode: 'ALL' })).toMatchObject({ status: 400, code: 'MISSING_HEADER' });
  });
});

describe('tier headers', () => {
  it('orders configured tiers highest first', () => {
    const params = tierFeature.parse(bag({ tier_config: JSON.stringify({ bronze: { mint: MINT_A, amount: '100' }, gold: { mint: MINT_B, amount: '9' } }) }));
    expect(params.tiers.map((t) => t.tier)).toEqual(['gold', 'bronze']);
    expect(params.tiers[0]!.requirement).toEqual({ mint: MINT_B, amount: 9n });
  });

  it.each([
    ['unknown tier', JSON.stringify({ platinum: { mint: MINT_A, amount: '1' } })],
    ['no tiers', '{}'],
    ['an array', '[]'],
    ['a bad amount', JSON.stringify({ gold: { mint: MINT_A, amount: 'lots' } })],
    ['a bad mint', JSON.stringify({ gold: { mint: MINT_A.slice(0, 20), amount: '1' } })],
  ])('rejects tier_config with %s', (_, value) => {
    expect(rejection(tierFeature, { tier_config: value })).toMatchObject({ status: 400, code: 'INVALID_HEADER', body: { header: 'tier_config' } });
  });
});

describe('activity headers', () => {
  const valid = { min_transactions: '10', time_period_days: '30' };

  it('parses counts, days, SOL volume as exact lamports, and types', () => {
    expect(activityFeature.parse(bag(valid))).toEqual({ minTransactions: 10, periodDays: 30, minVolumeLamports: 0n, types: [] });
    const params = activityFeature.parse(bag({ ...valid, min_volume: '1.000000001', transaction_types: '["swap","Transfer","swap"]' }));
    expect(params.minVolumeLamports).toBe(1_000_000_001n);
    expect(params.types).toEqual(['swap', 'transfer']);
  });

  it.each([
    ['min_transactions', '2.5'],
    ['min_transactions', '-1'],
    ['time_period_days', 'week'],
    ['min_volume', '0.0000000001'],
    ['min_volume', '-1'],
    ['min_volume', '1e3'],
    ['transaction_types', '["swap","lend"]'],
    ['transaction_types', '"swap"'],
    ['transaction_types', '[1]'],
  ])('rejects %s = %j', (name, value) => {
    expect(rejection(activityFeature, { ...valid, [name]: value })).toMatchObject({ status: 400, code: 'INVALID_HEADER', body: { header: name } });
  });

  it('requires min_transactions and time_period_days', () => {
    expect(rejection(activityFeature, {})).toMatchObject({ code: 'MISSING_HEADER', body: { missing: ['min_transactions', 'time_period_days'] } });
  });
});

describe('nodebt headers', () => {
  it('defaults to every protocol and no allowed debt', () => {
    expect(nodebtFeature.parse(bag({}))).toEqual({ protocols: ['kamino', 'save', 'marginfi'], maxDebtUsdWad: 0n });
    expect(nodebtFeature.parse(bag({ check_protocols: '[]' })).protocols).toEqual(['kamino', 'save', 'marginfi']);
  });

  it('maps solend to save and keeps the USD allowance exact', () => {
    expect(nodebtFeature.parse(bag({ check_protocols: '["solend","Kamino","save"]', max_debt_allowed: '100.25' }))).toEqual({
      protocols: ['save', 'kamino'],
      maxDebtUsdWad: 100_250_000_000_000_000_000n,
    });
  });

  it('rejects an unknown protocol, listing the supported ones', () => {
    const { status, code, body } = rejection(nodebtFeature, { check_protocols: '["aave"]' });
    expect({ status, code }).toEqual({ status: 400, code: 'INVALID_HEADER' });
    expect(body.message).toMatch(/kamino, save \(alias solend\), marginfi/);
    expect(body.supported).toEqual(['kamino', 'save', 'solend', 'marginfi']);
  });

  it.each([
    ['check_protocols', '{"kamino":true}'],
    ['check_protocols', 'kamino'],
    ['max_debt_allowed', '-5'],
    ['max_debt_allowed', 'ten'],
    ['max_debt_allowed', '1e2'],
  ])('rejects %s = %j', (name, value) => {
    expect(rejection(nodebtFeature, { [name]: value })).toMatchObject({ status: 400, code: 'INVALID_HEADER' });
  });
});

describe('age headers', () => {
  it('applies the stricter of the two thresholds; one alone is enough', () => {
    expect(ageFeature.parse(bag({ min_wallet_age_days: '30', min_first_transaction_days: '90' }))).toEqual({ minDays: 90 });
    expect(ageFeature.parse(bag({ min_wallet_age_days: '30' }))).toEqual({ minDays: 30 });
    expect(ageFeature.parse(bag({ min_first_transaction_days: '7.5' }))).toEqual({ minDays: 7.5 });
  });

  it('requires at least one threshold', () => {
    expect(rejection(ageFeature, {})).toMatchObject({ code: 'MISSING_HEADER', body: { missing: ['min_wallet_age_days', 'min_first_transaction_days'] } });
  });

  it.each(['-1', 'abc', '', '1e9', 'Infinity'])('rejects %j', (value) => {
    expect(rejection(ageFeature, { min_wallet_age_days: value })).toMatchObject({ status: 400, code: 'INVALID_HEADER' });
  });
});

describe('policy headers', () => {
  it('name every header each feature reads, lower case, the geolocation policy last', () => {
    const geo = ['geo_code', 'geo_code_locs'];
    expect(timelockFeature.policyHeaders).toEqual(['required_mint', 'mint_amount', 'min_hold_duration_days', 'scope', ...geo]);
    expect(multitokenFeature.policyHeaders).toEqual(['required_tokens', 'verification_mode', 'scope', ...geo]);
    expect(activityFeature.policyHeaders).toEqual(['min_transactions', 'time_period_days', 'min_volume', 'transaction_types', ...geo]);
    expect(tierFeature.policyHeaders).toEqual(['tier_config', 'scope', ...geo]);
    expect(blacklistFeature.policyHeaders).toEqual(['excluded_mints', 'max_holdings', 'scope', ...geo]);
    expect(nodebtFeature.policyHeaders).toEqual(['check_protocols', 'max_debt_allowed', ...geo]);
    expect(ageFeature.policyHeaders).toEqual(['min_wallet_age_days', 'min_first_transaction_days', ...geo]);
  });
});

describe('scope (which token accounts count)', () => {
  const policies: [Feature<any>, Record<string, string>][] = [
    [blacklistFeature, { excluded_mints: JSON.stringify([MINT_A]), max_holdings: '{}' }],
    [tierFeature, { tier_config: JSON.stringify({ bronze: { mint: MINT_A, amount: '1' } }) }],
    [multitokenFeature, { required_tokens: JSON.stringify([{ mint: MINT_A, amount: '1' }]) }],
    [timelockFeature, { required_mint: MINT_A, mint_amount: '1', min_hold_duration_days: '1' }],
  ];

  it.each(policies)('%s: absent, "all" or "ata" (any case, trimmed)', (feature, headers) => {
    expect(feature.holdingsScope!(feature.parse(bag(headers)))).toBeUndefined();
    expect(feature.holdingsScope!(feature.parse(bag({ ...headers, scope: 'all' })))).toBe('all');
    expect(feature.holdingsScope!(feature.parse(bag({ ...headers, scope: ' ATA ' })))).toBe('ata');
  });

  it.each(policies)('%s: anything else is 400 INVALID_HEADER naming scope', (feature, headers) => {
    for (const value of ['', 'some', 'associated', 'all,ata']) {
      expect(rejection(feature, { ...headers, scope: value })).toMatchObject({ status: 400, code: 'INVALID_HEADER', body: { header: 'scope' } });
    }
  });

  it('only blacklist denies holdings (the others require them)', () => {
    expect(blacklistFeature.deniesHoldings).toBe(true);
    for (const [feature] of policies.slice(1)) expect(feature.deniesHoldings ?? false).toBe(false);
  });
});

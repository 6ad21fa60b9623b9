import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoMint } from 'x404-localnet/fixture.js';
import { login } from '../helpers/client.js';
import { startStack, type Stack } from '../helpers/gate.js';
import { expectRefusal, expectToken, fixtureWallet } from './features-kit.js';

/**
 * The history walks are bounded (HISTORY_MAX_PAGES, HISTORY_MAX_TRANSACTIONS): past the bound the
 * gate answers 500 HISTORY_LIMIT naming the setting, never a guess, and never a token.
 */
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ env: { HISTORY_MAX_PAGES: '2', HISTORY_MAX_TRANSACTIONS: '10' } });
});
afterAll(async () => {
  await stack?.stop();
});

describe('history bounds', () => {
  it('age: an answer within the bound is still given; past it → HISTORY_LIMIT naming HISTORY_MAX_PAGES', async () => {
    const old = fixtureWallet('old');
    expectToken(await login(stack.gateUrl, 'age', old, { min_wallet_age_days: '200' }), 'age', old);
    const body = expectRefusal(await login(stack.gateUrl, 'age', old, { min_wallet_age_days: '399' }), 500, 'HISTORY_LIMIT');
    expect(body).toMatchObject({ setting: 'HISTORY_MAX_PAGES', bound: 2 });
    expect(body.message).toMatch(/HISTORY_MAX_PAGES/);
  });

  it('activity: more transactions to read than HISTORY_MAX_TRANSACTIONS → HISTORY_LIMIT', async () => {
    const active = fixtureWallet('active');
    expectToken(await login(stack.gateUrl, 'activity', active, { min_transactions: '1', time_period_days: '30', transaction_types: '["transfer"]' }), 'activity', active);
    const body = expectRefusal(
      await login(stack.gateUrl, 'activity', active, { min_transactions: '1', time_period_days: '30', transaction_types: '["stake"]' }),
      500,
      'HISTORY_LIMIT',
    );
    expect(body).toMatchObject({ setting: 'HISTORY_MAX_TRANSACTIONS', bound: 10 });
  });

  it('timelock: a rewind needing more reads than the bound → HISTORY_LIMIT', async () => {
    // `active` moved USDC 11 times in the last 30 days: rewinding 30 days needs 11 reads.
    const active = fixtureWallet('active');
    const policy = { required_mint: demoMint('usdc'), mint_amount: '1', min_hold_duration_days: '30' };
    const body = expectRefusal(await login(stack.gateUrl, 'timelock', active, policy), 500, 'HISTORY_LIMIT');
    expect(body.setting).toBe('HISTORY_MAX_TRANSACTIONS');
  });
});

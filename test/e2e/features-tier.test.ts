import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { demoMint } from 'x404-localnet/fixture.js';
import { login } from '../helpers/client.js';
import { startStack, type Stack } from '../helpers/gate.js';
import { expectLocationDenied, expectRefusal, expectToken, expectUpstreamFailure, fixtureWallet, logCalls, loginCounted, newWallet } from './features-kit.js';

/**
 * tier end to end: bronze ≥ 100, silver ≥ 1,000, gold ≥ 10,000 `tier` tokens (6 decimals). The
 * fixture's tier-* wallets hold 150 / 1,500 / 12,000 (+3,000 outside the ATA).
 */
let stack: Stack;
const tierMint = demoMint('tier');
const usdc = demoMint('usdc');
const tokens = (n: number) => String(n * 1_000_000);
const fullConfig = {
  tier_config: JSON.stringify({
    bronze: { mint: tierMint, amount: tokens(100) },
    silver: { mint: tierMint, amount: tokens(1_000) },
    gold: { mint: tierMint, amount: tokens(10_000) },
  }),
};

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});
beforeEach(() => stack.localnet.faults.clear());

describe('tier', () => {
  it.each([
    ['tier-bronze', 'bronze'],
    ['tier-silver', 'silver'],
    ['tier-gold', 'gold'],
  ] as const)('%s gets the highest tier it meets (%s) in the body and the token', async (wallet, tier) => {
    const result = await loginCounted(stack, 'tier', fixtureWallet(wallet), fullConfig);
    expectToken(result, 'tier', fixtureWallet(wallet), { tier });
    logCalls('tier', wallet, result.calls);
    expect(result.calls).toEqual({ getMultipleAccounts: 1 });
  });

  it('tiers may use different mints; only configured tiers are considered', async () => {
    const mixed = {
      tier_config: JSON.stringify({ silver: { mint: usdc, amount: '1' }, gold: { mint: tierMint, amount: tokens(10_000) } }),
    };
    // `portfolio` holds USDC but no `tier` tokens: silver (USDC) is met, gold is not, bronze is not configured.
    expectToken(await login(stack.gateUrl, 'tier', fixtureWallet('portfolio'), mixed), 'tier', fixtureWallet('portfolio'), { tier: 'silver' });
    expectToken(await login(stack.gateUrl, 'tier', fixtureWallet('tier-gold'), mixed), 'tier', fixtureWallet('tier-gold'), { tier: 'gold' });
  });

  it('a wallet meeting no tier → 500 INSUFFICIENT_TOKENS with each tier’s requirement and balance', async () => {
    const { publicKey, secretKey } = newWallet();
    stack.localnet.state.addTokenAccount({ owner: publicKey, mint: tierMint, amount: tokens(99), program: 'token' });
    const body = expectRefusal(await login(stack.gateUrl, 'tier', secretKey, fullConfig), 500, 'INSUFFICIENT_TOKENS');
    expect(body.requirements).toEqual([
      { tier: 'gold', mint: tierMint, required: tokens(10_000), balance: tokens(99), met: false },
      { tier: 'silver', mint: tierMint, required: tokens(1_000), balance: tokens(99), met: false },
      { tier: 'bronze', mint: tierMint, required: tokens(100), balance: tokens(99), met: false },
    ]);
    expect(body.message).toContain('bronze');
  });

  it('bad tier_config → 400', async () => {
    const wallet = fixtureWallet('tier-gold');
    expectRefusal(await login(stack.gateUrl, 'tier', wallet, {}), 400, 'MISSING_HEADER');
    for (const config of ['{}', '[]', 'gold', JSON.stringify({ diamond: { mint: tierMint, amount: '1' } }), JSON.stringify({ gold: { mint: tierMint, amount: -1 } })]) {
      expectRefusal(await login(stack.gateUrl, 'tier', wallet, { tier_config: config }), 400, 'INVALID_HEADER');
    }
  });

  it('geolocation outside geo_code_locs → 401 locdeny', async () => {
    await expectLocationDenied(stack, 'tier', fixtureWallet('tier-silver'), fullConfig);
  });

  it('RPC failure → 503, no token', async () => {
    await expectUpstreamFailure(stack, 'tier', fixtureWallet('tier-silver'), fullConfig);
  });
});

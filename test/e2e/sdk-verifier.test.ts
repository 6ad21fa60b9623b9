import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoMint, demoWallet } from 'x404-localnet/fixture.js';
import { authenticate, type BlacklistPolicy, type TierPolicy } from '../../src/sdk/index.js';
import { verifyGateToken } from '../../src/verifier/index.js';
import { startStack, type Stack } from '../helpers/gate.js';

/** Tokens minted by the real gate, checked the way a relying backend would. */
let stack: Stack;
let blacklistToken: string;

const blacklistPolicy: BlacklistPolicy = { excluded_mints: [demoMint('banned')], max_holdings: {} };
const tierPolicy: TierPolicy = {
  tier_config: {
    bronze: { mint: demoMint('tier'), amount: '100000000' },
    gold: { mint: demoMint('tier'), amount: '10000000000' },
  },
};

beforeAll(async () => {
  stack = await startStack();
  blacklistToken = (await authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: blacklistPolicy, signer: { secretKey: demoWallet('clean').secretKey }, storage: false })).token;
});
afterAll(async () => {
  await stack?.stop();
});

describe('verifyGateToken with tokens from the gate', () => {
  it('accepts a gate token for its feature, policy and wallet', async () => {
    const claims = await verifyGateToken(blacklistToken, { secret: stack.jwtSecret, feature: 'blacklist', policy: blacklistPolicy, wallet: demoWallet('clean').publicKey });
    expect(claims).toMatchObject({ sub: demoWallet('clean').publicKey, feature: 'blacklist' });
    expect(claims.exp - claims.iat).toBe(30 * 24 * 3600);
  });

  it('carries feature results such as the tier, and is refused for any other feature', async () => {
    const { token } = await authenticate({ baseUrl: stack.gateUrl, feature: 'tier', policy: tierPolicy, signer: { secretKey: demoWallet('tier-gold').secretKey }, storage: false });
    const claims = await verifyGateToken(token, { secret: stack.jwtSecret, feature: 'tier', policy: tierPolicy });
    expect(claims.tier).toBe('gold');
    await expect(verifyGateToken(token, { secret: stack.jwtSecret, feature: 'blacklist' })).rejects.toMatchObject({ code: 'FEATURE_MISMATCH' });
  });

  it('refuses a gate token presented for another feature', async () => {
    await expect(verifyGateToken(blacklistToken, { secret: stack.jwtSecret, feature: 'tier' })).rejects.toMatchObject({ code: 'FEATURE_MISMATCH' });
    await expect(verifyGateToken(blacklistToken, { secret: stack.jwtSecret, feature: 'age', policy: {} })).rejects.toMatchObject({ code: 'FEATURE_MISMATCH' });
  });

  it('refuses a gate token issued under another policy', async () => {
    const laxer: BlacklistPolicy = { excluded_mints: [], max_holdings: {} };
    await expect(verifyGateToken(blacklistToken, { secret: stack.jwtSecret, feature: 'blacklist', policy: laxer })).rejects.toMatchObject({ code: 'POLICY_MISMATCH' });
    const geoOn: BlacklistPolicy = { ...blacklistPolicy, geo_code: true, geo_code_locs: 'FR' };
    await expect(verifyGateToken(blacklistToken, { secret: stack.jwtSecret, feature: 'blacklist', policy: geoOn })).rejects.toMatchObject({ code: 'POLICY_MISMATCH' });
  });

  it('refuses a gate token checked with another secret', async () => {
    await expect(verifyGateToken(blacklistToken, { secret: `${stack.jwtSecret}x`, feature: 'blacklist' })).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
  });
});

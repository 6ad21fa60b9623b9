import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { blockTimeDaysAgo } from 'x404-localnet/recipes.js';
import { get, getNonce, login, signedHeaders } from '../helpers/client.js';
import { startStack, type Stack } from '../helpers/gate.js';
import { expectLocationDenied, expectRefusal, expectToken, expectUpstreamFailure, fixtureWallet, logCalls, loginCounted, newWallet } from './features-kit.js';

/**
 * age end to end. Fixture: `old` has 2,500 transactions spread from 400 days ago to yesterday
 * (1,000 signatures per page, so three pages); `young` first transacted 2 days ago; `empty` never.
 */
let stack: Stack;
const age = (walletDays: string, firstDays?: string) => ({
  min_wallet_age_days: walletDays,
  ...(firstDays === undefined ? {} : { min_first_transaction_days: firstDays }),
});

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});
beforeEach(() => stack.localnet.faults.clear());

describe('age', () => {
  it('passes an old wallet after one page when that page already proves the age', async () => {
    const old = fixtureWallet('old');
    const result = await loginCounted(stack, 'age', old, age('30'));
    const token = expectToken(result, 'age', old);
    expect(result.body.walletAgeDays).toBeGreaterThanOrEqual(30);
    expect(token.walletAgeDays).toBe(result.body.walletAgeDays);
    logCalls('age', 'old, 30 d', result.calls);
    expect(result.calls).toEqual({ getSignaturesForAddress: 1 });
  });

  it('pages back with `before` as far as needed', async () => {
    const old = fixtureWallet('old');
    const result = await loginCounted(stack, 'age', old, age('100', '399'));
    expectToken(result, 'age', old);
    expect(result.body.walletAgeDays).toBeGreaterThanOrEqual(399);
    logCalls('age', 'old, 399 d', result.calls);
    expect(result.calls).toEqual({ getSignaturesForAddress: 3 });
  });

  it('the stricter threshold applies', async () => {
    const young = fixtureWallet('young');
    expectToken(await login(stack.gateUrl, 'age', young, age('1', '1.5')), 'age', young);
    const body = expectRefusal(await login(stack.gateUrl, 'age', young, age('1', '7')), 500, 'WALLET_TOO_NEW');
    expect(body).toMatchObject({ requiredDays: 7 });
    expect(body.walletAgeDays).toBeGreaterThanOrEqual(1.99);
    expect(body.walletAgeDays).toBeLessThan(2.01);
    expect(body.message).toMatch(/at least 7 days/);
  });

  it('a wallet without any transaction is too new', async () => {
    const body = expectRefusal(await login(stack.gateUrl, 'age', fixtureWallet('empty'), age('1')), 500, 'WALLET_TOO_NEW');
    expect(body).toMatchObject({ walletAgeDays: 0, firstTransactionAt: null });
  });

  it('transactions without a block time prove no age, and leave it unknown when they are the oldest', async () => {
    // Undated, older than the dated one (its slot is lower): it could be older than 10 days.
    const undatedFirst = newWallet();
    const state = stack.localnet.state;
    state.addTransaction({ blockTime: null, feePayer: undatedFirst.publicKey, instructions: [] });
    state.addTransaction({ blockTime: blockTimeDaysAgo(state, 3), feePayer: undatedFirst.publicKey, instructions: [] });
    const unknown = expectRefusal(await login(stack.gateUrl, 'age', undatedFirst.secretKey, age('10')), 503, 'UPSTREAM_UNAVAILABLE');
    expect(unknown).toMatchObject({ history: 'incomplete' });
    expect(unknown.message).toMatch(/no block time/);
    expectToken(await login(stack.gateUrl, 'age', undatedFirst.secretKey, age('2')), 'age', undatedFirst.secretKey);

    // Undated but newer than a dated one: it lies after that one, so it cannot make the wallet older.
    const undatedLast = newWallet();
    state.addTransaction({ blockTime: blockTimeDaysAgo(state, 3), feePayer: undatedLast.publicKey, instructions: [] });
    state.addTransaction({ blockTime: null, slot: state.slotAt(blockTimeDaysAgo(state, 1)), feePayer: undatedLast.publicKey, instructions: [] });
    const body = expectRefusal(await login(stack.gateUrl, 'age', undatedLast.secretKey, age('10')), 500, 'WALLET_TOO_NEW');
    expect(Math.floor(body.walletAgeDays)).toBe(3);
  });

  it('bad headers → 400', async () => {
    const old = fixtureWallet('old');
    const missing = expectRefusal(await login(stack.gateUrl, 'age', old, {}), 400, 'MISSING_HEADER');
    expect(missing.message).toMatch(/min_wallet_age_days or min_first_transaction_days/);
    expect(missing.missing).toEqual(['min_wallet_age_days', 'min_first_transaction_days']);
    for (const bad of [age('-1'), age('ten'), age('30', '1e3'), age('')]) {
      expectRefusal(await login(stack.gateUrl, 'age', old, bad), 400, 'INVALID_HEADER');
    }
  });

  it('geolocation outside geo_code_locs → 401 locdeny', async () => {
    await expectLocationDenied(stack, 'age', fixtureWallet('old'), age('30'));
  });

  it('a wallet once proven old is not read again for the same or a lower age; a higher one reads', async () => {
    const wallet = newWallet();
    const state = stack.localnet.state;
    state.addTransaction({ blockTime: blockTimeDaysAgo(state, 45), feePayer: wallet.publicKey, instructions: [] });
    const first = await loginCounted(stack, 'age', wallet.secretKey, age('30'));
    expect(first.calls).toEqual({ getSignaturesForAddress: 1 });
    const again = await loginCounted(stack, 'age', wallet.secretKey, age('40'));
    expectToken(again, 'age', wallet.secretKey);
    expect(again.calls).toEqual({});
    expect(Math.floor(again.body.walletAgeDays as number)).toBe(45);
    const older = await loginCounted(stack, 'age', wallet.secretKey, age('50'));
    expect(older.calls).toEqual({ getSignaturesForAddress: 1 });
    expectRefusal(older, 500, 'WALLET_TOO_NEW');
  });

  it('a forged signature reads no history: only a verified wallet can make the gate page through it', async () => {
    const owner = newWallet();
    const state = stack.localnet.state;
    state.addTransaction({ blockTime: blockTimeDaysAgo(state, 45), feePayer: owner.publicKey, instructions: [] });
    const { nonce } = await getNonce(stack.gateUrl, 'age');
    stack.localnet.resetStats();
    const forged = await get(`${stack.gateUrl}/x404_auth/age`, { ...signedHeaders(newWallet().secretKey, nonce, 'age'), 'X-404-Addr': owner.publicKey, ...age('30') });
    expectRefusal(forged, 401, 'INVALID_SIGNATURE');
    expect(stack.localnet.stats().calls).toEqual({});
  });

  it('RPC failure → 503, no token', async () => {
    // A wallet this gate has not proven old yet: its history must be read.
    const wallet = newWallet();
    const state = stack.localnet.state;
    state.addTransaction({ blockTime: blockTimeDaysAgo(state, 45), feePayer: wallet.publicKey, instructions: [] });
    await expectUpstreamFailure(stack, 'age', wallet.secretKey, age('30'));
  });
});

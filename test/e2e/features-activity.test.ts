import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SWAP_PROGRAMS } from '../../src/activity/classifying-programs.js';
import { blockTimeDaysAgo, customError, solTransfer } from 'x404-localnet/recipes.js';
import { login } from '../helpers/client.js';
import { startStack, type Stack } from '../helpers/gate.js';
import { expectLocationDenied, expectRefusal, expectToken, expectUpstreamFailure, fixtureWallet, logCalls, loginCounted, newWallet } from './features-kit.js';

/**
 * activity end to end. The fixture's `active` wallet has, within the last 30 days, 20 SOL
 * transfers it sent, 16 successful (4 failed) it received, 11 successful (1 failed) USDC transfers
 * it sent, a swap, a Metaplex call and a stake delegation: 50 successful transactions. `quiet`
 * has one transaction 50 days ago and one 10 days ago.
 */
let stack: Stack;
const SOL = 1_000_000_000;
const policy = (min: number, days: number, extra: Record<string, string> = {}) => ({
  min_transactions: String(min),
  time_period_days: String(days),
  ...extra,
});
const types = (...names: string[]) => ({ transaction_types: JSON.stringify(names) });

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});
beforeEach(() => stack.localnet.faults.clear());

/** A fresh wallet that sent `count` transfers of 1 SOL (fee 5,000 lamports each), `failed` of them failing. */
function sender(count: number, failed = 0) {
  const wallet = newWallet();
  const friend = newWallet().publicKey;
  let balance = 100 * SOL;
  for (let i = 0; i < count; i += 1) {
    const fails = i < failed;
    solTransfer(stack.localnet.state, { from: wallet.publicKey, to: friend, lamports: SOL, daysAgo: 1 + i, fromBefore: balance, ...(fails ? { err: customError(0, 1) } : {}) });
    balance -= 5_000 + (fails ? 0 : SOL);
  }
  return wallet;
}

describe('activity', () => {
  it('counts successful transactions in the period from the signatures alone', async () => {
    const wallet = fixtureWallet('active');
    const result = await loginCounted(stack, 'activity', wallet, policy(50, 30));
    expectToken(result, 'activity', wallet, { transactionCount: 50 });
    expect(result.body.volume).toBeUndefined(); // not measured: no transaction was read
    logCalls('activity', 'count only', result.calls);
    expect(result.calls).toEqual({ getSignaturesForAddress: 1 });

    const body = expectRefusal(await login(stack.gateUrl, 'activity', wallet, policy(51, 30)), 500, 'INSUFFICIENT_ACTIVITY');
    expect(body).toMatchObject({ transactionCount: 50, requiredTransactions: 51, timePeriodDays: 30 });
  });

  it('only the period counts', async () => {
    const quiet = fixtureWallet('quiet');
    const body = expectRefusal(await login(stack.gateUrl, 'activity', quiet, policy(2, 30)), 500, 'INSUFFICIENT_ACTIVITY');
    expect(body.transactionCount).toBe(1);
    expect(body.message).toMatch(/1 successful transactions in the last 30 days; 2 required/);
    expectToken(await login(stack.gateUrl, 'activity', quiet, policy(2, 60)), 'activity', quiet, { transactionCount: 2 });
  });

  it('failed transactions never count', async () => {
    const wallet = sender(5, 3);
    const body = expectRefusal(await login(stack.gateUrl, 'activity', wallet.secretKey, policy(3, 30)), 500, 'INSUFFICIENT_ACTIVITY');
    expect(body.transactionCount).toBe(2);
  });

  it('by type: transfers the wallet sent, stake, nft', async () => {
    const wallet = fixtureWallet('active');
    // 20 SOL + 11 USDC transfers it sent, + the swap's own token transfer; received transfers do not count.
    const transfers = await loginCounted(stack, 'activity', wallet, policy(32, 30, types('transfer')));
    expectToken(transfers, 'activity', wallet, { transactionCount: 32 });
    logCalls('activity', 'type transfer, 55 signatures in period', transfers.calls);
    expectRefusal(await login(stack.gateUrl, 'activity', wallet, policy(33, 30, types('transfer'))), 500, 'INSUFFICIENT_ACTIVITY');

    expectToken(await login(stack.gateUrl, 'activity', wallet, policy(1, 30, types('stake'))), 'activity', wallet, { transactionCount: 1 });
    expectToken(await login(stack.gateUrl, 'activity', wallet, policy(2, 30, types('nft', 'stake'))), 'activity', wallet, { transactionCount: 2 });
    const body = expectRefusal(await login(stack.gateUrl, 'activity', wallet, policy(2, 30, types('stake'))), 500, 'INSUFFICIENT_ACTIVITY');
    expect(body.transactionTypes).toEqual(['stake']);
  });

  it('swap: an instruction of a known DEX or aggregator', async () => {
    const wallet = newWallet();
    const [jupiter] = [...SWAP_PROGRAMS.keys()];
    stack.localnet.state.addTransaction({
      blockTime: blockTimeDaysAgo(stack.localnet.state, 3),
      feePayer: wallet.publicKey,
      instructions: [{ programId: jupiter!, accounts: [wallet.publicKey], data: Buffer.from('e517cb977ae3ad2a', 'hex') }],
    });
    expectToken(await login(stack.gateUrl, 'activity', wallet.secretKey, policy(1, 7, types('swap'))), 'activity', wallet.secretKey, { transactionCount: 1 });
    expectRefusal(await login(stack.gateUrl, 'activity', wallet.secretKey, policy(1, 7, types('stake'))), 500, 'INSUFFICIENT_ACTIVITY');
  });

  it('volume: summed absolute SOL balance change, compared exactly', async () => {
    const wallet = sender(3);
    const result = await loginCounted(stack, 'activity', wallet.secretKey, policy(1, 30, { min_volume: '3.000015' }));
    expectToken(result, 'activity', wallet.secretKey, { transactionCount: 3, volume: '3.000015' });
    logCalls('activity', 'min_volume, 3 transactions', result.calls);
    const body = expectRefusal(await login(stack.gateUrl, 'activity', wallet.secretKey, policy(1, 30, { min_volume: '3.000015001' })), 500, 'INSUFFICIENT_ACTIVITY');
    expect(body).toMatchObject({ volume: '3.000015', requiredVolume: '3.000015001' });
  });

  it('stops reading as soon as the requirement is met', async () => {
    // `old` has 2,500 transactions over 400 days; five transfers it sent are found in the first batch.
    const result = await loginCounted(stack, 'activity', fixtureWallet('old'), policy(5, 365, types('transfer')));
    expectToken(result, 'activity', fixtureWallet('old'));
    logCalls('activity', 'old wallet, 5 transfers in 365 d', result.calls);
    expect(result.calls.getSignaturesForAddress).toBe(1);
    expect(result.calls.getTransaction).toBeLessThanOrEqual(20);
  });

  it('bad headers → 400', async () => {
    const wallet = fixtureWallet('active');
    expectRefusal(await login(stack.gateUrl, 'activity', wallet, { min_transactions: '1' }), 400, 'MISSING_HEADER');
    for (const bad of [
      policy(1, 30, { min_volume: '-1' }),
      policy(1, 30, { min_volume: '0.0000000001' }),
      policy(1, 30, types('lending')),
      policy(1, 30, { transaction_types: 'swap' }),
      { min_transactions: '1.5', time_period_days: '30' },
      { min_transactions: '1', time_period_days: '-30' },
    ]) {
      expectRefusal(await login(stack.gateUrl, 'activity', wallet, bad), 400, 'INVALID_HEADER');
    }
  });

  it('geolocation outside geo_code_locs → 401 locdeny', async () => {
    await expectLocationDenied(stack, 'activity', fixtureWallet('active'), policy(10, 30));
  });

  it('RPC failure → 503, no token', async () => {
    await expectUpstreamFailure(stack, 'activity', fixtureWallet('active'), policy(10, 30, types('transfer')));
  });
});

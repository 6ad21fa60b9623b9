import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { login } from '../helpers/client.js';
import { startStack, type Stack } from '../helpers/gate.js';
import { expectLocationDenied, expectRefusal, expectToken, expectUpstreamFailure, fixtureWallet, logCalls, loginCounted, newWallet } from './features-kit.js';

/**
 * nodebt end to end, reading the protocols' accounts in their real layouts from the local chain.
 * Fixture: debtor-save owes $2,500 on Save, debtor-kamino $800 on Kamino, debtor-marginfi has USDC
 * liability shares in a MarginFi bank of the fixture's own (demo) USDC mint; no-debt has positions
 * on all three without borrows; multi-debtor owes $100 on Save, $200 on Kamino and a MarginFi
 * liability in that demo-USDC bank.
 */
let stack: Stack;
const MAINNET_USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const MAINNET_JITOSOL = 'J1toso1uCk3RLmjorhTtrVwY9HJ7X8V9yYac6Y7kGCPn';

const policy = (protocols?: string[], max?: string): Record<string, string> => ({
  ...(protocols === undefined ? {} : { check_protocols: JSON.stringify(protocols) }),
  ...(max === undefined ? {} : { max_debt_allowed: max }),
});
const debtOf = (body: Record<string, any>, protocol: string) => body.debts.find((d: { protocol: string }) => d.protocol === protocol);

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});
beforeEach(() => stack.localnet.faults.clear());

/** A fresh wallet borrowing `shares` liability shares from a MarginFi bank of `mint` (share value 1.05). */
function marginfiBorrower(mint: string, shares: string) {
  const wallet = newWallet();
  const state = stack.localnet.state;
  const bank = state.addMarginfiBank({ mint, decimals: 6, liabilityShareValue: '1.05' });
  state.addMarginfiAccount({ authority: wallet.publicKey, balances: [{ bank, liabilityShares: shares }] });
  return wallet;
}

describe('nodebt', () => {
  it('passes a wallet with lending positions but no borrows; debt per protocol in body and token', async () => {
    const wallet = fixtureWallet('no-debt');
    const result = await loginCounted(stack, 'nodebt', wallet, policy([]));
    const token = expectToken(result, 'nodebt', wallet, { totalDebtUsd: '0' });
    expect(token.debtUsdByProtocol).toEqual({ kamino: '0', save: '0', marginfi: '0' });
    logCalls('nodebt', 'no-debt, all protocols', result.calls);
    expect(result.calls).toEqual({ getProgramAccounts: 3 });
    // The three scans of one login go out together, as one JSON-RPC batch.
    expect(stack.localnet.stats().requestsWith).toEqual({ getProgramAccounts: 1 });
  });

  it('Save: unweighted borrowed value → 500 HAS_DEBT listing the debt per protocol', async () => {
    const body = expectRefusal(await login(stack.gateUrl, 'nodebt', fixtureWallet('debtor-save'), policy()), 500, 'HAS_DEBT');
    expect(body).toMatchObject({ totalDebtUsd: '2500', maxDebtAllowed: '0' });
    expect(body.debts).toEqual([
      { protocol: 'kamino', debtUsd: '0', accounts: 0 },
      { protocol: 'save', debtUsd: '2500', accounts: 1 },
      { protocol: 'marginfi', debtUsd: '0', accounts: 0 },
    ]);
    expect(body.message).toContain('save $2500');
  });

  it('debt up to max_debt_allowed passes; a cent more does not', async () => {
    const wallet = fixtureWallet('debtor-save');
    expectToken(await login(stack.gateUrl, 'nodebt', wallet, policy(['solend'], '2500')), 'nodebt', wallet, { totalDebtUsd: '2500' });
    expectRefusal(await login(stack.gateUrl, 'nodebt', wallet, policy(['save'], '2499.99')), 500, 'HAS_DEBT');
  });

  it('Kamino: borrowed market value; protocols not named are not checked', async () => {
    const wallet = fixtureWallet('debtor-kamino');
    const body = expectRefusal(await login(stack.gateUrl, 'nodebt', wallet, policy(['kamino'])), 500, 'HAS_DEBT');
    expect(debtOf(body, 'kamino')).toEqual({ protocol: 'kamino', debtUsd: '800', accounts: 1 });
    const result = await loginCounted(stack, 'nodebt', wallet, policy(['save', 'marginfi']));
    const token = expectToken(result, 'nodebt', wallet, { totalDebtUsd: '0' });
    expect(token.debtUsdByProtocol).toEqual({ save: '0', marginfi: '0' });
    expect(result.calls).toEqual({ getProgramAccounts: 2 });
  });

  it('sums the debt across protocols', async () => {
    const wallet = fixtureWallet('multi-debtor');
    const token = expectToken(await login(stack.gateUrl, 'nodebt', wallet, policy(['save', 'kamino'], '300')), 'nodebt', wallet, { totalDebtUsd: '300' });
    expect(token.debtUsdByProtocol).toEqual({ save: '100', kamino: '200' });
    const body = expectRefusal(await login(stack.gateUrl, 'nodebt', wallet, policy(['save', 'kamino'], '299.999999')), 500, 'HAS_DEBT');
    expect(body.totalDebtUsd).toBe('300');
  });

  it('MarginFi: a stablecoin liability is shares × share value, priced at $1', async () => {
    const wallet = marginfiBorrower(MAINNET_USDC, '50000000'); // 50 USDC of shares × 1.05 = 52.5 USDC
    const result = await loginCounted(stack, 'nodebt', wallet.secretKey, policy(['marginfi'], '100'));
    expectToken(result, 'nodebt', wallet.secretKey, { totalDebtUsd: '52.5' });
    logCalls('nodebt', 'marginfi with a USDC liability', result.calls);
    expect(result.calls).toEqual({ getProgramAccounts: 1, getMultipleAccounts: 1 });
    const body = expectRefusal(await login(stack.gateUrl, 'nodebt', wallet.secretKey, policy(['marginfi'], '52')), 500, 'HAS_DEBT');
    expect(debtOf(body, 'marginfi')).toMatchObject({ debtUsd: '52.5', accounts: 1 });
  });

  it('fails closed on debt it cannot price, whatever the allowance', async () => {
    // A MarginFi liability in a non-stablecoin bank (the gate reads no oracles).
    const jito = marginfiBorrower(MAINNET_JITOSOL, '1');
    const body = expectRefusal(await login(stack.gateUrl, 'nodebt', jito.secretKey, policy(['marginfi'], '1000000')), 500, 'HAS_DEBT');
    expect(debtOf(body, 'marginfi').unpriced[0]).toMatch(/no price source/);
    expect(body.message).toMatch(/unknown USD value/);
    // The fixture's debtor-marginfi borrows mainnet USDC: priced at $1, so an allowance covers it.
    const priced = expectRefusal(await login(stack.gateUrl, 'nodebt', fixtureWallet('debtor-marginfi'), policy(['marginfi'], '0')), 500, 'HAS_DEBT');
    expect(debtOf(priced, 'marginfi')).toMatchObject({ debtUsd: '525', accounts: 1 });
    expect((await login(stack.gateUrl, 'nodebt', fixtureWallet('debtor-marginfi'), policy(['marginfi'], '1000'))).status).toBe(200);

    // Save and Kamino obligations with borrows but no refreshed USD value.
    const stale = newWallet();
    stack.localnet.state.addSaveObligation({ owner: stale.publicKey, borrowedUsd: '0', borrowCount: 1 });
    stack.localnet.state.addKaminoObligation({ owner: stale.publicKey, borrowedUsd: '0', borrowCount: 1 });
    const staleBody = expectRefusal(await login(stack.gateUrl, 'nodebt', stale.secretKey, policy(['save', 'kamino'], '1000')), 500, 'HAS_DEBT');
    expect(debtOf(staleBody, 'save').unpriced[0]).toMatch(/1 borrow\(s\) but no refreshed USD value/);
    expect(debtOf(staleBody, 'kamino').unpriced[0]).toMatch(/no refreshed USD value/);
  });

  it('a wallet without any lending account has no debt', async () => {
    expectToken(await login(stack.gateUrl, 'nodebt', fixtureWallet('empty'), policy()), 'nodebt', fixtureWallet('empty'), { totalDebtUsd: '0' });
  });

  it('bad headers → 400; an unknown protocol names the supported ones', async () => {
    const wallet = fixtureWallet('no-debt');
    const unknown = expectRefusal(await login(stack.gateUrl, 'nodebt', wallet, policy(['aave'])), 400, 'INVALID_HEADER');
    expect(unknown.message).toMatch(/kamino, save \(alias solend\), marginfi/);
    for (const bad of [policy(undefined, '-1'), policy(undefined, '1e3'), { check_protocols: 'kamino' }, { check_protocols: '[1]' }]) {
      expectRefusal(await login(stack.gateUrl, 'nodebt', wallet, bad), 400, 'INVALID_HEADER');
    }
  });

  it('geolocation outside geo_code_locs → 401 locdeny', async () => {
    await expectLocationDenied(stack, 'nodebt', fixtureWallet('no-debt'), policy());
  });

  it('RPC failure → 503, no token', async () => {
    await expectUpstreamFailure(stack, 'nodebt', fixtureWallet('no-debt'), policy());
  });
});

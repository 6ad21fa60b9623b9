import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { demoMint } from 'x404-localnet/fixture.js';
import { login } from '../helpers/client.js';
import { startStack, type Stack } from '../helpers/gate.js';
import { expectLocationDenied, expectRefusal, expectToken, expectUpstreamFailure, fixtureWallet, logCalls, loginCounted } from './features-kit.js';

/**
 * multitoken end to end (docs/api.md §5): the real gate over HTTP against the local chain. The
 * fixture's `portfolio` wallet holds 500 USDC, 2,000,000 BONK and 10 t22 (a Token-2022 mint).
 */
let stack: Stack;
const portfolio = fixtureWallet('portfolio');
const usdc = demoMint('usdc');
const bonk = demoMint('bonk');
const t22 = demoMint('t22');
const lock = demoMint('lock');

const policy = (tokens: { mint: string; amount: string }[], mode?: string): Record<string, string> => ({
  required_tokens: JSON.stringify(tokens),
  ...(mode === undefined ? {} : { verification_mode: mode }),
});
const held = [
  { mint: usdc, amount: '500000000' }, // exactly the balance
  { mint: bonk, amount: '100000000000' },
  { mint: t22, amount: '10000000' }, // Token-2022, exactly the balance
];
const notHeld = { mint: lock, amount: '1' };

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});
beforeEach(() => stack.localnet.faults.clear());

describe('multitoken', () => {
  it('ALL (the default) passes when every requirement is met, counting Token-2022 too', async () => {
    const result = await loginCounted(stack, 'multitoken', portfolio, policy(held));
    expectToken(result, 'multitoken', portfolio, { requirementsMet: 3, requirementsTotal: 3 });
    logCalls('multitoken', '3 mints', result.calls);
    expect(result.calls).toEqual({ getMultipleAccounts: 1 });
  });

  it('ALL fails with 500 INSUFFICIENT_TOKENS listing every requirement with the balance found', async () => {
    const body = expectRefusal(await login(stack.gateUrl, 'multitoken', portfolio, policy([...held, notHeld], 'ALL')), 500, 'INSUFFICIENT_TOKENS');
    expect(body.requirements).toEqual([
      { mint: usdc, required: '500000000', balance: '500000000', met: true },
      { mint: bonk, required: '100000000000', balance: '200000000000', met: true },
      { mint: t22, required: '10000000', balance: '10000000', met: true },
      { mint: lock, required: '1', balance: '0', met: false },
    ]);
    expect(body).toMatchObject({ mode: 'ALL', requirementsNeeded: 4, requirementsMet: 3 });
    expect(body.message).toContain(`${lock}: has 0, needs 1`);
  });

  it('one base unit short is not enough', async () => {
    const body = expectRefusal(await login(stack.gateUrl, 'multitoken', portfolio, policy([{ mint: usdc, amount: '500000001' }])), 500, 'INSUFFICIENT_TOKENS');
    expect(body.requirements[0]).toMatchObject({ balance: '500000000', met: false });
  });

  it('ANY passes with one requirement met and fails with none', async () => {
    expectToken(await login(stack.gateUrl, 'multitoken', portfolio, policy([notHeld, held[0]!], 'ANY')), 'multitoken', portfolio, { requirementsMet: 1 });
    expectRefusal(await login(stack.gateUrl, 'multitoken', portfolio, policy([notHeld], 'ANY')), 500, 'INSUFFICIENT_TOKENS');
  });

  it('N of M: at least N requirements met', async () => {
    const mixed = policy([held[0]!, notHeld, held[1]!], '2');
    expectToken(await login(stack.gateUrl, 'multitoken', portfolio, mixed), 'multitoken', portfolio, { requirementsMet: 2, requirementsTotal: 3 });
    const body = expectRefusal(await login(stack.gateUrl, 'multitoken', portfolio, policy([held[0]!, notHeld, held[1]!], '3')), 500, 'INSUFFICIENT_TOKENS');
    expect(body).toMatchObject({ mode: '3', requirementsNeeded: 3, requirementsMet: 2 });
    expect(body.requirements).toHaveLength(3);
  });

  it('bad headers → 400 before anything is read from the chain', async () => {
    const cases: [Record<string, string>, string][] = [
      [{}, 'MISSING_HEADER'],
      [policy(held, '0'), 'INVALID_HEADER'],
      [policy(held, '4'), 'INVALID_HEADER'],
      [policy(held, 'MOST'), 'INVALID_HEADER'],
      [{ required_tokens: '{"mint":1}' }, 'INVALID_HEADER'],
      [policy([{ mint: usdc, amount: '1.5' }]), 'INVALID_HEADER'],
      [policy([{ mint: 'not-a-mint', amount: '1' }]), 'INVALID_HEADER'],
      [policy(Array.from({ length: 101 }, () => held[0]!)), 'INVALID_HEADER'],
    ];
    for (const [headers, code] of cases) {
      const result = await loginCounted(stack, 'multitoken', portfolio, headers);
      expectRefusal(result, 400, code);
      expect(result.calls, JSON.stringify(headers)).toEqual({});
    }
  });

  it('geolocation outside geo_code_locs → 401 locdeny after the token checks pass', async () => {
    await expectLocationDenied(stack, 'multitoken', portfolio, policy(held));
  });

  it('RPC failure → 503, no token', async () => {
    await expectUpstreamFailure(stack, 'multitoken', portfolio, policy(held));
  });
});

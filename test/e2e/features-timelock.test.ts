import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { demoMint } from 'x404-localnet/fixture.js';
import { TOKEN_PROGRAM } from 'x404-localnet/programs.js';
import { blockTimeDaysAgo, tokenTransfer } from 'x404-localnet/recipes.js';
import type { ChainState } from 'x404-localnet/state.js';
import { login } from '../helpers/client.js';
import { startStack, type Stack } from '../helpers/gate.js';
import { expectLocationDenied, expectRefusal, expectToken, expectUpstreamFailure, fixtureWallet, logCalls, loginCounted, newWallet } from './features-kit.js';

/**
 * timelock end to end. Fixture: lock-steady received 1,000 `lock` 60 days ago and 200 more 20 days
 * ago; lock-rebought held 1,000 for 60 days, sold down to 400 a day ago and bought back 12 hours
 * ago; lock-new received 1,000 three days ago. Amounts in base units (6 decimals).
 */
let stack: Stack;
const lock = demoMint('lock');
const THOUSAND = '1000000000';
const policy = (days: string, amount = THOUSAND, mint = lock) => ({ required_mint: mint, mint_amount: amount, min_hold_duration_days: days });

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});
beforeEach(() => stack.localnet.faults.clear());

/** A fresh wallet with a `lock` token account (ATA unless `address`), its history built by `history`. */
function lockHolder(state: ChainState, amount: bigint, history: (ctx: { wallet: string; account: string }) => void, address?: string) {
  const wallet = newWallet();
  const account = state.addTokenAccount({ owner: wallet.publicKey, mint: lock, amount, program: 'token', ...(address ? { address } : {}) });
  history({ wallet: wallet.publicKey, account });
  return wallet;
}

const counterparty = () => {
  const { publicKey } = newWallet();
  const account = stack.localnet.state.addTokenAccount({ owner: publicKey, mint: lock, amount: 10n ** 15n, program: 'token' });
  return { publicKey, account };
};

/** A transfer into `account` signed by someone else, which does not name the receiving wallet at all. */
function unsignedReceipt(state: ChainState, account: string, before: bigint, after: bigint, daysAgo: number): void {
  const sender = counterparty();
  const amount = after - before;
  const data = Buffer.alloc(10);
  data[0] = 12;
  data.writeBigUInt64LE(amount, 1);
  data[9] = 6;
  state.addTransaction({
    blockTime: blockTimeDaysAgo(state, daysAgo),
    feePayer: sender.publicKey,
    instructions: [{ programId: TOKEN_PROGRAM, accounts: [sender.account, lock, account, sender.publicKey], data }],
    tokenBalances: [
      { account, mint: lock, owner: null, programId: null, decimals: 6, pre: before, post: after },
      { account: sender.account, mint: lock, owner: sender.publicKey, decimals: 6, pre: 10n ** 15n, post: 10n ** 15n - amount },
    ],
  });
}

function move(state: ChainState, wallet: string, account: string, before: bigint | null, after: bigint, daysAgo: number, legacy = false): void {
  const other = counterparty();
  tokenTransfer(state, {
    wallet,
    walletTokenAccount: account,
    counterparty: other.publicKey,
    counterpartyTokenAccount: other.account,
    mint: lock,
    decimals: 6,
    walletBefore: before,
    walletAfter: after,
    daysAgo,
    legacyBalances: legacy,
  });
}

describe('timelock', () => {
  it('passes a wallet that has held ≥ the amount for longer than required (top-ups do not matter)', async () => {
    const wallet = fixtureWallet('lock-steady');
    // A gate already serving history has checked, once a minute, that its node honours minContextSlot.
    await login(stack.gateUrl, 'timelock', wallet, policy('30'));
    const result = await loginCounted(stack, 'timelock', wallet, policy('30'));
    expectToken(result, 'timelock', wallet);
    expect(result.body.holdDurationDays).toBeGreaterThanOrEqual(59.99); // proven back to the 60-day-old receipt
    logCalls('timelock', 'lock-steady 30 d', result.calls);
    // Balance (1 batched read), both ATAs' signatures, and only the one transaction inside the 30 days.
    expect(result.calls).toEqual({ getMultipleAccounts: 1, getSignaturesForAddress: 2, getTransaction: 1 });
  });

  it('fails a wallet that sold below the amount and bought back: the clock restarted at the buy-back', async () => {
    const wallet = fixtureWallet('lock-rebought');
    const result = await loginCounted(stack, 'timelock', wallet, policy('30'));
    const body = expectRefusal(result, 500, 'INSUFFICIENT_HOLD_DURATION');
    expect(body.holdDurationDays).toBeGreaterThanOrEqual(0.49);
    expect(body.holdDurationDays).toBeLessThan(0.52);
    expect(body).toMatchObject({ requiredDays: 30, mint: lock, required: THOUSAND });
    expect(body.message).toMatch(/30 days are required/);
    logCalls('timelock', 'lock-rebought 30 d', result.calls);
  });

  it('fails a wallet that bought three days ago, and passes it for two days', async () => {
    const wallet = fixtureWallet('lock-new');
    const body = expectRefusal(await login(stack.gateUrl, 'timelock', wallet, policy('30')), 500, 'INSUFFICIENT_HOLD_DURATION');
    expect(body.holdDurationDays).toBeGreaterThanOrEqual(2.99);
    expect(body.holdDurationDays).toBeLessThan(3.01);
    const result = await loginCounted(stack, 'timelock', wallet, policy('2'));
    expectToken(result, 'timelock', wallet);
    expect(result.calls.getTransaction).toBeUndefined(); // its only transaction is older than 2 days: nothing to rewind
  });

  it('INSUFFICIENT_BALANCE when the wallet holds less than the amount now', async () => {
    const body = expectRefusal(await login(stack.gateUrl, 'timelock', fixtureWallet('lock-steady'), policy('1', '1200000001')), 500, 'INSUFFICIENT_BALANCE');
    expect(body).toMatchObject({ mint: lock, balance: '1200000000', required: '1200000001' });
    expect(body.message).toContain('1200000000');
    expectRefusal(await login(stack.gateUrl, 'timelock', fixtureWallet('clean'), policy('30')), 500, 'INSUFFICIENT_BALANCE');
  });

  it('sees a dip undone by a transfer into the wallet that it did not sign and that does not name it', async () => {
    const state = stack.localnet.state;
    const wallet = lockHolder(state, 1_000_000_000n, ({ wallet, account }) => {
      move(state, wallet, account, null, 1_000_000_000n, 40);
      move(state, wallet, account, 1_000_000_000n, 400_000_000n, 10); // sold 600
      unsignedReceipt(state, account, 400_000_000n, 1_000_000_000n, 5); // a friend sent 600 back
    });
    const body = expectRefusal(await login(stack.gateUrl, 'timelock', wallet.secretKey, policy('30')), 500, 'INSUFFICIENT_HOLD_DURATION');
    expect(body.holdDurationDays).toBeGreaterThanOrEqual(4.99);
    expect(body.holdDurationDays).toBeLessThan(5.01);
    expectToken(await login(stack.gateUrl, 'timelock', wallet.secretKey, policy('4')), 'timelock', wallet.secretKey);
  });

  it('rewinds old transactions whose token balances lack the owner field', async () => {
    const state = stack.localnet.state;
    const wallet = lockHolder(state, 1_000_000_000n, ({ wallet, account }) => {
      move(state, wallet, account, null, 1_000_000_000n, 100, true);
      move(state, wallet, account, 1_000_000_000n, 500_000_000n, 40, true);
      move(state, wallet, account, 500_000_000n, 1_000_000_000n, 35, true);
    });
    const body = expectRefusal(await login(stack.gateUrl, 'timelock', wallet.secretKey, policy('36')), 500, 'INSUFFICIENT_HOLD_DURATION');
    expect(Math.floor(body.holdDurationDays)).toBe(35);
    expectToken(await login(stack.gateUrl, 'timelock', wallet.secretKey, policy('34')), 'timelock', wallet.secretKey);
  });

  it('a balance with no history behind it is unknown (503), neither a hold nor its absence', async () => {
    // Every token account starts at zero: a history that never shows the tokens arriving is
    // incomplete, so neither "held" (a token) nor "not held" (which `not(timelock)` would pass) follows.
    const { publicKey, secretKey } = newWallet();
    stack.localnet.state.addTokenAccount({ owner: publicKey, mint: lock, amount: 5_000_000_000n, program: 'token' });
    const body = expectRefusal(await login(stack.gateUrl, 'timelock', secretKey, policy('1')), 503, 'UPSTREAM_UNAVAILABLE');
    expect(body.history).toBe('incomplete');
    expect(body.message).toMatch(/does not show the tokens arriving/);
  });

  it('a purchase without a block time: not held long enough when an older dated entry bounds it, unknown when nothing does', async () => {
    const state = stack.localnet.state;
    const receipt = (account: string, wallet: string, slot: number) =>
      state.addTransaction({
        blockTime: null,
        slot,
        feePayer: wallet,
        accountKeys: [account],
        instructions: [],
        tokenBalances: [{ account, mint: lock, owner: wallet, decimals: 6, pre: null, post: 1_000_000_000n }],
      });
    // Undated, between a dated entry of 20 days ago and now: bought less than 30 days ago.
    const bounded = lockHolder(state, 1_000_000_000n, ({ wallet, account }) => {
      state.addTransaction({ blockTime: blockTimeDaysAgo(state, 20), feePayer: wallet, accountKeys: [account], instructions: [] });
      receipt(account, wallet, state.slotAt(blockTimeDaysAgo(state, 10)));
    });
    expectRefusal(await login(stack.gateUrl, 'timelock', bounded.secretKey, policy('30')), 500, 'INSUFFICIENT_HOLD_DURATION');
    // Undated and nothing older: it may be years old.
    const unbounded = lockHolder(state, 1_000_000_000n, ({ wallet, account }) => receipt(account, wallet, state.slotAt(blockTimeDaysAgo(state, 10))));
    const body = expectRefusal(await login(stack.gateUrl, 'timelock', unbounded.secretKey, policy('30')), 503, 'UPSTREAM_UNAVAILABLE');
    expect(body.message).toMatch(/no block time/);
  });

  it('bad headers → 400', async () => {
    const wallet = fixtureWallet('lock-steady');
    const missing = expectRefusal(await login(stack.gateUrl, 'timelock', wallet, { required_mint: lock }), 400, 'MISSING_HEADER');
    expect(missing.missing).toEqual(['mint_amount', 'min_hold_duration_days']);
    for (const bad of [policy('30', '1.5'), policy('30', '-1'), policy('-1'), policy('soon'), policy('30', THOUSAND, 'nope')]) {
      expectRefusal(await login(stack.gateUrl, 'timelock', wallet, bad), 400, 'INVALID_HEADER');
    }
  });

  it('geolocation outside geo_code_locs → 401 locdeny', async () => {
    await expectLocationDenied(stack, 'timelock', fixtureWallet('lock-steady'), policy('30'));
  });

  it('RPC failure → 503, no token', async () => {
    await expectUpstreamFailure(stack, 'timelock', fixtureWallet('lock-steady'), policy('30'));
    // A failure in the middle of the history walk fails closed too.
    stack.localnet.faults.set({ mode: 'http500', methods: ['getTransaction'] });
    const result = await login(stack.gateUrl, 'timelock', fixtureWallet('lock-steady'), policy('30'));
    stack.localnet.faults.clear();
    expectRefusal(result, 503, 'UPSTREAM_UNAVAILABLE');
  });
});

describe('timelock with "scope": "all" (every token account counts)', () => {
  let scoped: Stack;
  beforeAll(async () => {
    scoped = await startStack();
  });
  afterAll(async () => {
    await scoped?.stop();
  });

  it('tracks token accounts that are not ATAs, including their own history', async () => {
    const everyAccount = (days: string) => ({ ...policy(days), scope: 'all' });
    const state = scoped.localnet.state;
    const longHeld = lockHolder(state, 1_000_000_000n, ({ account }) => unsignedReceipt(state, account, 0n, 1_000_000_000n, 40), state.nextAddress('lock-non-ata'));
    const result = await loginCounted(scoped, 'timelock', longHeld.secretKey, everyAccount('30'));
    expectToken(result, 'timelock', longHeld.secretKey);
    logCalls('timelock', 'scope all, non-ATA account', result.calls);

    const recent = lockHolder(state, 1_000_000_000n, ({ account }) => unsignedReceipt(state, account, 0n, 1_000_000_000n, 2), state.nextAddress('lock-non-ata'));
    expectRefusal(await login(scoped.gateUrl, 'timelock', recent.secretKey, everyAccount('30')), 500, 'INSUFFICIENT_HOLD_DURATION');

    // A transaction touching two of the wallet's accounts is in both histories but is undone once:
    // 1,000 held outside the ATA for 40 days, then a purchase of 500 into the ATA 10 days ago.
    const twoAccounts = newWallet();
    const nonAta = state.addTokenAccount({ owner: twoAccounts.publicKey, mint: lock, amount: 1_000_000_000n, program: 'token', address: state.nextAddress('lock-non-ata') });
    const ata = state.addTokenAccount({ owner: twoAccounts.publicKey, mint: lock, amount: 500_000_000n, program: 'token' });
    unsignedReceipt(state, nonAta, 0n, 1_000_000_000n, 40);
    const seller = counterparty();
    state.addTransaction({
      blockTime: blockTimeDaysAgo(state, 10),
      feePayer: twoAccounts.publicKey,
      instructions: [{ programId: TOKEN_PROGRAM, accounts: [seller.account, lock, ata, nonAta, seller.publicKey], data: Buffer.from([12]) }],
      tokenBalances: [
        { account: ata, mint: lock, owner: twoAccounts.publicKey, decimals: 6, pre: null, post: 500_000_000n },
        { account: nonAta, mint: lock, owner: twoAccounts.publicKey, decimals: 6, pre: 1_000_000_000n, post: 1_000_000_000n },
        { account: seller.account, mint: lock, owner: seller.publicKey, decimals: 6, pre: 10n ** 15n, post: 10n ** 15n - 500_000_000n },
      ],
    });
    const both = await loginCounted(scoped, 'timelock', twoAccounts.secretKey, everyAccount('30'));
    expectToken(both, 'timelock', twoAccounts.secretKey);
    expect(both.calls.getTransaction).toBe(1);

    // Without a scope a positive condition counts the ATAs (the cheap read): the same kind of holding does not count at all.
    const elsewhere = lockHolder(stack.localnet.state, 1_000_000_000n, () => undefined, stack.localnet.state.nextAddress('lock-non-ata'));
    expectRefusal(await login(stack.gateUrl, 'timelock', elsewhere.secretKey, policy('30')), 500, 'INSUFFICIENT_BALANCE');
  });
});

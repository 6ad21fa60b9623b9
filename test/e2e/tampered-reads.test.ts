import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_COLLECTIONS, demoNft } from 'x404-localnet/collections/fixture.js';
import { buildDemoState, demoAddress, demoMint, demoWallet, type DemoWalletName } from 'x404-localnet/fixture.js';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';
import type { TamperKind } from 'x404-localnet/tamper.js';
import { blacklistPolicy, login, type HttpResult } from '../helpers/client.js';
import { startGate, startStack, type GateProcess, type Stack } from '../helpers/gate.js';
import { expectRefusal, expectToken, fixtureWallet, newWallet } from './features-kit.js';

/**
 * Every account the gate decodes is the account it asked for, beyond the token accounts of
 * test/e2e/holdings.test.ts (docs/security.md, "Only well-formed data counts"): each account of a
 * getProgramAccounts answer matches every filter sent, as far as the bytes that came back show it,
 * and the layout its caller reads (a lending obligation's version and owner); an account asked for
 * by address is of the program, layout and group it stands for (a MarginFi bank). Anything else is a
 * 503 — never "no debt", never debt of unknown size that a `not` would turn into a pass — and an
 * answer that is malformed in itself is asked of the next endpoint first.
 */
let dir: string;
let stack: Stack;
const MAINNET_USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'x404-tampered-reads-'));
  const policiesFile = join(dir, 'policies.json');
  writeFileSync(
    policiesFile,
    JSON.stringify({
      rules: {
        // "Owes more than the allowance": each honest debtor below is under it, so refused.
        'marginfi-debt-over-1000': { not: { feature: 'nodebt', check_protocols: ['marginfi'], max_debt_allowed: '1000' } },
        'save-debt-over-10000': { not: { feature: 'nodebt', check_protocols: ['save'], max_debt_allowed: '10000' } },
        'not-core-c': { not: { feature: 'collection', collections: [DEMO_COLLECTIONS.c] } },
      },
    }),
  );
  stack = await startStack({ env: { POLICIES_FILE: policiesFile } });
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => stack.localnet.tamper.clear());

async function whileTampered(localnet: LocalnetHandle, kind: TamperKind, addresses: string[], attempt: () => Promise<HttpResult>): Promise<HttpResult> {
  localnet.tamper.set({ kind, addresses });
  try {
    return await attempt();
  } finally {
    localnet.tamper.clear();
  }
}

function expectUnavailable(result: HttpResult, what: string): void {
  expect(result.status, `${what}: ${JSON.stringify(result.body)}`).toBe(503);
  expect(result.body.error).toBe('UPSTREAM_UNAVAILABLE');
  expect(result.body.token).toBeUndefined();
  expect(result.headers.get('retry-after')).toMatch(/^\d+$/);
}

const nodebt = (protocols: string[], max: string) => ({ check_protocols: JSON.stringify(protocols), max_debt_allowed: max });

describe('lending accounts: another layout, program or group is unknown, never debt of unknown size', () => {
  const bank = demoAddress('marginfi-usdc-bank');

  it.each(['owner-program', 'truncate'] as const)('the MarginFi bank a liability names, tampered %s → 503 for nodebt and for `not` over it; honest → HAS_DEBT / 403', async (kind) => {
    const debtor = fixtureWallet('debtor-marginfi');
    // Honest: $525 of USDC, over an allowance of 0 and under one of 1,000.
    expectRefusal(await login(stack.gateUrl, 'nodebt', debtor, nodebt(['marginfi'], '0')), 500, 'HAS_DEBT');
    expectRefusal(await login(stack.gateUrl, 'marginfi-debt-over-1000', debtor), 403, 'RULE_NOT_MET');
    expectUnavailable(await whileTampered(stack.localnet, kind, [bank], () => login(stack.gateUrl, 'nodebt', debtor, nodebt(['marginfi'], '0'))), kind);
    // Read as debt of unknown size, the tampered bank would fail nodebt, and `not` would let the wallet in.
    expectUnavailable(await whileTampered(stack.localnet, kind, [bank], () => login(stack.gateUrl, 'marginfi-debt-over-1000', debtor)), kind);
  });

  it('a bank of another MarginFi group than the account borrowing from it → 503', async () => {
    const wallet = newWallet();
    const { state } = stack.localnet;
    const foreign = state.addMarginfiBank({ mint: MAINNET_USDC, decimals: 6, liabilityShareValue: '1', group: demoAddress('marginfi:other-group') });
    state.addMarginfiAccount({ authority: wallet.publicKey, balances: [{ bank: foreign, liabilityShares: '1000000' }] });
    expectUnavailable(await login(stack.gateUrl, 'nodebt', wallet.secretKey, nodebt(['marginfi'], '100')), 'bank of another group');
    // The same liability in a bank of the account's group: $1 of USDC, within the allowance.
    const honest = newWallet();
    const own = state.addMarginfiBank({ mint: MAINNET_USDC, decimals: 6, liabilityShareValue: '1' });
    state.addMarginfiAccount({ authority: honest.publicKey, balances: [{ bank: own, liabilityShares: '1000000' }] });
    expectToken(await login(stack.gateUrl, 'nodebt', honest.secretKey, nodebt(['marginfi'], '100')), 'nodebt', honest.secretKey, { totalDebtUsd: '1' });
  });

  it('a Save obligation whose version byte is no longer 1 (bytes 0..32 rewritten) → 503 for nodebt and for `not` over it', async () => {
    const debtor = fixtureWallet('debtor-save');
    const obligation = demoAddress('save:debtor-save');
    expectRefusal(await login(stack.gateUrl, 'save-debt-over-10000', debtor), 403, 'RULE_NOT_MET');
    expectUnavailable(await whileTampered(stack.localnet, 'mint', [obligation], () => login(stack.gateUrl, 'nodebt', debtor, nodebt(['save'], '0'))), 'save version');
    expectUnavailable(await whileTampered(stack.localnet, 'mint', [obligation], () => login(stack.gateUrl, 'save-debt-over-10000', debtor)), 'save version');
  });
});

describe('a Core scan whose answer does not match its filters', () => {
  const asset = demoNft('core-holder');
  const policy = { collections: JSON.stringify([DEMO_COLLECTIONS.c]) };

  it('from the only endpoint → 503 for collection and for `not` over it', async () => {
    const holder = fixtureWallet('core-holder');
    expectUnavailable(await whileTampered(stack.localnet, 'mint', [asset], () => login(stack.gateUrl, 'collection', holder, policy)), 'core');
    expectUnavailable(await whileTampered(stack.localnet, 'mint', [asset], () => login(stack.gateUrl, 'not-core-c', holder)), 'not core');
    expectToken(await login(stack.gateUrl, 'collection', holder, policy), 'collection', holder);
  });
});

describe('a malformed answer is asked of the next endpoint before it is a 503', () => {
  let tampering: LocalnetHandle;
  let honest: LocalnetHandle;
  let gate: GateProcess;

  beforeAll(async () => {
    const state = buildDemoState();
    tampering = await startLocalnet({ state });
    honest = await startLocalnet({ state });
    gate = await startGate({ rpcUrl: `${tampering.url},${honest.url}`, env: { RPC_HEDGE_MS: '0' } });
  }, 60_000);
  afterAll(async () => {
    await gate?.stop('SIGKILL');
    await Promise.all([tampering?.close(), honest?.close()]);
  });

  const secret = (name: DemoWalletName) => fixtureWallet(name);

  it('a Core scan listing an asset that does not match its filters: the other endpoint answers → 200', async () => {
    const holder = secret('core-holder');
    const policy = { collections: JSON.stringify([DEMO_COLLECTIONS.c]) };
    expectToken(await whileTampered(tampering, 'mint', [demoNft('core-holder')], () => login(gate.url, 'collection', holder, policy)), 'collection', holder);
  });

  it('a Save obligation of another version: the other endpoint answers → HAS_DEBT with the true figure', async () => {
    const debtor = secret('debtor-save');
    const body = expectRefusal(
      await whileTampered(tampering, 'mint', [demoAddress('save:debtor-save')], () => login(gate.url, 'nodebt', debtor, nodebt(['save'], '0'))),
      500,
      'HAS_DEBT',
    );
    expect(body.totalDebtUsd).toBe('2500');
  });

  it('an answer by mint naming another mint: the other endpoint answers → 500 HOLDS_BANNED_TOKEN', async () => {
    const holder = demoWallet('banned-nonata').publicKey;
    tampering.tamper.set({ kind: 'mint-swap', wallet: holder, to: demoMint('usdc') });
    try {
      const result = await login(gate.url, 'blacklist', secret('banned-nonata'), blacklistPolicy({ excluded: [demoMint('banned'), demoMint('banned-t22')] }));
      expectRefusal(result, 500, 'HOLDS_BANNED_TOKEN');
    } finally {
      tampering.tamper.clear();
    }
  });
});

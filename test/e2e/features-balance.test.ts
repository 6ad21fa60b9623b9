import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoMint, demoWallet } from 'x404-localnet/fixture.js';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';
import { associatedTokenAddress } from '../../src/chain/ata.js';
import { TOKEN_PROGRAM_ID } from '../../src/chain/token-programs.js';
import { X404Error, authenticate, memoryStorage, type PolicyFor } from '../../src/sdk/index.js';
import { login } from '../helpers/client.js';
import { startGate, type GateProcess } from '../helpers/gate.js';
import { expectLocationDenied, expectRefusal, expectToken, fixtureWallet, newWallet } from './features-kit.js';

/**
 * balance end to end: the wallet's own SOL against `min_lamports`. Fixture: `clean` holds 5 SOL,
 * `sol-short` one lamport less than 1 SOL, `empty` has no account at all. As a rule's leaf its
 * account is read in the same getMultipleAccounts as the other leaves' associated token accounts
 * (the local chain's call log shows it).
 */
const ONE_SOL = '1000000000';
let localnet: LocalnetHandle;
let gate: GateProcess;
let dir: string;

beforeAll(async () => {
  localnet = await startLocalnet({ port: 0, recordCalls: 5_000 });
  dir = mkdtempSync(join(tmpdir(), 'x404-balance-'));
  const rules = {
    rules: {
      funded: { all: [{ feature: 'balance', min_lamports: ONE_SOL }, { feature: 'multitoken', required_tokens: [{ mint: demoMint('usdc'), amount: '1' }] }] },
      broke: { not: { feature: 'balance', min_lamports: ONE_SOL } },
    },
  };
  writeFileSync(join(dir, 'policies.json'), JSON.stringify(rules));
  gate = await startGate({ rpcUrl: localnet.url, env: { POLICIES_FILE: join(dir, 'policies.json') } });
});
afterAll(async () => {
  await gate?.stop('SIGKILL');
  await localnet?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('balance', () => {
  it('passes a wallet holding at least min_lamports, to the lamport', async () => {
    expectToken(await login(gate.url, 'balance', fixtureWallet('clean'), { min_lamports: ONE_SOL }), 'balance', fixtureWallet('clean'));
    const short = fixtureWallet('sol-short');
    expectToken(await login(gate.url, 'balance', short, { min_lamports: '999999999' }), 'balance', short);
  });

  it('refuses one lamport short, and a wallet with no account, with 500 INSUFFICIENT_SOL, required and found', async () => {
    const body = expectRefusal(await login(gate.url, 'balance', fixtureWallet('sol-short'), { min_lamports: ONE_SOL }), 500, 'INSUFFICIENT_SOL');
    expect(body).toMatchObject({ required: ONE_SOL, found: '999999999' });
    expect(expectRefusal(await login(gate.url, 'balance', newWallet().secretKey, { min_lamports: '1' }), 500, 'INSUFFICIENT_SOL')).toMatchObject({ required: '1', found: '0' });
  });

  it('a missing header is 400 MISSING_HEADER; anything but a whole number up to u64 is 400 INVALID_HEADER', async () => {
    const clean = fixtureWallet('clean');
    expect(expectRefusal(await login(gate.url, 'balance', clean, {}), 400, 'MISSING_HEADER')).toMatchObject({ missing: ['min_lamports'] });
    for (const value of ['', '-1', '1.5', '1e9', 'one', '18446744073709551616']) {
      expect(expectRefusal(await login(gate.url, 'balance', clean, { min_lamports: value }), 400, 'INVALID_HEADER')).toMatchObject({ header: 'min_lamports' });
    }
  });

  it('accepts the geolocation policy like every feature', async () => {
    await expectLocationDenied({ gateUrl: gate.url } as never, 'balance', fixtureWallet('clean'), { min_lamports: '1' });
  });

  it('as a rule leaf: read in the same getMultipleAccounts as the other leaf’s ATAs, and negated by `not`', async () => {
    const clean = demoWallet('clean');
    const mark = localnet.calls().last;
    expectToken(await login(gate.url, 'funded', clean.secretKey, {}), 'funded', clean.secretKey);
    const reads = localnet.calls(mark).calls.filter((call) => call.method === 'getMultipleAccounts').map((call) => (call.params as [string[]])[0]);
    const ata = associatedTokenAddress(clean.publicKey, demoMint('usdc'), TOKEN_PROGRAM_ID);
    expect(reads.filter((keys) => keys.includes(clean.publicKey) && keys.includes(ata))).toHaveLength(1);
    expect(reads.filter((keys) => keys.includes(clean.publicKey))).toHaveLength(1);

    expectRefusal(await login(gate.url, 'funded', fixtureWallet('sol-short'), {}), 500, 'INSUFFICIENT_SOL');
    expectRefusal(await login(gate.url, 'broke', fixtureWallet('clean'), {}), 403, 'RULE_NOT_MET');
    expectToken(await login(gate.url, 'broke', fixtureWallet('sol-short'), {}), 'broke', fixtureWallet('sol-short'));
  });

  it('the SDK signs in with a typed balance policy and reports the refusal’s code', async () => {
    const policy: PolicyFor<'balance'> = { min_lamports: ONE_SOL };
    const { token } = await authenticate({ baseUrl: gate.url, feature: 'balance', policy, signer: { secretKey: fixtureWallet('clean') }, storage: memoryStorage() });
    expect(token.split('.')).toHaveLength(3);
    const refused = await authenticate({ baseUrl: gate.url, feature: 'balance', policy, signer: { secretKey: fixtureWallet('sol-short') }, storage: memoryStorage() }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(X404Error);
    expect(refused).toMatchObject({ code: 'INSUFFICIENT_SOL', status: 500 });
  });
});

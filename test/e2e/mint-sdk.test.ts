import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair, PublicKey, Transaction, VersionedTransaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { associatedTokenAddress, mint, mintAndConfirm, mintConfiguration, X404Error } from '../../src/sdk/index.js';
import { demoWallet } from 'x404-localnet/fixture.js';
import { x404 } from '../helpers/launch.js';
import { associatedTokenAccount, TOKEN_2022_PROGRAM, writeKeypairFile } from '../helpers/mint.js';
import { fundedWallet, startMintLaunch, waitConfirmed, type MintLaunch } from '../helpers/mint-gate.js';
import { rpcCall } from '../helpers/token-transactions.js';

/** `mint()` from x404-gate/sdk and `x404 mint` / `x404 mint-status`, against a real gate and the local chain. */
let launch: MintLaunch;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'x404-mint-sdk-'));
  launch = await startMintLaunch({
    tokens: { genesis: 'token', t22: 'token2022' },
    mints: (m) => ({
      genesis: { rule: 'launch', signer: 'signer.json', program: 'spl-token', mint: m.genesis!.toBase58(), amount: '5', supply: 100 },
      t22: { rule: 'launch', signer: 'signer.json', program: 'token-2022', mint: m.t22!.toBase58(), amount: '2', per_wallet: 2 },
    }),
  });
});
afterAll(async () => {
  await launch?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function balance(owner: PublicKey, mintKey: PublicKey, program?: PublicKey): Promise<bigint> {
  const reply = await rpcCall(launch.localnet.url, 'getAccountInfo', [associatedTokenAccount(owner, mintKey, program).toBase58(), { encoding: 'base64', commitment: 'confirmed' }]);
  return reply.result.value === null ? 0n : Buffer.from(reply.result.value.data[0] as string, 'base64').readBigUInt64LE(64);
}

describe('mint() in x404-gate/sdk', () => {
  it('derives the ATA as web3.js does', async () => {
    const owner = Keypair.generate().publicKey;
    expect(await associatedTokenAddress(owner.toBase58(), launch.mints.t22!.toBase58(), TOKEN_2022_PROGRAM.toBase58())).toBe(associatedTokenAccount(owner, launch.mints.t22!, TOKEN_2022_PROGRAM).toBase58());
  });

  it('mints with a keypair: reads the configuration, builds, signs, posts; the gate answers once', async () => {
    const wallet = await fundedWallet(launch.localnet.url);
    const result = await mint({ baseUrl: launch.gateUrl, name: 'genesis', signer: { secretKey: wallet.secretKey }, rpcUrl: launch.localnet.url, computeUnitLimit: 120_000 });
    expect(result.remaining).toBe(0);
    expect(result.configuration).toMatchObject({ name: 'genesis', program: 'spl-token', amount: '5', supply: 100 });
    expect(await waitConfirmed(launch.localnet.url, [result.signature])).toEqual([null]);
    expect(await balance(wallet.publicKey, launch.mints.genesis!)).toBe(5n);

    const again = await mint({ baseUrl: launch.gateUrl, name: 'genesis', signer: { secretKey: wallet.secretKey }, rpcUrl: launch.localnet.url }).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(X404Error);
    expect((again as X404Error).code).toBe('MINT_LIMIT_REACHED');
    expect((again as X404Error).status).toBe(403);
  });

  it('mints with a browser-style wallet that signs the transaction (and token-2022)', async () => {
    const keypair = await fundedWallet(launch.localnet.url);
    const signed: Uint8Array[] = [];
    const wallet = {
      publicKey: keypair.publicKey,
      async signTransaction(bytes: Uint8Array): Promise<Uint8Array> {
        const tx = VersionedTransaction.deserialize(bytes);
        tx.sign([keypair]);
        signed.push(tx.serialize());
        return tx.serialize();
      },
    };
    const result = await mint({ baseUrl: launch.gateUrl, name: 't22', signer: wallet, rpcUrl: launch.localnet.url });
    expect(signed).toHaveLength(1);
    expect(result.remaining).toBe(1);
    await waitConfirmed(launch.localnet.url, [result.signature]);
    expect(await balance(keypair.publicKey, launch.mints.t22!, TOKEN_2022_PROGRAM)).toBe(2n);
    // What the gate sent is what the wallet signed, with the gate's signature beside it.
    const sent = Transaction.from(Buffer.from(result.transaction, 'base64'));
    expect(sent.verifySignatures()).toBe(true);
  });

  it('mintAndConfirm() returns once the mint is confirmed: the tokens are there without waiting', async () => {
    const wallet = await fundedWallet(launch.localnet.url);
    const result = await mintAndConfirm({ baseUrl: launch.gateUrl, name: 'genesis', signer: { secretKey: wallet.secretKey }, rpcUrl: launch.localnet.url, intervalMs: 100 });
    expect(result.confirmation).toMatchObject({ signature: result.signature, confirmationStatus: expect.stringMatching(/^(confirmed|finalized)$/), slot: expect.any(Number) });
    expect(await balance(wallet.publicKey, launch.mints.genesis!)).toBe(5n);
    // Its wallet's eligibility, asked before signing, now says it has had its mint.
    const status = await mintConfiguration({ baseUrl: launch.gateUrl, name: 'genesis', wallet: wallet.publicKey.toBase58() });
    expect(status.wallet).toMatchObject({ address: wallet.publicKey.toBase58(), eligible: false, error: 'MINT_LIMIT_REACHED', remaining: 0 });
  });

  it('checkEligibility: a wallet the gate would refuse is told so before it is asked to sign', async () => {
    const banned = await fundedWallet(launch.localnet.url, Keypair.fromSecretKey(demoWallet('banned-holder').secretKey));
    let asked = 0;
    const wallet = { publicKey: banned.publicKey, signTransaction: async (bytes: Uint8Array) => (asked++, bytes) };
    const refused = await mint({ baseUrl: launch.gateUrl, name: 'genesis', signer: wallet, rpcUrl: launch.localnet.url, checkEligibility: true }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(X404Error);
    expect((refused as X404Error).code).toBe('HOLDS_BANNED_TOKEN');
    expect(asked).toBe(0);
    // An eligible wallet mints as without the check.
    const fine = await fundedWallet(launch.localnet.url);
    const result = await mint({ baseUrl: launch.gateUrl, name: 'genesis', signer: { secretKey: fine.secretKey }, rpcUrl: launch.localnet.url, checkEligibility: true });
    expect(result.configuration.wallet).toMatchObject({ eligible: true, remaining: 1 });
  });

  it('reads the configuration and its counts', async () => {
    const status = await mintConfiguration({ baseUrl: launch.gateUrl, name: 'genesis' });
    expect(status).toMatchObject({ name: 'genesis', supply: 100, perWallet: 1 });
    await expect(mintConfiguration({ baseUrl: launch.gateUrl, name: 'missing' })).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });
});

describe('x404 mint and x404 mint-status', () => {
  it('mints with a keypair file, refuses the second, and shows issued / reserved / supply', async () => {
    const wallet = await fundedWallet(launch.localnet.url);
    const file = join(dir, 'wallet.json');
    writeKeypairFile(file, wallet);
    const first = await x404(['mint', '--url', launch.gateUrl, '--name', 'genesis', '--keypair', file, '--rpc', launch.localnet.url]);
    expect(first.code, first.stderr).toBe(0);
    const signature = first.stdout.trim();
    expect(signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    await waitConfirmed(launch.localnet.url, [signature]);

    // The RPC from the environment, as the gate's own.
    const second = await x404(['mint', '--url', launch.gateUrl, '--name', 'genesis', '--keypair', file], { env: { SOLANA_RPC_URL: launch.localnet.url } });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('MINT_LIMIT_REACHED (HTTP 403)');

    const status = await x404(['mint-status', 'genesis', '--url', launch.gateUrl]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/issued \d+ {2}reserved \d+ {2}supply 100 {2}per wallet 1/);
    const json = JSON.parse((await x404(['mint-status', 'genesis', '--url', launch.gateUrl, '--json'])).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ name: 'genesis', supply: 100 });

    const usage = await x404(['mint', '--name', 'genesis']);
    expect(usage.code).toBe(2);
    expect((await x404(['mint', '--help'])).stdout).toContain('--compute-unit-limit');
  });
});

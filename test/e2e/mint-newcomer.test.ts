import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair, PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';
import { confirmTransaction, X404Error } from '../../src/sdk/index.js';
import { startGate, testSecret, type GateProcess } from '../helpers/gate.js';
import { x404 } from '../helpers/launch.js';
import { associatedTokenAccount, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../helpers/mint.js';
import { LAUNCH_RULES, waitForCounts } from '../helpers/mint-gate.js';
import { localnetAdmin, rpcCall } from '../helpers/token-transactions.js';

/**
 * A newcomer's path from an empty directory to a landed mint, with the x404 command only (docs/
 * minting.md, "Launch your own mint"): keys, SOL from the faucet, mint-create, the entry pasted
 * into POLICIES_FILE, the gate started, `x404 mint <name> --confirm` — on a local chain that
 * behaves as a cluster: `confirmed` 2 blocks behind, transactions landing 2 blocks after sending.
 */
let localnet: LocalnetHandle;
let dir: string;
const gates: GateProcess[] = [];

beforeAll(async () => {
  localnet = await startLocalnet({ port: 0, cluster: { confirmedLag: 2, landingBlocks: 2 } });
  dir = mkdtempSync(join(tmpdir(), 'x404-newcomer-'));
});
afterAll(async () => {
  await Promise.all(gates.map((gate) => gate.stop('SIGKILL')));
  await localnet?.close();
  rmSync(dir, { recursive: true, force: true });
});

const path = (name: string): string => join(dir, name);
async function mintAccount(address: string): Promise<{ owner: string; authority: string | null; supply: bigint }> {
  const reply = await rpcCall(localnet.url, 'getAccountInfo', [address, { encoding: 'base64', commitment: 'confirmed' }]);
  const data = Buffer.from(reply.result.value.data[0] as string, 'base64');
  return { owner: reply.result.value.owner as string, authority: data.readUInt32LE(0) === 1 ? new PublicKey(data.subarray(4, 36)).toBase58() : null, supply: data.readBigUInt64LE(36) };
}

describe('x404 keys solana, mint-create, mint --confirm', () => {
  it('from an empty directory to a landed mint', async () => {
    const payer = await x404(['keys', 'solana', '--out', path('payer.json')]);
    expect(payer.code, payer.stderr).toBe(0);
    const payerAddress = payer.stdout.trim();
    expect(statSync(path('payer.json')).mode & 0o777).toBe(0o600);
    // solana-keygen's format: the seed, then its public key.
    const secret = Uint8Array.from(JSON.parse(readFileSync(path('payer.json'), 'utf8')) as number[]);
    expect(Keypair.fromSecretKey(secret).publicKey.toBase58()).toBe(payerAddress);
    expect((await x404(['keys', 'solana', '--out', path('payer.json')])).code).toBe(2);
    const airdrop = await x404(['airdrop', '--keypair', path('payer.json'), '--sol', '2', '--rpc', localnet.url]);
    expect(airdrop.code, airdrop.stderr).toBe(0);
    // Confirmed: the lamports are there at `confirmed`, with no waiting.
    expect((await rpcCall(localnet.url, 'getBalance', [payerAddress, { commitment: 'confirmed' }])).result.value).toBe(2_000_000_000);

    mkdirSync(path('keys'));
    const created = await x404(['mint-create', '--keypair', path('payer.json'), '--signer', 'keys/signer.json', '--rpc', localnet.url, '--name', 'genesis'], { cwd: dir });
    expect(created.code, created.stderr).toBe(0);
    expect(existsSync(path('keys/signer.json'))).toBe(true);
    const signer = Keypair.fromSecretKey(Uint8Array.from(JSON.parse(readFileSync(path('keys/signer.json'), 'utf8')) as number[]));
    const entry = JSON.parse(created.stdout) as Record<string, Record<string, unknown>>;
    expect(entry.genesis).toMatchObject({ rule: 'launch', signer: 'keys/signer.json', program: 'spl-token', amount: '1' });
    const onChain = await mintAccount(entry.genesis!.mint as string);
    expect(onChain).toEqual({ owner: TOKEN_PROGRAM.toBase58(), authority: signer.publicKey.toBase58(), supply: 0n });

    // Paste the entry, start the gate: its authority check passes, so GET answers 200.
    writeFileSync(path('policies.json'), JSON.stringify({ ...LAUNCH_RULES, mints: entry }));
    const gate = await startGate({ rpcUrl: localnet.url, env: { JWT_SECRET: testSecret(), POLICIES_FILE: path('policies.json') } });
    gates.push(gate);
    // A new gate rebuilds its counts from the chain first (503 MINT_RECOUNTING; the chain's blocks produced meanwhile).
    await waitForCounts(gate.url, localnet.url, ['genesis']);
    expect((await fetch(`${gate.url}/x404_mint/genesis`)).status).toBe(200);

    const wallet = await x404(['keys', 'solana', '--out', path('wallet.json')]);
    expect((await x404(['airdrop', wallet.stdout.trim(), '--rpc', localnet.url])).code).toBe(0);
    const minted = await x404(['mint', 'genesis', '--keypair', path('wallet.json'), '--url', gate.url, '--rpc', localnet.url, '--confirm']);
    expect(minted.code, minted.stderr).toBe(0);
    expect(minted.stderr).toMatch(/Confirmed \((confirmed|finalized)\) in slot \d+/);
    // Confirmed means landed: the wallet's token account holds the amount at `confirmed` now, no waiting.
    const ata = associatedTokenAccount(new PublicKey(wallet.stdout.trim()), new PublicKey(entry.genesis!.mint as string));
    const account = await rpcCall(localnet.url, 'getAccountInfo', [ata.toBase58(), { encoding: 'base64', commitment: 'confirmed' }]);
    expect(Buffer.from(account.result.value.data[0] as string, 'base64').readBigUInt64LE(64)).toBe(1n);

    const again = await x404(['mint', 'genesis', '--keypair', path('wallet.json'), '--url', gate.url, '--rpc', localnet.url, '--confirm']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('MINT_LIMIT_REACHED');
    const status = await x404(['mint-status', '--name', 'genesis', '--url', gate.url, '--wallet', wallet.stdout.trim()]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`wallet ${wallet.stdout.trim()}: refused now (MINT_LIMIT_REACHED), 0 remaining`);
  });

  it('mint-create makes token-2022 mints too, and refuses what it cannot do', async () => {
    const created = await x404(['mint-create', '--keypair', path('payer.json'), '--signer', path('keys/signer.json'), '--rpc', localnet.url, '--program', 'token-2022', '--decimals', '6']);
    expect(created.code, created.stderr).toBe(0);
    const entry = JSON.parse(created.stdout) as Record<string, Record<string, unknown>>;
    expect((await mintAccount(entry.genesis!.mint as string)).owner).toBe(TOKEN_2022_PROGRAM.toBase58());
    expect((await x404(['mint-create', '--keypair', path('payer.json'), '--signer', path('keys/signer.json'), '--rpc', localnet.url, '--program', 'candy'])).code).toBe(2);
    expect((await x404(['mint-create', '--signer', path('keys/signer.json'), '--rpc', localnet.url])).code).toBe(2);
    // A payer without SOL: the node refuses the transaction, a clear message, exit 1.
    await x404(['keys', 'solana', '--out', path('empty.json')]);
    const poor = await x404(['mint-create', '--keypair', path('empty.json'), '--signer', path('keys/signer.json'), '--rpc', localnet.url]);
    expect(poor.code).toBe(1);
    expect(poor.stderr).toContain('sendTransaction');
  });

  it('x404 airdrop: usage mistakes are 2, a node that refuses is a clear error', async () => {
    expect((await x404(['airdrop', '--rpc', localnet.url])).code).toBe(2);
    expect((await x404(['airdrop', 'not-an-address', '--rpc', localnet.url])).code).toBe(2);
    expect((await x404(['airdrop', Keypair.generate().publicKey.toBase58(), '--sol', '0', '--rpc', localnet.url])).code).toBe(2);
    // The node refuses it (an rpc-error fault here): the refusal named on stderr, exit 1.
    await localnetAdmin(localnet.url, 'fault', { mode: 'rpc-error', methods: ['requestAirdrop'], count: 1 });
    const refused = await x404(['airdrop', Keypair.generate().publicKey.toBase58(), '--rpc', localnet.url]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('the RPC node refused requestAirdrop');
  });
});

describe('confirmTransaction (mintAndConfirm\'s wait)', () => {
  it('a transaction that never lands: TRANSACTION_EXPIRED once the block height passes its lastValidBlockHeight', async () => {
    const { blockHeight } = await localnetAdmin(localnet.url, 'blocks', {});
    const signature = bs58.encode(Keypair.generate().secretKey);
    const waiting = confirmTransaction({ rpcUrl: localnet.url, signature, lastValidBlockHeight: blockHeight + 2, intervalMs: 50 }).catch((error: unknown) => error);
    // Past it at `confirmed`, which trails the newest block by 2 here.
    await localnetAdmin(localnet.url, 'blocks', { advance: 5 });
    const error = await waiting;
    expect(error).toBeInstanceOf(X404Error);
    expect((error as X404Error).code).toBe('TRANSACTION_EXPIRED');
  });
});

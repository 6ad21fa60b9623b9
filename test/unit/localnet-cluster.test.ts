/**
 * The local chain behaving as a cluster (packages/localnet/src/cluster.ts), over HTTP: commitments
 * whose banks trail the newest block (blockhashes, block height, slot, statuses, history), sent
 * transactions and airdrops that land blocks later, the status cache's 300 slots against a history
 * search, faults that hold for a number of blocks, per-method latency and requestAirdrop.
 *
 * The block clock is stopped (blockMs 0): each test moves it with POST /__localnet/blocks.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Keypair, SystemProgram } from '@solana/web3.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clusterFromSetting, clusterSettingOf } from 'x404-localnet/cluster.js';
import { DEMO_LAUNCH_MINTS, DEMO_MINT_SIGNER } from 'x404-localnet/demo-mint.js';
import { buildDemoState } from 'x404-localnet/fixture.js';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';
import { ataOf, createAta, keypair, legacyTransaction, localnetAdmin, mintTo, rpcCall } from '../helpers/token-transactions.js';

let chain: LocalnetHandle;
const rpc = (method: string, params?: unknown[]) => rpcCall(chain.url, method, params);
const admin = (route: string, body: unknown = {}) => localnetAdmin(chain.url, route, body);
const advance = (blocks: number) => admin('blocks', { advance: blocks });
const at = (commitment: string) => [{ commitment }];

async function getAdmin(route: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${chain.url}/__localnet/${route}`);
  return { status: res.status, body: await res.json() };
}

async function postAdmin(route: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${chain.url}/__localnet/${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

async function status(signature: string, searchTransactionHistory = false): Promise<any> {
  return (await rpc('getSignatureStatuses', [[signature], { searchTransactionHistory }])).result.value[0];
}

/** A new address credited by the faucet: the signature requestAirdrop answered. */
async function airdrop(lamports = 1_000_000_000): Promise<{ address: string; signature: string }> {
  const address = Keypair.generate().publicKey.toBase58();
  const reply = await rpc('requestAirdrop', [address, lamports]);
  expect(reply.error).toBeUndefined();
  return { address, signature: reply.result as string };
}

/** A funded wallet's SOL transfer, signed over `blockhash` (the processed one by default). */
async function solTransfer(blockhash?: string): Promise<{ tx: string; from: string }> {
  const wallet = Keypair.generate();
  await admin('lamports', { address: wallet.publicKey.toBase58(), lamports: '1000000000' });
  const hash = blockhash ?? (await rpc('getLatestBlockhash', at('processed'))).result.value.blockhash;
  const ix = SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1_000_000 });
  return { tx: legacyTransaction([ix], hash, [wallet]), from: wallet.publicKey.toBase58() };
}

beforeAll(async () => {
  chain = await startLocalnet({ port: 0, state: buildDemoState({ collections: false, lendingDumpsDir: null }), blockMs: 0 });
});
afterAll(async () => {
  await chain.close();
});
afterEach(() => {
  chain.cluster.reset();
  chain.faults.clear();
  chain.latency.clear();
});

describe('cluster settings', () => {
  it('are read and set over HTTP and in-process, a field left out keeping its value', async () => {
    expect(await getAdmin('cluster')).toEqual({ status: 200, body: { confirmedLag: 0, finalizedLag: 32, landingBlocks: 0 } });
    expect(await admin('cluster', { confirmedLag: 2 })).toEqual({ confirmedLag: 2, finalizedLag: 32, landingBlocks: 0 });
    expect(chain.cluster.set({ landingBlocks: 3 })).toEqual({ confirmedLag: 2, finalizedLag: 32, landingBlocks: 3 });
    expect((await getAdmin('cluster')).body).toEqual({ confirmedLag: 2, finalizedLag: 32, landingBlocks: 3 });
  });

  it('refuses bad values with a JSON error, changing nothing', async () => {
    await admin('cluster', { confirmedLag: 1 });
    for (const bad of [{ confirmedLag: -1 }, { finalizedLag: 1.5 }, { landingBlocks: '2' }, { confirmedLag: 40 }, { finalizedLag: 0 }, { typo: 1 }, { confirmedLag: 2, finalizedLag: 999 }]) {
      const reply = await postAdmin('cluster', bad);
      expect(reply.status, JSON.stringify(bad)).toBe(400);
      expect(reply.body.error).toEqual(expect.any(String));
    }
    expect(chain.cluster.get()).toEqual({ confirmedLag: 1, finalizedLag: 32, landingBlocks: 0 });
    expect(() => chain.cluster.set({ landingBlocks: -1 })).toThrow(/landingBlocks/);
  });

  it('start from the in-process option', async () => {
    const other = await startLocalnet({ port: 0, state: buildDemoState({ collections: false, lendingDumpsDir: null }), blockMs: 0, cluster: { confirmedLag: 2, landingBlocks: 2 } });
    try {
      expect(other.cluster.get()).toEqual({ confirmedLag: 2, finalizedLag: 32, landingBlocks: 2 });
      const [processed, confirmed] = await Promise.all(['processed', 'confirmed'].map(async (c) => (await rpcCall(other.url, 'getBlockHeight', at(c))).result as number));
      expect(processed! - confirmed!).toBe(2);
    } finally {
      await other.close();
    }
  });
});

describe('the launchers’ setting', () => {
  it('is cluster-like by default, all at once when off, and field=blocks pairs over the cluster-like one', () => {
    expect(clusterFromSetting(undefined)).toEqual({ confirmedLag: 2, landingBlocks: 2 });
    expect(clusterFromSetting('on')).toEqual({ confirmedLag: 2, landingBlocks: 2 });
    expect(clusterFromSetting('off')).toEqual({ confirmedLag: 0, finalizedLag: 32, landingBlocks: 0 });
    expect(clusterFromSetting('confirmedLag=3, landingBlocks=0')).toEqual({ confirmedLag: 3, finalizedLag: 32, landingBlocks: 0 });
    for (const bad of ['yes', 'confirmedLag', 'confirmedLag=x', 'landingBlocks=-1', 'typo=1', 'confirmedLag=40']) expect(() => clusterFromSetting(bad), bad).toThrow();
    expect(clusterSettingOf(['--cluster=off'], { LOCALNET_CLUSTER: 'on' })).toBe('off');
    expect(clusterSettingOf([], { LOCALNET_CLUSTER: 'on' })).toBe('on');
  });

  it('npm run localnet starts the chain as a cluster: confirmed 2 blocks behind, transactions landing 2 blocks later', async () => {
    const bin = fileURLToPath(new URL('../../packages/localnet/bin/x404-localnet.js', import.meta.url));
    const child = spawn(process.execPath, [bin], { env: { PATH: process.env.PATH ?? '', PORT: '0', LOCALNET_BLOCK_MS: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let output = '';
      const url = await new Promise<string>((resolve, reject) => {
        const read = (chunk: Buffer): void => {
          output += chunk.toString();
          const match = /Solana JSON-RPC on (http:\/\/[^ ]+:\d+)/.exec(output);
          if (match && output.includes('cluster:')) resolve(match[1]!);
        };
        child.stdout.on('data', read);
        child.stderr.on('data', read);
        child.once('exit', (code) => reject(new Error(`x404-localnet exited with ${code}:\n${output}`)));
      });
      expect(output).toContain('cluster: confirmed 2 and finalized 32 blocks behind processed, transactions land 2 blocks after sending');
      const res = await fetch(`${url}/__localnet/cluster`);
      expect(await res.json()).toEqual({ confirmedLag: 2, finalizedLag: 32, landingBlocks: 2 });
      const processed = (await rpcCall(url, 'getBlockHeight', at('processed'))).result as number;
      expect((await rpcCall(url, 'getBlockHeight', at('confirmed'))).result).toBe(processed - 2);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }, 60_000);
});

describe('blockhashes, block height and slot per commitment', () => {
  it('with the defaults every commitment answers the newest block, as the chain always has', async () => {
    const heights = await Promise.all([[], at('processed'), at('confirmed'), at('finalized')].map(async (p) => (await rpc('getBlockHeight', p)).result));
    expect(new Set(heights).size).toBe(1);
    const hashes = await Promise.all([[], at('processed'), at('confirmed')].map(async (p) => (await rpc('getLatestBlockhash', p)).result.value.blockhash));
    expect(new Set(hashes).size).toBe(1);
  });

  it('confirmed trails processed by confirmedLag and finalized by finalizedLag: height, slot, blockhash and context', async () => {
    await admin('cluster', { confirmedLag: 2, finalizedLag: 20 });
    const height = async (params: unknown[]) => (await rpc('getBlockHeight', params)).result as number;
    const slot = async (params: unknown[]) => (await rpc('getSlot', params)).result as number;
    const processedHeight = await height(at('processed'));
    expect(await height(at('confirmed'))).toBe(processedHeight - 2);
    expect(await height(at('finalized'))).toBe(processedHeight - 20);
    expect(await height([])).toBe(processedHeight - 20); // the node's default: finalized
    const processedSlot = await slot(at('processed'));
    expect(await slot(at('confirmed'))).toBe(processedSlot - 2);
    expect(await slot([])).toBe(processedSlot - 20);

    const processed = (await rpc('getLatestBlockhash', at('processed'))).result;
    const confirmed = (await rpc('getLatestBlockhash', at('confirmed'))).result;
    expect(confirmed.value.blockhash).not.toBe(processed.value.blockhash);
    expect(processed.value.lastValidBlockHeight).toBe(processedHeight + 150);
    expect(confirmed.value.lastValidBlockHeight).toBe(processedHeight - 2 + 150);
    expect(confirmed.context.slot).toBe(processed.context.slot - 2);
    // Two blocks later the confirmed bank has reached the block that was newest.
    await advance(2);
    expect((await rpc('getLatestBlockhash', at('confirmed'))).result.value).toEqual(processed.value);
  });

  it('the newest blockhashes are not valid at confirmed yet, and a blockhash expires at confirmed confirmedLag blocks later', async () => {
    await admin('cluster', { confirmedLag: 2 });
    const valid = async (blockhash: string, commitment: string) => (await rpc('isBlockhashValid', [blockhash, { commitment }])).result.value as boolean;
    const { blockhash } = (await rpc('getLatestBlockhash', at('processed'))).result.value;
    expect(await valid(blockhash, 'processed')).toBe(true);
    expect(await valid(blockhash, 'confirmed')).toBe(false);
    await advance(1);
    expect(await valid(blockhash, 'confirmed')).toBe(false);
    await advance(1);
    expect(await valid(blockhash, 'confirmed')).toBe(true);
    await advance(148); // 150 blocks old: its last block at processed
    expect(await valid(blockhash, 'processed')).toBe(true);
    await advance(1);
    expect(await valid(blockhash, 'processed')).toBe(false);
    expect(await valid(blockhash, 'confirmed')).toBe(true);
    await advance(2);
    expect(await valid(blockhash, 'confirmed')).toBe(false);
  });

  it('checks minContextSlot against the commitment bank’s slot', async () => {
    await admin('cluster', { confirmedLag: 2 });
    const slot = (await rpc('getSlot', at('processed'))).result as number;
    expect((await rpc('getLatestBlockhash', [{ commitment: 'processed', minContextSlot: slot }])).error).toBeUndefined();
    const reply = await rpc('getLatestBlockhash', [{ commitment: 'confirmed', minContextSlot: slot }]);
    expect(reply.error).toEqual({ code: -32016, message: 'Minimum context slot has not been reached', data: { contextSlot: slot - 2 } });
  });
});

describe('landing and statuses', () => {
  it('a sent transaction lands landingBlocks later, is processed until the confirmed bank reaches it, then confirmed, then finalized', async () => {
    await admin('cluster', { confirmedLag: 2, finalizedLag: 10, landingBlocks: 2 });
    const { tx, from } = await solTransfer();
    const sent = await rpc('sendTransaction', [tx, { encoding: 'base64' }]);
    expect(sent.error).toBeUndefined();
    const signature = sent.result as string;
    expect(await status(signature)).toBeNull();
    expect((await advance(1)).transactions.pending).toBe(1);
    expect(await status(signature)).toBeNull();
    await advance(1);
    const landed = await status(signature);
    expect(landed).toMatchObject({ confirmationStatus: 'processed', confirmations: 0, err: null });
    expect(landed.slot).toBe((await rpc('getSlot', at('processed'))).result);
    // History at confirmed has not reached it; processed is no commitment for history.
    expect((await rpc('getTransaction', [signature, { commitment: 'confirmed' }])).result).toBeNull();
    expect((await rpc('getSignaturesForAddress', [from, { commitment: 'confirmed' }])).result).toEqual([]);
    expect((await rpc('getTransaction', [signature, { commitment: 'processed' }])).error?.code).toBe(-32602);
    await advance(1);
    expect(await status(signature)).toMatchObject({ confirmationStatus: 'processed', confirmations: 0 });
    await advance(1);
    expect(await status(signature)).toMatchObject({ confirmationStatus: 'confirmed', confirmations: 1, slot: landed.slot });
    expect((await rpc('getTransaction', [signature, { commitment: 'confirmed' }])).result.slot).toBe(landed.slot);
    expect((await rpc('getSignaturesForAddress', [from, { commitment: 'confirmed' }])).result).toEqual([expect.objectContaining({ signature, confirmationStatus: 'confirmed' })]);
    // Not finalized yet: the node's default commitment does not see it.
    expect((await rpc('getTransaction', [signature])).result).toBeNull();
    await advance(7);
    expect(await status(signature)).toMatchObject({ confirmationStatus: 'confirmed', confirmations: 8 });
    await advance(1);
    expect(await status(signature)).toMatchObject({ confirmationStatus: 'finalized', confirmations: null });
    expect((await rpc('getTransaction', [signature])).result.slot).toBe(landed.slot);
    expect((await rpc('getSignaturesForAddress', [from])).result).toEqual([expect.objectContaining({ signature, confirmationStatus: 'finalized' })]);
  });

  it('a transaction whose blockhash is too old when its landing block comes is dropped', async () => {
    const { blockhash } = (await rpc('getLatestBlockhash', at('processed'))).result.value;
    const { tx } = await solTransfer(blockhash);
    await advance(149);
    await admin('cluster', { landingBlocks: 2 });
    const before = (await advance(0)).transactions;
    const sent = await rpc('sendTransaction', [tx, { encoding: 'base64', skipPreflight: true }]);
    expect(sent.error).toBeUndefined();
    const after = (await advance(2)).transactions;
    expect(after).toMatchObject({ landed: before.landed, dropped: before.dropped + 1, pending: 0 });
    expect(await status(sent.result as string, true)).toBeNull();
  });

  it('the status cache holds 300 slots: a transaction landed longer ago is found only by a history search', async () => {
    await admin('cluster', { confirmedLag: 2, landingBlocks: 2 });
    const { signature } = await airdrop();
    await advance(2);
    expect(await status(signature)).toMatchObject({ confirmationStatus: 'processed' });
    await advance(300);
    expect(await status(signature)).toMatchObject({ confirmationStatus: 'finalized' });
    await advance(1);
    expect(await status(signature)).toBeNull();
    expect(await status(signature, true)).toMatchObject({ confirmationStatus: 'finalized', confirmations: null, err: null });
  });
});

describe('account reads per commitment', () => {
  const balance = async (address: string, commitment?: string) => (await rpc('getBalance', [address, ...(commitment ? at(commitment) : [])])).result;

  it('a landed write shows at confirmed once the confirmed bank reaches it, and at finalized after finalizedLag; context.slot is the bank’s', async () => {
    await admin('cluster', { confirmedLag: 2, finalizedLag: 5 });
    const { address } = await airdrop(9_000_000);
    const slot = (await rpc('getSlot', at('processed'))).result as number;
    expect(await balance(address, 'processed')).toMatchObject({ context: { slot }, value: 9_000_000 });
    expect(await balance(address, 'confirmed')).toMatchObject({ context: { slot: slot - 2 }, value: 0 });
    expect((await rpc('getAccountInfo', [address, { encoding: 'base64', commitment: 'confirmed' }])).result.value).toBeNull();
    expect((await rpc('getMultipleAccounts', [[address], { encoding: 'base64', commitment: 'confirmed' }])).result.value).toEqual([null]);
    expect((await balance(address)).value).toBe(0); // finalized, the default
    await advance(2);
    expect((await balance(address, 'confirmed')).value).toBe(9_000_000);
    expect((await rpc('getAccountInfo', [address, { encoding: 'base64', commitment: 'confirmed' }])).result.value.lamports).toBe(9_000_000);
    expect((await balance(address)).value).toBe(0);
    await advance(3);
    expect((await balance(address)).value).toBe(9_000_000);
  });

  it('an admin write is the same in every bank at once', async () => {
    await admin('cluster', { confirmedLag: 2 });
    const { address } = await airdrop(1_000);
    await admin('lamports', { address, lamports: '4242' });
    for (const commitment of ['processed', 'confirmed', 'finalized']) expect((await balance(address, commitment)).value, commitment).toBe(4242);
  });

  it('a mint landed shows in token account lists and the supply at confirmed only once the confirmed bank reaches it', async () => {
    await admin('cluster', { confirmedLag: 2 });
    const authority = keypair(DEMO_MINT_SIGNER.secretKey);
    const mint = DEMO_LAUNCH_MINTS.genesis.address;
    const wallet = Keypair.generate();
    const owner = wallet.publicKey.toBase58();
    await admin('lamports', { address: owner, lamports: '1000000000' });
    const ata = ataOf(owner, mint, 'token');
    const { blockhash } = (await rpc('getLatestBlockhash', at('processed'))).result.value;
    const tx = legacyTransaction([createAta(owner, owner, mint, 'token'), mintTo(mint, ata, authority.publicKey.toBase58(), 1n, 'token')], blockhash, [wallet, authority]);
    const supply = async (commitment: string) => Buffer.from((await rpc('getAccountInfo', [mint, { encoding: 'base64', commitment }])).result.value.data[0], 'base64').readBigUInt64LE(36);
    const supplyBefore = await supply('processed');
    expect((await rpc('sendTransaction', [tx, { encoding: 'base64' }])).error).toBeUndefined();
    const listed = async (commitment: string) => (await rpc('getTokenAccountsByOwner', [owner, { mint }, { encoding: 'base64', commitment }])).result.value.map((entry: { pubkey: string }) => entry.pubkey);
    const scanned = async (commitment: string) =>
      (await rpc('getProgramAccounts', ['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', { encoding: 'base64', commitment, filters: [{ dataSize: 165 }, { memcmp: { offset: 32, bytes: owner } }] }])).result.map(
        (entry: { pubkey: string }) => entry.pubkey,
      );
    expect(await listed('processed')).toEqual([ata]);
    expect(await scanned('processed')).toEqual([ata]);
    expect(await supply('processed')).toBe(supplyBefore + 1n);
    expect(await listed('confirmed')).toEqual([]);
    expect(await scanned('confirmed')).toEqual([]);
    expect(await supply('confirmed')).toBe(supplyBefore);
    await advance(2);
    expect(await listed('confirmed')).toEqual([ata]);
    expect(await scanned('confirmed')).toEqual([ata]);
    expect(await supply('confirmed')).toBe(supplyBefore + 1n);
  });
});

describe('requestAirdrop', () => {
  it('credits the lamports, creating the system account, under a signature whose status then shows', async () => {
    const { address, signature } = await airdrop(2_500_000_000);
    expect((await rpc('getBalance', [address])).result.value).toBe(2_500_000_000);
    const account = (await rpc('getAccountInfo', [address, { encoding: 'base64' }])).result.value;
    expect(account).toMatchObject({ owner: '11111111111111111111111111111111', lamports: 2_500_000_000, executable: false });
    expect(await status(signature)).toMatchObject({ err: null, confirmationStatus: 'processed', confirmations: 0 });
    // A second airdrop adds to the balance, under another signature.
    const again = await rpc('requestAirdrop', [address, 500_000_000]);
    expect(again.result).not.toBe(signature);
    expect((await rpc('getBalance', [address])).result.value).toBe(3_000_000_000);
    const history = (await rpc('getSignaturesForAddress', [address])).result.map((entry: { signature: string }) => entry.signature);
    expect(history).toEqual([again.result, signature]);
  });

  it('lands landingBlocks later: no balance and no status until then', async () => {
    await admin('cluster', { landingBlocks: 3 });
    const { address, signature } = await airdrop(7_000);
    await advance(2);
    expect((await rpc('getBalance', [address, { commitment: 'processed' }])).result.value).toBe(0);
    expect(await status(signature)).toBeNull();
    await advance(1);
    expect((await rpc('getBalance', [address, { commitment: 'processed' }])).result.value).toBe(7_000);
    expect(await status(signature)).toMatchObject({ err: null, confirmationStatus: 'processed' });
  });

  it('refuses bad parameters with the validator’s -32602, crediting nothing', async () => {
    const address = Keypair.generate().publicKey.toBase58();
    for (const params of [['not-an-address', 1], [address.slice(0, 20), 1], [address, -1], [address, '5'], [address, 1.5], [address], [address, 1, { commitment: 'soon' }], [address, 1, 'config']]) {
      const reply = await rpc('requestAirdrop', params);
      expect(reply.error?.code, JSON.stringify(params)).toBe(-32602);
    }
    expect((await rpc('getAccountInfo', [address])).result.value).toBeNull();
  });
});

describe('faults for a number of blocks, per-method latency', () => {
  it('a fault with forBlocks holds until that many blocks are produced, hitting batches that contain its method', async () => {
    const set = await admin('fault', { mode: 'rpc-error', methods: ['getSignatureStatuses'], forBlocks: 310 });
    expect(set).toMatchObject({ mode: 'rpc-error', forBlocks: 310, blocksLeft: 310 });
    const { signature } = await airdrop();
    const batch = async () => {
      const res = await fetch(chain.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify([
          { jsonrpc: '2.0', id: 1, method: 'getSlot' },
          { jsonrpc: '2.0', id: 2, method: 'getSignatureStatuses', params: [[signature], { searchTransactionHistory: true }] },
        ]),
      });
      return (await res.json()) as any[];
    };
    let [slot, statuses] = await batch();
    expect(slot.result).toEqual(expect.any(Number));
    expect(statuses.error).toMatchObject({ code: -32005 });
    await advance(309);
    [, statuses] = await batch();
    expect(statuses.error).toMatchObject({ code: -32005 });
    await advance(1);
    [, statuses] = await batch();
    expect(statuses.error).toBeUndefined();
    expect(statuses.result.value[0]).toMatchObject({ confirmationStatus: 'finalized' });
    expect(await admin('fault', { mode: 'none' })).toMatchObject({ mode: 'none', blocksLeft: null });
  });

  it('an http500 fault for some blocks answers every request containing the method HTTP 500, then clears', async () => {
    await admin('fault', { mode: 'http500', methods: ['getSignatureStatuses'], forBlocks: 2 });
    const post = (body: unknown) => fetch(chain.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const statusesCall = { jsonrpc: '2.0', id: 2, method: 'getSignatureStatuses', params: [[]] };
    expect((await post([{ jsonrpc: '2.0', id: 1, method: 'getSlot' }, statusesCall])).status).toBe(500);
    expect((await post({ jsonrpc: '2.0', id: 1, method: 'getSlot' })).status).toBe(200);
    await advance(1);
    expect((await post(statusesCall)).status).toBe(500);
    await advance(1);
    expect((await post(statusesCall)).status).toBe(200);
    expect((await postAdmin('fault', { mode: 'http500', forBlocks: -1 })).status).toBe(400);
  });

  it('per-method latency holds the answers of requests calling that method, and {} clears it', async () => {
    expect(await admin('latency', { getSignatureStatuses: 1500, sendTransaction: 50 })).toEqual({ getSignatureStatuses: 1500, sendTransaction: 50 });
    expect((await getAdmin('latency')).body).toEqual({ getSignatureStatuses: 1500, sendTransaction: 50 });
    const order: string[] = [];
    const slow = rpc('getSignatureStatuses', [[]]).then((reply) => {
      order.push('statuses');
      return reply;
    });
    // Sent after it, answered before it: only the slow method's answer is held.
    await rpc('getSlot').then(() => order.push('slot'));
    expect((await slow).result.value).toEqual([]);
    expect(order).toEqual(['slot', 'statuses']);
    expect(await admin('latency', {})).toEqual({});
    expect((await postAdmin('latency', { getSlot: -5 })).status).toBe(400);
    expect(chain.latency.get()).toEqual({});
  });
});

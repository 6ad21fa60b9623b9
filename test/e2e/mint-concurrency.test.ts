import { randomBytes } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGate, testSecret } from '../helpers/gate.js';
import { eventually } from '../helpers/launch.js';
import { associatedTokenAccount, buildTokenMint } from '../helpers/mint.js';
import { fundedWallet, getMint, latestBlockhash, onChainSupply, postMint, startMintLaunch, waitConfirmed, type MintLaunch, type MintReply } from '../helpers/mint-gate.js';
import { localnetAdmin, rpcCall } from '../helpers/token-transactions.js';

/**
 * Two gate instances sharing Redis (a key prefix of this test's own on the shared Redis; its keys
 * are deleted afterwards, nothing is flushed), 200 wallets each sending 5 different mint
 * transactions at once, spread over both instances: exactly one mint per wallet lands on-chain,
 * the other 800 answers are 403, and a supply below the number of wallets is never exceeded.
 * Reservations live in Redis: a restarted instance still releases one its predecessor made.
 */
const SHARED_REDIS = 'redis://127.0.0.1:6379';
const prefix = `x404test:mintc:${randomBytes(6).toString('hex')}:`;
const WALLETS = 200;
const PER_WALLET_REQUESTS = 5;
let launch: MintLaunch;
let redis: Redis;

beforeAll(async () => {
  redis = new Redis(SHARED_REDIS);
  launch = await startMintLaunch({
    tokens: { open: 'token', capped: 'token2022', restart: 'token' },
    mints: (m) => ({
      open: { rule: 'launch', signer: 'signer.json', program: 'spl-token', mint: m.open!.toBase58(), amount: '1' },
      capped: { rule: 'launch', signer: 'signer.json', program: 'token-2022', mint: m.capped!.toBase58(), amount: '1', supply: 150 },
      restart: { rule: 'launch', signer: 'signer.json', program: 'spl-token', mint: m.restart!.toBase58(), amount: '1' },
    }),
    gates: 2,
    env: { REDIS_URL: SHARED_REDIS, REDIS_KEY_PREFIX: prefix, WORKER_THREADS: '1', LOGIN_TIMEOUT_MS: '30000' },
  });
}, 60_000);
afterAll(async () => {
  await launch?.stop();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

/**
 * A client's POST: a 503 without `reserved` (nothing was co-signed: the chain or the store could
 * not be read in time, as happens on a loaded machine) and a connection lost before the answer are
 * sent again, the same bytes, after a short wait, as the SDK does. What must hold whatever the
 * machine's load is the chain's count, per wallet and in all.
 */
async function postLikeAClient(gateUrl: string, name: string, bytes: Uint8Array): Promise<MintReply> {
  for (let attempt = 1; ; attempt++) {
    const reply = await postMint(gateUrl, name, bytes).catch((error: Error) => ({ status: 0, body: { error: error.message }, headers: new Headers() }) as MintReply);
    const retry = reply.status === 0 || (reply.status === 503 && reply.body.reserved !== true);
    if (!retry || attempt === 20) return reply;
    await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 400));
  }
}

/** Each wallet's balance of `mint` on-chain, read from its associated token account (0 when it has none). */
async function balancesOnChain(wallets: PublicKey[], mint: PublicKey, tokenProgram?: PublicKey): Promise<bigint[]> {
  const out: bigint[] = [];
  for (let i = 0; i < wallets.length; i += 100) {
    const atas = wallets.slice(i, i + 100).map((wallet) => associatedTokenAccount(wallet, mint, tokenProgram).toBase58());
    const reply = await rpcCall(launch.localnet.url, 'getMultipleAccounts', [atas, { encoding: 'base64', commitment: 'confirmed' }]);
    for (const account of reply.result.value as ({ data: [string, string] } | null)[]) out.push(account === null ? 0n : Buffer.from(account.data[0], 'base64').readBigUInt64LE(64));
  }
  return out;
}

async function stampede(name: string, mint: PublicKey, tokenProgram?: PublicKey): Promise<{ statuses: Map<string, number>; signatures: string[]; wallets: PublicKey[] }> {
  const wallets = await Promise.all(Array.from({ length: WALLETS }, () => fundedWallet(launch.localnet.url)));
  const { blockhash } = await latestBlockhash(launch.localnet.url);
  // Five different transactions per wallet (another compute limit each), so none is a duplicate of another.
  const requests = wallets.flatMap((payer) =>
    Array.from({ length: PER_WALLET_REQUESTS }, (_, k) => buildTokenMint({ payer, gate: launch.signer.publicKey, mint, amount: 1n, blockhash, tokenProgram, computeUnitLimit: 100_000 + k })),
  );
  const replies = await Promise.all(requests.map((bytes, i) => postLikeAClient(launch.gates[i % 2]!.url, name, bytes)));
  const statuses = new Map<string, number>();
  for (const reply of replies) {
    const key = reply.status === 200 ? '200' : `${reply.status} ${reply.body.error}`;
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
  }
  return { statuses, signatures: replies.filter((reply) => reply.status === 200).map((reply) => reply.body.signature as string), wallets: wallets.map((wallet) => wallet.publicKey) };
}

describe('one mint per wallet, across two instances sharing Redis', () => {
  it(`${WALLETS} wallets × ${PER_WALLET_REQUESTS} concurrent requests → exactly ${WALLETS} mints on-chain, ${WALLETS * (PER_WALLET_REQUESTS - 1)} × 403`, async () => {
    const { statuses, signatures, wallets } = await stampede('open', launch.mints.open!);
    expect(Object.fromEntries(statuses)).toEqual({ '200': WALLETS, '403 MINT_LIMIT_REACHED': WALLETS * (PER_WALLET_REQUESTS - 1) });
    expect((await waitConfirmed(launch.localnet.url, signatures, 60_000)).every((err) => err === null)).toBe(true);
    expect(await onChainSupply(launch.localnet.url, launch.mints.open!)).toBe(BigInt(WALLETS));
    expect(new Set(await balancesOnChain(wallets, launch.mints.open!))).toEqual(new Set([1n]));
    await eventually('both trackers to settle', async () => {
      const [a, b] = await Promise.all(launch.gates.map((gate) => getMint(gate.url, 'open')));
      return a!.body.issued === WALLETS && a!.body.reserved === 0 && b!.body.issued === WALLETS;
    }, 20_000);
  }, 120_000);

  it(`supply 150 below ${WALLETS} wallets: 150 mints on-chain, never more`, async () => {
    const token2022 = new PublicKey('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');
    const { statuses, signatures, wallets } = await stampede('capped', launch.mints.capped!, token2022);
    expect(statuses.get('200')).toBe(150);
    const refused = [...statuses].filter(([key]) => key.startsWith('403 ')).reduce((sum, [, count]) => sum + count, 0);
    expect(refused).toBe(WALLETS * PER_WALLET_REQUESTS - 150);
    expect([...statuses.keys()].sort()).toEqual(['200', '403 MINT_LIMIT_REACHED', '403 SOLD_OUT']);
    await waitConfirmed(launch.localnet.url, signatures, 60_000);
    expect(await onChainSupply(launch.localnet.url, launch.mints.capped!)).toBe(150n);
    const balances = await balancesOnChain(wallets, launch.mints.capped!, token2022);
    expect(balances.filter((balance) => balance === 1n)).toHaveLength(150);
    expect(balances.every((balance) => balance <= 1n)).toBe(true);
  }, 120_000);

  it('a reservation outlives the instance that made it: a new instance releases it once its blockhash expires', async () => {
    const wallet = await fundedWallet(launch.localnet.url);
    const { blockhash } = await latestBlockhash(launch.localnet.url);
    await localnetAdmin(launch.localnet.url, 'fault', { mode: 'tx-dropped', count: 1 });
    const sent = await postMint(launch.gates[1]!.url, 'restart', buildTokenMint({ payer: wallet, gate: launch.signer.publicKey, mint: launch.mints.restart!, amount: 1n, blockhash }));
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    await launch.gates[1]!.stop('SIGKILL');
    await launch.gates[0]!.stop('SIGKILL');
    const fresh = await startGate({ rpcUrl: launch.localnet.url, env: { JWT_SECRET: testSecret(), POLICIES_FILE: launch.policiesFile, REDIS_URL: SHARED_REDIS, REDIS_KEY_PREFIX: prefix } });
    launch.gates.push(fresh);
    try {
      expect((await getMint(fresh.url, 'restart')).body.reserved).toBe(1);
      const again = await postMint(fresh.url, 'restart', buildTokenMint({ payer: wallet, gate: launch.signer.publicKey, mint: launch.mints.restart!, amount: 1n, blockhash, computeUnitLimit: 1 }));
      expect(again.body.error).toBe('MINT_LIMIT_REACHED');
      await localnetAdmin(launch.localnet.url, 'blocks', { advance: 200 });
      await eventually('the new instance to release it', async () => (await getMint(fresh.url, 'restart')).body.reserved === 0, 10_000);
      expect(await onChainSupply(launch.localnet.url, launch.mints.restart!)).toBe(0n);
    } finally {
      await fresh.stop('SIGKILL');
    }
  }, 60_000);
});

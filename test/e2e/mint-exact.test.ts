import { randomBytes } from 'node:crypto';
import { Keypair, PublicKey } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGate, testSecret, type GateProcess } from '../helpers/gate.js';
import { eventually } from '../helpers/launch.js';
import { associatedTokenAccount, buildTokenMint } from '../helpers/mint.js';
import { advanceBlocks, fundedWallet, getMint, latestBlockhash, onChainSupply, postMint, startMintLaunch, waitConfirmed, waitForCounts, type MintLaunch } from '../helpers/mint-gate.js';
import { startPrivateRedis, type PrivateRedis } from '../helpers/private-redis.js';
import { localnetAdmin, rpcCall } from '../helpers/token-transactions.js';

/**
 * Issue 32: exactly `per_wallet` per wallet and never past `supply`, on-chain, when things go
 * wrong — a restart without Redis, a gate down past the status cache, a Redis flush, status reads
 * failing, junk keys racing for the last items — on a local chain behaving as a cluster (confirmed
 * 2 blocks behind, landings 2 blocks after the send). Each test reads the chain (token balances per
 * wallet, the mint's supply) for its verdict, not only the gate's answers.
 */
async function balance(localnetUrl: string, owner: PublicKey, mint: PublicKey): Promise<bigint> {
  const reply = await rpcCall(localnetUrl, 'getAccountInfo', [associatedTokenAccount(owner, mint).toBase58(), { encoding: 'base64', commitment: 'confirmed' }]);
  if (reply.result.value === null) return 0n;
  return Buffer.from(reply.result.value.data[0] as string, 'base64').readBigUInt64LE(64);
}

async function mintFor(launch: MintLaunch, gateUrl: string, name: string, wallet: Keypair, computeUnitLimit?: number) {
  const { blockhash } = await latestBlockhash(launch.localnet.url);
  const bytes = buildTokenMint({ payer: wallet, gate: launch.signer.publicKey, mint: launch.mints[name]!, amount: 1n, blockhash, ...(computeUnitLimit === undefined ? {} : { computeUnitLimit }) });
  return postMint(gateUrl, name, bytes);
}

/** The chain behaves as a cluster: its confirmed bank 2 blocks behind, a sent transaction landing 2 blocks later. */
async function asCluster(localnetUrl: string): Promise<void> {
  const res = await fetch(`${localnetUrl}/__localnet/cluster`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ confirmedLag: 2, landingBlocks: 2 }) });
  expect(res.status).toBe(200);
}

const tokenMint = (name: string, fields: Record<string, unknown>) => (m: Record<string, PublicKey>) => ({ rule: 'launch', signer: 'signer.json', program: 'spl-token', mint: m[name]!.toBase58(), amount: '1', ...fields });

describe('without Redis: a restart rebuilds the counts from the chain', () => {
  let launch: MintLaunch;
  beforeAll(async () => {
    launch = await startMintLaunch({
      tokens: { few: 'token', many: 'token' },
      mints: (m) => ({ few: tokenMint('few', { supply: 2 })(m), many: tokenMint('many', { supply: 100 })(m) }),
    });
    await asCluster(launch.localnet.url);
  }, 120_000);
  afterAll(async () => {
    await launch?.stop();
  });

  it('a sold-out mint and a wallet at its limit stay so after a restart; until the counts are back, 503 MINT_RECOUNTING with Retry-After', async () => {
    const [a, b, c, d] = await Promise.all([fundedWallet(launch.localnet.url), fundedWallet(launch.localnet.url), fundedWallet(launch.localnet.url), fundedWallet(launch.localnet.url)]);
    const replies = [await mintFor(launch, launch.gates[0]!.url, 'few', a), await mintFor(launch, launch.gates[0]!.url, 'few', b), await mintFor(launch, launch.gates[0]!.url, 'many', c)];
    for (const reply of replies) expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(await waitConfirmed(launch.localnet.url, replies.map((reply) => reply.body.signature as string))).toEqual([null, null, null]);
    expect((await mintFor(launch, launch.gates[0]!.url, 'few', d)).body.error).toBe('SOLD_OUT');

    await launch.gates[0]!.stop('SIGKILL');
    const fresh = await startGate({ rpcUrl: launch.localnet.url, env: { JWT_SECRET: testSecret(), POLICIES_FILE: launch.policiesFile } });
    launch.gates[0] = fresh;
    expect(fresh.output()).toContain('mints without REDIS_URL');
    // Before every blockhash that could have been in flight has expired: no co-signature on a guess.
    const early = await mintFor(launch, fresh.url, 'few', d);
    expect(early.status).toBe(503);
    expect(early.body.error).toBe('MINT_RECOUNTING');
    expect(Number(early.headers.get('retry-after'))).toBeGreaterThan(0);

    await waitForCounts(fresh.url, launch.localnet.url, ['few', 'many']);
    expect((await getMint(fresh.url, 'few')).body).toMatchObject({ issued: 2, reserved: 0 });
    expect((await mintFor(launch, fresh.url, 'few', d)).body.error).toBe('SOLD_OUT');
    const again = await mintFor(launch, fresh.url, 'many', c, 100_001);
    expect(again.body.error).toBe('MINT_LIMIT_REACHED');
    // Another wallet still mints from the untouched supply.
    const other = await mintFor(launch, fresh.url, 'many', d);
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    await waitConfirmed(launch.localnet.url, [other.body.signature as string]);

    expect(await onChainSupply(launch.localnet.url, launch.mints.few!)).toBe(2n);
    expect(await onChainSupply(launch.localnet.url, launch.mints.many!)).toBe(2n);
    for (const [wallet, mint] of [[a, 'few'], [b, 'few'], [c, 'many'], [d, 'many']] as const) expect(await balance(launch.localnet.url, wallet.publicKey, launch.mints[mint]!)).toBe(1n);
    expect(await balance(launch.localnet.url, d.publicKey, launch.mints.few!)).toBe(0n);
  }, 120_000);

  it('status reads failing for 310 blocks, then recovering: the mint that landed meanwhile is issued, not released', async () => {
    const wallet = await fundedWallet(launch.localnet.url);
    await localnetAdmin(launch.localnet.url, 'fault', { mode: 'http500', methods: ['getSignatureStatuses'], forBlocks: 310 });
    const reply = await mintFor(launch, launch.gates[0]!.url, 'many', wallet);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    await eventually('the tracker to meet the failing reads', async () => launch.gates[0]!.output().includes('the tracker could not read the chain'), 20_000);
    // It lands (2 blocks after the send) and is confirmed: read from history, the statuses failing.
    await eventually('the mint to land', async () => {
      await advanceBlocks(launch.localnet.url, 1);
      return (await rpcCall(launch.localnet.url, 'getTransaction', [reply.body.signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }])).result !== null;
    });
    // 310 blocks: buried past the status cache (300 slots) and its blockhash's life; the status reads recover.
    await advanceBlocks(launch.localnet.url, 310);
    await eventually('the tracker to settle it', async () => (await getMint(launch.gates[0]!.url, 'many')).body.reserved === 0, 20_000);
    expect((await mintFor(launch, launch.gates[0]!.url, 'many', wallet, 100_002)).body.error).toBe('MINT_LIMIT_REACHED');
    expect(await balance(launch.localnet.url, wallet.publicKey, launch.mints.many!)).toBe(1n);
  }, 120_000);

  it('40 unfunded keys racing 2 funded buyers for the last 2 items: both funded buyers get theirs', async () => {
    const { issued } = (await getMint(launch.gates[0]!.url, 'many')).body as { issued: number };
    // Fill the mint up to its last two items with a fresh mint of supply issued + 2.
    launch.writePolicies({ few: tokenMint('few', { supply: 2 })(launch.mints), many: tokenMint('many', { supply: issued + 2 })(launch.mints) });
    launch.gates[0]!.child.kill('SIGHUP');
    await eventually('the new supply', async () => (await getMint(launch.gates[0]!.url, 'many')).body.supply === issued + 2, 20_000);

    const funded = await Promise.all([fundedWallet(launch.localnet.url), fundedWallet(launch.localnet.url)]);
    const junk = Array.from({ length: 40 }, () => Keypair.generate());
    const { blockhash } = await latestBlockhash(launch.localnet.url);
    const build = (payer: Keypair) => buildTokenMint({ payer, gate: launch.signer.publicKey, mint: launch.mints.many!, amount: 1n, blockhash });
    // The junk first, the funded buyers last: all in flight together.
    const replies = await Promise.all([...junk, ...funded].map((payer) => postMint(launch.gates[0]!.url, 'many', build(payer))));
    const junkReplies = replies.slice(0, 40);
    const fundedReplies = replies.slice(40);
    for (const reply of fundedReplies) expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(new Set(junkReplies.map((reply) => `${reply.status} ${reply.body.error}`))).toEqual(new Set(['422 SIMULATION_FAILED']));
    await waitConfirmed(launch.localnet.url, fundedReplies.map((reply) => reply.body.signature as string));
    for (const wallet of funded) expect(await balance(launch.localnet.url, wallet.publicKey, launch.mints.many!)).toBe(1n);
    expect(await onChainSupply(launch.localnet.url, launch.mints.many!)).toBe(BigInt(issued + 2));
    expect((await mintFor(launch, launch.gates[0]!.url, 'many', await fundedWallet(launch.localnet.url))).body.error).toBe('SOLD_OUT');
  }, 120_000);
});

describe('a node without the history cannot prove a mint never landed', () => {
  let launch: MintLaunch;
  beforeAll(async () => {
    // Each endpoint's history horizon read at every use, so the test can move it.
    launch = await startMintLaunch({ tokens: { drop: 'token' }, mints: (m) => ({ drop: tokenMint('drop', { supply: 10 })(m) }), env: { HISTORY_HORIZON_TTL_MS: '0' } });
    await asCluster(launch.localnet.url);
  }, 120_000);
  afterAll(async () => {
    await launch?.stop();
  });

  const horizonReads = async (): Promise<number> => ((await (await fetch(`${launch.localnet.url}/__localnet/stats`)).json()) as { calls: Record<string, number> }).calls.getFirstAvailableBlock ?? 0;

  it('a reservation past its bound stays while the node keeps history only from after it, and is released once one reaches back', async () => {
    const gate = launch.gates[0]!.url;
    const wallet = await fundedWallet(launch.localnet.url);
    await localnetAdmin(launch.localnet.url, 'fault', { mode: 'tx-dropped', count: 1 });
    const reply = await mintFor(launch, gate, 'drop', wallet);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const { slot } = (await rpcCall(launch.localnet.url, 'getLatestBlockhash', [{ commitment: 'processed' }])).result.context as { slot: number };
    await localnetAdmin(launch.localnet.url, 'ledger', { firstAvailableBlock: slot + 1_000 });
    await advanceBlocks(launch.localnet.url, 200);
    // The tracker asked, twice, which history the node keeps: it did not release on that answer.
    const before = await horizonReads();
    await eventually('two tracker passes to read the node\'s history horizon', async () => (await horizonReads()) >= before + 2, 20_000);
    expect((await getMint(gate, 'drop')).body).toMatchObject({ issued: 0, reserved: 1 });
    expect((await mintFor(launch, gate, 'drop', wallet, 100_001)).body.error).toBe('MINT_LIMIT_REACHED');

    await localnetAdmin(launch.localnet.url, 'ledger', { firstAvailableBlock: 0 });
    await eventually('the reservation to be released', async () => (await getMint(gate, 'drop')).body.reserved === 0, 20_000);
    const again = await mintFor(launch, gate, 'drop', wallet, 100_002);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(await waitConfirmed(launch.localnet.url, [again.body.signature as string])).toEqual([null]);
    expect(await balance(launch.localnet.url, wallet.publicKey, launch.mints.drop!)).toBe(1n);
  }, 120_000);
});

describe('with Redis: the counts outlive the gate, and a lost store is rebuilt from the chain', () => {
  let redis: PrivateRedis;
  let launch: MintLaunch;
  let env: Record<string, string>;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    env = { REDIS_URL: redis.url, REDIS_KEY_PREFIX: `x404test:exact:${randomBytes(4).toString('hex')}:` };
    launch = await startMintLaunch({ tokens: { drop: 'token' }, mints: (m) => ({ drop: tokenMint('drop', { supply: 50 })(m) }), env });
    await asCluster(launch.localnet.url);
  }, 120_000);
  afterAll(async () => {
    await launch?.stop();
    await redis?.remove();
  });

  const restart = async (): Promise<GateProcess> => {
    const fresh = await startGate({ rpcUrl: launch.localnet.url, env: { JWT_SECRET: testSecret(), POLICIES_FILE: launch.policiesFile, ...env } });
    launch.gates[0] = fresh;
    return fresh;
  };

  it('killed right after a co-sign and down past the status cache: the restarted gate counts the mint as issued', async () => {
    const wallet = await fundedWallet(launch.localnet.url);
    const reply = await mintFor(launch, launch.gates[0]!.url, 'drop', wallet);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    await launch.gates[0]!.stop('SIGKILL');
    await waitConfirmed(launch.localnet.url, [reply.body.signature as string]);
    await advanceBlocks(launch.localnet.url, 310);

    const fresh = await restart();
    // The reservation outlived the gate in Redis: the wallet is at its limit from the first answer.
    expect((await mintFor(launch, fresh.url, 'drop', wallet, 100_001)).body.error).toBe('MINT_LIMIT_REACHED');
    await eventually('the new gate to settle it', async () => (await getMint(fresh.url, 'drop')).body.reserved === 0, 20_000);
    expect((await getMint(fresh.url, 'drop')).body.issued).toBe(1);
    expect((await mintFor(launch, fresh.url, 'drop', wallet, 100_002)).body.error).toBe('MINT_LIMIT_REACHED');
    expect(await balance(launch.localnet.url, wallet.publicKey, launch.mints.drop!)).toBe(1n);
  }, 120_000);

  it('Redis FLUSHALL mid-launch: 503 MINT_RECOUNTING with Retry-After until the counts are rebuilt, then exact', async () => {
    const gate = launch.gates[0]!;
    const before = (await getMint(gate.url, 'drop')).body.issued as number;
    const wallet = await fundedWallet(launch.localnet.url);
    const first = await mintFor(launch, gate.url, 'drop', wallet);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    await waitConfirmed(launch.localnet.url, [first.body.signature as string]);

    const { Redis } = await import('ioredis');
    const client = new Redis(redis.url);
    await client.flushall();
    client.disconnect();

    const during = await mintFor(launch, gate.url, 'drop', wallet, 100_001);
    expect(during.status).toBe(503);
    expect(during.body.error).toBe('MINT_RECOUNTING');
    expect(Number(during.headers.get('retry-after'))).toBeGreaterThan(0);

    await waitForCounts(gate.url, launch.localnet.url, ['drop']);
    expect((await getMint(gate.url, 'drop')).body).toMatchObject({ issued: before + 1, reserved: 0 });
    expect((await mintFor(launch, gate.url, 'drop', wallet, 100_002)).body.error).toBe('MINT_LIMIT_REACHED');
    const other = await fundedWallet(launch.localnet.url);
    const second = await mintFor(launch, gate.url, 'drop', other);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    await waitConfirmed(launch.localnet.url, [second.body.signature as string]);
    expect(await balance(launch.localnet.url, wallet.publicKey, launch.mints.drop!)).toBe(1n);
    expect(await balance(launch.localnet.url, other.publicKey, launch.mints.drop!)).toBe(1n);
    expect(await onChainSupply(launch.localnet.url, launch.mints.drop!)).toBe(BigInt(before + 2));
  }, 120_000);
});

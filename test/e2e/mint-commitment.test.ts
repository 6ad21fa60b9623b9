import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/launch.js';
import { associatedTokenAccount, buildTokenMint } from '../helpers/mint.js';
import { fundedWallet, getMint, latestBlockhash, onChainSupply, postMint, startMintLaunch, waitConfirmed, type MintLaunch } from '../helpers/mint-gate.js';
import { rpcCall } from '../helpers/token-transactions.js';

/**
 * One commitment (issue 32): the local chain behaves as a cluster — its confirmed bank 2 blocks
 * behind the newest, a sent transaction landing 3 blocks later. A blockhash valid at `processed`
 * only is refused (400 BLOCKHASH_NOT_CONFIRMED, nothing reserved); with blockhashes read at
 * `confirmed`, each wallet ends with exactly one token on-chain and cannot mint again, however the
 * tracker's passes fall between send and landing.
 */
let launch: MintLaunch;

beforeAll(async () => {
  launch = await startMintLaunch({
    tokens: { drop: 'token' },
    mints: (m) => ({ drop: { rule: 'launch', signer: 'signer.json', program: 'spl-token', mint: m.drop!.toBase58(), amount: '1', supply: 10 } }),
  });
  const res = await fetch(`${launch.localnet.url}/__localnet/cluster`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ confirmedLag: 2, landingBlocks: 3 }) });
  expect(res.status, 'the local chain behaves as a cluster (POST /__localnet/cluster)').toBe(200);
}, 120_000);
afterAll(async () => {
  await launch?.stop();
});

async function balance(owner: Keypair): Promise<bigint> {
  const reply = await rpcCall(launch.localnet.url, 'getAccountInfo', [associatedTokenAccount(owner.publicKey, launch.mints.drop!).toBase58(), { encoding: 'base64', commitment: 'confirmed' }]);
  if (reply.result.value === null) return 0n;
  return Buffer.from(reply.result.value.data[0] as string, 'base64').readBigUInt64LE(64);
}

const build = (payer: Keypair, blockhash: string, computeUnitLimit?: number) =>
  buildTokenMint({ payer, gate: launch.signer.publicKey, mint: launch.mints.drop!, amount: 1n, blockhash, ...(computeUnitLimit === undefined ? {} : { computeUnitLimit }) });

describe('a blockhash not yet confirmed', () => {
  it('is refused with 400 BLOCKHASH_NOT_CONFIRMED and reserves nothing; with confirmed blockhashes each wallet ends with exactly 1', async () => {
    const gate = launch.gates[0]!.url;
    const wallets = await Promise.all([fundedWallet(launch.localnet.url), fundedWallet(launch.localnet.url)]);
    const processed = (await rpcCall(launch.localnet.url, 'getLatestBlockhash', [{ commitment: 'processed' }])).result.value.blockhash as string;
    const tooNew = await postMint(gate, 'drop', build(wallets[0]!, processed));
    expect(tooNew.status).toBe(400);
    expect(tooNew.body.error).toBe('BLOCKHASH_NOT_CONFIRMED');
    expect(tooNew.body.message).toContain('confirmed');
    expect((await getMint(gate, 'drop')).body).toMatchObject({ issued: 0, reserved: 0 });

    const { blockhash } = await latestBlockhash(launch.localnet.url);
    const replies = await Promise.all(wallets.map((wallet) => postMint(gate, 'drop', build(wallet, blockhash))));
    for (const reply of replies) expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(await waitConfirmed(launch.localnet.url, replies.map((reply) => reply.body.signature as string), 60_000)).toEqual([null, null]);
    await eventually('the tracker to count both', async () => {
      const { body } = await getMint(gate, 'drop');
      return body.issued === 2 && body.reserved === 0;
    }, 30_000);
    for (const wallet of wallets) {
      const { blockhash: fresh } = await latestBlockhash(launch.localnet.url);
      expect((await postMint(gate, 'drop', build(wallet, fresh, 100_001))).body.error).toBe('MINT_LIMIT_REACHED');
      expect(await balance(wallet)).toBe(1n);
    }
    expect(await onChainSupply(launch.localnet.url, launch.mints.drop!)).toBe(2n);
  }, 120_000);
});

import { join } from 'node:path';
import { Keypair, PublicKey, SystemProgram, TransactionInstruction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoWallet } from 'x404-localnet/fixture.js';
import { mint as sdkMint } from '../../src/sdk/index.js';
import { startGate, testSecret, type GateProcess } from '../helpers/gate.js';
import { eventually, x404 } from '../helpers/launch.js';
import { buildTokenMint, signWith, TOKEN_PROGRAM, writeKeypairFile } from '../helpers/mint.js';
import { documentCheck, type DocumentCheck } from '../helpers/openapi-conformance.js';
import { fundedWallet, latestBlockhash, onChainSupply, postMint as postMintReply, startMintLaunch, waitConfirmed, waitForCounts, type MintLaunch, type MintReply } from '../helpers/mint-gate.js';
import { localnetAdmin, rpcCall } from '../helpers/token-transactions.js';

/**
 * What a launch team needs before the first wallet signs, over HTTP against the local chain: a
 * wallet's eligibility on GET, `remaining` bounded by the supply left, the mint's on-chain
 * authority checked at start and reload, paid mints, and a cap on the token's on-chain supply
 * shared by several names (phases).
 */
let launch: MintLaunch;
let openapi: DocumentCheck;
/** The "mints" the gate was started with. */
let configured: Record<string, Record<string, unknown>>;
const PRICE = 5_000_000n;
const treasury = Keypair.generate().publicKey;
/** The mint authority of `wrongauth` until the test hands it to the gate's signer. */
const outsider = Keypair.generate();

const getMint = async (name: string, wallet?: string): Promise<MintReply> => {
  const res = await fetch(`${launch.gateUrl}/x404_mint/${name}${wallet === undefined ? '' : `?wallet=${encodeURIComponent(wallet)}`}`);
  const reply = { status: res.status, body: (await res.json()) as Record<string, any>, headers: res.headers };
  openapi.conforms('/x404_mint/{name}', 'get', reply);
  return reply;
};
const postMint = async (...args: Parameters<typeof postMintReply>): Promise<MintReply> => {
  const reply = await postMintReply(...args);
  openapi.conforms('/x404_mint/{name}', 'post', reply);
  return reply;
};

beforeAll(async () => {
  launch = await startMintLaunch({
    tokens: { paid: 'token', shared: 'token', capped: 'token', wrongauth: 'token' },
    authorities: { wrongauth: outsider.publicKey.toBase58() },
    mints: (m) => (configured = {
      paid: { rule: 'launch', signer: 'signer.json', program: 'spl-token', mint: m.paid!.toBase58(), amount: '1', per_wallet: 2, payment: { lamports: PRICE.toString(), destination: treasury.toBase58() } },
      'phase-1': { rule: 'launch', signer: 'signer.json', program: 'spl-token', mint: m.shared!.toBase58(), amount: '1', per_wallet: 5, max_onchain_supply: '2' },
      'phase-2': { rule: 'launch', signer: 'signer.json', program: 'spl-token', mint: m.shared!.toBase58(), amount: '1', per_wallet: 5, max_onchain_supply: '2' },
      capped: { rule: 'launch', signer: 'signer.json', program: 'spl-token', mint: m.capped!.toBase58(), amount: '1', per_wallet: 5, supply: 2 },
      wrongauth: { rule: 'launch', signer: 'signer.json', program: 'spl-token', mint: m.wrongauth!.toBase58(), amount: '1' },
    }),
  });
  openapi = documentCheck((await (await fetch(`${launch.gateUrl}/openapi.json`)).json()) as any);
});
afterAll(async () => {
  await launch?.stop();
});

const tokenMint = async (name: string, payer: Keypair, extra: TransactionInstruction[] = []): Promise<Uint8Array> =>
  buildTokenMint({ payer, gate: launch.signer.publicKey, mint: launch.mints[name]!, amount: 1n, blockhash: (await latestBlockhash(launch.localnet.url)).blockhash, extra });
const pay = (payer: Keypair, lamports = PRICE, to = treasury): TransactionInstruction => SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports });
const lamportsOf = async (address: PublicKey): Promise<bigint> => BigInt((await rpcCall(launch.localnet.url, 'getBalance', [address.toBase58(), { commitment: 'confirmed' }])).result.value as number);

describe('GET /x404_mint/<name>?wallet=: eligibility before the wallet signs', () => {
  it('says whether a POST would be co-signed now, with the code it would get', async () => {
    const wallet = await fundedWallet(launch.localnet.url);
    const fresh = await getMint('capped', wallet.publicKey.toBase58());
    expect(fresh.status).toBe(200);
    expect(fresh.body.wallet).toEqual({ address: wallet.publicKey.toBase58(), eligible: true, remaining: 2 });

    const banned = Keypair.fromSecretKey(demoWallet('banned-holder').secretKey).publicKey.toBase58();
    const refused = await getMint('capped', banned);
    expect(refused.body.wallet).toMatchObject({ address: banned, eligible: false, error: 'HOLDS_BANNED_TOKEN' });
    // And the POST gets that code, as a 403 (a refusal, not a failure of the gate).
    const post = await postMint(launch.gateUrl, 'capped', await tokenMint('capped', await fundedWallet(launch.localnet.url, Keypair.fromSecretKey(demoWallet('banned-holder').secretKey))));
    expect(post.status).toBe(403);
    expect(post.body).toMatchObject({ error: 'HOLDS_BANNED_TOKEN', rule: 'launch', failed: expect.any(Array) });

    // Without ?wallet= the answer has no `wallet`.
    expect((await getMint('capped')).body.wallet).toBeUndefined();
  });

  it('a chain that cannot be read is 503, never a verdict, and is not kept: the next ask reads again', async () => {
    const wallet = Keypair.generate().publicKey.toBase58();
    await localnetAdmin(launch.localnet.url, 'fault', { mode: 'http500', methods: ['getTokenAccountsByOwner'] });
    try {
      const reply = await getMint('capped', wallet);
      expect(reply.status).toBe(503);
      expect(reply.body.error).toBe('UPSTREAM_UNAVAILABLE');
    } finally {
      await localnetAdmin(launch.localnet.url, 'fault', { mode: 'none' });
    }
    expect((await getMint('capped', wallet)).body.wallet).toMatchObject({ address: wallet, eligible: true });
  });

  it('a malformed address is 400 INVALID_WALLET; nothing is read', async () => {
    for (const bad of ['', 'not-an-address', 'O0O0', '1'.repeat(45)]) {
      const reply = await getMint('capped', bad);
      expect(reply.status, bad).toBe(400);
      expect(reply.body.error).toBe('INVALID_WALLET');
    }
  });
});

describe('remaining is bounded by the supply left', () => {
  it('per_wallet 5 of a supply of 2: GET and POST never promise more than the supply left', async () => {
    const first = await fundedWallet(launch.localnet.url);
    const second = await fundedWallet(launch.localnet.url);
    const minted = await postMint(launch.gateUrl, 'capped', await tokenMint('capped', first));
    expect(minted.status, JSON.stringify(minted.body)).toBe(200);
    expect(minted.body.remaining).toBe(1);
    expect((await getMint('capped', second.publicKey.toBase58())).body.wallet).toMatchObject({ eligible: true, remaining: 1 });
    const last = await postMint(launch.gateUrl, 'capped', await tokenMint('capped', second));
    expect(last.status, JSON.stringify(last.body)).toBe(200);
    expect(last.body.remaining).toBe(0);
    // `second`'s answer was kept a few seconds as it was; then it says SOLD_OUT, as `first`'s does.
    expect((await getMint('capped', first.publicKey.toBase58())).body.wallet).toMatchObject({ eligible: false, error: 'SOLD_OUT', remaining: 0 });
    await eventually('the kept answer to expire', async () => (await getMint('capped', second.publicKey.toBase58())).body.wallet.error === 'SOLD_OUT');
  });
});

describe('paid mints', () => {
  it('the treasury receives exactly the price; anything else is 400 payment', async () => {
    const wallet = await fundedWallet(launch.localnet.url);
    expect((await getMint('paid')).body.payment).toEqual({ lamports: PRICE.toString(), destination: treasury.toBase58() });
    for (const extra of [[], [pay(wallet, PRICE - 1n)], [pay(wallet, PRICE, Keypair.generate().publicKey)], [pay(wallet), pay(wallet)]]) {
      const refused = await postMint(launch.gateUrl, 'paid', await tokenMint('paid', wallet, extra));
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ error: 'INVALID_TRANSACTION', reason: 'payment' });
    }
    expect(await lamportsOf(treasury)).toBe(0n);

    const paid = await postMint(launch.gateUrl, 'paid', await tokenMint('paid', wallet, [pay(wallet)]));
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(await waitConfirmed(launch.localnet.url, [paid.body.signature])).toEqual([null]);
    expect(await lamportsOf(treasury)).toBe(PRICE);

    // The SDK reads the price from GET and adds the transfer itself.
    const viaSdk = await sdkMint({ baseUrl: launch.gateUrl, name: 'paid', signer: { secretKey: wallet.secretKey }, rpcUrl: launch.localnet.url });
    expect(await waitConfirmed(launch.localnet.url, [viaSdk.signature])).toEqual([null]);
    expect(await lamportsOf(treasury)).toBe(2n * PRICE);

    // So does `x404 mint`, which builds with the SDK.
    const other = await fundedWallet(launch.localnet.url);
    writeKeypairFile(join(launch.dir, 'buyer.json'), other);
    const cli = await x404(['mint', 'paid', '--url', launch.gateUrl, '--keypair', join(launch.dir, 'buyer.json'), '--rpc', launch.localnet.url, '--confirm']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(await lamportsOf(treasury)).toBe(3n * PRICE);
  });
});

describe('phases: several names on one token mint, capped on-chain', () => {
  it('max_onchain_supply counts what every phase minted: 403 SOLD_OUT once supply + amount would pass it', async () => {
    const [a, b, c] = await Promise.all([fundedWallet(launch.localnet.url), fundedWallet(launch.localnet.url), fundedWallet(launch.localnet.url)]);
    const one = await postMint(launch.gateUrl, 'phase-1', await tokenMint('shared', a));
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    await waitConfirmed(launch.localnet.url, [one.body.signature]);
    const two = await postMint(launch.gateUrl, 'phase-2', await tokenMint('shared', b));
    expect(two.status, JSON.stringify(two.body)).toBe(200);
    await waitConfirmed(launch.localnet.url, [two.body.signature]);
    expect(await onChainSupply(launch.localnet.url, launch.mints.shared!)).toBe(2n);

    for (const phase of ['phase-1', 'phase-2']) {
      const refused = await postMint(launch.gateUrl, phase, await tokenMint('shared', c));
      expect(refused.status, phase).toBe(403);
      expect(refused.body).toMatchObject({ error: 'SOLD_OUT', onchainSupply: '2', maxOnchainSupply: '2' });
      expect((await getMint(phase, c.publicKey.toBase58())).body.wallet).toMatchObject({ eligible: false, error: 'SOLD_OUT' });
    }
    expect(await onChainSupply(launch.localnet.url, launch.mints.shared!)).toBe(2n);
  });
});

describe('the mint authority, checked before any wallet signs', () => {
  it('a mint whose authority is not the signer answers 500 MINT_MISCONFIGURED on GET and POST; fixed on-chain, it mints', async () => {
    const get = await getMint('wrongauth');
    expect(get.status).toBe(500);
    expect(get.body.error).toBe('MINT_MISCONFIGURED');
    expect(get.body.message).toContain(outsider.publicKey.toBase58());
    expect(get.body.message).toContain(launch.signer.publicKey.toBase58());
    const wallet = await fundedWallet(launch.localnet.url);
    const post = await postMint(launch.gateUrl, 'wrongauth', await tokenMint('wrongauth', wallet));
    expect(post.status).toBe(500);
    expect(post.body.error).toBe('MINT_MISCONFIGURED');
    expect(post.body.logs).toBeUndefined();

    // The outsider hands the mint authority to the gate's signer (SetAuthority, MintTokens); the gate's next pass sees it.
    await fundedWallet(launch.localnet.url, outsider);
    const data = Buffer.concat([Buffer.from([6, 0, 1]), launch.signer.publicKey.toBuffer()]);
    const setAuthority = new TransactionInstruction({ programId: TOKEN_PROGRAM, keys: [{ pubkey: launch.mints.wrongauth!, isSigner: false, isWritable: true }, { pubkey: outsider.publicKey, isSigner: true, isWritable: false }], data });
    const bytes = signWith([setAuthority], outsider.publicKey, (await latestBlockhash(launch.localnet.url)).blockhash, [outsider], 'legacy');
    const sent = await rpcCall(launch.localnet.url, 'sendTransaction', [Buffer.from(bytes).toString('base64'), { encoding: 'base64' }]);
    expect(sent.error).toBeUndefined();
    await waitConfirmed(launch.localnet.url, [sent.result as string]);
    await eventually('the gate to see the new authority', async () => (await getMint('wrongauth')).status === 200);
    const minted = await postMint(launch.gateUrl, 'wrongauth', await tokenMint('wrongauth', wallet));
    expect(minted.status, JSON.stringify(minted.body)).toBe(200);
  });

  it('a mint added by a reload (SIGHUP) is checked before it is served: its first answer is already 500', async () => {
    const { address } = await localnetAdmin(launch.localnet.url, 'mint', { decimals: 0, program: 'token', mintAuthority: outsider.publicKey.toBase58(), supply: '0' });
    launch.writePolicies({ ...configured, added: { rule: 'launch', signer: 'signer.json', program: 'spl-token', mint: address, amount: '1' } });
    launch.gates[0]!.child.kill('SIGHUP');
    let first: MintReply | undefined;
    await eventually('the reload to serve the new mint', async () => {
      const res = await fetch(`${launch.gateUrl}/x404_mint/added`);
      if (res.status === 404) return false;
      first = { status: res.status, body: (await res.json()) as Record<string, any>, headers: res.headers };
      return true;
    });
    expect(first!.status).toBe(500);
    expect(first!.body.error).toBe('MINT_MISCONFIGURED');
    expect(first!.body.message).toContain(address);
  });

  it('a chain that cannot be read at start: 503 until the authority is known, then served', async () => {
    await localnetAdmin(launch.localnet.url, 'fault', { mode: 'http500', methods: ['getMultipleAccounts'] });
    let gate: GateProcess | undefined;
    try {
      gate = await startGate({ rpcUrl: launch.localnet.url, env: { JWT_SECRET: testSecret(), POLICIES_FILE: launch.policiesFile } });
      const reply = await fetch(`${gate.url}/x404_mint/capped`);
      expect(reply.status).toBe(503);
      expect(((await reply.json()) as any).error).toBe('UPSTREAM_UNAVAILABLE');
      await localnetAdmin(launch.localnet.url, 'fault', { mode: 'none' });
      // Then the counts, rebuilt from the chain (the chain's blocks produced meanwhile).
      await waitForCounts(gate.url, launch.localnet.url, ['capped']);
      expect((await fetch(`${gate.url}/x404_mint/capped`)).status).toBe(200);
    } finally {
      await localnetAdmin(launch.localnet.url, 'fault', { mode: 'none' });
      await gate?.stop('SIGKILL');
    }
  });
});

/**
 * The local chain executes transactions with the real token programs (LiteSVM), over HTTP with
 * Solana's wire format: blockhashes and their expiry, simulateTransaction, sendTransaction and its
 * preflight, signature verification, the status cache, the transaction faults, and what a landed
 * transaction changes for every read method (accounts, token accounts, history).
 *
 * The chain's block clock is stopped (blockMs 0): each test moves it with POST /__localnet/blocks.
 */
import { createPublicKey, randomInt, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import bs58 from 'bs58';
import { AddressLookupTableAccount, Keypair, PublicKey, Transaction, TransactionInstruction } from '@solana/web3.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_LAUNCH_MINTS, DEMO_MINT_SIGNER } from 'x404-localnet/demo-mint.js';
import { buildDemoState, demoMint, demoWallet } from 'x404-localnet/fixture.js';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';
import { INSTRUCTION_ERROR_NAMES, TRANSACTION_ERROR_NAMES } from 'x404-localnet/transaction-errors.js';
import {
  ataOf,
  computeUnitPrice,
  createAta,
  keypair,
  legacyTransaction,
  localnetAdmin,
  memo,
  mintTo,
  rpcCall,
  transfer,
  v0Transaction,
  withoutSignatureOf,
} from '../helpers/token-transactions.js';

let chain: LocalnetHandle;
const rpc = (method: string, params?: unknown[]) => rpcCall(chain.url, method, params);
const blocks = (body: Record<string, unknown> = {}) => localnetAdmin(chain.url, 'blocks', body);

const authority = keypair(DEMO_MINT_SIGNER.secretKey);
const genesis = DEMO_LAUNCH_MINTS.genesis.address;
const genesisT22 = DEMO_LAUNCH_MINTS['genesis-t22'].address;
const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const TOKEN_2022 = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';

/** A new wallet with SOL (a system account the local chain is told about). */
async function fundedWallet(sol = 1): Promise<Keypair> {
  const wallet = Keypair.generate();
  await localnetAdmin(chain.url, 'lamports', { address: wallet.publicKey.toBase58(), lamports: String(sol * 1_000_000_000) });
  return wallet;
}

async function latestBlockhash(): Promise<string> {
  return (await rpc('getLatestBlockhash', [{ commitment: 'confirmed' }])).result.value.blockhash;
}

/** The wallet's co-signed mint of one `genesis` token: create its ATA (idempotent), MintTo, a memo. */
async function genesisMint(wallet: Keypair, options: { blockhash?: string; note?: string } = {}): Promise<string> {
  const owner = wallet.publicKey.toBase58();
  return legacyTransaction(
    [createAta(owner, owner, genesis, 'token'), mintTo(genesis, ataOf(owner, genesis, 'token'), authority.publicKey.toBase58(), 1n, 'token'), memo(options.note ?? 'x404 mint')],
    options.blockhash ?? (await latestBlockhash()),
    [wallet, authority],
  );
}

const send = (tx: string, config: Record<string, unknown> = {}) => rpc('sendTransaction', [tx, { encoding: 'base64', ...config }]);
const simulate = (tx: string, config: Record<string, unknown> = {}) => rpc('simulateTransaction', [tx, { encoding: 'base64', ...config }]);
const status = async (signature: string, searchTransactionHistory = false) =>
  (await rpc('getSignatureStatuses', [[signature], { searchTransactionHistory }])).result.value[0];

async function mintSupply(mint: string): Promise<bigint> {
  const account = (await rpc('getAccountInfo', [mint, { encoding: 'base64' }])).result.value;
  return Buffer.from(account.data[0], 'base64').readBigUInt64LE(36);
}

async function tokenBalance(owner: string, mint: string): Promise<string | null> {
  const accounts = (await rpc('getTokenAccountsByOwner', [owner, { mint }, { encoding: 'jsonParsed' }])).result.value;
  return accounts.length ? accounts[0].account.data.parsed.info.tokenAmount.amount : null;
}

beforeAll(async () => {
  chain = await startLocalnet({ port: 0, state: buildDemoState({ collections: false }), blockMs: 0 });
});
afterAll(async () => {
  await chain.close();
});
afterEach(() => {
  chain.faults.clear();
});

describe('blocks and blockhashes', () => {
  it('getLatestBlockhash gives a blockhash valid through block height + 150, which expires after 150 more blocks', async () => {
    const latest = await rpc('getLatestBlockhash', []);
    expect(latest.result.context).toEqual({ apiVersion: expect.any(String), slot: expect.any(Number) });
    const { blockhash, lastValidBlockHeight } = latest.result.value;
    expect(bs58.decode(blockhash)).toHaveLength(32);
    const height = (await rpc('getBlockHeight')).result;
    expect(lastValidBlockHeight).toBe(height + 150);
    expect((await rpc('isBlockhashValid', [blockhash])).result.value).toBe(true);

    const slot = (await rpc('getSlot')).result;
    const moved = await blocks({ advance: 150 });
    expect(moved).toMatchObject({ blockHeight: height + 150, slot: slot + 150, blockMs: 0 });
    expect((await rpc('getBlockHeight')).result).toBe(lastValidBlockHeight);
    expect((await rpc('isBlockhashValid', [blockhash])).result.value).toBe(true);
    expect((await rpc('getLatestBlockhash')).result.value.blockhash).not.toBe(blockhash);
    await blocks({ advance: 1 });
    expect((await rpc('isBlockhashValid', [blockhash])).result.value).toBe(false);
  });

  it('answers isBlockhashValid false for a blockhash it never produced, and refuses one that is not a hash', async () => {
    expect((await rpc('isBlockhashValid', [Keypair.generate().publicKey.toBase58()])).result.value).toBe(false);
    expect((await rpc('isBlockhashValid', ['nope'])).error?.code).toBe(-32602);
  });

  it('refuses a minContextSlot it has not reached with -32016 and the context slot', async () => {
    const slot = (await rpc('getSlot')).result;
    const reply = await rpc('getLatestBlockhash', [{ minContextSlot: slot + 10 }]);
    expect(reply.error).toEqual({ code: -32016, message: 'Minimum context slot has not been reached', data: { contextSlot: slot } });
  });

  it('produces a block every blockMs on its own clock', async () => {
    const clocked = await startLocalnet({ port: 0, state: buildDemoState({ collections: false, lendingDumpsDir: null }), blockMs: 20 });
    try {
      const first = (await rpcCall(clocked.url, 'getBlockHeight')).result;
      await expect.poll(async () => (await rpcCall(clocked.url, 'getBlockHeight')).result, { timeout: 5_000 }).toBeGreaterThan(first + 2);
      const info = await localnetAdmin(clocked.url, 'blocks', { blockMs: 0 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await rpcCall(clocked.url, 'getBlockHeight')).result).toBe(info.blockHeight);
    } finally {
      await clocked.close();
    }
  });

  it('refuses a bad admin request with 400', async () => {
    for (const body of [{ advance: -1 }, { advance: 1.5 }, { blockMs: 'fast' }]) {
      const res = await fetch(`${chain.url}/__localnet/blocks`, { method: 'POST', body: JSON.stringify(body) });
      expect(res.status).toBe(400);
    }
  });
});

describe('a co-signed MintTo', () => {
  it('simulates cleanly with signatures verified, showing the account the program would write', async () => {
    const wallet = await fundedWallet();
    const owner = wallet.publicKey.toBase58();
    const ata = ataOf(owner, genesis, 'token');
    const reply = await simulate(await genesisMint(wallet), { sigVerify: true, accounts: { addresses: [ata, genesis], encoding: 'jsonParsed' } });
    expect(reply.result.context.slot).toBe((await rpc('getSlot')).result);
    const value = reply.result.value;
    expect(value.err).toBeNull();
    expect(value.logs).toContain(`Program ${TOKEN} success`);
    expect(value.logs).toContain('Program log: x404 mint');
    expect(value.unitsConsumed).toBeGreaterThan(0);
    expect(value.fee).toBe(10_000);
    expect(value.accounts[0].data.parsed.info).toMatchObject({ mint: genesis, owner, tokenAmount: { amount: '1', decimals: 0 } });
    expect(value.accounts[1].data.parsed.info).toMatchObject({ supply: String((await mintSupply(genesis)) + 1n), mintAuthority: DEMO_MINT_SIGNER.publicKey });
    expect(Object.keys(value).sort()).toEqual(
      ['accounts', 'err', 'fee', 'innerInstructions', 'loadedAccountsDataSize', 'loadedAddresses', 'logs', 'postBalances', 'postTokenBalances', 'preBalances', 'preTokenBalances', 'replacementBlockhash', 'returnData', 'unitsConsumed'].sort(),
    );
    // Nothing was written: the wallet still has no token account.
    expect(await tokenBalance(owner, genesis)).toBeNull();
  });

  it('lands when sent and is then seen by every read method, with its history entry', async () => {
    const wallet = await fundedWallet(2);
    const owner = wallet.publicKey.toBase58();
    const ata = ataOf(owner, genesis, 'token');
    const supplyBefore = await mintSupply(genesis);
    const tx = await genesisMint(wallet, { note: 'launch #1' });
    const sent = await send(tx);
    expect(sent.error).toBeUndefined();
    const signature = sent.result as string;
    expect(bs58.decode(signature)).toHaveLength(64);
    expect(signature).toBe(bs58.encode(Buffer.from(tx, 'base64').subarray(1, 65)));

    // Accounts: the ATA holds 1, the mint's supply grew by 1, the wallet paid the fee and the ATA's rent.
    const [ataAccount, mintAccount, walletAccount] = (await rpc('getMultipleAccounts', [[ata, genesis, owner], { encoding: 'base64' }])).result.value;
    const ataData = Buffer.from(ataAccount.data[0], 'base64');
    expect(ataAccount.owner).toBe(TOKEN);
    expect(bs58.encode(ataData.subarray(0, 32))).toBe(genesis);
    expect(bs58.encode(ataData.subarray(32, 64))).toBe(owner);
    expect(ataData.readBigUInt64LE(64)).toBe(1n);
    expect(Buffer.from(mintAccount.data[0], 'base64').readBigUInt64LE(36)).toBe(supplyBefore + 1n);
    const rent = (await rpc('getMinimumBalanceForRentExemption', [165])).result;
    expect(ataAccount.lamports).toBe(rent);
    expect(walletAccount.lamports).toBe(2_000_000_000 - 10_000 - rent);
    expect((await rpc('getBalance', [owner])).result.value).toBe(walletAccount.lamports);

    // Token accounts by owner, both encodings.
    expect(await tokenBalance(owner, genesis)).toBe('1');
    const byProgram = (await rpc('getTokenAccountsByOwner', [owner, { programId: TOKEN }, { encoding: 'base64' }])).result.value;
    expect(byProgram.map((a: any) => a.pubkey)).toEqual([ata]);

    // History: under the wallet, the mint, the ATA and the mint authority, with the memo.
    for (const address of [owner, genesis, ata, DEMO_MINT_SIGNER.publicKey]) {
      const [newest] = (await rpc('getSignaturesForAddress', [address, { limit: 1 }])).result;
      expect(newest).toMatchObject({ signature, err: null, memo: '[9] launch #1', slot: expect.any(Number) });
      expect(Math.abs(newest.blockTime - Date.now() / 1000)).toBeLessThan(120);
    }
    const found = (await rpc('getTransaction', [signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }])).result;
    expect(found.version).toBe('legacy');
    expect(found.transaction.signatures).toHaveLength(2);
    const keys: string[] = found.transaction.message.accountKeys;
    expect(keys[0]).toBe(owner);
    expect(found.meta).toMatchObject({ err: null, status: { Ok: null }, fee: 10_000 });
    expect(found.meta.preBalances[0] - found.meta.postBalances[0]).toBe(10_000 + rent);
    expect(found.meta.preTokenBalances).toEqual([]);
    expect(found.meta.postTokenBalances).toEqual([
      { accountIndex: keys.indexOf(ata), mint: genesis, owner, programId: TOKEN, uiTokenAmount: { amount: '1', decimals: 0, uiAmount: 1, uiAmountString: '1' } },
    ]);
    expect(found.meta.logMessages).toContain('Program log: Memo (len 9)');
    // The ATA program's own calls into System and Token are its inner instructions.
    expect(found.meta.innerInstructions[0].index).toBe(0);
    expect(found.meta.innerInstructions[0].instructions.map((ix: any) => keys[ix.programIdIndex])).toContain('11111111111111111111111111111111');
    expect(found.meta.computeUnitsConsumed).toBeGreaterThan(0);
    // base64: the wire transaction exactly as it was sent, with the same meta.
    const wire = (await rpc('getTransaction', [signature, { encoding: 'base64', maxSupportedTransactionVersion: 0 }])).result;
    expect(wire.transaction).toEqual([tx, 'base64']);
    expect(wire.meta).toEqual(found.meta);
  });

  it('reports its status processed, then confirmed, then finalized after 32 blocks', async () => {
    const sent = await send(await genesisMint(await fundedWallet()));
    const signature = sent.result as string;
    const landed = await status(signature);
    expect(landed).toEqual({ slot: expect.any(Number), confirmations: 0, err: null, status: { Ok: null }, confirmationStatus: 'processed' });
    await blocks({ advance: 1 });
    expect(await status(signature)).toMatchObject({ confirmations: 1, confirmationStatus: 'confirmed', slot: landed.slot });
    await blocks({ advance: 31 });
    expect(await status(signature)).toMatchObject({ confirmations: null, confirmationStatus: 'finalized', slot: landed.slot });
    // After the status cache's 300 slots, only a history search finds it.
    await blocks({ advance: 300 });
    expect(await status(signature)).toBeNull();
    expect(await status(signature, true)).toMatchObject({ confirmationStatus: 'finalized', err: null });
  });

  it('answers getSignatureStatuses with null for unknown signatures and refuses more than 256', async () => {
    const unknown = bs58.encode(Buffer.alloc(64, 7));
    expect((await rpc('getSignatureStatuses', [[unknown]])).result.value).toEqual([null]);
    const reply = await rpc('getSignatureStatuses', [Array.from({ length: 257 }, () => unknown)]);
    expect(reply.error).toEqual({ code: -32602, message: 'Too many inputs provided; max 256' });
    // History the chain started with is found only by a history search.
    const [old] = (await rpc('getSignaturesForAddress', [demoWallet('quiet').publicKey, { limit: 1 }])).result;
    expect(await status(old.signature)).toBeNull();
    expect(await status(old.signature, true)).toMatchObject({ confirmationStatus: 'finalized', confirmations: null });
  });

  it('takes the wire transaction in base58 too, the default encoding', async () => {
    const tx = Buffer.from(await genesisMint(await fundedWallet()), 'base64');
    const sent = await rpc('sendTransaction', [bs58.encode(tx)]);
    expect(sent.error).toBeUndefined();
    expect((await status(sent.result)).err).toBeNull();
  });
});

describe('the same MintTo without the mint authority', () => {
  it('fails on-chain when the authority is not a signer: simulate and send refuse, and sent anyway it lands failed', async () => {
    const wallet = await fundedWallet();
    const owner = wallet.publicKey.toBase58();
    const supply = await mintSupply(genesis);
    const tx = legacyTransaction(
      [createAta(owner, owner, genesis, 'token'), mintTo(genesis, ataOf(owner, genesis, 'token'), authority.publicKey.toBase58(), 1n, 'token', false)],
      await latestBlockhash(),
      [wallet],
    );
    for (const sigVerify of [false, true]) {
      const value = (await simulate(tx, { sigVerify })).result.value;
      expect(value.err).toEqual({ InstructionError: [1, 'MissingRequiredSignature'] });
      expect(value.logs).toContain('Program log: Error: MissingRequiredSignature');
    }
    const refused = await send(tx);
    expect(refused.error).toMatchObject({
      code: -32002,
      message: 'Transaction simulation failed: Error processing Instruction 1: missing required signature for instruction',
      data: { err: { InstructionError: [1, 'MissingRequiredSignature'] }, logs: expect.arrayContaining(['Program log: Error: MissingRequiredSignature']), accounts: null },
    });
    expect(await status(bs58.encode(Buffer.from(tx, 'base64').subarray(1, 65)))).toBeNull();

    // skipPreflight: the leader runs it; it lands as a failed transaction, its fee paid, nothing minted.
    const balance = (await rpc('getBalance', [owner])).result.value;
    const sent = await send(tx, { skipPreflight: true });
    expect(sent.error).toBeUndefined();
    expect(await status(sent.result)).toMatchObject({ err: { InstructionError: [1, 'MissingRequiredSignature'] }, status: { Err: { InstructionError: [1, 'MissingRequiredSignature'] } } });
    expect((await rpc('getBalance', [owner])).result.value).toBe(balance - 5_000);
    expect(await mintSupply(genesis)).toBe(supply);
    expect(await tokenBalance(owner, genesis)).toBeNull();
    const [entry] = (await rpc('getSignaturesForAddress', [owner, { limit: 1 }])).result;
    expect(entry).toMatchObject({ signature: sent.result, err: { InstructionError: [1, 'MissingRequiredSignature'] } });
  });

  it('is refused -32003 when the authority is named a signer but its signature is missing or forged', async () => {
    const wallet = await fundedWallet();
    const owner = wallet.publicKey.toBase58();
    const supply = await mintSupply(genesis);
    const blockhash = await latestBlockhash();
    const instructions = [createAta(owner, owner, genesis, 'token'), mintTo(genesis, ataOf(owner, genesis, 'token'), authority.publicKey.toBase58(), 1n, 'token')];
    const unsigned = withoutSignatureOf(instructions, blockhash, [wallet], [authority.publicKey.toBase58()]);
    const forged = withoutSignatureOf(instructions, blockhash, [wallet], [authority.publicKey.toBase58()], Keypair.generate());
    const failure = { code: -32003, message: 'Transaction signature verification failure' };
    for (const tx of [unsigned, forged]) {
      expect((await send(tx)).error).toEqual(failure);
      expect((await simulate(tx, { sigVerify: true })).error).toEqual(failure);
      // Sent past the preflight, the leader's signature check drops it: it never lands.
      const sent = await send(tx, { skipPreflight: true });
      expect(sent.error).toBeUndefined();
      await blocks({ advance: 1 });
      expect(await status(sent.result, true)).toBeNull();
    }
    expect(await mintSupply(genesis)).toBe(supply);
    expect(await tokenBalance(owner, genesis)).toBeNull();
    // A simulation without sigVerify does not check signatures, as on a real node: it proves nothing about them.
    expect((await simulate(unsigned)).result.value.err).toBeNull();
  });

  it('verifies signatures as the runtime does (strict): a forgery under a small-order key that node:crypto accepts is refused', async () => {
    // The identity point (y = 1) as a public key, R = the identity and S = 0: the cofactorless
    // equation [S]B = R + [k]A holds for every message, so a plain RFC 8032 verifier accepts it.
    const identity = Buffer.alloc(32);
    identity[0] = 1;
    const payer = new PublicKey(identity);
    await localnetAdmin(chain.url, 'lamports', { address: payer.toBase58(), lamports: '1000000000' });
    const tx = new Transaction({ feePayer: payer, recentBlockhash: await latestBlockhash() }).add(memo('weak key'));
    const forgery = Buffer.concat([identity, Buffer.alloc(32)]);
    const spki = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), identity]), format: 'der', type: 'spki' });
    expect(verify(null, tx.serializeMessage(), spki, forgery)).toBe(true);
    tx.addSignature(payer, forgery);
    const wire = tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64');
    const failure = { code: -32003, message: 'Transaction signature verification failure' };
    expect((await simulate(wire, { sigVerify: true })).error).toEqual(failure);
    expect((await send(wire)).error).toEqual(failure);
    const sent = await send(wire, { skipPreflight: true });
    await blocks({ advance: 1 });
    expect(await status(sent.result, true)).toBeNull();
    expect((await rpc('getBalance', [payer.toBase58()])).result.value).toBe(1_000_000_000);
  });

  it('is refused when any byte of the signed message changes (the amount)', async () => {
    const tx = Buffer.from(await genesisMint(await fundedWallet()), 'base64');
    // MintTo's data is the 9 bytes before the memo instruction; its amount is their last 8.
    const tampered = Buffer.from(tx);
    const at = tampered.indexOf(Buffer.from([7, 1, 0, 0, 0, 0, 0, 0, 0]));
    expect(at).toBeGreaterThan(0);
    tampered[at + 1] = 100;
    expect((await send(tampered.toString('base64'))).error?.code).toBe(-32003);
    expect((await send(tx.toString('base64'))).error).toBeUndefined();
  });
});

describe('expired blockhashes and duplicates', () => {
  it('refuses a transaction whose blockhash has expired: BlockhashNotFound in simulation and preflight; skipping preflight, it never lands', async () => {
    const wallet = await fundedWallet();
    const tx = await genesisMint(wallet);
    await blocks({ advance: 151 });
    expect((await simulate(tx)).result.value).toMatchObject({ err: 'BlockhashNotFound', logs: [], unitsConsumed: 0, accounts: null });
    expect((await simulate(tx, { accounts: { addresses: [wallet.publicKey.toBase58()] } })).result.value.accounts).toEqual([null]);
    expect((await send(tx)).error).toMatchObject({ code: -32002, message: 'Transaction simulation failed: Blockhash not found', data: { err: 'BlockhashNotFound' } });
    const sent = await send(tx, { skipPreflight: true });
    expect(sent.error).toBeUndefined();
    expect(await status(sent.result)).toBeNull();
    expect(await tokenBalance(wallet.publicKey.toBase58(), genesis)).toBeNull();
  });

  it('simulates only within 144 blocks (the forwarding margin) while the leader still takes it up to 150', async () => {
    const wallet = await fundedWallet();
    const tx = await genesisMint(wallet);
    await blocks({ advance: 145 });
    expect((await rpc('isBlockhashValid', [await blockhashOf(tx)])).result.value).toBe(true);
    expect((await simulate(tx)).result.value.err).toBe('BlockhashNotFound');
    expect((await send(tx)).error?.data.err).toBe('BlockhashNotFound');
    const sent = await send(tx, { skipPreflight: true });
    expect((await status(sent.result)).err).toBeNull();
    expect(await tokenBalance(wallet.publicKey.toBase58(), genesis)).toBe('1');
  });

  it('replaceRecentBlockhash simulates an expired transaction with the latest blockhash and returns it; not with sigVerify', async () => {
    const tx = await genesisMint(await fundedWallet());
    await blocks({ advance: 151 });
    const value = (await simulate(tx, { replaceRecentBlockhash: true })).result.value;
    const latest = (await rpc('getLatestBlockhash')).result.value;
    expect(value.err).toBeNull();
    expect(value.replacementBlockhash).toEqual(latest);
    expect((await simulate(tx, { replaceRecentBlockhash: true, sigVerify: true })).error).toEqual({
      code: -32602,
      message: 'sigVerify may not be used with replaceRecentBlockhash',
    });
  });

  it('refuses a transaction already processed: AlreadyProcessed in preflight and simulation; re-sent without preflight it changes nothing', async () => {
    const wallet = await fundedWallet();
    const owner = wallet.publicKey.toBase58();
    const tx = await genesisMint(wallet);
    const first = await send(tx);
    expect(first.error).toBeUndefined();
    const again = await send(tx);
    expect(again.error).toMatchObject({ code: -32002, message: 'Transaction simulation failed: This transaction has already been processed', data: { err: 'AlreadyProcessed' } });
    expect((await simulate(tx)).result.value.err).toBe('AlreadyProcessed');
    const replay = await send(tx, { skipPreflight: true });
    expect(replay.result).toBe(first.result);
    expect(await tokenBalance(owner, genesis)).toBe('1');
    const history = (await rpc('getSignaturesForAddress', [owner, { limit: 10 }])).result;
    expect(history.filter((h: any) => h.signature === first.result)).toHaveLength(1);
  });
});

describe('transaction faults', () => {
  it('tx-dropped: the signature comes back, the transaction never lands and its blockhash expires', async () => {
    const wallet = await fundedWallet();
    const tx = await genesisMint(wallet);
    const blockhash = await blockhashOf(tx);
    const before = (await blocks()).transactions.dropped;
    chain.faults.set({ mode: 'tx-dropped', count: 1 });
    const sent = await send(tx);
    expect(sent.error).toBeUndefined();
    expect(sent.result).toBe(bs58.encode(Buffer.from(tx, 'base64').subarray(1, 65)));
    await blocks({ advance: 1 });
    expect(await status(sent.result)).toBeNull();
    await blocks({ advance: 150 });
    expect((await rpc('isBlockhashValid', [blockhash])).result.value).toBe(false);
    expect(await status(sent.result, true)).toBeNull();
    expect(await tokenBalance(wallet.publicKey.toBase58(), genesis)).toBeNull();
    expect((await blocks()).transactions.dropped).toBe(before + 1);
    // Sent again once its blockhash has expired, it is refused.
    expect((await send(tx)).error?.data.err).toBe('BlockhashNotFound');
  });

  it('tx-delayed: the send succeeds, the status stays null until the landing block, then the state changes', async () => {
    const wallet = await fundedWallet();
    const owner = wallet.publicKey.toBase58();
    chain.faults.set({ mode: 'tx-delayed', blocks: 3, count: 1 });
    const sent = await send(await genesisMint(wallet));
    expect((await blocks()).transactions.pending).toBe(1);
    await blocks({ advance: 2 });
    expect(await status(sent.result)).toBeNull();
    expect(await tokenBalance(owner, genesis)).toBeNull();
    await blocks({ advance: 1 });
    expect(await status(sent.result)).toMatchObject({ err: null, confirmationStatus: 'processed' });
    expect(await tokenBalance(owner, genesis)).toBe('1');
  });

  it('tx-delayed past the blockhash lifetime: it never lands', async () => {
    const wallet = await fundedWallet();
    chain.faults.set({ mode: 'tx-delayed', blocks: 151, count: 1 });
    const sent = await send(await genesisMint(wallet));
    await blocks({ advance: 151 });
    expect(await status(sent.result)).toBeNull();
    expect(await tokenBalance(wallet.publicKey.toBase58(), genesis)).toBeNull();
  });

  it('simulate-failure: simulateTransaction reports the error; sendTransaction only when the fault names it', async () => {
    const wallet = await fundedWallet();
    const tx = await genesisMint(wallet);
    chain.faults.set({ mode: 'simulate-failure', err: { InstructionError: [1, { Custom: 4 }] } });
    const value = (await simulate(tx)).result.value;
    expect(value.err).toEqual({ InstructionError: [1, { Custom: 4 }] });
    expect(value.logs).toEqual(['Program log: local chain fault: simulate-failure']);
    chain.faults.set({ mode: 'simulate-failure', methods: ['simulateTransaction', 'sendTransaction'] });
    expect((await send(tx)).error).toMatchObject({ code: -32002, message: 'Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1' });
    chain.faults.clear();
    expect((await send(tx)).error).toBeUndefined();
  });

  it('rpc-error hits sendTransaction like any method: nothing is sent', async () => {
    const wallet = await fundedWallet();
    const tx = await genesisMint(wallet);
    chain.faults.set({ mode: 'rpc-error', methods: ['sendTransaction'], count: 1 });
    expect((await send(tx)).error?.code).toBe(-32005);
    expect(await status(bs58.encode(Buffer.from(tx, 'base64').subarray(1, 65)))).toBeNull();
  });
});

describe('v0 transactions, Token-2022 and associated token accounts', () => {
  it('mints Token-2022 in a v0 transaction; getTransaction needs maxSupportedTransactionVersion', async () => {
    const wallet = await fundedWallet();
    const owner = wallet.publicKey.toBase58();
    const ata = ataOf(owner, genesisT22, 'token2022');
    const tx = v0Transaction(
      [createAta(owner, owner, genesisT22, 'token2022'), mintTo(genesisT22, ata, authority.publicKey.toBase58(), 1n, 'token2022')],
      await latestBlockhash(),
      [wallet, authority],
    );
    expect((await simulate(tx, { sigVerify: true })).result.value.err).toBeNull();
    const sent = await send(tx);
    expect(sent.error).toBeUndefined();
    const [account] = (await rpc('getTokenAccountsByOwner', [owner, { programId: TOKEN_2022 }, { encoding: 'jsonParsed' }])).result.value;
    expect(account.pubkey).toBe(ata);
    expect(account.account.data).toMatchObject({ program: 'spl-token-2022', parsed: { info: { mint: genesisT22, tokenAmount: { amount: '1' } } } });
    // The ATA program creates Token-2022 accounts with ImmutableOwner.
    expect(account.account.data.parsed.info.extensions).toEqual([{ extension: 'immutableOwner' }]);
    expect((await rpc('getTransaction', [sent.result, { encoding: 'json' }])).error?.code).toBe(-32015);
    const found = (await rpc('getTransaction', [sent.result, { encoding: 'json', maxSupportedTransactionVersion: 0 }])).result;
    expect(found.version).toBe(0);
    expect(found.transaction.message.addressTableLookups).toEqual([]);
    expect(found.meta.postTokenBalances[0]).toMatchObject({ mint: genesisT22, owner, programId: TOKEN_2022, uiTokenAmount: { amount: '1' } });
  });

  it('loads accounts through an address lookup table; token balances index the loaded addresses after the static keys', async () => {
    const wallet = await fundedWallet();
    const owner = wallet.publicKey.toBase58();
    const ata = ataOf(owner, genesis, 'token');
    // A lookup table (LookupTableMeta, 56 bytes, then addresses), active: deactivation slot u64::MAX.
    const table = Keypair.generate().publicKey.toBase58();
    const meta = Buffer.alloc(56);
    meta.writeUInt32LE(1, 0);
    meta.writeBigUInt64LE(0xffff_ffff_ffff_ffffn, 4);
    chain.state.setAccount(table, {
      owner: 'AddressLookupTab1e1111111111111111111111111',
      lamports: 10_000_000n,
      data: Buffer.concat([meta, new PublicKey(ata).toBuffer(), new PublicKey(genesis).toBuffer()]),
    });
    const lookup = new AddressLookupTableAccount({
      key: new PublicKey(table),
      state: { deactivationSlot: BigInt('18446744073709551615'), lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, authority: undefined, addresses: [new PublicKey(ata), new PublicKey(genesis)] },
    });
    await send(await genesisMint(wallet)); // the ATA exists: the v0 transaction only mints
    const tx = v0Transaction([mintTo(genesis, ata, authority.publicKey.toBase58(), 2n, 'token')], await latestBlockhash(), [wallet, authority], [lookup]);
    const sent = await send(tx);
    expect(sent.error).toBeUndefined();
    const found = (await rpc('getTransaction', [sent.result, { encoding: 'json', maxSupportedTransactionVersion: 0 }])).result;
    const staticKeys: string[] = found.transaction.message.accountKeys;
    expect(staticKeys).not.toContain(ata);
    const loaded: string[] = found.meta.loadedAddresses.writable;
    expect([...loaded].sort()).toEqual([ata, genesis].sort());
    expect(found.meta.loadedAddresses.readonly).toEqual([]);
    // Indexes count the static keys, then the loaded writable addresses in the order the lookup lists them.
    const ataIndex = staticKeys.length + loaded.indexOf(ata);
    expect(found.meta.postTokenBalances).toEqual([expect.objectContaining({ accountIndex: ataIndex, mint: genesis, uiTokenAmount: expect.objectContaining({ amount: '3' }) })]);
    expect(found.meta.preTokenBalances).toEqual([expect.objectContaining({ accountIndex: ataIndex, uiTokenAmount: expect.objectContaining({ amount: '1' }) })]);
    expect(found.meta.postBalances).toHaveLength(staticKeys.length + 2);
    expect(await tokenBalance(owner, genesis)).toBe('3');
    // The loaded addresses are indexed too: the ATA's history has it.
    expect((await rpc('getSignaturesForAddress', [ata, { limit: 1 }])).result[0].signature).toBe(sent.result);
  });

  it('creates an ATA idempotently (a second mint to the same wallet), while Create of an existing ATA fails', async () => {
    const wallet = await fundedWallet();
    const owner = wallet.publicKey.toBase58();
    expect((await send(await genesisMint(wallet))).error).toBeUndefined();
    expect((await send(await genesisMint(wallet, { note: 'second' }))).error).toBeUndefined();
    expect(await tokenBalance(owner, genesis)).toBe('2');
    const create = legacyTransaction([createAta(owner, owner, genesis, 'token', false)], await latestBlockhash(), [wallet]);
    const refused = await send(create);
    expect(refused.error?.code).toBe(-32002);
    expect(refused.error?.data.err).toMatchObject({ InstructionError: [0, expect.anything()] });
  });
});

describe('a token transfer between demo wallets', () => {
  it('moves the tokens and records both balances before and after, the mint found in the chain (Transfer does not name it)', async () => {
    const clean = keypair(demoWallet('clean').secretKey);
    const usdc = demoMint('usdc');
    const from = ataOf(clean.publicKey.toBase58(), usdc, 'token');
    const toOwner = demoWallet('portfolio').publicKey;
    const to = ataOf(toOwner, usdc, 'token');
    const tx = legacyTransaction([transfer(from, to, clean.publicKey.toBase58(), 1_500_000n), memo('thanks')], await latestBlockhash(), [clean]);
    const sent = await send(tx);
    expect(sent.error).toBeUndefined();
    expect(await tokenBalance(clean.publicKey.toBase58(), usdc)).toBe('23500000');
    expect(await tokenBalance(toOwner, usdc)).toBe('501500000');
    const found = (await rpc('getTransaction', [sent.result, { encoding: 'json', maxSupportedTransactionVersion: 0 }])).result;
    const keys: string[] = found.transaction.message.accountKeys;
    const balance = (list: any[], account: string) => list.find((b) => b.accountIndex === keys.indexOf(account))?.uiTokenAmount.uiAmountString;
    expect(balance(found.meta.preTokenBalances, from)).toBe('25');
    expect(balance(found.meta.postTokenBalances, from)).toBe('23.5');
    expect(balance(found.meta.preTokenBalances, to)).toBe('500');
    expect(balance(found.meta.postTokenBalances, to)).toBe('501.5');
    // History is indexed by the accounts the transaction names: both token accounts, not the receiving wallet.
    for (const account of [from, to, clean.publicKey.toBase58()]) {
      const [newest] = (await rpc('getSignaturesForAddress', [account, { limit: 1 }])).result;
      expect(newest).toMatchObject({ signature: sent.result, memo: '[6] thanks' });
    }
    expect((await rpc('getSignaturesForAddress', [toOwner, { limit: 1 }])).result[0]?.signature).not.toBe(sent.result);
  });
});

describe('the fixture\'s own accounts under the real programs', () => {
  it('Token-2022 with extensions: a TransferChecked of the transfer-fee mint withholds the fee in the destination', async () => {
    const holder = keypair(demoWallet('t22-holder').secretKey);
    const t22 = demoMint('t22');
    const from = ataOf(holder.publicKey.toBase58(), t22, 'token2022');
    const toOwner = demoWallet('portfolio').publicKey;
    const data = Buffer.alloc(10);
    data[0] = 12; // TransferChecked
    data.writeBigUInt64LE(1_000_000n, 1);
    data[9] = 6;
    const transferChecked = new TransactionInstruction({
      programId: new PublicKey(TOKEN_2022),
      keys: [
        { pubkey: new PublicKey(from), isSigner: false, isWritable: true },
        { pubkey: new PublicKey(t22), isSigner: false, isWritable: false },
        { pubkey: new PublicKey(ataOf(toOwner, t22, 'token2022')), isSigner: false, isWritable: true },
        { pubkey: holder.publicKey, isSigner: true, isWritable: false },
      ],
      data,
    });
    const sent = await send(legacyTransaction([transferChecked], await latestBlockhash(), [holder]));
    expect(sent.error).toBeUndefined();
    expect(await tokenBalance(holder.publicKey.toBase58(), t22)).toBe('41500000');
    // The mint's fee is 50 basis points: 5,000 of the 1,000,000 stay withheld in the destination account.
    const [destination] = (await rpc('getTokenAccountsByOwner', [toOwner, { mint: t22 }, { encoding: 'jsonParsed' }])).result.value;
    expect(destination.account.data.parsed.info.tokenAmount.amount).toBe('10995000');
    expect(destination.account.data.parsed.info.extensions).toContainEqual({ extension: 'transferFeeAmount', state: { withheldAmount: 5000 } });
  });
});

describe('fees and rent', () => {
  it('getFeeForMessage equals what the runtime takes, with a priority fee; null once the blockhash is gone', async () => {
    const wallet = await fundedWallet();
    const owner = wallet.publicKey.toBase58();
    const blockhash = await latestBlockhash();
    // Price 1,000,000 micro-lamports × default limit (3,000 for the builtin + 200,000 for Memo) = 203,000 lamports.
    const tx = legacyTransaction([computeUnitPrice(1_000_000n), memo('fee')], blockhash, [wallet]);
    const message = Buffer.from(tx, 'base64').subarray(65).toString('base64');
    const fee = (await rpc('getFeeForMessage', [message])).result.value;
    expect(fee).toBe(5_000 + 203_000);
    const before = (await rpc('getBalance', [owner])).result.value;
    expect((await send(tx)).error).toBeUndefined();
    expect(before - (await rpc('getBalance', [owner])).result.value).toBe(fee);
    await blocks({ advance: 301 });
    expect((await rpc('getFeeForMessage', [message])).result.value).toBeNull();
  });

  it('getMinimumBalanceForRentExemption agrees with the runtime', async () => {
    expect((await rpc('getMinimumBalanceForRentExemption', [165])).result).toBe(2_039_280);
    expect((await rpc('getMinimumBalanceForRentExemption', [0])).result).toBe(890_880);
    expect((await rpc('getMinimumBalanceForRentExemption', [-1])).error?.code).toBe(-32602);
  });
});

describe('wire format errors', () => {
  it('refuses what does not decode with -32602 and the node messages', async () => {
    const tx = await genesisMint(await fundedWallet());
    expect((await send(tx, { encoding: 'json' })).error).toEqual({ code: -32602, message: 'unsupported encoding: json. Supported encodings: base58, base64' });
    expect((await send('%%%', { encoding: 'base58' })).error?.message).toMatch(/^invalid base58 encoding/);
    expect((await send('AAA*')).error?.message).toMatch(/^invalid base64 encoding/);
    expect((await send(Buffer.alloc(1300).toString('base64'))).error?.message).toBe(
      'base64 encoded solana_transaction::versioned::VersionedTransaction too large: 1736 bytes (max: encoded/raw 1644/1232)',
    );
    expect((await send('1'.repeat(1700), { encoding: 'base58' })).error?.message).toMatch(/^base58 encoded solana_transaction::versioned::VersionedTransaction too large: 1700 bytes/);
    expect((await send(Buffer.alloc(1233, 1).toString('base64'))).error?.message).toBe(
      'decoded solana_transaction::versioned::VersionedTransaction too large: 1233 bytes (max: 1232 bytes)',
    );
    const truncated = Buffer.from(tx, 'base64').subarray(0, 100).toString('base64');
    expect((await send(truncated)).error?.message).toBe('failed to deserialize solana_transaction::versioned::VersionedTransaction: io error: unexpected end of file');
    // One signature where the message asks for two.
    const bytes = Buffer.from(tx, 'base64');
    const oneSignature = Buffer.concat([Buffer.from([1]), bytes.subarray(1, 65), bytes.subarray(129)]);
    expect((await send(oneSignature.toString('base64'))).error).toEqual({ code: -32602, message: 'invalid transaction: Transaction failed to sanitize accounts offsets correctly' });
  });
});

describe('mutated transactions', () => {
  it('every mutation of a co-signed mint gets a JSON-RPC answer, and only the signed one mints', async () => {
    const wallet = await fundedWallet();
    const owner = wallet.publicKey.toBase58();
    const blockhash = await latestBlockhash();
    const instructions = [createAta(owner, owner, genesis, 'token'), mintTo(genesis, ataOf(owner, genesis, 'token'), authority.publicKey.toBase58(), 1n, 'token')];
    const seeds = [legacyTransaction(instructions, blockhash, [wallet, authority]), v0Transaction(instructions, blockhash, [wallet, authority])].map((tx) => Buffer.from(tx, 'base64'));
    const supply = await mintSupply(genesis);
    const random = (n: number) => randomInt(Math.max(1, n));
    const outcomes = new Set<string>();
    for (let i = 0; i < 600; i += 1) {
      let bytes = Buffer.from(seeds[i % 2]!);
      const kind = random(4);
      if (kind === 0) for (let k = 0; k <= random(4); k += 1) bytes[random(bytes.length)] = random(256);
      else if (kind === 1) bytes = bytes.subarray(0, random(bytes.length));
      else if (kind === 2) bytes = Buffer.concat([bytes, Buffer.from([random(256)])]);
      else bytes = Buffer.concat([bytes.subarray(0, random(bytes.length)), Buffer.from([random(256)]), bytes.subarray(random(bytes.length))]);
      const method = random(2) ? 'sendTransaction' : 'simulateTransaction';
      const reply = await rpc(method, [bytes.toString('base64'), { encoding: 'base64', skipPreflight: random(2) === 1, sigVerify: method === 'simulateTransaction' && random(2) === 1 }]);
      expect(reply.result !== undefined || Number.isInteger(reply.error?.code)).toBe(true);
      outcomes.add(reply.error ? `error ${reply.error.code}` : method);
    }
    expect(outcomes).toContain('error -32003');
    expect(outcomes).toContain('error -32602');
    // Only an unchanged message keeps its signatures (trailing bytes are ignored, as bincode does): at most the two seeds mint.
    expect((await mintSupply(genesis)) - supply).toBeLessThanOrEqual(2n);
    expect((await rpc('getHealth')).result).toBe('ok');
  });
});

describe('reads stay off the execution engine', () => {
  it('never loads LiteSVM for reads, blockhashes or statuses', async () => {
    const fresh = await startLocalnet({ port: 0, state: buildDemoState({ collections: false, lendingDumpsDir: null }), blockMs: 0 });
    try {
      const blockhash = (await rpcCall(fresh.url, 'getLatestBlockhash')).result.value.blockhash as string;
      const tx = await genesisMint(Keypair.generate(), { blockhash });
      for (const [method, params] of [
        ['getMultipleAccounts', [[genesis], { encoding: 'base64' }]],
        ['getLatestBlockhash', []],
        ['getBlockHeight', []],
        ['getSignatureStatuses', [[bs58.encode(Buffer.alloc(64, 1))]]],
        ['getFeeForMessage', [Buffer.from(tx, 'base64').subarray(129).toString('base64')]],
      ] as const) {
        expect((await rpcCall(fresh.url, method, [...params])).error).toBeUndefined();
      }
      expect(fresh.transactions.engineLoaded).toBe(false);
      await rpcCall(fresh.url, 'simulateTransaction', [tx, { encoding: 'base64' }]);
      expect(fresh.transactions.engineLoaded).toBe(true);
    } finally {
      await fresh.close();
    }
  });
});

describe('the call log (what the watch page shows)', () => {
  it('records a co-signed mint step by step in a few words', async () => {
    const recording = await startLocalnet({ port: 0, state: buildDemoState({ collections: false, lendingDumpsDir: null }), blockMs: 0, recordCalls: 50 });
    try {
      const call = (method: string, params?: unknown[]) => rpcCall(recording.url, method, params);
      const wallet = Keypair.generate();
      recording.state.setLamports(wallet.publicKey.toBase58(), 1_000_000_000);
      const { blockhash, lastValidBlockHeight } = (await call('getLatestBlockhash')).result.value;
      const tx = await genesisMint(wallet, { blockhash });
      await call('simulateTransaction', [tx, { encoding: 'base64', sigVerify: true }]);
      const signature = (await call('sendTransaction', [tx, { encoding: 'base64' }])).result;
      await call('getSignatureStatuses', [[signature, bs58.encode(Buffer.alloc(64, 9))]]);
      await call('getBlockHeight');
      await call('sendTransaction', [tx, { encoding: 'base64' }]);
      const answers = recording.calls().calls.map((c) => `${c.method}: ${c.answer}`);
      expect(answers).toEqual([
        `getLatestBlockhash: ${blockhash}, valid through block ${lastValidBlockHeight}`,
        expect.stringMatching(/^simulateTransaction: simulated: success, \d+ compute units$/),
        `sendTransaction: sent: ${signature}`,
        'getSignatureStatuses: processed; unknown',
        `getBlockHeight: block ${lastValidBlockHeight - 150}`,
        'sendTransaction: error -32002: Transaction simulation failed: This transaction has already been processed',
      ]);
    } finally {
      await recording.close();
    }
  });
});

describe('error names', () => {
  it('follow LiteSVM’s enums, so an error it reports by number is named as the node names it', () => {
    const declarations = readFileSync(createRequire(import.meta.url).resolve('litesvm/dist/internal.d.ts'), 'utf8');
    const members = (name: string) => {
      const body = declarations.match(new RegExp(`enum ${name} \\{([^}]*)\\}`))![1]!;
      return [...body.matchAll(/(\w+) = (\d+)/g)].sort((a, b) => Number(a[2]) - Number(b[2])).map((m) => m[1]);
    };
    expect(TRANSACTION_ERROR_NAMES).toEqual(members('TransactionErrorFieldless'));
    expect(INSTRUCTION_ERROR_NAMES).toEqual(members('InstructionErrorFieldless'));
  });
});

/** The recent blockhash a base64 wire transaction carries (legacy: after the signatures, header and keys). */
async function blockhashOf(tx: string): Promise<string> {
  const bytes = Buffer.from(tx, 'base64');
  const signatures = bytes[0]!;
  const keysAt = 1 + 64 * signatures + 3;
  const keyCount = bytes[keysAt]!;
  return bs58.encode(bytes.subarray(keysAt + 1 + 32 * keyCount, keysAt + 1 + 32 * keyCount + 32));
}

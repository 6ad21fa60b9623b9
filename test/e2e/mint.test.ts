import { AddressLookupTableAccount, Keypair, PublicKey, SystemProgram, Transaction, type TransactionInstruction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoWallet } from 'x404-localnet/fixture.js';
import { startGate } from '../helpers/gate.js';
import { eventually } from '../helpers/launch.js';
import { associatedTokenAccount, buildTokenMint, createAtaIdempotent, mintTo, signWith, TOKEN_2022_PROGRAM, tokenMintInstructions } from '../helpers/mint.js';
import { documentCheck, type DocumentCheck } from '../helpers/openapi-conformance.js';
import { fundedWallet, getMint as getMintReply, latestBlockhash, onChainSupply, postMint as postMintReply, startMintLaunch, waitConfirmed, type MintLaunch, type MintReply } from '../helpers/mint-gate.js';
import { prng, Seeded } from '../helpers/seeded.js';
import { localnetAdmin, rpcCall } from '../helpers/token-transactions.js';

/**
 * POST /x404_mint/<name> end to end: the real gate over HTTP, the local chain executing the real
 * SPL Token, Token-2022 and ATA programs. The gate co-signs exactly one mint per wallet that meets
 * the rule, refuses everything else with nothing reserved, and a mint that skips it fails on-chain.
 */
let launch: MintLaunch;
let openapi: DocumentCheck;
const HOUR = 3_600_000;
/** Every answer of the mint routes is checked against the OpenAPI document the gate serves. */
const conforming = (method: 'get' | 'post') => (reply: MintReply): MintReply => {
  openapi.conforms('/x404_mint/{name}', method, reply);
  return reply;
};
const postMint = (...args: Parameters<typeof postMintReply>): Promise<MintReply> => postMintReply(...args).then(conforming('post'));
const getMint = (...args: Parameters<typeof getMintReply>): Promise<MintReply> => getMintReply(...args).then(conforming('get'));

beforeAll(async () => {
  launch = await startMintLaunch({
    tokens: { genesis: 'token', t22: 'token2022', tiny: 'token', later: 'token', over: 'token', byfeature: 'token' },
    mints: (m) => ({
      genesis: { rule: 'launch', signer: 'signer.json', program: 'spl-token', mint: m.genesis!.toBase58(), amount: '1', supply: 5000, allow_programs: ['MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'] },
      t22: { rule: 'launch', signer: 'signer.json', program: 'token-2022', mint: m.t22!.toBase58(), amount: '3', per_wallet: 2 },
      tiny: { rule: 'launch', signer: 'signer.json', program: 'spl-token', mint: m.tiny!.toBase58(), amount: '1', supply: 1 },
      later: { rule: 'launch', signer: 'signer.json', program: 'spl-token', mint: m.later!.toBase58(), amount: '1', start: new Date(Date.now() + HOUR).toISOString() },
      over: { rule: 'launch', signer: 'signer.json', program: 'spl-token', mint: m.over!.toBase58(), amount: '1', end: new Date(Date.now() - HOUR).toISOString() },
      byfeature: { feature: 'blacklist', policy: 'launch', signer: 'signer.json', program: 'spl-token', mint: m.byfeature!.toBase58(), amount: '1' },
    }),
  });
  const served = (await (await fetch(`${launch.gateUrl}/openapi.json`)).json()) as any;
  expect(served.paths['/x404_mint/{name}'].parameters[0].schema.enum).toEqual(['byfeature', 'genesis', 'later', 'over', 't22', 'tiny']);
  openapi = documentCheck(served);
});
afterAll(async () => {
  await launch?.stop();
});

const gate = (): PublicKey => launch.signer.publicKey;
const genesis = (): PublicKey => launch.mints.genesis!;

async function genesisMint(payer: Keypair, overrides: Partial<Parameters<typeof buildTokenMint>[0]> = {}): Promise<Uint8Array> {
  const { blockhash } = await latestBlockhash(launch.localnet.url);
  return buildTokenMint({ payer, gate: gate(), mint: genesis(), amount: 1n, blockhash, ...overrides });
}

async function reserved(name = 'genesis'): Promise<number> {
  return (await getMint(launch.gateUrl, name)).body.reserved as number;
}

/** Earlier tests' mints are confirmed by the tracker within a pass or two: start from none pending. */
async function settled(): Promise<void> {
  await eventually('earlier reservations to settle', async () => (await reserved()) === 0, 15_000);
}

async function ataBalance(owner: PublicKey, mint: PublicKey, program?: PublicKey): Promise<bigint> {
  const reply = await rpcCall(launch.localnet.url, 'getAccountInfo', [associatedTokenAccount(owner, mint, program).toBase58(), { encoding: 'base64', commitment: 'confirmed' }]);
  if (reply.result.value === null) return 0n;
  return Buffer.from(reply.result.value.data[0] as string, 'base64').readBigUInt64LE(64);
}

describe('GET /x404_mint/<name>', () => {
  it('serves what a page needs to build the transaction, and the counts', async () => {
    const reply = await getMint(launch.gateUrl, 'genesis');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      name: 'genesis',
      signer: gate().toBase58(),
      program: 'spl-token',
      mint: genesis().toBase58(),
      amount: '1',
      perWallet: 1,
      supply: 5000,
      rule: 'launch',
      start: null,
      end: null,
      issued: expect.any(Number),
      reserved: expect.any(Number),
    });
    expect(JSON.stringify(reply.body)).not.toContain('signer.json');
    expect((await getMint(launch.gateUrl, 'nope')).status).toBe(404);
    expect((await postMint(launch.gateUrl, 'nope', '{}')).status).toBe(404);
  });
});

describe('POST /x404_mint/<name>', () => {
  it('co-signs exactly one mint for a wallet that meets the rule, then 403 MINT_LIMIT_REACHED', async () => {
    const wallet = await fundedWallet(launch.localnet.url);
    const reply = await postMint(launch.gateUrl, 'genesis', await genesisMint(wallet, { computeUnitLimit: 100_000 }));
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ success: true, signature: expect.any(String), transaction: expect.any(String), lastValidBlockHeight: expect.any(Number), remaining: 0 });
    // The answer is the transaction the wallet signed, with the gate's signature added.
    const signed = Transaction.from(Buffer.from(reply.body.transaction as string, 'base64'));
    expect(signed.verifySignatures()).toBe(true);
    expect(signed.signatures.map((entry) => entry.publicKey.toBase58())).toEqual([wallet.publicKey.toBase58(), gate().toBase58()]);

    expect(await waitConfirmed(launch.localnet.url, [reply.body.signature as string])).toEqual([null]);
    expect(await ataBalance(wallet.publicKey, genesis())).toBe(1n);
    await eventually('the tracker to count the mint', async () => (await getMint(launch.gateUrl, 'genesis')).body.issued >= 1);

    const again = await postMint(launch.gateUrl, 'genesis', await genesisMint(wallet, { createAta: false }));
    expect(again.status).toBe(403);
    expect(again.body.error).toBe('MINT_LIMIT_REACHED');
    expect(await ataBalance(wallet.publicKey, genesis())).toBe(1n);
  });

  it('token-2022 mints under its own program, per_wallet times', async () => {
    const wallet = await fundedWallet(launch.localnet.url);
    const build = async (units: number) =>
      buildTokenMint({ payer: wallet, gate: gate(), mint: launch.mints.t22!, amount: 3n, blockhash: (await latestBlockhash(launch.localnet.url)).blockhash, tokenProgram: TOKEN_2022_PROGRAM, computeUnitLimit: units });
    const first = await postMint(launch.gateUrl, 't22', await build(100_000));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.remaining).toBe(1);
    const second = await postMint(launch.gateUrl, 't22', await build(100_001));
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect((await postMint(launch.gateUrl, 't22', await build(100_002))).body.error).toBe('MINT_LIMIT_REACHED');
    await waitConfirmed(launch.localnet.url, [first.body.signature, second.body.signature]);
    expect(await ataBalance(wallet.publicKey, launch.mints.t22!, TOKEN_2022_PROGRAM)).toBe(6n);
  });

  it('a banned mint kept outside the wallet\'s ATA is seen: refused under the rule and under a feature + policy condition', async () => {
    // The deny condition counts every token account the wallet owns (HOLDINGS_SCOPE=all), as a sign-in does.
    const wallet = await fundedWallet(launch.localnet.url, Keypair.fromSecretKey(demoWallet('banned-nonata').secretKey));
    await settled();
    for (const name of ['genesis', 'byfeature']) {
      const { blockhash } = await latestBlockhash(launch.localnet.url);
      const reply = await postMint(launch.gateUrl, name, buildTokenMint({ payer: wallet, gate: gate(), mint: launch.mints[name]!, amount: 1n, blockhash }));
      expect(reply.status, `${name}: ${JSON.stringify(reply.body)}`).toBe(403);
      expect(reply.body.error).toBe('HOLDS_BANNED_TOKEN');
      expect(reply.body.signature).toBeUndefined();
      expect(await reserved(name)).toBe(0);
    }
  });

  it('a wallet that fails the rule gets the rule\'s refusal and no signature', async () => {
    const holder = demoWallet('banned-holder');
    const wallet = await fundedWallet(launch.localnet.url, Keypair.fromSecretKey(holder.secretKey));
    await settled();
    const reply = await postMint(launch.gateUrl, 'genesis', await genesisMint(wallet));
    // A refusal, not a failure of the gate: 403 with the rule's code (a sign-in answers 500 for it).
    expect(reply.status).toBe(403);
    expect(reply.body).toMatchObject({ error: 'HOLDS_BANNED_TOKEN', rule: 'launch', failed: expect.any(Array) });
    expect(reply.body.transaction).toBeUndefined();
    expect(reply.body.signature).toBeUndefined();
    expect(await reserved()).toBe(0);
  });

  it('the same MintTo without the gate\'s signature fails on-chain', async () => {
    const wallet = await fundedWallet(launch.localnet.url);
    const unsigned = Buffer.from(await genesisMint(wallet)).toString('base64');
    const sent = await rpcCall(launch.localnet.url, 'sendTransaction', [unsigned, { encoding: 'base64' }]);
    expect(sent.error?.code).toBe(-32003);
    // A bot naming itself the authority: the token program refuses (owner mismatch).
    const { blockhash } = await latestBlockhash(launch.localnet.url);
    const ata = associatedTokenAccount(wallet.publicKey, genesis());
    const bot = signWith([createAtaIdempotent(wallet.publicKey, wallet.publicKey, genesis()), mintTo(genesis(), ata, wallet.publicKey, 1n)], wallet.publicKey, blockhash, [wallet], 'legacy');
    const simulated = await rpcCall(launch.localnet.url, 'simulateTransaction', [Buffer.from(bot).toString('base64'), { encoding: 'base64', sigVerify: true }]);
    expect(simulated.result.value.err).not.toBeNull();
    expect(await ataBalance(wallet.publicKey, genesis())).toBe(0n);
  });

  it('refuses each forbidden shape with 400 and reserves nothing', async () => {
    await settled();
    const wallet = await fundedWallet(launch.localnet.url);
    const { blockhash } = await latestBlockhash(launch.localnet.url);
    const ata = associatedTokenAccount(wallet.publicKey, genesis());
    const other = Keypair.generate();
    const template = tokenMintInstructions({ payer: wallet, gate: gate(), mint: genesis(), amount: 1n, blockhash });
    const base = { payer: wallet, gate: gate(), mint: genesis(), amount: 1n, blockhash };
    const table = new AddressLookupTableAccount({ key: Keypair.generate().publicKey, state: { deactivationSlot: 2n ** 64n - 1n, lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, addresses: [genesis(), ata] } });
    const gatePayer = Keypair.fromSecretKey(launch.signer.secretKey);
    const shapes: [string, Uint8Array][] = [
      ['wrong_amount', buildTokenMint({ ...base, instructions: [template[0]!, mintTo(genesis(), ata, gate(), 2n)] })],
      ['wrong_destination', buildTokenMint({ ...base, instructions: [mintTo(genesis(), associatedTokenAccount(other.publicKey, genesis()), gate(), 1n)] })],
      ['wrong_mint', buildTokenMint({ ...base, instructions: [mintTo(launch.mints.tiny!, associatedTokenAccount(wallet.publicKey, launch.mints.tiny!), gate(), 1n)] })],
      ['instruction_not_allowed', buildTokenMint({ ...base, extra: [SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: other.publicKey, lamports: 1000 })] })],
      // Signed by the gate's own key as fee payer: a caller holding it would not need the gate; the shape is refused anyway.
      ['signer_key_fee_payer', buildTokenMint({ ...base, feePayer: gatePayer })],
      ['signer_key_writable', buildTokenMint({ ...base, instructions: [template[0]!, mintTo(genesis(), ata, gate(), 1n, { authorityWritable: true })] })],
      ['durable_nonce', buildTokenMint({ ...base, instructions: [SystemProgram.nonceAdvance({ noncePubkey: other.publicKey, authorizedPubkey: wallet.publicKey }), ...template] })],
      ['lookup_table', buildTokenMint({ ...base, version: 0, tables: [table] })],
    ];
    for (const [reason, bytes] of shapes) {
      const reply = await postMint(launch.gateUrl, 'genesis', bytes);
      expect(reply.status, `${reason}: ${JSON.stringify(reply.body)}`).toBe(400);
      expect(reply.body).toMatchObject({ error: 'INVALID_TRANSACTION', reason });
    }
    expect(await reserved()).toBe(0);
    // Nothing was spent: the same wallet still gets its one mint.
    const valid = await postMint(launch.gateUrl, 'genesis', await genesisMint(wallet));
    expect(valid.status, JSON.stringify(valid.body)).toBe(200);
  });

  it('an expired blockhash → 400 BLOCKHASH_EXPIRED; a forged signature → 401', async () => {
    await settled();
    const wallet = await fundedWallet(launch.localnet.url);
    const old = await genesisMint(wallet);
    // The blockhash decides before the rule: a wallet the rule refuses hears of its expired blockhash.
    const banned = await fundedWallet(launch.localnet.url, Keypair.fromSecretKey(demoWallet('banned-holder').secretKey));
    const oldOfBanned = await genesisMint(banned);
    await localnetAdmin(launch.localnet.url, 'blocks', { advance: 160 });
    const expired = await postMint(launch.gateUrl, 'genesis', old);
    expect(expired.status).toBe(400);
    expect(expired.body.error).toBe('BLOCKHASH_EXPIRED');
    expect((await postMint(launch.gateUrl, 'genesis', oldOfBanned)).body.error).toBe('BLOCKHASH_EXPIRED');

    const forged = await genesisMint(wallet);
    forged[1 + 5] = forged[1 + 5]! ^ 0xff;
    const refused = await postMint(launch.gateUrl, 'genesis', forged);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('INVALID_SIGNATURE');
    expect(await reserved()).toBe(0);
  });

  it('a transaction sent but never landing frees its reservation once its blockhash expires', async () => {
    await settled();
    const wallet = await fundedWallet(launch.localnet.url);
    await localnetAdmin(launch.localnet.url, 'fault', { mode: 'tx-dropped', count: 1 });
    const sent = await postMint(launch.gateUrl, 'genesis', await genesisMint(wallet));
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(await reserved()).toBe(1);
    expect((await postMint(launch.gateUrl, 'genesis', await genesisMint(wallet))).body.error).toBe('MINT_LIMIT_REACHED');

    const { blockHeight } = await localnetAdmin(launch.localnet.url, 'blocks', {});
    expect(sent.body.lastValidBlockHeight).toBeGreaterThan(blockHeight);
    await localnetAdmin(launch.localnet.url, 'blocks', { advance: sent.body.lastValidBlockHeight - blockHeight + 1 });
    const expiredAt = Date.now();
    await eventually('the reservation to be released', async () => (await reserved()) === 0, 10_000);
    expect(Date.now() - expiredAt).toBeLessThan(10_000);
    expect(await ataBalance(wallet.publicKey, genesis())).toBe(0n);
    const again = await postMint(launch.gateUrl, 'genesis', await genesisMint(wallet));
    expect(again.status, JSON.stringify(again.body)).toBe(200);
  });

  it('a transaction that fails in simulation → 422 with the logs, nothing reserved', async () => {
    await settled();
    const wallet = await fundedWallet(launch.localnet.url);
    await localnetAdmin(launch.localnet.url, 'fault', { mode: 'simulate-failure', count: 1 });
    const reply = await postMint(launch.gateUrl, 'genesis', await genesisMint(wallet));
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({ error: 'SIMULATION_FAILED', err: expect.anything(), logs: expect.any(Array) });
    expect(await reserved()).toBe(0);
  });

  it('the time window and the supply: 403 MINT_NOT_STARTED, MINT_ENDED, SOLD_OUT', async () => {
    const wallet = await fundedWallet(launch.localnet.url);
    const { blockhash } = await latestBlockhash(launch.localnet.url);
    const of = (name: string) => buildTokenMint({ payer: wallet, gate: gate(), mint: launch.mints[name]!, amount: 1n, blockhash });
    expect((await postMint(launch.gateUrl, 'later', of('later'))).body.error).toBe('MINT_NOT_STARTED');
    expect((await postMint(launch.gateUrl, 'over', of('over'))).body.error).toBe('MINT_ENDED');
    const first = await postMint(launch.gateUrl, 'tiny', of('tiny'));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const second = await fundedWallet(launch.localnet.url);
    const mark = launch.localnet.calls().last;
    const soldOut = await postMint(launch.gateUrl, 'tiny', buildTokenMint({ payer: second, gate: gate(), mint: launch.mints.tiny!, amount: 1n, blockhash }));
    expect(soldOut.status).toBe(403);
    expect(soldOut.body.error).toBe('SOLD_OUT');
    // Counts that refuse read nothing of the wallet: a crowd after SOLD_OUT costs the chain no rule read.
    // A later wallet's eligibility reads the rule through the same queue, so any read of `second` is answered before its.
    const third = Keypair.generate().publicKey.toBase58();
    expect((await getMint(launch.gateUrl, `genesis?wallet=${third}`)).body.wallet).toMatchObject({ eligible: true });
    const read = JSON.stringify(launch.localnet.calls(mark).calls.map((call) => call.params));
    expect(read).toContain(third);
    expect(read).not.toContain(second.publicKey.toBase58());
  });

  it('refuses bodies that are not {transaction}, and methods other than GET and POST', async () => {
    expect((await postMint(launch.gateUrl, 'genesis', 'not json')).body.error).toBe('INVALID_BODY');
    expect((await postMint(launch.gateUrl, 'genesis', JSON.stringify({ transaction: 5 }))).body.error).toBe('INVALID_BODY');
    expect((await postMint(launch.gateUrl, 'genesis', JSON.stringify({ transaction: 'a b' }))).body).toMatchObject({ error: 'INVALID_TRANSACTION', reason: 'encoding' });
    const large = await postMint(launch.gateUrl, 'genesis', JSON.stringify({ transaction: 'A'.repeat(10_000) }));
    expect(large.status).toBe(413);
    expect(large.body.error).toBe('BODY_TOO_LARGE');
    const put = await fetch(`${launch.gateUrl}/x404_mint/genesis`, { method: 'PUT', body: '{}' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST, OPTIONS');
    const preflight = await fetch(`${launch.gateUrl}/x404_mint/genesis`, { method: 'OPTIONS', headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
  });

  it('fuzz over HTTP: 300 mutated transactions → only 400, 401, 403 or 422, never a co-signature outside the template', async () => {
    await settled();
    const wallet = await fundedWallet(launch.localnet.url);
    const { blockhash } = await latestBlockhash(launch.localnet.url);
    const validBytes = buildTokenMint({ payer: wallet, gate: gate(), mint: genesis(), amount: 1n, blockhash });
    const valid = Transaction.from(validBytes);
    const templateMessage = Buffer.from(valid.serializeMessage()).toString('hex');
    let cosigned = 0;
    const statuses = new Map<number, number>();
    for (let i = 0; i < 300; i++) {
      const fuzz = new Seeded(prng(2027, i));
      let bytes: Uint8Array;
      if (i % 3 === 0) {
        // Instruction-level: the template with one instruction's data or accounts changed, re-signed by the wallet.
        const instructions: TransactionInstruction[] = valid.instructions.map((instruction) => ({ ...instruction, keys: instruction.keys.map((key) => ({ ...key })), data: Buffer.from(instruction.data) }) as TransactionInstruction);
        const target = instructions[fuzz.int(instructions.length)]!;
        if (fuzz.chance(0.5) && target.data.length > 0) {
          const at = fuzz.int(target.data.length);
          target.data[at] = target.data[at]! ^ (1 + fuzz.int(255));
        }
        else if (target.keys.length > 0) target.keys[fuzz.int(target.keys.length)]!.pubkey = fuzz.pick([Keypair.generate().publicKey, gate(), wallet.publicKey, genesis()]);
        try {
          bytes = signWith(instructions, wallet.publicKey, blockhash, [wallet], 'legacy');
        } catch {
          continue;
        }
      } else {
        // Byte-level on the wallet-signed template (the signature then rarely verifies).
        const raw = Array.from(valid.serialize({ requireAllSignatures: false, verifySignatures: false }));
        for (let k = 0; k <= fuzz.int(3); k++) raw[fuzz.int(raw.length)] = fuzz.int(256);
        bytes = Uint8Array.from(raw);
      }
      const reply = await postMint(launch.gateUrl, 'genesis', bytes);
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
      if (reply.status === 200) {
        // Only the template itself: a mutation that left the message as it was (the same key picked,
        // or a byte of the gate's own signature slot, which the gate overwrites) — and only once.
        const message = Buffer.from(Transaction.from(Buffer.from(reply.body.transaction as string, 'base64')).serializeMessage()).toString('hex');
        expect(message, `case ${i} co-signed something else`).toBe(templateMessage);
        cosigned++;
        continue;
      }
      expect([400, 401, 403, 422], `case ${i}: ${JSON.stringify(reply.body)}`).toContain(reply.status);
    }
    expect(statuses.get(400)).toBeGreaterThan(0);
    expect(cosigned).toBeLessThanOrEqual(1);
  });
});

describe('a chain or a store that cannot be read: 503, never a co-signature, nothing reserved', () => {
  const faults: [string, Record<string, unknown>][] = [
    ['the blockhash check', { mode: 'http500', methods: ['isBlockhashValid'], count: 20 }],
    ['the rule\'s reads', { mode: 'malformed', methods: ['getMultipleAccounts', 'getTokenAccountsByOwner'], count: 20 }],
    ['the simulation (the reservation is released)', { mode: 'http500', methods: ['simulateTransaction'], count: 20 }],
  ];
  for (const [what, fault] of faults) {
    it(`when ${what} fails`, async () => {
      await settled();
      const wallet = await fundedWallet(launch.localnet.url);
      const bytes = await genesisMint(wallet);
      await localnetAdmin(launch.localnet.url, 'fault', fault);
      try {
        const reply = await postMint(launch.gateUrl, 'genesis', bytes);
        expect(reply.status, JSON.stringify(reply.body)).toBe(503);
        expect(reply.body.error).toBe('UPSTREAM_UNAVAILABLE');
        expect(reply.body.transaction).toBeUndefined();
      } finally {
        await localnetAdmin(launch.localnet.url, 'fault', { mode: 'none' });
      }
      expect(await reserved()).toBe(0);
      expect(await ataBalance(wallet.publicKey, genesis())).toBe(0n);
    });
  }

  it('when Redis cannot be reached', async () => {
    const gate = await startGate({ rpcUrl: launch.localnet.url, env: { POLICIES_FILE: launch.policiesFile, REDIS_URL: 'redis://127.0.0.1:1' } });
    try {
      const wallet = await fundedWallet(launch.localnet.url);
      const reply = await postMintReply(gate.url, 'genesis', await genesisMint(wallet));
      expect(reply.status).toBe(503);
      expect(reply.body.error).toBe('UPSTREAM_UNAVAILABLE');
      expect((await getMintReply(gate.url, 'genesis')).status).toBe(503);
    } finally {
      await gate.stop('SIGKILL');
    }
  });
});

describe('operations', () => {
  it('SIGHUP reloads the mints; metrics count co-signs and refusals by code', async () => {
    const metrics = await (await fetch(`${launch.gateUrl}/metrics`)).text();
    expect(metrics).toMatch(/x404_mint_cosigns_total\{mint="genesis"\} [1-9]/);
    expect(metrics).toMatch(/x404_mint_refusals_total\{mint="genesis",code="INVALID_TRANSACTION"\} [1-9]/);
    expect(metrics).toMatch(/x404_mint_reservations_settled_total\{mint="genesis",outcome="expired"\} [1-9]/);
    expect(launch.gates[0]!.output()).not.toContain(JSON.stringify([...launch.signer.secretKey.subarray(0, 8)]).slice(1, -1));

    const m = launch.mints;
    launch.writePolicies({ genesis: { rule: 'launch', signer: 'signer.json', program: 'spl-token', mint: m.genesis!.toBase58(), amount: '1', supply: 7 } });
    launch.gates[0]!.child.kill('SIGHUP');
    await eventually('the reload', async () => (await getMint(launch.gateUrl, 'genesis')).body.supply === 7);
    expect((await getMint(launch.gateUrl, 'tiny')).status).toBe(404);
    expect(await onChainSupply(launch.localnet.url, genesis())).toBeGreaterThan(0n);
  });
});

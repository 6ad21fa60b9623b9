import { verify, createPublicKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair, Transaction } from '@solana/web3.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { AccountInfo, ChainReader } from '../../src/chain/types.js';
import { loadConfig } from '../../src/config.js';
import { GateError } from '../../src/errors.js';
import type { MintChain } from '../../src/mint/chain.js';
import { MintService } from '../../src/mint/cosign.js';
import { MemoryReservationStore } from '../../src/mint/memory-store.js';
import { PROGRAM_IDS } from '../../src/mint/template-programs.js';
import { loadPolicyFile } from '../../src/policy/load.js';
import { createSignatureVerifier } from '../../src/signature/verifier.js';
import { buildCandyMint, candyGuardAccount, some, sol, umiKey, type CandyProgram } from '../helpers/candy.js';
import { writeKeypairFile } from '../helpers/mint.js';

/**
 * The candy templates through the whole co-sign (src/mint/cosign.ts) in-process: Candy Guard
 * programs cannot execute on the local chain, so the chain here answers with a guard account the
 * official client serialized and a simulation that succeeds; everything the gate decides is its
 * own code. The rule is a wallet list (no reads).
 */
const dir = mkdtempSync(join(tmpdir(), 'x404-candy-cosign-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const gate = Keypair.generate();
writeKeypairFile(join(dir, 'signer.json'), gate);
const listed = Keypair.generate();
writeFileSync(join(dir, 'minters.txt'), `${listed.publicKey.toBase58()}\n`);
const treasury = Keypair.generate().publicKey;
const guards = { 'candy-guard': Keypair.generate().publicKey, 'core-candy-guard': Keypair.generate().publicKey };
const machines = { 'candy-guard': Keypair.generate().publicKey, 'core-candy-guard': Keypair.generate().publicKey };
writeFileSync(
  join(dir, 'policies.json'),
  JSON.stringify({
    rules: { minters: { wallets: 'minters.txt' } },
    mints: Object.fromEntries(
      (['candy-guard', 'core-candy-guard'] as const).map((program) => [program, { rule: 'minters', signer: 'signer.json', program, candy_guard: guards[program].toBase58(), candy_machine: machines[program].toBase58() }]),
    ),
  }),
);
const config = loadConfig({ JWT_SECRET: 'x'.repeat(40), SOLANA_RPC_URL: 'http://127.0.0.1:1', WORKER_THREADS: '0' });
const policies = loadPolicyFile(join(dir, 'policies.json'), 'open');
const BLOCKHASH = Keypair.generate().publicKey.toBase58();

function service(guardAccount: (program: CandyProgram) => AccountInfo | null, simulationError: unknown = null) {
  const sent: string[] = [];
  const simulated: string[] = [];
  const chain = {
    withDeadline: () => chain,
    getMultipleAccounts: async (keys: readonly string[]) => keys.map((key) => guardAccount(key === guards['candy-guard'].toBase58() ? 'candy-guard' : 'core-candy-guard')),
  } as unknown as ChainReader;
  const mintChain: MintChain = {
    isBlockhashValid: async () => ({ valid: true, slot: 1 }),
    latestBound: async () => ({ lastValidBlockHeight: 1234, slot: 7 }),
    confirmedHeight: async () => ({ height: 1000, slot: 7 }),
    simulate: async (transaction) => {
      simulated.push(transaction);
      return { err: simulationError, logs: ['Program log: scripted'], unitsConsumed: 1 };
    },
    send: async (transaction) => {
      sent.push(transaction);
      return 'sig';
    },
    signatureStatuses: async (signatures) => signatures.map(() => null),
    historyStatuses: async (signatures) => signatures.map(() => ({ status: null, historyFrom: 0 })),
    signaturesPage: async () => ({ entries: [], historyFrom: 0 }),
    transactions: async (signatures) => signatures.map(() => null),
  };
  // A launch's start: its counts rebuilt from a chain with no mint yet.
  const store = new MemoryReservationStore();
  for (const name of policies.mints.keys()) void store.install(name, { issued: 0, wallets: new Map() });
  const mints = new MintService({ config, chain, mintChain, signatures: createSignatureVerifier({ threads: 0, maxBatch: 1 }), store, policies: () => policies, now: Date.now });
  return { mints, sent, simulated };
}

/** The gate's signature in a wire transaction (base64), or undefined when its slot is zeros. */
function gateSignature(transaction: string): Buffer | undefined {
  const tx = Transaction.from(Buffer.from(transaction, 'base64'));
  const signature = tx.signatures.find((entry) => entry.publicKey.equals(gate.publicKey))?.signature;
  return signature && signature.some((byte) => byte !== 0) ? signature : undefined;
}

const guardSet = (signer = gate.publicKey) => ({
  solPayment: some({ lamports: sol(1), destination: umiKey(treasury.toBase58()) }),
  thirdPartySigner: some({ signerKey: umiKey(signer.toBase58()) }),
});
const account = (program: CandyProgram, data: Uint8Array, owner: string = program === 'candy-guard' ? PROGRAM_IDS.candyGuard : PROGRAM_IDS.coreCandyGuard): AccountInfo => ({ owner, lamports: 1, executable: false, data: Buffer.from(data) });

async function answer(work: Promise<unknown>): Promise<{ status: number; code?: string; reason?: unknown; body?: Record<string, unknown> }> {
  try {
    const result = (await work) as { status: number; body: Record<string, unknown> };
    return { status: result.status, body: result.body };
  } catch (error) {
    if (!(error instanceof GateError)) throw error;
    return { status: error.httpStatus, code: error.code, reason: error.options.extra?.reason };
  }
}

const body = (bytes: Uint8Array): Uint8Array => new TextEncoder().encode(JSON.stringify({ transaction: Buffer.from(bytes).toString('base64') }));
const mintArgs = (withPayment = true) => ({ ...(withPayment ? { solPayment: some({ destination: umiKey(treasury.toBase58()) }) } : {}), thirdPartySigner: gate.publicKey });
const build = (program: CandyProgram, payer = listed, withPayment = true) =>
  buildCandyMint({ program, payer, newAccount: Keypair.generate(), candyGuard: guards[program], candyMachine: machines[program], blockhash: BLOCKHASH, mintArgs: mintArgs(withPayment), demoteGate: gate.publicKey });

describe('co-signing a candy mint (in-process, the chain scripted)', () => {
  for (const program of ['candy-guard', 'core-candy-guard'] as const) {
    it(`${program}: co-signs the client's transaction once, the gate's signature in its slot`, async () => {
      const { mints, sent } = service((p) => account(p, candyGuardAccount(p, guardSet())));
      const result = await answer(mints.cosign(program, body(build(program)), new Map()));
      expect(result.status, JSON.stringify(result)).toBe(200);
      expect(sent).toHaveLength(1);
      const tx = Transaction.from(Buffer.from(sent[0]!, 'base64'));
      const slot = tx.signatures.find((entry) => entry.publicKey.equals(gate.publicKey))!;
      expect(verify(null, tx.serializeMessage(), createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(gate.publicKey.toBytes()).toString('base64url') }, format: 'jwk' }), slot.signature!)).toBe(true);
      expect(tx.verifySignatures()).toBe(true);
      expect((await answer(mints.cosign(program, body(build(program)), new Map()))).code).toBe('MINT_LIMIT_REACHED');
    });

    it(`${program}: simulates before signing, so a node that answers "failed" never holds the gate's signature`, async () => {
      const { mints, sent, simulated } = service((p) => account(p, candyGuardAccount(p, guardSet())), { InstructionError: [1, { Custom: 6 }] });
      expect(await answer(mints.cosign(program, body(build(program)), new Map()))).toMatchObject({ status: 422, code: 'SIMULATION_FAILED' });
      expect(simulated).toHaveLength(1);
      expect(gateSignature(simulated[0]!)).toBeUndefined();
      expect(sent).toHaveLength(0);
      // Released: the wallet may try again.
      const ok = service((p) => account(p, candyGuardAccount(p, guardSet())));
      expect((await answer(ok.mints.cosign(program, body(build(program)), new Map()))).status).toBe(200);
      expect(gateSignature(ok.simulated[0]!)).toBeUndefined();
      expect(gateSignature(ok.sent[0]!)).toBeDefined();
    });

    it(`${program}: refuses a transaction whose new account's signature does not verify`, async () => {
      const { mints, simulated } = service((p) => account(p, candyGuardAccount(p, guardSet())));
      const bytes = build(program);
      const tx = Transaction.from(bytes);
      const index = tx.signatures.findIndex((entry) => !entry.publicKey.equals(listed.publicKey) && !entry.publicKey.equals(gate.publicKey));
      bytes[1 + index * 64 + 3] = bytes[1 + index * 64 + 3]! ^ 0x40;
      expect(await answer(mints.cosign(program, body(bytes), new Map()))).toMatchObject({ status: 401, code: 'INVALID_SIGNATURE' });
      expect(simulated).toHaveLength(0);
    });

    it(`${program}: refuses when the guard does not name the gate, the key sits in another slot, or the account is not a guard`, async () => {
      const stranger = service((p) => account(p, candyGuardAccount(p, guardSet(Keypair.generate().publicKey))));
      expect(await answer(stranger.mints.cosign(program, body(build(program)), new Map()))).toMatchObject({ status: 500, code: 'MINT_MISCONFIGURED' });
      expect(stranger.sent).toHaveLength(0);

      const { mints, sent } = service((p) => account(p, candyGuardAccount(p, guardSet())));
      expect(await answer(mints.cosign(program, body(build(program, listed, false)), new Map()))).toMatchObject({ status: 400, code: 'INVALID_TRANSACTION', reason: 'signer_slot' });
      const unlisted = await answer(mints.cosign(program, body(build(program, Keypair.generate())), new Map()));
      expect(unlisted).toMatchObject({ status: 403, code: 'WALLET_NOT_LISTED' });
      expect(sent).toHaveLength(0);

      const foreign = service((p) => account(p, candyGuardAccount(p, guardSet()), PROGRAM_IDS.system));
      expect(await answer(foreign.mints.cosign(program, body(build(program)), new Map()))).toMatchObject({ status: 500, code: 'MINT_MISCONFIGURED' });
      const missing = service(() => null);
      expect(await answer(missing.mints.cosign(program, body(build(program)), new Map()))).toMatchObject({ status: 500, code: 'MINT_MISCONFIGURED' });
    });
  }
});

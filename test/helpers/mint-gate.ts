import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair, PublicKey } from '@solana/web3.js';
import { demoMint } from 'x404-localnet/fixture.js';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';
import { startGate, testSecret, type GateProcess } from './gate.js';
import { writeKeypairFile } from './mint.js';
import { localnetAdmin, rpcCall } from './token-transactions.js';

/**
 * A launch for the mint tests: the local chain (executing the real token programs), a co-signing
 * key of its own, token mints whose mint authority is that key, and gates whose POLICIES_FILE has
 * the mints. The rule `launch` keeps out holders of the demo `banned` mint.
 */
export interface MintLaunch {
  localnet: LocalnetHandle;
  gates: GateProcess[];
  gateUrl: string;
  signer: Keypair;
  /** Token mints by name (their addresses), created with the signer as mint authority. */
  mints: Record<string, PublicKey>;
  dir: string;
  policiesFile: string;
  writePolicies(mints: Record<string, Record<string, unknown>>): void;
  stop(): Promise<void>;
}

export const LAUNCH_RULES = {
  blacklist: { launch: { excluded_mints: [demoMint('banned')], max_holdings: {} } },
  rules: { launch: { all: [{ feature: 'blacklist', policy: 'launch' }] } },
};

export async function startMintLaunch(options: {
  /** Mint name → its token program; each gets a fresh mint (decimals 0, supply 0). */
  tokens: Record<string, 'token' | 'token2022'>;
  /** Mint configurations, given the mints' addresses. */
  mints(addresses: Record<string, PublicKey>): Record<string, Record<string, unknown>>;
  gates?: number;
  env?: Record<string, string>;
  /** Token name → the address of its mint authority, when not the signer's. */
  authorities?: Record<string, string>;
}): Promise<MintLaunch> {
  // Its call log lets a test see which reads a request made.
  const localnet = await startLocalnet({ port: 0, recordCalls: 10_000 });
  const dir = mkdtempSync(join(tmpdir(), 'x404-mint-'));
  const signer = Keypair.generate();
  writeKeypairFile(join(dir, 'signer.json'), signer);
  const addresses: Record<string, PublicKey> = {};
  for (const [name, program] of Object.entries(options.tokens)) {
    const { address } = await localnetAdmin(localnet.url, 'mint', { decimals: 0, program, mintAuthority: options.authorities?.[name] ?? signer.publicKey.toBase58(), supply: '0' });
    addresses[name] = new PublicKey(address as string);
  }
  const policiesFile = join(dir, 'policies.json');
  const writePolicies = (mints: Record<string, Record<string, unknown>>): void => writeFileSync(policiesFile, JSON.stringify({ ...LAUNCH_RULES, mints }));
  writePolicies(options.mints(addresses));
  const secret = testSecret();
  const gates: GateProcess[] = [];
  try {
    for (let i = 0; i < (options.gates ?? 1); i++) {
      gates.push(await startGate({ rpcUrl: localnet.url, env: { JWT_SECRET: secret, POLICIES_FILE: policiesFile, ...options.env } }));
    }
    for (const gate of gates) await waitForCounts(gate.url, localnet.url, Object.keys(options.mints(addresses)));
  } catch (error) {
    await Promise.all(gates.map((gate) => gate.stop('SIGKILL')));
    await localnet.close();
    throw error;
  }
  return {
    localnet,
    gates,
    gateUrl: gates[0]!.url,
    signer,
    mints: addresses,
    dir,
    policiesFile,
    writePolicies,
    async stop() {
      await Promise.all(gates.map((gate) => gate.stop('SIGKILL')));
      await localnet.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Waits until the gate has each mint's counts: a gate without them (a new process with the memory
 * store, a lost Redis store) answers 503 MINT_RECOUNTING until every blockhash that could have been
 * in flight has expired and the counts are rebuilt from the chain (and 503 UPSTREAM_UNAVAILABLE
 * while the mint's on-chain authority is not read yet). The chain's blocks are advanced
 * past any such blockhash (150 + 1, and 32 for a lagging node) while it waits, rather than waiting a minute of blocks.
 */
export async function waitForCounts(gateUrl: string, localnetUrl: string, names: readonly string[], timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const name of names) {
    for (;;) {
      const reply = await getMint(gateUrl, name);
      // Anything but a 503 is the mint's own answer (200, or 500 for a mint the test misconfigures on purpose).
      if (reply.status !== 503) break;
      if (Date.now() > deadline) throw new Error(`timed out waiting for mint ${name}'s counts to be rebuilt`);
      await advanceBlocks(localnetUrl, 183);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** Produces `count` blocks on the local chain now. */
export async function advanceBlocks(localnetUrl: string, count: number): Promise<{ blockHeight: number }> {
  const res = await fetch(`${localnetUrl}/__localnet/blocks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advance: count }) });
  if (!res.ok) throw new Error(`POST /__localnet/blocks answered ${res.status}`);
  return (await res.json()) as { blockHeight: number };
}

export async function latestBlockhash(localnetUrl: string): Promise<{ blockhash: string; lastValidBlockHeight: number }> {
  return (await rpcCall(localnetUrl, 'getLatestBlockhash', [{ commitment: 'confirmed' }])).result.value;
}

/** A wallet with SOL for its fees and its ATA's rent. */
export async function fundedWallet(localnetUrl: string, wallet = Keypair.generate()): Promise<Keypair> {
  await localnetAdmin(localnetUrl, 'lamports', { address: wallet.publicKey.toBase58(), lamports: '1000000000' });
  return wallet;
}

export interface MintReply {
  status: number;
  body: Record<string, any>;
  headers: Headers;
}

export async function postMint(gateUrl: string, name: string, transaction: Uint8Array | string, headers: Record<string, string> = {}): Promise<MintReply> {
  const body = typeof transaction === 'string' ? transaction : JSON.stringify({ transaction: Buffer.from(transaction).toString('base64') });
  const res = await fetch(`${gateUrl}/x404_mint/${name}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.text();
  let parsed: Record<string, any>;
  try {
    parsed = JSON.parse(text) as Record<string, any>;
  } catch {
    parsed = { raw: text };
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

export async function getMint(gateUrl: string, name: string): Promise<MintReply> {
  const res = await fetch(`${gateUrl}/x404_mint/${name}`);
  return { status: res.status, body: (await res.json()) as Record<string, any>, headers: res.headers };
}

/** The mint's supply on-chain (u64 at 36 of the mint account). */
export async function onChainSupply(localnetUrl: string, mint: PublicKey): Promise<bigint> {
  const reply = await rpcCall(localnetUrl, 'getAccountInfo', [mint.toBase58(), { encoding: 'base64', commitment: 'confirmed' }]);
  return Buffer.from(reply.result.value.data[0] as string, 'base64').readBigUInt64LE(36);
}

/** Waits until every signature is confirmed (or fails after `timeoutMs`); resolves their errors. */
export async function waitConfirmed(localnetUrl: string, signatures: string[], timeoutMs = 20_000): Promise<unknown[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const statuses: (null | { err: unknown; confirmationStatus: string })[] = [];
    for (let i = 0; i < signatures.length; i += 256) {
      const reply = await rpcCall(localnetUrl, 'getSignatureStatuses', [signatures.slice(i, i + 256), { searchTransactionHistory: true }]);
      statuses.push(...(reply.result.value as typeof statuses));
    }
    if (statuses.every((status) => status !== null && (status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized'))) return statuses.map((status) => status!.err);
    if (Date.now() > deadline) throw new Error(`${statuses.filter((status) => status === null).length} of ${signatures.length} transactions not confirmed in time`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Co-signed mints under load (issue 27): POST /x404_mint at 64 connections with warm wallets —
 * co-signs/s, p50/p99, and the gate's CPU per co-sign against the floor of two ed25519 operations
 * (the wallet's signature verified, the gate's made), measured in this process just before.
 *
 *   npm run build && node dist/bench/mint.js [--seconds=10] [--wallets=1000] [--connections=64] [--out=bench/MINT.md]
 *
 * The scenario: the local chain in its own process (it simulates and executes every co-signed
 * transaction with the real SPL Token program; its CPU is reported apart), one gate with one
 * `spl-token` mint whose rule is a blacklist policy (the wallets' ATAs of its banned mint: one shared
 * getMultipleAccounts per batch once warm), `per_wallet` high enough that the same wallets mint
 * again and again. Every request is a different transaction (SetComputeUnitLimit(i)), signed by its
 * wallet in advance with a fresh blockhash. Warm: each wallet has co-signed twice before the timed
 * run (its key imported, its ATA derived, its rule reads cached where the gate caches them).
 * Not a test: the integrator does the run of record, alone on the machine.
 */
import { createPrivateKey, createPublicKey, randomBytes, sign, verify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import bs58 from 'bs58';
import type autocannon from 'autocannon';
import { decodeTransaction } from '../src/transaction/decode.js';
import { encodeMessage, encodeTransaction } from '../src/transaction/encode.js';
import { tokenMintTransaction, type MintConfiguration } from '../src/sdk/mint.js';
import { runLoad } from './load.js';
import { BENCH_JWT_SECRET, sampleProcess, startGateProcess, startLocalnetProcess } from './processes.js';

const args = new Map(process.argv.slice(2).map((arg) => arg.replace(/^--/, '').split('=') as [string, string]));
const SECONDS = Number(args.get('seconds') ?? 10);
const WALLETS = Number(args.get('wallets') ?? 1000);
const CONNECTIONS = Number(args.get('connections') ?? 64);
const OUT = args.get('out');
/** Write the gate's V8 CPU profiles here (summarised with bench/profile.ts). */
const PROFILE_DIR = args.get('profile');
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

interface Wallet {
  address: string;
  privateKey: ReturnType<typeof createPrivateKey>;
}

function newWallet(): Wallet {
  const seed = randomBytes(32);
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const address = bs58.encode(createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(12));
  return { address, privateKey };
}

function keypairFile(path: string, wallet: Wallet): void {
  const seed = wallet.privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(16);
  writeFileSync(path, JSON.stringify([...seed, ...bs58.decode(wallet.address)]), { mode: 0o600 });
}

/** µs per call of `run`, median of 5 rounds. */
function microsPer(count: number, run: (i: number) => void): number {
  const rounds: number[] = [];
  for (let round = 0; round < 5; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < count; i++) run(i);
    rounds.push(Number(process.hrtime.bigint() - start) / 1000 / count);
  }
  return rounds.sort((a, b) => a - b)[2]!;
}

/** The floor: one ed25519 verify (the wallet's) and one sign (the gate's) over a mint message. */
function measureFloor(message: Uint8Array): { verifyUs: number; signUs: number } {
  const key = newWallet();
  const publicKey = createPublicKey(key.privateKey);
  const signature = sign(null, message, key.privateKey);
  return { verifyUs: microsPer(2000, () => verify(null, message, publicKey, signature)), signUs: microsPer(2000, () => sign(null, message, key.privateKey)) };
}

/** Per wallet, `count` different signed transactions of the template (SetComputeUnitLimit differs), base64 bodies. */
async function signedBodies(configuration: MintConfiguration, wallets: Wallet[], blockhash: string, count: number, offset: number): Promise<string[]> {
  const bodies: string[] = [];
  for (const wallet of wallets) {
    const unsigned = decodeTransaction(await tokenMintTransaction({ configuration, wallet: wallet.address, blockhash, computeUnitLimit: 1 }));
    const budget = unsigned.message.instructions[0]!;
    for (let i = 0; i < count; i++) {
      new DataView(budget.data.buffer, budget.data.byteOffset).setUint32(1, 200_000 + offset + i, true);
      const message = encodeMessage(unsigned.message);
      const transaction = encodeTransaction([new Uint8Array(sign(null, message, wallet.privateKey)), new Uint8Array(64)], message);
      bodies.push(JSON.stringify({ transaction: Buffer.from(transaction).toString('base64') }));
    }
  }
  // Interleave wallets, as a launch's traffic is.
  return bodies.map((body, i) => ({ body, key: (i % count) * wallets.length + Math.floor(i / count) })).sort((a, b) => a.key - b.key).map((entry) => entry.body);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(os.tmpdir(), 'x404-bench-mint-'));
  const localnet = await startLocalnetProcess();
  let gate: Awaited<ReturnType<typeof startGateProcess>> | undefined;
  try {
    const signer = newWallet();
    keypairFile(join(dir, 'signer.json'), signer);
    const { address: mint } = (await localnet.admin('mint', { decimals: 0, program: 'token', mintAuthority: signer.address, supply: '0' })) as { address: string };
    const { address: banned } = (await localnet.admin('mint', { decimals: 0, program: 'token', supply: '0' })) as { address: string };
    writeFileSync(
      join(dir, 'policies.json'),
      JSON.stringify({
        blacklist: { launch: { excluded_mints: [banned], max_holdings: {} } },
        rules: { launch: { all: [{ feature: 'blacklist', policy: 'launch' }] } },
        mints: { bench: { rule: 'launch', signer: 'signer.json', program: 'spl-token', mint, amount: '1', per_wallet: 1_000_000 } },
      }),
    );
    const wallets = Array.from({ length: WALLETS }, newWallet);
    for (const wallet of wallets) await localnet.admin('lamports', { address: wallet.address, lamports: '100000000000' });
    gate = await startGateProcess({ rpcUrl: localnet.url, jwtSecret: BENCH_JWT_SECRET, env: { POLICIES_FILE: join(dir, 'policies.json') }, ...(PROFILE_DIR ? { cpuProfileDir: PROFILE_DIR } : {}) });
    // Without Redis the gate rebuilds the mint's counts from the chain first (503 MINT_RECOUNTING
    // until every blockhash that could be in flight expired): the new chain's blocks are produced now.
    let described = await fetch(`${gate.url}/x404_mint/bench`);
    for (let tries = 0; described.status === 503 && tries < 200; tries++) {
      await described.arrayBuffer();
      await localnet.admin('blocks', { advance: 151 });
      await new Promise((resolve) => setTimeout(resolve, 250));
      described = await fetch(`${gate.url}/x404_mint/bench`);
    }
    const configuration = (await described.json()) as MintConfiguration;
    const latest = async (): Promise<string> =>
      ((await (await fetch(localnet.url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getLatestBlockhash', params: [{ commitment: 'confirmed' }] }) })).json()) as { result: { value: { blockhash: string } } }).result.value.blockhash;
    const request = (bodies: string[]): autocannon.Request[] => {
      let next = 0;
      return [{ method: 'POST', path: '/x404_mint/bench', headers: { 'content-type': 'application/json' }, setupRequest: (req) => ({ ...req, body: bodies[next++ % bodies.length] }) }];
    };

    // Warm-up: every wallet co-signs twice (untimed).
    const warm = await signedBodies(configuration, wallets, await latest(), 2, 0);
    const warmed = await runLoad({ url: gate.url, connections: CONNECTIONS, durationSec: 120, amount: warm.length, requests: request(warm) });
    // The timed run: enough transactions for its length at a generous rate, with a blockhash valid for ~60 s.
    const perWallet = Math.ceil((SECONDS * 4000) / WALLETS);
    const bodies = await signedBodies(configuration, wallets, await latest(), perWallet, 10);
    const floor = measureFloor(decodeTransaction(Buffer.from((JSON.parse(bodies[0]!) as { transaction: string }).transaction, 'base64')).messageBytes);

    const gateBefore = sampleProcess(gate.pid);
    const localnetBefore = sampleProcess(localnet.pid);
    const load = await runLoad({ url: gate.url, connections: CONNECTIONS, durationSec: SECONDS, amount: bodies.length, requests: request(bodies) });
    const gateAfter = sampleProcess(gate.pid);
    const localnetAfter = sampleProcess(localnet.pid);
    const cosigns = load.statusCounts['200'] ?? 0;
    const cpuUs = ((gateAfter.cpuMs - gateBefore.cpuMs) * 1000) / Math.max(1, cosigns);
    const floorUs = floor.verifyUs + floor.signUs;
    const lines = [
      `# POST /x404_mint — ${new Date().toISOString()} (${os.cpus()[0]?.model ?? 'cpu'} × ${os.availableParallelism()}, Node ${process.version})`,
      '',
      `${WALLETS} warm wallets (warm-up: ${warmed.statusCounts['200'] ?? 0} co-signs), ${CONNECTIONS} connections, ${SECONDS} s, rule: one blacklist leaf.`,
      '',
      '| | measured |',
      '|---|---|',
      `| co-signs/s | ${(cosigns / load.durationSec).toFixed(0)} (${cosigns} co-signed; statuses ${JSON.stringify(load.statusCounts)}, ${load.errors} socket errors) |`,
      `| latency | p50 ${load.p50Ms.toFixed(1)} ms, p99 ${load.p99Ms.toFixed(1)} ms |`,
      `| gate CPU per co-sign | ${cpuUs.toFixed(1)} µs (main thread ${(((gateAfter.mainThreadCpuMs - gateBefore.mainThreadCpuMs) * 1000) / Math.max(1, cosigns)).toFixed(1)} µs) |`,
      `| the floor: ed25519 verify + sign | ${floor.verifyUs.toFixed(1)} + ${floor.signUs.toFixed(1)} = ${floorUs.toFixed(1)} µs → ${(cpuUs / floorUs).toFixed(2)} × the floor (the rule's reads, the blockhash check, simulation and send calls are the rest) |`,
      `| local chain CPU per co-sign (simulate + execute, its own process) | ${(((localnetAfter.cpuMs - localnetBefore.cpuMs) * 1000) / Math.max(1, cosigns)).toFixed(0)} µs |`,
    ];
    console.log(lines.join('\n'));
    if (OUT) writeFileSync(OUT, `${lines.join('\n')}\n`);
  } finally {
    await gate?.stop();
    await localnet.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

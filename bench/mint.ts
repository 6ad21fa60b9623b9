/**
 * Co-signed mints under load (issues 27, 32): POST /x404_mint, the gate's CPU per co-sign against
 * the floor of two ed25519 operations (the wallet's signature verified, the gate's made), measured
 * in this process in the same round.
 *
 *   npm run build && node dist/bench/mint.js [--seconds=10] [--wallets=1000] [--connections=32] [--rounds=3] [--out=bench/MINT.md]
 *
 * The scenario: the local chain in its own process (it simulates and executes every co-signed
 * transaction with the real SPL Token program; its CPU is reported apart), one gate with one
 * `spl-token` mint whose rule is a blacklist policy under the default HOLDINGS_SCOPE (every token
 * account the wallet owns), `per_wallet` high enough that the warm wallets mint again and again.
 * Every request is a different transaction (SetComputeUnitLimit(i)), signed by its wallet in
 * advance with a fresh blockhash. Each round has two timed phases on the same gate:
 *  - once: `--wallets` wallets the gate has never seen, each minting once (a launch: no key
 *    imported, no ATA derived, none of their reads cached), all their requests sent at
 *    `--connections`;
 *  - warm: `--wallets` other wallets, each of which co-signed twice before (untimed), minting again
 *    for `--seconds`.
 * The gate is warmed up (JIT) by the warm wallets' first co-signs before the first round.
 * `--env=KEY=VALUE;…` sets the gate's environment, `--gate-dist=<dir>` runs another build of it. `--out` appends the report to the file (earlier runs are kept). Not a test: the integrator does
 * the run of record, alone on the machine.
 */
import { createPublicKey, sign, verify } from 'node:crypto';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { decodeTransaction } from '../src/transaction/decode.js';
import { encodeMessage, encodeTransaction } from '../src/transaction/encode.js';
import { tokenMintTransaction, type MintConfiguration } from '../src/sdk/mint.js';
import { cpuMicrosPer } from './ceilings.js';
import { runLoad } from './load.js';
import { BENCH_JWT_SECRET, sampleProcess, startGateProcess, startLocalnetProcess } from './processes.js';
import { keypairFileText, randomWallet, type BenchWallet } from './wallets.js';

const args = new Map(
  process.argv.slice(2).map((arg) => {
    const text = arg.replace(/^--/, '');
    const at = text.indexOf('=');
    return (at < 0 ? [text, 'true'] : [text.slice(0, at), text.slice(at + 1)]) as [string, string];
  }),
);
const SECONDS = Number(args.get('seconds') ?? 10);
const WALLETS = Number(args.get('wallets') ?? 1000);
const CONNECTIONS = Number(args.get('connections') ?? 32);
const ROUNDS = Number(args.get('rounds') ?? 3);
const OUT = args.get('out');
/** Write the gate's V8 CPU profiles here (summarised with bench/profile.ts). */
const PROFILE_DIR = args.get('profile');
/** Extra settings for the gate, KEY=VALUE;KEY=VALUE (e.g. WORKER_THREADS=0). */
/** Run the gate from another build (a copy of dist/ with a change to try, as bench/compare.ts). */
const GATE_DIST = args.get('gate-dist');
const GATE_ENV = Object.fromEntries((args.get('env') ?? '').split(';').filter(Boolean).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
function keypairFile(path: string, wallet: BenchWallet): void {
  writeFileSync(path, keypairFileText(wallet), { mode: 0o600 });
}

/** The floor: one ed25519 verify (the wallet's) and one sign (the gate's) over a mint message, in CPU time. */
function measureFloor(message: Uint8Array): { verifyUs: number; signUs: number } {
  const key = randomWallet();
  const publicKey = createPublicKey(key.privateKey);
  const signature = sign(null, message, key.privateKey);
  return { verifyUs: cpuMicrosPer(2000, () => verify(null, message, publicKey, signature)), signUs: cpuMicrosPer(2000, () => sign(null, message, key.privateKey)) };
}

/** Per wallet, `count` different signed transactions of the template (SetComputeUnitLimit differs), base64 bodies. */
async function signedBodies(configuration: MintConfiguration, wallets: BenchWallet[], blockhash: string, count: number, offset: number): Promise<string[]> {
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
    const signer = randomWallet();
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
    const wallets = Array.from({ length: WALLETS }, randomWallet);
    for (const wallet of wallets) await localnet.admin('lamports', { address: wallet.address, lamports: '100000000000' });
    gate = await startGateProcess({ rpcUrl: localnet.url, jwtSecret: BENCH_JWT_SECRET, env: { ...GATE_ENV, POLICIES_FILE: join(dir, 'policies.json') }, ...(PROFILE_DIR ? { cpuProfileDir: PROFILE_DIR } : {}), ...(GATE_DIST ? { distRoot: GATE_DIST } : {}) });
    // Without Redis the gate rebuilds the mint's counts from the chain first (503 MINT_RECOUNTING
    // until every blockhash that could be in flight expired): the new chain's blocks are produced now.
    let described = await fetch(`${gate.url}/x404_mint/bench`);
    for (let tries = 0; described.status === 503 && tries < 200; tries++) {
      await described.arrayBuffer();
      await localnet.admin('blocks', { advance: 183 });
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

    // Warm-up: every warm wallet co-signs twice (untimed).
    const warm = await signedBodies(configuration, wallets, await latest(), 2, 0);
    const warmed = await runLoad({ url: gate.url, connections: CONNECTIONS, durationSec: 120, amount: warm.length, requests: request(warm) });
    // The tracker confirms each co-sign after it is sent (src/mint/tracker.ts, every 2 s): a phase
    // starts once every earlier reservation is settled, so it is not charged for another's.
    const settled = async (): Promise<void> => {
      for (let i = 0; i < 600; i++) {
        const counts = (await (await fetch(`${gate!.url}/x404_mint/bench`)).json()) as { reserved: number };
        if (counts.reserved === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('reservations still pending after 60 s');
    };
    const rows: string[] = [];
    const summary = { once: [] as number[], warm: [] as number[] };
    for (let round = 1; round <= ROUNDS; round++) {
      // Once: never-seen wallets, one co-sign each, every request sent (funded before the timer).
      const fresh = Array.from({ length: WALLETS }, randomWallet);
      for (const wallet of fresh) await localnet.admin('lamports', { address: wallet.address, lamports: '100000000000' });
      const onceBodies = await signedBodies(configuration, fresh, await latest(), 1, 0);
      // Warm: enough transactions for its length at a generous rate, with a blockhash valid for ~60 s.
      const perWallet = Math.ceil((SECONDS * 4000) / WALLETS);
      const warmBodies = await signedBodies(configuration, wallets, await latest(), perWallet, 10 + round * perWallet);
      const floor = measureFloor(decodeTransaction(Buffer.from((JSON.parse(onceBodies[0]!) as { transaction: string }).transaction, 'base64')).messageBytes);
      const floorUs = floor.verifyUs + floor.signUs;
      for (const [phase, bodies, spec] of [
        ['once', onceBodies, { durationSec: 120, amount: onceBodies.length }],
        ['warm', warmBodies, { durationSec: SECONDS, amount: warmBodies.length }],
      ] as const) {
        await settled();
        console.error(`[mint] round ${round}, ${phase}: gate pid ${gate.pid}`);
        const gateBefore = sampleProcess(gate.pid);
        const localnetBefore = sampleProcess(localnet.pid);
        const rpcBefore = await localnet.stats();
        const load = await runLoad({ url: gate.url, connections: CONNECTIONS, ...spec, requests: request(bodies) });
        const gateAfter = sampleProcess(gate.pid);
        const localnetAfter = sampleProcess(localnet.pid);
        const rpcAfter = await localnet.stats();
        await settled();
        const gateSettled = sampleProcess(gate.pid);
        const cosigns = load.statusCounts['200'] ?? 0;
        const per = (ms: number): number => (ms * 1000) / Math.max(1, cosigns);
        const cpuUs = per(gateAfter.cpuMs - gateBefore.cpuMs);
        // What the chain answered over the timed requests (the tracker's confirmations included): how many co-signs share an HTTP request.
        const callsOf = (stats: typeof rpcBefore): number => Object.values(stats.calls).reduce((sum, n) => sum + n, 0);
        const rpcPer = `${((rpcAfter.httpRequests - rpcBefore.httpRequests) / Math.max(1, cosigns)).toFixed(3)} / ${((callsOf(rpcAfter) - callsOf(rpcBefore)) / Math.max(1, cosigns)).toFixed(2)}`;
        summary[phase].push(cpuUs / floorUs);
        rows.push(
          `| ${round} | ${phase} | ${(cosigns / load.durationSec).toFixed(0)} (${cosigns}; ${JSON.stringify(load.statusCounts)}${load.errors ? `, ${load.errors} socket errors` : ''}) | ${load.p50Ms.toFixed(1)} / ${load.p99Ms.toFixed(1)} | ${cpuUs.toFixed(1)} (${per(gateAfter.mainThreadCpuMs - gateBefore.mainThreadCpuMs).toFixed(1)}) | ${floor.verifyUs.toFixed(1)} + ${floor.signUs.toFixed(1)} = ${floorUs.toFixed(1)} | **${(cpuUs / floorUs).toFixed(2)} ×** | ${per(gateSettled.cpuMs - gateBefore.cpuMs).toFixed(1)} | ${per(localnetAfter.cpuMs - localnetBefore.cpuMs).toFixed(0)} | ${rpcPer} |`,
        );
      }
    }
    const range = (values: number[]): string => `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)} ×`;
    const lines = [
      `## ${new Date().toISOString()} (${os.cpus()[0]?.model ?? 'cpu'} × ${os.availableParallelism()}, Node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' / ')})`,
      '',
      `\`node dist/bench/mint.js --wallets=${WALLETS} --connections=${CONNECTIONS} --seconds=${SECONDS} --rounds=${ROUNDS}${args.has('env') ? ` --env=${args.get('env')}` : ''}${GATE_DIST ? ` --gate-dist=${GATE_DIST}` : ''}\`: rule one blacklist leaf, default HOLDINGS_SCOPE; warm-up ${warmed.statusCounts['200'] ?? 0} co-signs. Once: ${WALLETS} never-seen wallets each minting once; warm: ${WALLETS} wallets minting again for ${SECONDS} s. Floor = one ed25519 verify + one sign (CPU time), measured in the same round. Each phase starts once the tracker has settled every earlier reservation; its CPU is read from /proc over the timed requests.`,
      '',
      '| round | phase | co-signs/s (200s; statuses) | p50 / p99 ms | gate CPU µs per co-sign (main thread) | floor µs: verify + sign | gate ÷ floor | gate CPU µs per co-sign until every reservation is settled (the tracker\'s confirmations and idle time included) | local chain CPU µs per co-sign | RPC HTTP requests / calls per co-sign (the tracker\'s included) |',
      '|---|---|---|---|---|---|---|---|---|---|',
      ...rows,
      '',
      `Once: ${range(summary.once)}; warm: ${range(summary.warm)}.`,
    ];
    console.log(lines.join('\n'));
    if (OUT) appendFileSync(OUT, `\n${lines.join('\n')}\n`);
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

/**
 * Where the gate's time goes: runs the gate under `node --cpu-prof` (every thread writes a
 * .cpuprofile on exit), drives one scenario, and prints the top self-time functions per thread.
 *
 *   npm run build && node dist/bench/profile.js [login|first|nonce|reauth|mixed] [WORKER_THREADS]
 *   node dist/bench/profile.js --summarize <file.cpuprofile>…
 *
 * Profiling slows the gate down; use it to find hot spots, not for the figures.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setUpChain } from './chain-fixture.js';
import { startGateProcess, startLocalnetProcess } from './processes.js';
import { type BenchContext, runScenario, scenarioName, warmUp } from './scenarios.js';
import { benchWallets } from './wallets.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  ms: number;
  share: number;
}

/** Self time per function (name + file:line), largest first; idle time left out of the shares. */
export function selfTimes(profile: CpuProfile): { busyMs: number; top: SelfTime[] } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)!.callFrame;
    const file = frame.url ? `${shortUrl(frame.url)}:${frame.lineNumber + 1}` : '';
    const name = `${frame.functionName || '(anonymous)'}${file ? ` ${file}` : ''}`;
    totals.set(name, (totals.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  totals.delete('(idle)');
  const busyMs = [...totals.values()].reduce((a, b) => a + b, 0);
  const top = [...totals.entries()]
    .map(([name, ms]) => ({ name, ms, share: ms / busyMs }))
    .sort((a, b) => b.ms - a.ms);
  return { busyMs, top };
}

function shortUrl(url: string): string {
  const marker = url.lastIndexOf('node_modules/');
  if (marker >= 0) return url.slice(marker + 'node_modules/'.length);
  const dist = url.lastIndexOf('/dist/');
  if (dist >= 0) return url.slice(dist + 1);
  return url.replace(/^file:\/\//, '');
}

/** `perRequest`: responses served while profiling, to show µs per request as well. */
export function summarize(files: string[], limit = 25, perRequest?: number): string {
  const out: string[] = [];
  for (const file of files) {
    const { busyMs, top } = selfTimes(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
    if (busyMs < 50) continue; // an idle worker
    out.push(`\n${path.basename(file)}: ${busyMs.toFixed(0)} ms busy`);
    for (const entry of top.slice(0, limit)) {
      const micros = perRequest ? `${((entry.ms * 1000) / perRequest).toFixed(2).padStart(7)} µs/req  ` : '';
      out.push(`  ${(entry.share * 100).toFixed(1).padStart(5)} %  ${entry.ms.toFixed(0).padStart(6)} ms  ${micros}${entry.name}`);
    }
  }
  return out.join('\n');
}

async function profileScenario(scenario: string, workerThreads: number | undefined): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'x404-profile-'));
  const wallets = benchWallets(1000);
  const localnet = await startLocalnetProcess();
  let responses = 0;
  try {
    const policy = await setUpChain(localnet, wallets);
    const jwtSecret = 'x404-bench-profile-secret-0123456789abcdef';
    const gate = await startGateProcess({ rpcUrl: localnet.url, jwtSecret, workerThreads, cpuProfileDir: dir });
    try {
      // Nonces come from the profiled gate itself: another process's would be of another epoch of
      // the memory store (src/nonce/epoch.ts). Issuing one costs a few µs, beside ~100 µs a login.
      const ctx: BenchContext = { gate, localnet, wallets, policy, tokens: [] };
      if (scenario !== 'nonce') await warmUp(ctx);
      const shape = { connections: 64, durationSec: 8, workerThreads: String(workerThreads ?? 'default') };
      const result = await runScenario(ctx, scenarioName(scenario), shape, 40_000);
      console.log(`${result.name}: ${result.load.rps.toFixed(0)} req/s under the profiler, gate ${result.gateCpuUsPerRequest.toFixed(0)} µs CPU/req`);
      responses = result.load.responses;
    } finally {
      await gate.stop();
    }
  } finally {
    await localnet.stop();
  }
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => path.join(dir, name));
  console.log(`profiles in ${dir}`);
  console.log(`(µs/req: over the ${responses} timed responses; warm-up included in the totals)`);
  console.log(summarize(files, 30, responses));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  if (argv[0] === '--summarize') console.log(summarize(argv.slice(1)));
  else await profileScenario(argv[0] ?? 'login', argv[1] === undefined ? undefined : Number(argv[1]));
}

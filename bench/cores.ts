/**
 * Does the gate use a second core? Warm signed logins with the gate pinned to one core (`taskset
 * -c 1`) and with both cores, in alternation (1, 2, 2, 1), each on a fresh gate with its default
 * WORKER_THREADS (cores − 1, at least 1: it reads the cores it may run on). The load generator and
 * the local chain are pinned to core 0, so with one core the gate has core 1 to itself, and with two
 * it shares core 0 with them: the second core is only partly the gate's.
 *
 *   npm run build && node dist/bench/cores.js [--seconds=10] [--out=bench/CORES.md]
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { setUpChain } from './chain-fixture.js';
import { BENCH_JWT_SECRET, startGateProcess, startLocalnetProcess } from './processes.js';
import { type BenchContext, loginBudget, loginScenario, prepareLogins, type ScenarioResult, warmUp } from './scenarios.js';
import { benchWallets } from './wallets.js';

const CONNECTIONS = 64;

const pin = (pid: number, cpus: string): void => void execFileSync('taskset', ['-a', '-cp', cpus, String(pid)], { stdio: 'ignore' });

async function main(): Promise<void> {
  if (os.availableParallelism() < 2) throw new Error('needs at least 2 cores');
  const seconds = Number(process.argv.find((a) => a.startsWith('--seconds='))?.slice(10) ?? 10);
  const out = process.argv.find((a) => a.startsWith('--out='))?.slice(6) ?? fileURLToPath(new URL('../../bench/CORES.md', import.meta.url));
  pin(process.pid, '0');
  const wallets = benchWallets(1000);
  const localnet = await startLocalnetProcess();
  pin(localnet.pid, '0');
  const runs: { cpus: string; result: ScenarioResult }[] = [];
  try {
    const policy = await setUpChain(localnet, wallets);
    let expected = 4000;
    for (const cpus of ['1', '0,1', '0,1', '1']) {
      const gate = await startGateProcess({ rpcUrl: localnet.url, jwtSecret: BENCH_JWT_SECRET, cpus });
      try {
        const ctx: BenchContext = { gate, localnet, wallets, policy, tokens: [] };
        await warmUp(ctx);
        const prepared = await prepareLogins(ctx, loginBudget(expected * 1.5, seconds, CONNECTIONS));
        const result = await loginScenario(ctx, { connections: CONNECTIONS, durationSec: seconds, workerThreads: 'default' }, prepared, `gate on CPUs ${cpus}`);
        expected = Math.max(expected, result.load.rps);
        runs.push({ cpus, result });
        process.stderr.write(`[cores] CPUs ${cpus}: ${result.load.rps.toFixed(0)} logins/s, p99 ${result.load.p99Ms.toFixed(1)} ms, ${result.gateCpuUsPerRequest.toFixed(0)} µs CPU/login\n`);
      } finally {
        await gate.stop();
      }
    }
  } finally {
    await localnet.stop();
  }
  const mean = (cpus: string, pick: (r: ScenarioResult) => number): number => {
    const values = runs.filter((run) => run.cpus === cpus).map((run) => pick(run.result));
    return values.reduce((a, b) => a + b, 0) / values.length;
  };
  const one = mean('1', (r) => r.load.rps);
  const two = mean('0,1', (r) => r.load.rps);
  const lines = [
    '# The gate on one core and on two',
    '',
    `${new Date().toISOString()}, ${os.cpus()[0]?.model.trim()}, ${os.availableParallelism()} cores, Node ${process.version}. \`node dist/bench/cores.js\` (bench/cores.ts): warm signed logins (blacklist, 1,000 wallets, ${CONNECTIONS} connections, ${seconds} s a run), a fresh gate a run with its default WORKER_THREADS, load generator and local chain pinned to core 0.`,
    '',
    '| gate CPUs | logins/s | p50 ms | p99 ms | non-2xx | gate CPU µs/login |',
    '| --- | --- | --- | --- | --- | --- |',
    ...runs.map(({ cpus, result }) => `| ${cpus} | ${result.load.rps.toFixed(0)} | ${result.load.p50Ms.toFixed(2)} | ${result.load.p99Ms.toFixed(2)} | ${result.load.non2xx} | ${result.gateCpuUsPerRequest.toFixed(1)} |`),
    '',
    `Two cores (one shared with the load generator and the chain) against one: ${((two / one) * 100).toFixed(0)} % of the logins/s (mean of two runs each).`,
    '',
  ];
  writeFileSync(out, lines.join('\n'));
  process.stderr.write(`[cores] wrote ${out}\n`);
}

await main();

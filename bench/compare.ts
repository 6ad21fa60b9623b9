/**
 * A/B of two builds of the gate on one scenario, rounds interleaved (A, B, A, B, …) so that the
 * machine's background load hits both alike. Used to measure a proposed change before making it:
 * copy dist/ (with a node_modules symlink next to it), edit the copy, compare.
 *
 *   node dist/bench/compare.js --a=dist --b=/tmp/variant/dist --scenario=login --rounds=3 --sec=5 [--workers=1]
 *   (scenarios: nonce, login, first (first sign-in of each wallet), reauth, mixed)
 *   node dist/bench/compare.js --builds=dist,/tmp/v1/dist,/tmp/v2/dist --scenario=nonce
 *   node dist/bench/compare.js --builds=dist,dist --env1=RPC_BATCH_WINDOW_MS=0 --scenario=login   (settings: --envN for build N, 0-based, KEY=VALUE;KEY=VALUE)
 *   node dist/bench/compare.js --builds=dist,dist --env1=HOLDINGS_SCOPE=ata --scenario=login   (every token account, the default, against the ATAs)
 *   node dist/bench/compare.js --scenario=login,first --rounds=5     (several scenarios: each round runs them in turn on one gate)
 *   node dist/bench/compare.js --steady=0 …   (no steady-state warm-up: each gate is timed after one login per wallet)
 *
 *   node dist/bench/compare.js --scenario=login,first --floor …   (each round also measures the floor: one ed25519 verify
 *   on one core + one bare uWS request at the same connections; prints warm ÷ floor and first ÷ warm per round and their medians)
 *
 * Prints, per build and scenario, the median over rounds of req/s, p99 and gate CPU µs per request.
 */
import path from 'node:path';
import { verifyCpuMicros } from './ceilings.js';
import { setUpChain } from './chain-fixture.js';
import { runLoad } from './load.js';
import { sampleProcess, startBareUwsProcess, startGateProcess, startLocalnetProcess } from './processes.js';
import { type BenchContext, loginBudget, runScenario, STEADY_STATE_LOGINS, scenarioName, type ScenarioResult, warmUp } from './scenarios.js';
import { AUTH_PATH, benchWallets, FEATURE } from './wallets.js';

const options = Object.fromEntries(
  process.argv
    .slice(2)
    .filter((arg) => arg.startsWith('--'))
    .map((arg) => {
      const separator = arg.indexOf('=');
      return separator < 0 ? [arg.slice(2), 'true'] : [arg.slice(2, separator), arg.slice(separator + 1)];
    }),
);
const builds = (options.builds ? options.builds.split(',') : [options.a ?? 'dist', options.b ?? 'dist']).map((dir) => path.resolve(dir));
const label = (index: number): string => String.fromCharCode(65 + index);
const scenarios = (options.scenario ?? 'login').split(',');
const rounds = Number(options.rounds ?? 3);
const durationSec = Number(options.sec ?? 5);
const connections = Number(options.connections ?? 64);
const workerThreads = options.workers === undefined ? undefined : Number(options.workers);
/** --steady=N: untimed warm logins before the timed runs (scenarios.ts STEADY_STATE_LOGINS; 0: none). */
const steadyLogins = Number(options.steady ?? STEADY_STATE_LOGINS);
const jwtSecret = 'x404-bench-compare-secret-0123456789abcdef';

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const wallets = benchWallets(1000);
const localnet = await startLocalnetProcess();
const results: ScenarioResult[][][] = builds.map(() => scenarios.map(() => []));
/** Per round with --floor: one verify (µs, one core) + one bare uWS request (µs of CPU). */
const floors: { verifyUs: number; bareUs: number }[] = [];
try {
  const policy = await setUpChain(localnet, wallets);
  for (let round = 0; round < rounds; round++) {
    if (options.floor) {
      const verifyUs = verifyCpuMicros(wallets);
      const bare = await startBareUwsProcess();
      try {
        const before = sampleProcess(bare.pid).cpuMs;
        const load = await runLoad({ url: bare.url + AUTH_PATH, connections, durationSec: 3 });
        floors.push({ verifyUs, bareUs: ((sampleProcess(bare.pid).cpuMs - before) * 1000) / load.responses });
      } finally {
        await bare.stop();
      }
      console.log(`round ${round + 1} floor: verify ${verifyUs.toFixed(1)} + bare request ${floors.at(-1)!.bareUs.toFixed(1)} µs`);
    }
    for (const [index, distRoot] of builds.entries()) {
      const env = Object.fromEntries((options[`env${index}`] ?? '').split(';').filter(Boolean).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)] as [string, string]));
      const gate = await startGateProcess({ rpcUrl: localnet.url, jwtSecret, workerThreads, distRoot, env });
      try {
        const ctx: BenchContext = { gate, localnet, wallets, policy, tokens: [] };
        if (scenarios.some((scenario) => scenario !== 'nonce')) await warmUp(ctx, FEATURE, steadyLogins);
        ctx.tokens = ctx.tokens.slice(0, 256);
        const shape = { connections, durationSec, workerThreads: String(workerThreads ?? 'default') };
        for (const [which, scenario] of scenarios.entries()) {
          const logins = loginBudget(scenario === 'first' ? 5000 : 6000, durationSec, connections);
          const result = await runScenario(ctx, scenarioName(scenario), shape, logins);
          results[index]![which]!.push(result);
          console.log(
            `round ${round + 1} ${label(index)} ${scenario}: ${result.load.rps.toFixed(0)} req/s, p99 ${result.load.p99Ms.toFixed(2)} ms, gate ${result.gateCpuUsPerRequest.toFixed(1)} µs CPU/req (main ${result.gateMainThreadCpuUsPerRequest.toFixed(1)}), non-2xx ${result.load.non2xx}${result.rpcHttpPerAuth === undefined ? '' : `, RPC ${result.rpcHttpPerAuth.toFixed(3)} HTTP/auth, ${(result.rpcCallsPerAuth ?? 0).toFixed(2)} calls/auth, ${Math.round(result.rpcRequestBytesPerAuth ?? 0)} B sent / ${Math.round(result.rpcResponseBytesPerAuth ?? 0)} B received per auth`}, idle ${(result.machine.idle * 100).toFixed(0)}%`,
          );
        }
      } finally {
        await gate.stop();
      }
    }
  }
} finally {
  await localnet.stop();
}
for (const [index, distRoot] of builds.entries()) {
  for (const [which, scenario] of scenarios.entries()) {
    const runs = results[index]![which]!;
    console.log(
      `${label(index)} ${distRoot} ${scenario}: median ${median(runs.map((r) => r.load.rps)).toFixed(0)} req/s, p99 ${median(runs.map((r) => r.load.p99Ms)).toFixed(2)} ms, gate ${median(runs.map((r) => r.gateCpuUsPerRequest)).toFixed(1)} µs CPU/req (main thread ${median(runs.map((r) => r.gateMainThreadCpuUsPerRequest)).toFixed(1)})`,
    );
  }
}
if (options.floor) {
  const floorUs = floors.map((floor) => floor.verifyUs + floor.bareUs);
  for (const [index, distRoot] of builds.entries()) {
    const cpu = (scenario: string): number[] => results[index]![scenarios.indexOf(scenario)]?.map((r) => r.gateCpuUsPerRequest) ?? [];
    const warm = cpu('login');
    const first = cpu('first');
    const line = [`${label(index)} ${distRoot}: floor median ${median(floorUs).toFixed(1)} µs`];
    if (warm.length > 0) line.push(`warm ÷ floor per round ${warm.map((us, i) => (us / floorUs[i]!).toFixed(2)).join(', ')} (median ${(median(warm) / median(floorUs)).toFixed(2)} ×)`);
    if (warm.length > 0 && first.length > 0) line.push(`first ÷ warm per round ${first.map((us, i) => (us / warm[i]!).toFixed(2)).join(', ')} (median ${(median(first) / median(warm)).toFixed(2)} ×)`);
    console.log(line.join('; '));
  }
}

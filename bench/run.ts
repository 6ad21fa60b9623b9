/**
 * `npm run bench`: the gate under autocannon on this machine, against this machine's ceilings.
 *
 *   npm run bench                      full run (10 s scenarios, 5 s sweep cells), writes bench/RESULTS.md
 *   npm run bench -- --quick           3 s scenarios, 2 s sweep cells (a smoke run; RESULTS.md is still written)
 *   npm run bench -- --memory          also the memory runs: 1,000,000 nonces, 1,000,000 signed logins
 *   npm run bench -- --no-rule         skip the rule scenario (bench/rule.ts: the example rule beside blacklist alone)
 *   npm run bench -- --no-sweep        only the main scenarios and ceilings
 *   npm run bench -- --out=path.md     write the report elsewhere
 *   npm run bench -- --gate-dist=/tmp/x/dist   measure another build of the gate (a copy of dist/ with a change to try)
 *   npm run bench -- --no-launch       without the launch scenario (bench/launch.ts)
 *   npm run bench -- --no-launch-profiles   the launch without its provider-profile runs (batches off, 150 calls/s)
 *   npm run bench -- --no-scope        without the holdings-scope runs: warm logins and a launch with HOLDINGS_SCOPE=ata
 *                                      beside the default (every token account), and bench/holdings-reads.ts
 *   npm run bench -- --no-budget       without the provider budget per feature (bench/provider-budget.ts; alone: node dist/bench/provider-budget.js)
 *   npm run bench -- --render-only     rewrite RESULTS.md from RESULTS.json (after changing the report's layout)
 *   npm run bench -- --soak            only the soak (bench/soak.ts): 10 minutes of mixed traffic at 70 % of the
 *                                      capacity it measures first; adds its own section to RESULTS.md/.json,
 *                                      leaving the rest as it was (a later full run keeps the soak section)
 *   npm run bench -- --soak --soak-seconds=60 --probe-seconds=10   a shorter soak (smoke run)
 *
 * The local chain, the gate and the bare uWS reference each run as their own process, so their CPU
 * time and RSS come from /proc; autocannon runs in this process.
 */
import os from 'node:os';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defaultWorkerThreads, loadConfig } from '../src/config.js';
import { existsSync } from 'node:fs';
import { measureVerifyCeiling } from './ceilings.js';
import { holdingsReadCosts, type HoldingsReadCost } from './holdings-reads.js';
import { describeLaunch, launchScenario, type LaunchResult } from './launch.js';
import { setUpChain } from './chain-fixture.js';
import { runLoad } from './load.js';
import { loginMemoryRun, type LoginMemoryResult } from './login-memory.js';
import { memoryRun, type MemoryResult } from './memory.js';
import { ruleBench, type RuleBenchResult } from './rule.js';
import { providerBudget, type BudgetResult } from './provider-budget.js';
import { BENCH_JWT_SECRET, sampleProcess, startBareUwsProcess, startGateProcess, startLocalnetProcess, type Child, type LocalnetChild } from './processes.js';
import { type BareResult, renderReport, renderSoak, type BenchReport, type MachineInfo } from './report.js';
import { SOAK_NONCE_TTL_SECONDS, soak } from './soak.js';
import {
  type BenchContext,
  FORWARD_AUTH_PATH,
  forwardAuthRequests,
  forwardAuthScenario,
  loginBudget,
  pairedFirstSignIns,
  type PairedFirstSignIns,
  loginScenario,
  mixedScenario,
  nonceScenario,
  prepareFirstLogins,
  prepareLogins,
  STEADY_STATE_LOGINS,
  reauthRequests,
  reauthScenario,
  type ScenarioResult,
  warmUp,
} from './scenarios.js';
import { AUTH_PATH, BENCH_SIWS_DOMAIN, benchWallets, FEATURE, SIGN_MODES, type BenchSignMode } from './wallets.js';

const args = new Set(process.argv.slice(2));
const quick = args.has('--quick');
const outArg = process.argv.slice(2).find((arg) => arg.startsWith('--out='));
/** --gate-dist=<dir>: run the gate from another build (a copy of dist/ with a change to try). */
const gateDist = process.argv.slice(2).find((arg) => arg.startsWith('--gate-dist='))?.slice('--gate-dist='.length);
const numberArg = (name: string, fallback: number): number => {
  const raw = process.argv.slice(2).find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  const value = raw === undefined ? fallback : Number(raw);
  if (!(value > 0)) throw new Error(`--${name} must be a positive number of seconds`);
  return value;
};
const MAIN_SEC = quick ? 3 : 10;
const SWEEP_SEC = quick ? 2 : 5;
const MAIN_CONNECTIONS = 64;
/** Untimed warm logins before each gate's timed warm-login runs (a smoke run warms less). */
const STEADY_LOGINS = quick ? 25_000 : STEADY_STATE_LOGINS;
const SWEEP_CONNECTIONS = [16, 64, 256];
const SWEEP_WORKERS = [0, 1, 2];
const WALLETS = 1000;
/** Distinct tokens cycled by re-authentication (each connection pre-builds one request per token). */
const REAUTH_TOKENS = 256;
const FIRST_SIGN_IN = 'signed authentication, first sign-in of each wallet';
const EDDSA_LOGIN = 'signed authentication, EdDSA tokens';
export const SIGN_MODE_LOGIN = 'signed authentication, sign mode ';

function log(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

function describe(result: ScenarioResult): string {
  const { load } = result;
  const m = result.machine;
  const share = (x: number): string => `${(x * 100).toFixed(0)}%`;
  return `${result.name} w=${result.workerThreads} c=${load.connections}: ${load.rps.toFixed(0)} req/s, p50 ${load.p50Ms.toFixed(2)} ms, p99 ${load.p99Ms.toFixed(2)} ms, non-2xx ${load.non2xx}, gate ${result.gateCpuUsPerRequest.toFixed(0)} µs CPU/req (main thread ${result.gateMainThreadCpuUsPerRequest.toFixed(0)})${result.rpcHttpPerAuth === undefined ? '' : `, RPC ${result.rpcHttpPerAuth.toFixed(3)} HTTP/auth`} | machine: gate ${share(m.gate)} load-gen ${share(m.loadGenerator)} chain ${share(m.localnet)} other ${share(m.other)} idle ${share(m.idle)}`;
}

async function withGate<T>(localnet: LocalnetChild, workerThreads: number | undefined, work: (gate: Child) => Promise<T>, env?: Record<string, string>): Promise<T> {
  const gate = await startGateProcess({ rpcUrl: localnet.url, jwtSecret: BENCH_JWT_SECRET, workerThreads, ...(env ? { env } : {}), ...(gateDist ? { distRoot: gateDist } : {}) });
  try {
    return await work(gate);
  } finally {
    await gate.stop();
  }
}

/** The gate's environment for EdDSA tokens: a fresh Ed25519 key in bench/.tmp (git-ignored). */
function eddsaEnv(): Record<string, string> {
  const dir = fileURLToPath(new URL('../../bench/.tmp/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const keysFile = `${dir}jwt-keys.pem`;
  writeFileSync(keysFile, generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
  return { JWT_ALG: 'EdDSA', JWT_PRIVATE_KEYS_FILE: keysFile, JWT_ISSUER: 'https://bench.example' };
}

/** Prepares the logins a run will need (rate estimated from the previous run), then runs it. */
async function timedLogins(
  ctx: BenchContext,
  connections: number,
  durationSec: number,
  workerThreads: string,
  expectedRate: number,
  name?: string,
  mode: BenchSignMode = 'challenge',
): Promise<ScenarioResult> {
  const prepared = await prepareLogins(ctx, loginBudget(expectedRate, durationSec, connections), undefined, mode);
  const result = await loginScenario(ctx, { connections, durationSec, workerThreads }, prepared, name);
  log(describe(result));
  return result;
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const loadBefore = os.loadavg();
  const wallets = benchWallets(WALLETS);

  log('measuring the ed25519 verify ceiling');
  const verify = measureVerifyCeiling(wallets, quick ? 500 : 2000);
  log(`verify: ${verify.perCorePerSecond.toFixed(0)}/s per core × ${verify.cores} = ${verify.ceilingPerSecond.toFixed(0)}/s`);

  const localnet = await startLocalnetProcess();
  const main: ScenarioResult[] = [];
  const sweep: ScenarioResult[] = [];
  const bare: BareResult[] = [];
  let memory: MemoryResult | undefined;
  let loginMemory: LoginMemoryResult | undefined;
  let rule: RuleBenchResult | undefined;
  let paired: PairedFirstSignIns | undefined;
  const signModes: ScenarioResult[] = [];
  const launch: LaunchResult[] = [];
  let defaultWorkers = '';
  let poolCheck: BenchReport['poolCheck'];
  let scopeCheck: BenchReport['scopeCheck'];
  let holdingsReads: HoldingsReadCost[] | undefined;
  try {
    const policy = await setUpChain(localnet, wallets);
    log(`local chain ${localnet.url}: ${WALLETS} wallets, policy ${policy.excluded_mints} / ${policy.max_holdings}`);
    // Logins to prepare per second of run: a guess first (one gate process tops out far below the
    // ceiling of a big machine), then what the main login run achieved, with room for more
    // connections doing better.
    let expectedRate = Math.min(verify.ceilingPerSecond * 0.35, 8000);
    let tokens: string[] = [];
    /** A fresh gate (WORKER_THREADS, environment) whose logins are warmed up to steady state. */
    const withWarmGate = <T>(workers: number | undefined, env: Record<string, string> | undefined, work: (ctx: BenchContext) => Promise<T>): Promise<T> =>
      withGate(
        localnet,
        workers,
        async (gate) => {
          const ctx: BenchContext = { gate, localnet, wallets, policy, tokens: [] };
          await warmUp(ctx, FEATURE, STEADY_LOGINS);
          return work(ctx);
        },
        env,
      );

    // Main scenarios, the gate with its default WORKER_THREADS.
    defaultWorkers = `default (${defaultWorkerThreads()})`;
    await withWarmGate(undefined, undefined, async (ctx) => {
      tokens = ctx.tokens;
      ctx.tokens = ctx.tokens.slice(0, REAUTH_TOKENS);
      const shape = { connections: MAIN_CONNECTIONS, durationSec: MAIN_SEC, workerThreads: defaultWorkers };
      main.push(await nonceScenario(ctx, shape));
      log(describe(main.at(-1)!));
      const login = await timedLogins(ctx, MAIN_CONNECTIONS, MAIN_SEC, defaultWorkers, expectedRate);
      main.push(login);
      expectedRate = Math.max(login.load.rps * 1.5, 500);
      const firstPrepared = await prepareFirstLogins(ctx, loginBudget(expectedRate, MAIN_SEC, MAIN_CONNECTIONS));
      main.push(await loginScenario(ctx, shape, firstPrepared, FIRST_SIGN_IN));
      log(describe(main.at(-1)!));
      paired = await pairedFirstSignIns(ctx, { ...shape, durationSec: SWEEP_SEC }, quick ? 1 : 3, loginBudget(expectedRate, SWEEP_SEC, MAIN_CONNECTIONS));
      log(`first sign-ins against known wallets, ABBA × ${paired.rounds}: known ${paired.known.map((r) => r.toFixed(0)).join(', ')}; first ${paired.first.map((r) => r.toFixed(0)).join(', ')}; ratio ${(paired.ratio * 100).toFixed(1)} %`);
      main.push(await reauthScenario(ctx, shape));
      log(describe(main.at(-1)!));
      main.push(await mixedScenario(ctx, shape));
      log(describe(main.at(-1)!));
      main.push(await forwardAuthScenario(ctx, shape));
      log(describe(main.at(-1)!));
      if (!args.has('--no-sweep')) {
        for (const connections of SWEEP_CONNECTIONS.filter((c) => c !== MAIN_CONNECTIONS)) {
          sweep.push(await nonceScenario(ctx, { connections, durationSec: SWEEP_SEC, workerThreads: defaultWorkers }));
          log(describe(sweep.at(-1)!));
          sweep.push(await reauthScenario(ctx, { connections, durationSec: SWEEP_SEC, workerThreads: defaultWorkers }));
          log(describe(sweep.at(-1)!));
        }
      }
    });

    // What the pool costs: warm logins with WORKER_THREADS=0 and with the default, in alternation
    // (0, default, default, 0, …), each on a fresh gate warmed up alike.
    poolCheck = { defaultWorkers: defaultWorkerThreads(), inline: [], pooled: [] };
    const poolOrder = quick ? [0, undefined] : [0, undefined, undefined, 0, 0, undefined];
    verify.laterPerCorePerSecond = [];
    for (const workers of poolOrder) {
      // The floor's verify again, now: the machine's speed drifts over a run of many minutes.
      verify.laterPerCorePerSecond.push(measureVerifyCeiling(wallets, quick ? 300 : 1000).perCorePerSecond);
      await withWarmGate(workers, undefined, async (ctx) => {
        const label = workers === undefined ? defaultWorkers : '0';
        const result = await timedLogins(ctx, MAIN_CONNECTIONS, MAIN_SEC, label, expectedRate, 'signed authentication, WORKER_THREADS=0 against the default');
        (workers === undefined ? poolCheck!.pooled : poolCheck!.inline).push(result);
      });
    }

    // What counting every token account (HOLDINGS_SCOPE=all, the default) costs beside the ATAs
    // (HOLDINGS_SCOPE=ata): warm logins, in alternation (all, ata, ata, all, …), each on a fresh gate
    // warmed up alike; calls and bytes per login from the local chain's counters.
    if (!args.has('--no-scope')) {
      scopeCheck = { all: [], ata: [] };
      for (const scope of quick ? (['all', 'ata'] as const) : (['all', 'ata', 'ata', 'all'] as const)) {
        await withWarmGate(undefined, scope === 'ata' ? { HOLDINGS_SCOPE: 'ata' } : undefined, async (ctx) => {
          scopeCheck![scope].push(await timedLogins(ctx, MAIN_CONNECTIONS, MAIN_SEC, defaultWorkers, expectedRate, `signed authentication, HOLDINGS_SCOPE=${scope}`));
        });
      }
    }

    // The same gate signing EdDSA tokens (JWT_ALG=EdDSA): signed logins, then forward auth of its tokens.
    await withWarmGate(undefined, eddsaEnv(), async (ctx) => {
      ctx.tokens = ctx.tokens.slice(0, REAUTH_TOKENS);
      const shape = { connections: MAIN_CONNECTIONS, durationSec: MAIN_SEC, workerThreads: defaultWorkers };
      main.push(await timedLogins(ctx, MAIN_CONNECTIONS, MAIN_SEC, defaultWorkers, expectedRate, EDDSA_LOGIN));
      main.push(await forwardAuthScenario(ctx, shape, 'forward auth, EdDSA tokens'));
      log(describe(main.at(-1)!));
    });

    // Every sign mode on one gate that accepts them all (SIWS_DOMAINS set): what reading and
    // checking each proof costs beside the seed's string. In alternation (the modes, then the
    // same in reverse, per round), so the machine's drift hits every mode alike.
    await withWarmGate(undefined, { SIWS_DOMAINS: BENCH_SIWS_DOMAIN }, async (ctx) => {
      const order = [...SIGN_MODES, ...[...SIGN_MODES].reverse()];
      for (let round = 0; round < (quick ? 1 : 2); round++) {
        for (const mode of order) signModes.push(await timedLogins(ctx, MAIN_CONNECTIONS, SWEEP_SEC, defaultWorkers, expectedRate, `${SIGN_MODE_LOGIN}${mode}`, mode));
      }
    });

    // A fresh gate, so the growth is not hidden by the heap the login runs already grew.
    if (args.has('--memory')) {
      await withGate(localnet, undefined, async (gate) => {
        log('memory run: 1,000,000 nonce issuances on a fresh gate');
        memory = await memoryRun(gate);
        log(`memory: RSS ${memory.rssBeforeMb.toFixed(1)} → ${memory.rssAfterMb.toFixed(1)} MB after ${memory.issued} nonces`);
      });
    }

    // RSS over 1,000,000 signed logins, on a fresh gate (bench/login-memory.ts).
    if (args.has('--memory')) {
      await withGate(localnet, undefined, async (gate) => {
        log('memory run: 1,000,000 signed logins on a fresh gate');
        const ctx: BenchContext = { gate, localnet, wallets, policy, tokens: [] };
        await warmUp(ctx);
        loginMemory = await loginMemoryRun(ctx, quick ? 100_000 : 1_000_000, 50_000, log);
        log(`memory: RSS ${loginMemory.rssBeforeMb.toFixed(1)} → ${loginMemory.rssAfterMb.toFixed(1)} MB after ${loginMemory.logins} logins`);
      });
    }

    // Signed logins by worker count × connections.
    if (!args.has('--no-sweep')) {
      for (const workers of SWEEP_WORKERS) {
        await withWarmGate(workers, undefined, async (ctx) => {
          for (const connections of SWEEP_CONNECTIONS) {
            const result = await timedLogins(ctx, connections, SWEEP_SEC, String(workers), expectedRate);
            sweep.push(result);
          }
        });
      }
    }

    // The launch (bench/launch.ts): 20,000 first sign-ins at RPC 80 ms; then 4,000 under a 5 requests/s provider limit (429s);
    // then 20,000 again behind a provider with batches off, and behind budgets where every batch member counts
    // (a blacklist first sign-in reads its two mints' token accounts with getTokenAccountsByOwner: ~2 calls per login).
    if (!args.has('--no-launch')) {
      const warmLoginsPerSecond = main.find((result) => result.name === 'signed authentication')?.load.rps;
      // Behind a budget: 150 calls/s (too small for a launch: what the wallets beyond it get), and a plan sized for the
      // launch (5,000 calls/s), each with the gate told its budget (RPC_CALLS_PER_SECOND), as docs/deploying.md advises.
      const budget = (callsPerSecond: number, wallets: number) => ({
        wallets,
        profile: `per-call-budget,callsPerSecond=${callsPerSecond}`,
        gateEnv: { RPC_CALLS_PER_SECOND: String(callsPerSecond) },
      });
      const profiles = args.has('--no-launch-profiles') ? [] : [{ profile: 'batches-off' }, budget(5000, 20_000), budget(150, 4000)];
      const shapes = [{}, ...(args.has('--no-scope') ? [] : [{ gateEnv: { HOLDINGS_SCOPE: 'ata' } }]), { wallets: 4000, requestsPerSecond: 5 }, ...profiles];
      for (const shape of shapes) {
        launch.push(await launchScenario({ ...shape, ...(warmLoginsPerSecond === undefined ? {} : { warmLoginsPerSecond }), log }));
        for (const line of describeLaunch(launch.at(-1)!)) log(line);
      }
    }

    // The HTTP ceiling: the same requests against a bare uWS route.
    const bareUws = await startBareUwsProcess();
    try {
      const connectionsList = args.has('--no-sweep') ? [MAIN_CONNECTIONS] : SWEEP_CONNECTIONS;
      for (const connections of connectionsList) {
        const durationSec = connections === MAIN_CONNECTIONS ? MAIN_SEC : SWEEP_SEC;
        const shaped = { tokens: tokens.slice(0, REAUTH_TOKENS), policy };
        for (const [name, requests, path] of [
          ['nonce request', undefined, AUTH_PATH],
          ['re-authentication request', reauthRequests(shaped), AUTH_PATH],
          ['forward-auth request', forwardAuthRequests(shaped), FORWARD_AUTH_PATH],
        ] as const) {
          if (name === 'forward-auth request' && connections !== MAIN_CONNECTIONS) continue;
          const before = sampleProcess(bareUws.pid).cpuMs;
          const load = await runLoad({ url: bareUws.url + path, connections, durationSec, ...(requests ? { requests } : {}) });
          const cpuUsPerRequest = ((sampleProcess(bareUws.pid).cpuMs - before) * 1000) / load.responses;
          bare.push({ name, load, cpuUsPerRequest });
          log(`bare uWS, ${name} c=${connections}: ${load.rps.toFixed(0)} req/s, p99 ${load.p99Ms.toFixed(2)} ms, ${cpuUsPerRequest.toFixed(1)} µs CPU/req`);
        }
      }
    } finally {
      await bareUws.stop();
    }
  } finally {
    await localnet.stop();
  }

  // Each way of reading holdings, per login, for a typical wallet and one with many token accounts (its own local chain).
  if (!args.has('--no-scope')) {
    log('holdings reads: ATAs, every account by mint, every account by program (bench/holdings-reads.ts)');
    holdingsReads = await holdingsReadCosts((line) => log(`holdings reads: ${line}`), { logins: quick ? 96 : 400 });
  }

  // The example rule beside blacklist alone (its own local chain and gate).
  if (!args.has('--no-rule')) {
    log('rule: the example rule of docs/rules.md beside blacklist alone');
    rule = await ruleBench({ durationSec: MAIN_SEC, rounds: quick ? 1 : 2 });
    log(`rule: ${rule.cpuRatio.toFixed(2)}× the CPU per login of blacklist alone`);
  }

  // What each feature costs the RPC provider per login, in calls and HTTP requests (its own local chain and gates).
  let budget: BudgetResult | undefined;
  if (!args.has('--no-budget')) {
    log('provider budget: calls per login for each feature (bench/provider-budget.ts)');
    budget = await providerBudget({ wallets: quick ? 50 : 200, log: (line) => log(`budget: ${line}`) });
  }

  const report: BenchReport = {
    startedAt,
    finishedAt: new Date(),
    quick,
    machine: machineInfo(loadBefore),
    verify,
    main,
    sweep,
    bare,
    memory,
    loginMemory,
    rule,
    paired,
    poolCheck,
    scopeCheck,
    defaultHoldingsScope: loadConfig({ JWT_SECRET: BENCH_JWT_SECRET, SOLANA_RPC_URL: 'http://127.0.0.1:1' }).holdingsScope,
    holdingsReads,
    signModes,
    launch,
    mainConnections: MAIN_CONNECTIONS,
    steadyStateLogins: STEADY_LOGINS,
    wallets: WALLETS,
    durations: { main: MAIN_SEC, sweep: SWEEP_SEC },
    budget,
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
  };
  const out = outArg ? outArg.slice('--out='.length) : defaultOut;
  const previous = previousReport(out);
  report.soak = previous?.soak;
  report.previous = previousFigures(previous);
  writeFileSync(out, renderReport(report));
  writeFileSync(out.replace(/\.md$/, '.json'), JSON.stringify(report, null, 2));
  log(`wrote ${out}`);
}

/** The report a previous run wrote next to `out`, if any. */
function previousReport(out: string): Partial<BenchReport> | undefined {
  const json = out.replace(/\.md$/, '.json');
  if (!existsSync(json)) return undefined;
  const report = JSON.parse(readFileSync(json, 'utf8')) as BenchReport;
  if (report.startedAt !== undefined) {
    report.startedAt = new Date(report.startedAt);
    report.finishedAt = new Date(report.finishedAt);
  }
  return report;
}

/** What the report compares this run with: the main scenarios and bare routes of the previous full run. */
function previousFigures(previous: Partial<BenchReport> | undefined): BenchReport['previous'] {
  if (previous?.main === undefined || previous.startedAt === undefined) return undefined;
  return {
    startedAt: previous.startedAt,
    quick: previous.quick ?? false,
    main: previous.main.map(({ name, load, gateCpuUsPerRequest }) => ({ name, rps: load.rps, gateCpuUsPerRequest })),
    bare: (previous.bare ?? []).map(({ name, load, cpuUsPerRequest }) => ({ name, connections: load.connections, rps: load.rps, cpuUsPerRequest })),
    verifyCeiling: previous.verify?.ceilingPerSecond,
  };
}

/** `--soak`: the soak alone, written into its own section of the report at `out` (the rest kept). */
async function soakMain(): Promise<void> {
  const loadBefore = os.loadavg();
  const durationSec = numberArg('soak-seconds', 600);
  const probeSec = numberArg('probe-seconds', 20);
  const wallets = benchWallets(WALLETS);
  const localnet = await startLocalnetProcess();
  let result: Awaited<ReturnType<typeof soak>>;
  try {
    const policy = await setUpChain(localnet, wallets);
    const gate = await startGateProcess({ rpcUrl: localnet.url, jwtSecret: BENCH_JWT_SECRET, env: { NONCE_TTL_SECONDS: String(SOAK_NONCE_TTL_SECONDS) } });
    try {
      const ctx: BenchContext = { gate, localnet, wallets, policy, tokens: [] };
      log('soak: warming the gate up (one login per wallet)');
      await warmUp(ctx);
      result = await soak({ ...ctx, localnet }, { durationSec, probeSec, command: `npm run bench -- ${process.argv.slice(2).join(' ')}`, log });
    } finally {
      await gate.stop();
    }
  } finally {
    await localnet.stop();
  }
  const out = outArg ? outArg.slice('--out='.length) : defaultOut;
  const withMachine = { ...result, machine: machineInfo(loadBefore) };
  const previous = previousReport(out);
  if (previous?.main !== undefined) {
    const report = { ...(previous as BenchReport), soak: withMachine };
    writeFileSync(out, renderReport(report));
    writeFileSync(out.replace(/\.md$/, '.json'), JSON.stringify(report, null, 2));
  } else {
    writeFileSync(out, ['# Benchmark results', '', ...renderSoak(withMachine)].join('\n'));
    writeFileSync(out.replace(/\.md$/, '.json'), JSON.stringify({ soak: withMachine }, null, 2));
  }
  log(`soak: RSS ${result.flat ? 'flat' : 'NOT flat'} (${result.minRssMb.toFixed(1)}–${result.maxRssMb.toFixed(1)} MB after warm-up); wrote ${out}`);
}

function machineInfo(loadBefore: number[]): MachineInfo {
  let cpuModel = os.cpus()[0]?.model ?? 'unknown';
  try {
    cpuModel = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpuModel;
  } catch {
    // not Linux: keep os.cpus()'s answer
  }
  return {
    cpuModel,
    cores: os.availableParallelism(),
    ramGb: os.totalmem() / 2 ** 30,
    node: process.version,
    kernel: `${os.type()} ${os.release()}`,
    loadBefore,
    loadAfter: os.loadavg(),
  };
}

const defaultOut = fileURLToPath(new URL('../../bench/RESULTS.md', import.meta.url));
if (args.has('--render-only')) {
  const out = outArg ? outArg.slice('--out='.length) : defaultOut;
  const report = JSON.parse(readFileSync(out.replace(/\.md$/, '.json'), 'utf8')) as BenchReport;
  report.startedAt = new Date(report.startedAt);
  report.finishedAt = new Date(report.finishedAt);
  // A report holding only a soak (--soak with no earlier full run) renders as that section alone.
  writeFileSync(out, report.main === undefined && report.soak ? ['# Benchmark results', '', ...renderSoak(report.soak)].join('\n') : renderReport(report));
  log(`rewrote ${out}`);
} else if (args.has('--soak')) {
  await soakMain();
} else {
  await main();
}

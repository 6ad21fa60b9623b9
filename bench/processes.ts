import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProviderCounterSnapshot } from 'x404-localnet/provider-stats.js';

/**
 * The processes under test, each in its own OS process so that its CPU time and RSS can be read
 * from /proc without counting the load generator: the local chain, the gate, the bare uWS route.
 */

const DIST_ROOT = fileURLToPath(new URL('../', import.meta.url)); // dist/
/** The local chain's entry (packages/localnet), relative to dist/. */
const LOCALNET_MAIN = '../packages/localnet/dist/main.js';
const CLOCK_TICKS_PER_SECOND = readClockTicks();

export interface Child {
  pid: number;
  url: string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. */
  stop(graceMs?: number): Promise<void>;
}

export interface ProcessSample {
  /** utime + stime of every thread of the process, in milliseconds. */
  cpuMs: number;
  /** utime + stime of the main thread alone (the event loop), in milliseconds. */
  mainThreadCpuMs: number;
  /** Resident set size (VmRSS), in MiB. */
  rssMb: number;
}

export function sampleProcess(pid: number): ProcessSample {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return { cpuMs: cpuMsOf(`/proc/${pid}/stat`), mainThreadCpuMs: cpuMsOf(`/proc/${pid}/task/${pid}/stat`), rssMb: rssKb / 1024 };
}

/** utime + stime from a /proc …/stat file, in ms. */
function cpuMsOf(statPath: string): number {
  const stat = readFileSync(statPath, 'utf8');
  // Fields after the command name (which may contain spaces) start at field 3 ("state").
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

export interface MachineSample {
  /** CPU time of all cores, busy and idle, in ms. */
  totalMs: number;
  idleMs: number;
}

/** The whole machine's CPU time from /proc/stat (first line: all cores). */
export function sampleMachine(): MachineSample {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  const ticks = fields.slice(0, 8).reduce((a, b) => a + b, 0); // user … steal; guest time is inside user
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0); // idle + iowait
  return { totalMs: (ticks * 1000) / CLOCK_TICKS_PER_SECOND, idleMs: (idle * 1000) / CLOCK_TICKS_PER_SECOND };
}

function readClockTicks(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

/** Starts `node <script>` and resolves with the URL it reports on stdout (parsed by `readUrl`). */
function startNode(
  name: string,
  script: string,
  env: Record<string, string>,
  readUrl: (line: string) => string | undefined,
  nodeArgs: string[] = [],
  distRoot = DIST_ROOT,
  cpus?: string,
): Promise<Child> {
  // `taskset -c <cpus> node …` execs node itself: the child's pid is the gate's, every thread pinned.
  const [command, args] = cpus === undefined ? [process.execPath, [...nodeArgs, path.join(distRoot, script)]] : ['taskset', ['-c', cpus, process.execPath, ...nodeArgs, path.join(distRoot, script)]];
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
    // BENCH_VERBOSE=1 shows what the children print on stderr (debugging the bench itself).
    if (process.env.BENCH_VERBOSE) process.stderr.write(`[${name}] ${chunk.toString()}`);
  });
  return new Promise<Child>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => fail(new Error(`${name} did not report its URL within 20 s`)), 20_000);
    const fail = (error: Error): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${error.message}\n${stderr}`));
    };
    child.once('exit', (code) => fail(new Error(`${name} exited early with code ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        const url = readUrl(line);
        if (url !== undefined) {
          clearTimeout(timer);
          child.removeAllListeners('exit');
          // Keep draining stdout so a chatty child never blocks on a full pipe.
          child.stdout!.on('data', () => {});
          resolve({ pid: child.pid!, url, stop: (graceMs) => stopChild(child, graceMs) });
          return;
        }
      }
    });
  });
}

function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export interface LocalnetChild extends Child {
  stats(): Promise<RpcCounters>;
  resetStats(): Promise<void>;
  admin(route: string, body: Record<string, unknown>): Promise<Record<string, unknown>>;
}

export interface RpcCounters {
  httpRequests: number;
  calls: Record<string, number>;
  /** HTTP requests the provider simulation answered 429 (packages/localnet/src/provider.ts). */
  rateLimited?: number;
  /** Bytes of the JSON-RPC request bodies and of the answers (packages/localnet/src/stats.ts). */
  requestBytes?: number;
  responseBytes?: number;
  /** Answer bytes per method, batch members counted singly. */
  answerBytes?: Record<string, number>;
  /** What the provider profile did (packages/localnet/src/provider-stats.ts). */
  provider?: ProviderCounterSnapshot;
}

/**
 * `env`: e.g. RPC_LATENCY_MS and RPC_REQUESTS_PER_SECOND (packages/localnet/src/provider.ts). `script`: another
 * entry that starts the local chain and prints the same URL line (bench/budget-chain.ts: with chain
 * state built in its own process).
 */
export async function startLocalnetProcess(env: Record<string, string> = {}, script = LOCALNET_MAIN): Promise<LocalnetChild> {
  const child = await startNode('localnet', script, { PORT: '0', HOST: '127.0.0.1', ...env }, (line) =>
    /Solana JSON-RPC on (http:\/\/\S+)/.exec(line)?.[1],
  );
  const admin = async (route: string, body: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const response = await fetch(`${child.url}/__localnet/${route}`, { method: 'POST', body: JSON.stringify(body) });
    const reply = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`localnet ${route}: ${JSON.stringify(reply)}`);
    return reply;
  };
  return {
    ...child,
    admin,
    async stats() {
      return (await (await fetch(`${child.url}/__localnet/stats`)).json()) as RpcCounters;
    },
    async resetStats() {
      await admin('reset-stats', {});
    },
  };
}

/** The HS256 secret of every bench gate (the bench makes its own tokens and nonces; never a real one). */
export const BENCH_JWT_SECRET = 'x404-bench-secret-not-for-production-0123456789';

export interface GateOptions {
  rpcUrl: string;
  jwtSecret: string;
  /** Undefined = the gate's default (WORKER_THREADS unset). */
  workerThreads?: number;
  /** Extra environment (e.g. RPC_BATCH_WINDOW_MS). */
  env?: Record<string, string>;
  /** Write a V8 CPU profile of every thread into this directory on exit. */
  cpuProfileDir?: string;
  /** Run the gate from another build (a copy of dist/ with a change to try; bench/compare.ts). */
  distRoot?: string;
  /** Pin the gate (every thread) to these CPUs, taskset's list syntax ("1", "0,1"); bench/cores.ts. */
  cpus?: string;
}

/** The gate as users run it: `node dist/src/main.js`, production mode, rate limit off. */
export function startGateProcess(options: GateOptions): Promise<Child> {
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    JWT_SECRET: options.jwtSecret,
    SOLANA_RPC_URL: options.rpcUrl,
    HOST: '127.0.0.1',
    PORT: '0',
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'info',
    REDIS_URL: '',
    WORKER_THREADS: options.workerThreads === undefined ? '' : String(options.workerThreads),
    ...options.env,
  };
  const nodeArgs = options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : [];
  return startNode(
    'gate',
    'src/main.js',
    env,
    (line) => {
      if (!line.startsWith('{')) return undefined;
      try {
        const entry = JSON.parse(line) as { msg?: string; port?: number };
        return entry.msg === 'listening' && entry.port ? `http://127.0.0.1:${entry.port}` : undefined;
      } catch {
        return undefined;
      }
    },
    nodeArgs,
    options.distRoot,
    options.cpus,
  );
}

/** The reference: a bare uWebSockets.js route answering the gate's nonce body (bench/bare-uws.ts). */
export function startBareUwsProcess(): Promise<Child> {
  return startNode('bare uWS', 'bench/bare-uws.js', { PORT: '0' }, (line) => /^listening (http:\/\/\S+)/.exec(line)?.[1]);
}

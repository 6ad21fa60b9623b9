/**
 * What a launch costs its RPC provider, per feature (issue 26): providers count every JSON-RPC call
 * (each member of a batch) against a per-second budget, and some refuse batches (then every call is
 * an HTTP request too). For each feature under a typical operator policy, bench/rule.ts's example
 * launch rule and that rule passing through its collection leaf: a fresh gate process, the local
 * chain in its own process (bench/budget-chain.ts builds the wallets' state), N never-seen wallets
 * whose state makes them pass (then N that fail) each signing in once at 32 connections, then the
 * same wallets a second time (the gate's caches warm). Per login: JSON-RPC calls by method, HTTP
 * requests and bytes, from the local chain's counters; the statuses as they came.
 *
 *   npm run build && node dist/bench/provider-budget.js [--wallets=200] [--out=bench/BUDGET.md]
 *        [--connections=32] [--latency=80] [--rate=100] [--profile=none --profile=batches-off] [--only=blacklist,age]
 *
 * `--rate`: the logins/s the "calls/s needed" column is worked out for (N × calls per login).
 * `--profile` (repeatable): the local chain's RPC_PROFILE of each pass (packages/localnet/src/provider-profile.ts;
 * default `none` and `batches-off`), set before each gate starts, so its warm-up meets it too.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { describeProfile, profileFromEnv } from 'x404-localnet/provider-profile.js';
import { BUDGET_TARGETS, budgetSeeds, type BudgetTarget, type Outcome, WARM_UP_WALLETS, writeBudgetPolicies } from './budget-chain.js';
import { runLoad } from './load.js';
import { BENCH_JWT_SECRET, type Child, type LocalnetChild, type RpcCounters, startGateProcess, startLocalnetProcess } from './processes.js';
import { type BenchContext, prepareLogins } from './scenarios.js';
import { authPath } from './wallets.js';

export interface BudgetOptions {
  /** Never-seen wallets per row (default 200). */
  wallets?: number;
  connections?: number;
  /** The local chain's latency on every answer, ms (default 80, as the launch scenario). */
  latencyMs?: number;
  /** Logins/s the derived columns are worked out for (default 100). */
  rate?: number;
  /** RPC_PROFILE of each pass (default none, batches-off). */
  profiles?: string[];
  /** Only these targets (by name or path). */
  only?: string[];
  log?: (message: string) => void;
}

export interface BudgetRow {
  target: string;
  policy: string;
  outcome: Exclude<Outcome, 'warmup'>;
  /** What the wallets' chain state is. */
  state: string;
  holdingsScope: 'all' | 'ata';
  profile: string;
  /** `first`: never-seen wallets; `second`: the same wallets again on the same gate. */
  signIn: 'first' | 'second';
  logins: number;
  /** HTTP status → count, and `<status> <error code>` → count for the answers that were not 200. */
  statusCounts: Record<string, number>;
  errorCodes: Record<string, number>;
  callsPerLogin: number;
  callsByMethodPerLogin: Record<string, number>;
  httpPerLogin: number;
  requestBytesPerLogin: number;
  responseBytesPerLogin: number;
  /** Calls the provider profile refused (every member of a refused array counts), per login. */
  refusedPerLogin: number;
}

export interface BudgetResult {
  date: string;
  machine: string;
  wallets: number;
  connections: number;
  latencyMs: number;
  rate: number;
  /** The RPC_PROFILE of each pass, in order. */
  profiles: string[];
  rows: BudgetRow[];
}

const OUTCOMES = ['pass', 'fail'] as const;

export async function providerBudget(options: BudgetOptions = {}): Promise<BudgetResult> {
  const wallets = options.wallets ?? 200;
  const connections = options.connections ?? 32;
  const latencyMs = options.latencyMs ?? 80;
  const profiles = options.profiles ?? ['none', 'batches-off'];
  for (const profile of profiles) profileFromEnv({ RPC_PROFILE: profile }); // refused before minutes of set-up
  const log = options.log ?? ((message: string) => process.stderr.write(`[budget ${new Date().toISOString().slice(11, 19)}] ${message}\n`));
  const targets = BUDGET_TARGETS.filter((t) => !options.only || options.only.includes(t.name) || options.only.includes(t.path));
  const dir = fileURLToPath(new URL(`../../bench/.tmp/budget-${process.pid}/`, import.meta.url));
  mkdirSync(dir, { recursive: true });
  const policiesFile = writeBudgetPolicies(dir, wallets);
  log(`starting the local chain: ${wallets} wallets per family, ${latencyMs} ms per answer`);
  const localnet = await startLocalnetProcess({ BUDGET_WALLETS: String(wallets), RPC_LATENCY_MS: String(latencyMs) }, 'bench/budget-chain.js');
  const rows: BudgetRow[] = [];
  try {
    for (const profile of profiles) {
      await localnet.admin('provider', { profile: profileFromEnv({ RPC_PROFILE: profile }) });
      log(`provider profile ${profile}: ${describeProfile(profileFromEnv({ RPC_PROFILE: profile }))}`);
      for (const target of targets) {
        for (const scope of target.scopes) {
          const gate = await startGateProcess({ rpcUrl: localnet.url, jwtSecret: BENCH_JWT_SECRET, env: { POLICIES_FILE: policiesFile, ...(scope === 'ata' ? { HOLDINGS_SCOPE: 'ata' } : {}) } });
          try {
            const ctx: BenchContext = { gate, localnet, wallets: [], policy: target.policy ? { 'X-404-Policy': target.policy } : {}, tokens: [] };
            // Untimed: other wallets that pass, so the gate knows the policy's mint programs and the node's history horizon, as a gate serving a launch does.
            await signIns(ctx, target, budgetSeeds(target, 'warmup', wallets), connections);
            for (const outcome of OUTCOMES) {
              const seeds = budgetSeeds(target, outcome, wallets);
              for (const signIn of ['first', 'second'] as const) {
                const row = await measuredSignIns(ctx, target, seeds, connections, { outcome, scope, profile, signIn });
                rows.push(row);
                log(describeRow(row));
              }
            }
          } finally {
            await gate.stop();
          }
        }
      }
    }
  } finally {
    await localnet.admin('provider', { profile: 'none' }).catch(() => undefined);
    await localnet.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return { date: new Date().toISOString(), machine: machineLine(), wallets, connections, latencyMs, rate: options.rate ?? 100, profiles, rows };
}

interface SignInResult {
  statusCounts: Record<string, number>;
  errorCodes: Record<string, number>;
  responses: number;
}

/** Each seed's wallet signs in once, `connections` at a time (untimed, uncounted). */
async function signIns(ctx: BenchContext, target: BudgetTarget, seeds: Buffer[], connections: number): Promise<SignInResult> {
  return sendPrepared(ctx, target, await signedLogins(ctx, target, seeds), connections);
}

/** One signed login per seed, in order. The gate's nonces are fetched at 64 connections, so at least 64 are asked for (the rest unused). */
async function signedLogins(ctx: BenchContext, target: BudgetTarget, seeds: Buffer[]): Promise<Record<string, string>[]> {
  return (await prepareLogins(ctx, Math.max(64, seeds.length), seeds, 'challenge', target.path)).slice(0, seeds.length);
}

async function measuredSignIns(
  ctx: BenchContext & { localnet: LocalnetChild; gate: Child },
  target: BudgetTarget,
  seeds: Buffer[],
  connections: number,
  shape: { outcome: 'pass' | 'fail'; scope: 'all' | 'ata'; profile: string; signIn: 'first' | 'second' },
): Promise<BudgetRow> {
  // Nonces are asked and signed before the counters are reset: a nonce costs no chain read, but the window starts clean.
  const logins = await signedLogins(ctx, target, seeds);
  await ctx.localnet.resetStats();
  const run = await sendPrepared(ctx, target, logins, connections);
  const rpc: RpcCounters = await ctx.localnet.stats();
  const n = Math.max(1, run.responses);
  const calls = Object.values(rpc.calls).reduce((sum, c) => sum + c, 0);
  return {
    target: target.name,
    policy: target.describe,
    outcome: shape.outcome,
    state: shape.outcome === 'pass' ? target.pass : target.fail,
    holdingsScope: shape.scope,
    profile: shape.profile,
    signIn: shape.signIn,
    logins: run.responses,
    statusCounts: run.statusCounts,
    errorCodes: run.errorCodes,
    callsPerLogin: calls / n,
    callsByMethodPerLogin: Object.fromEntries(Object.entries(rpc.calls).sort(([a], [b]) => a.localeCompare(b)).map(([method, c]) => [method, c / n])),
    httpPerLogin: rpc.httpRequests / n,
    requestBytesPerLogin: (rpc.requestBytes ?? 0) / n,
    responseBytesPerLogin: (rpc.responseBytes ?? 0) / n,
    refusedPerLogin: (rpc.provider?.refusedCalls ?? 0) / n,
  };
}

/** Prepared logins sent once each (the signing is not in the window the counters see). */
async function sendPrepared(ctx: BenchContext, target: BudgetTarget, logins: Record<string, string>[], connections: number): Promise<SignInResult> {
  const errorCodes: Record<string, number> = {};
  let next = 0;
  const load = await runLoad({
    url: ctx.gate.url + authPath(target.path),
    connections: Math.min(connections, logins.length),
    durationSec: 600,
    amount: logins.length,
    requests: [
      {
        method: 'GET',
        path: authPath(target.path),
        setupRequest: (request) => {
          const headers = logins[next++];
          if (headers === undefined) throw new Error('ran out of prepared logins (a nonce would be reused)');
          return { ...request, headers };
        },
        onResponse: (status, body) => {
          if (status === 200) return;
          let code = '?';
          try {
            code = String((JSON.parse(body) as { error?: string }).error ?? '?');
          } catch {
            // not JSON: counted under '?'
          }
          errorCodes[`${status} ${code}`] = (errorCodes[`${status} ${code}`] ?? 0) + 1;
        },
      },
    ],
  });
  if (load.errors > 0) errorCodes['socket error'] = load.errors;
  return { statusCounts: load.statusCounts, errorCodes, responses: load.responses };
}

export function machineLine(): string {
  let cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpu;
  } catch {
    // not Linux: os.cpus()'s answer
  }
  return `${cpu}, ${os.availableParallelism()} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, ${os.type()} ${os.release()}`;
}

const statuses = (row: BudgetRow): string => Object.entries(row.statusCounts).map(([status, n]) => `${status}: ${n}`).join(', ');
const codes = (row: BudgetRow): string => Object.entries(row.errorCodes).map(([code, n]) => `${code} ×${n}`).join(', ');
const byMethod = (row: BudgetRow): string => Object.entries(row.callsByMethodPerLogin).map(([method, c]) => `${method} ${c.toFixed(2)}`).join(', ') || '–';

function describeRow(row: BudgetRow): string {
  return `${row.target} ${row.outcome} (${row.signIn} sign-in), HOLDINGS_SCOPE=${row.holdingsScope}, profile ${row.profile}: ${row.callsPerLogin.toFixed(2)} calls/login (${byMethod(row)}), ${row.httpPerLogin.toFixed(2)} HTTP/login, ${Math.round(row.requestBytesPerLogin)} B / ${Math.round(row.responseBytesPerLogin)} B; statuses ${statuses(row)}${codes(row) ? ` (${codes(row)})` : ''}`;
}

/** The report's section (bench/BUDGET.md, and bench/RESULTS.md through bench/report.ts). */
export function renderBudget(result: BudgetResult): string[] {
  const lines = [
    '## Provider budget per feature',
    '',
    `${result.date}, ${result.machine}. \`node dist/bench/provider-budget.js --wallets=${result.wallets} --connections=${result.connections} --latency=${result.latencyMs} --rate=${result.rate} ${result.profiles.map((p) => `--profile=${p}`).join(' ')}\`.`,
    '',
    `Per row: a new gate process with the operator's named policy (POLICIES_FILE; bench/budget-chain.ts), warmed by ${WARM_UP_WALLETS} other wallets that pass (so it knows the policy's mint programs and the node's history horizon); then ${result.wallets} never-seen wallets whose chain state makes them pass (or fail) each sign in once at ${result.connections} connections ("first"), then the same wallets again on the same gate ("second": its caches warm). The local chain answers after ${result.latencyMs} ms and counts every JSON-RPC call (each batch member singly, as providers' per-call budgets do) and every HTTP request. Per login sent: calls, calls by method, HTTP requests, bytes of the JSON-RPC bodies (uncompressed), calls the provider profile refused; "calls/s at ${result.rate} logins/s" = ${result.rate} × calls per login (the budget to buy), HTTP requests likewise. Statuses are what the logins answered, 503s included: a row with 503s measured what those logins cost up to the refusal, not what a full answer costs.`,
    '',
    `| target | typical policy | wallets (outcome: chain state) | HOLDINGS_SCOPE | provider profile | sign-in | statuses | calls/login | by method (per login) | HTTP req/login | bytes sent / received per login | refused calls/login | calls/s at ${result.rate} logins/s | HTTP req/s at ${result.rate} logins/s |`,
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of result.rows) {
    lines.push(
      `| ${r.target} | ${r.policy} | ${r.outcome}: ${r.state} | ${r.holdingsScope} | ${r.profile} | ${r.signIn} | ${statuses(r)}${codes(r) ? ` (${codes(r)})` : ''} | ${r.callsPerLogin.toFixed(2)} | ${byMethod(r)} | ${r.httpPerLogin.toFixed(2)} | ${Math.round(r.requestBytesPerLogin)} / ${Math.round(r.responseBytesPerLogin)} | ${r.refusedPerLogin.toFixed(2)} | ${Math.round(result.rate * r.callsPerLogin)} | ${Math.round(result.rate * r.httpPerLogin)} |`,
    );
  }
  lines.push('');
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name: string): string | undefined => process.argv.slice(2).find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const positive = (name: string, fallback: number): number => {
    const raw = arg(name);
    const value = raw === undefined ? fallback : Number(raw);
    if (!(Number.isFinite(value) && value >= 0)) throw new Error(`--${name} must be a non-negative number`);
    return value;
  };
  const profiles = process.argv.slice(2).filter((a) => a.startsWith('--profile=')).map((a) => a.slice('--profile='.length));
  const out = arg('out') ?? fileURLToPath(new URL('../../bench/BUDGET.md', import.meta.url));
  const result = await providerBudget({
    wallets: positive('wallets', 200),
    connections: positive('connections', 32),
    latencyMs: positive('latency', 80),
    rate: positive('rate', 100),
    ...(profiles.length ? { profiles } : {}),
    ...(arg('only') ? { only: arg('only')!.split(',') } : {}),
  });
  writeFileSync(out, ['# Provider budget', '', ...renderBudget(result)].join('\n'));
  process.stderr.write(`wrote ${out}\n`);
}

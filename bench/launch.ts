/**
 * The launch scenario (issue 16): wallets the gate has never seen all sign in at once against an
 * RPC provider that answers every request in RPC_LATENCY_MS. Each wallet signs in once; logins are
 * signed beforehand (bench/sign-pool.ts), so the timed phase is the gate alone.
 *
 *   node dist/bench/launch.js                          20,000 wallets, 256 connections, 80 ms
 *   node dist/bench/launch.js --wallets=4000 --latency=80 --rps-limit=20   and a provider answering 429
 *   node dist/bench/launch.js --warm-rps=4200          skip measuring warm logins/s (the target's input)
 *   node dist/bench/launch.js --cold                   the launch hits a gate process just started
 *   node dist/bench/launch.js --gate-env='RPC_BATCH_WINDOW_MAX_MS=6;RPC_CONCURRENCY=16'   settings of the gate
 *   node dist/bench/launch.js --gate-env=HOLDINGS_SCOPE=ata    the blacklist counting ATAs only (read beside the signature)
 *   node dist/bench/launch.js --profile=batches-off    the provider's limits: an RPC_PROFILE of the local chain
 *   node dist/bench/launch.js --profile=none --profile=batches-off --profile=per-call-budget,callsPerSecond=150
 *                                                      several runs in turn (warm logins/s measured once), one table
 *
 * A provider profile (docs/local-chain.md "Provider profiles") is set for the timed launch only, like
 * the request-rate limit: the warm-ups run without it, and its budget windows start empty.
 * Durations run from the first request to the last response (autocannon notices the end of an
 * `amount` run only at its next 1 s sample tick, so its own duration is not used).
 */
import autocannon from 'autocannon';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeProfile, profileFromEnv, type ProfileSettings } from 'x404-localnet/provider-profile.js';
import { setUpChain } from './chain-fixture.js';
import { runLoad } from './load.js';
import { BENCH_JWT_SECRET, type Child, type LocalnetChild, sampleProcess, startGateProcess, startLocalnetProcess } from './processes.js';
import { type BenchContext, prepareFirstLogins, prepareLogins, warmUp } from './scenarios.js';
import { AUTH_PATH, benchWallets } from './wallets.js';

export interface LaunchOptions {
  /** Never-seen wallets, each signing in once (default 20,000). */
  wallets?: number;
  connections?: number;
  /** The provider's latency on every answer (RPC_LATENCY_MS of the local chain; default 80). */
  latencyMs?: number;
  /** The provider's rate limit (RPC_REQUESTS_PER_SECOND; default 0, none). */
  requestsPerSecond?: number;
  /** The provider's limits during the launch, in RPC_PROFILE's form: `batches-off`, `per-call-budget,callsPerSecond=150` (default `none`). */
  profile?: string;
  /** Warm logins/s of this machine (the target's input); measured here when not given. */
  warmLoginsPerSecond?: number;
  /**
   * Warm the gate process first (default true), as a gate running before a launch is: 2,000 logins
   * of other wallets against other mints, untimed, so the launch's wallets and mints stay unseen
   * (their mints' token programs are looked up during the launch). false: the launch hits a
   * process just started (module compilation, worker start-up and JIT land on the first wave).
   */
  warmGate?: boolean;
  /** Extra gate environment (default: the gate's defaults). */
  gateEnv?: Record<string, string>;
  log?: (message: string) => void;
}

export interface LaunchTarget {
  what: string;
  target: string;
  value: string;
  met: boolean;
}

export interface LaunchResult {
  wallets: number;
  connections: number;
  latencyMs: number;
  requestsPerSecond: number;
  /** The provider profile of the launch, as given (RPC_PROFILE form); absent in results from before profiles. */
  profile?: string;
  /** What that profile limits, in words (provider-profile.ts describeProfile). */
  profileDescription?: string;
  /** Whether the gate process was warmed (other wallets, other mints) before the launch. */
  warmGate: boolean;
  /** From the first request to the last response. */
  durationSec: number;
  responses: number;
  /** Logins answered 200 (a token), per second of durationSec. */
  loginsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  statusCounts: Record<string, number>;
  /** Responses other than 200 plus socket errors and timeouts. */
  errors: number;
  /** Logins refused 503 (fail closed: the chain could not be read in time). */
  unavailable: number;
  rpcHttpRequests: number;
  rpcCalls: number;
  /** RPC HTTP requests and JSON-RPC calls per login sent (per token when every login got one). */
  rpcHttpPerLogin: number;
  rpcCallsPerLogin: number;
  /** JSON-RPC calls by method over the launch. */
  rpcCallsByMethod?: Record<string, number>;
  /** Bytes of the JSON-RPC requests and answers, per login answered 200. */
  rpcRequestBytesPerLogin?: number;
  rpcResponseBytesPerLogin?: number;
  /** The gate's HOLDINGS_SCOPE (which token accounts the blacklist counts: `all`, the default, or `ata`). */
  holdingsScope?: string;
  /** The gate's settings for the run beyond HOLDINGS_SCOPE (e.g. RPC_CALLS_PER_SECOND), `NAME=value` joined by spaces; absent: none. */
  gateSettings?: string;
  /** HTTP requests the provider answered 429. */
  rpcRateLimited: number;
  /** Calls the provider profile refused (each member of a refused array counts), and by reason. */
  rpcRefusedCalls?: number;
  rpcRefusedByReason?: Record<string, number>;
  gateCpuUsPerLogin: number;
  warmLoginsPerSecond: number;
  targets: LaunchTarget[];
}

/** Known wallets behind the warm logins/s the target is measured against. */
const WARM_WALLETS = 1000;
const WARM_LOGINS = 12_000;
const WARM_CONNECTIONS = 64;
/** Logins of other wallets on other mints that warm the gate process before the launch. */
const PROCESS_WARM_UP_LOGINS = 2000;

export async function launchScenario(options: LaunchOptions = {}): Promise<LaunchResult> {
  const wallets = options.wallets ?? 20_000;
  const connections = options.connections ?? 256;
  const latencyMs = options.latencyMs ?? 80;
  const requestsPerSecond = options.requestsPerSecond ?? 0;
  const profileSpec = options.profile ?? 'none';
  // Checked here, before minutes of set-up, with RPC_PROFILE's own parser.
  const profile: ProfileSettings = profileFromEnv({ RPC_PROFILE: profileSpec });
  const log = options.log ?? ((message: string) => process.stderr.write(`[launch] ${message}\n`));
  const localnet = await startLocalnetProcess({ RPC_LATENCY_MS: String(latencyMs), RPC_REQUESTS_PER_SECOND: String(requestsPerSecond) });
  const dir = mkdtempSync(join(tmpdir(), 'x404-launch-'));
  try {
    const known = benchWallets(WARM_WALLETS);
    // A launch runs under the operator's named policy (docs/launch-operations.md), whose balances
    // are read beside the signature; a caller's own policy headers wait for it (issue 25).
    const policies = join(dir, 'policies.json');
    writeFileSync(policies, JSON.stringify({ blacklist: { launch: await setUpChain(localnet, known), 'warm-up': await setUpChain(localnet, []) } }));
    const gateEnv = { POLICIES_FILE: policies, ...options.gateEnv };
    const policy = { 'X-404-Policy': 'launch' };
    const warmLoginsPerSecond = options.warmLoginsPerSecond ?? (await measureWarm(localnet, known, policy, gateEnv, latencyMs, requestsPerSecond, log));

    const gate = await startGateProcess({ rpcUrl: localnet.url, jwtSecret: BENCH_JWT_SECRET, env: gateEnv });
    try {
      const ctx: BenchContext = { gate, localnet, wallets: [], policy, tokens: [] };
      if (options.warmGate !== false) {
        const warmLogins = await prepareFirstLogins({ ...ctx, policy: { 'X-404-Policy': 'warm-up' } }, PROCESS_WARM_UP_LOGINS);
        // Without the rate limit: the launch, not the warm-up, meets the provider's 429s.
        await localnet.admin('provider', { latencyMs, requestsPerSecond: 0 });
        await timedLogins(gate, warmLogins, WARM_CONNECTIONS);
        await localnet.admin('provider', { latencyMs, requestsPerSecond });
      }
      log(`signing ${wallets} first logins`);
      const logins = await prepareFirstLogins(ctx, wallets);
      // The provider's limits for the launch, their windows empty (settings as RPC_PROFILE parsed them).
      await localnet.admin('provider', { latencyMs, requestsPerSecond, profile });
      log(`provider profile: ${describeProfile(profile)}`);
      await localnet.resetStats();
      const cpuBefore = sampleProcess(gate.pid).cpuMs;
      const run = await timedLogins(gate, logins, connections);
      const gateCpuMs = sampleProcess(gate.pid).cpuMs - cpuBefore;
      const rpc = await localnet.stats();
      await localnet.admin('provider', { profile: 'none' });
      const rpcCalls = Object.values(rpc.calls).reduce((sum, n) => sum + n, 0);
      const ok = run.statusCounts['200'] ?? 0;
      const errors = run.responses - ok + run.socketErrors;
      const result: LaunchResult = {
        wallets,
        connections,
        latencyMs,
        requestsPerSecond,
        profile: profileSpec,
        profileDescription: describeProfile(profile),
        warmGate: options.warmGate !== false,
        durationSec: run.durationSec,
        responses: run.responses,
        loginsPerSecond: ok / run.durationSec,
        p50Ms: run.p50Ms,
        p99Ms: run.p99Ms,
        maxMs: run.maxMs,
        statusCounts: run.statusCounts,
        errors,
        unavailable: run.statusCounts['503'] ?? 0,
        rpcHttpRequests: rpc.httpRequests,
        rpcCalls,
        // Per login sent (= per token when none failed): a run whose logins all answered 503 still shows what they cost.
        rpcHttpPerLogin: rpc.httpRequests / Math.max(1, run.responses),
        rpcCallsPerLogin: rpcCalls / Math.max(1, run.responses),
        rpcCallsByMethod: rpc.calls,
        rpcRequestBytesPerLogin: (rpc.requestBytes ?? 0) / Math.max(1, run.responses),
        rpcResponseBytesPerLogin: (rpc.responseBytes ?? 0) / Math.max(1, run.responses),
        holdingsScope: options.gateEnv?.HOLDINGS_SCOPE ?? 'all',
        gateSettings: gateSettingsOf(options.gateEnv),
        rpcRateLimited: rpc.rateLimited ?? 0,
        rpcRefusedCalls: rpc.provider?.refusedCalls ?? 0,
        rpcRefusedByReason: (rpc.provider?.refusedByReason ?? {}) as Record<string, number>,
        gateCpuUsPerLogin: (gateCpuMs * 1000) / Math.max(1, run.responses),
        warmLoginsPerSecond,
        targets: [],
      };
      result.targets = launchTargets(result);
      return result;
    } finally {
      await gate.stop();
    }
  } finally {
    await localnet.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The issue's targets at this latency: p50 ≤ 100 ms, p99 ≤ 200 ms, ≥ 90 % of min(warm, connections ÷ 0.085 s), ≤ 0.05 RPC/login, no errors. */
export function launchTargets(result: Pick<LaunchResult, 'wallets' | 'connections' | 'loginsPerSecond' | 'p50Ms' | 'p99Ms' | 'rpcHttpPerLogin' | 'errors' | 'warmLoginsPerSecond'>): LaunchTarget[] {
  const ceiling = Math.min(result.warmLoginsPerSecond, result.connections / 0.085);
  const floor = 0.9 * ceiling;
  return [
    { what: 'never-seen wallets', target: '≥ 20,000', value: result.wallets.toLocaleString('en-US'), met: result.wallets >= 20_000 },
    { what: 'p50', target: '≤ 100 ms', value: `${result.p50Ms.toFixed(1)} ms`, met: result.p50Ms <= 100 },
    { what: 'p99', target: '≤ 200 ms', value: `${result.p99Ms.toFixed(1)} ms`, met: result.p99Ms <= 200 },
    {
      what: 'logins/s',
      target: `≥ ${floor.toFixed(0)} (90 % of min(warm ${result.warmLoginsPerSecond.toFixed(0)}, ${result.connections} ÷ 0.085 s))`,
      value: result.loginsPerSecond.toFixed(0),
      met: result.loginsPerSecond >= floor,
    },
    { what: 'RPC HTTP requests per login', target: '≤ 0.05', value: result.rpcHttpPerLogin.toFixed(4), met: result.rpcHttpPerLogin <= 0.05 },
    { what: 'errors', target: '0', value: String(result.errors), met: result.errors === 0 },
  ];
}

/**
 * Warm logins/s on this machine: known wallets (caches warm) at 64 connections against a provider
 * without latency, as the main bench measures them; the provider is set back afterwards.
 */
async function measureWarm(
  localnet: LocalnetChild,
  known: ReturnType<typeof benchWallets>,
  policy: Record<string, string>,
  gateEnv: Record<string, string>,
  latencyMs: number,
  requestsPerSecond: number,
  log: (message: string) => void,
): Promise<number> {
  await localnet.admin('provider', { latencyMs: 0, requestsPerSecond: 0 });
  const gate = await startGateProcess({ rpcUrl: localnet.url, jwtSecret: BENCH_JWT_SECRET, env: gateEnv });
  try {
    const ctx: BenchContext = { gate, localnet, wallets: known, policy, tokens: [] };
    await warmUp(ctx);
    const run = await timedLogins(gate, await prepareLogins(ctx, WARM_LOGINS), WARM_CONNECTIONS);
    const rate = (run.statusCounts['200'] ?? 0) / run.durationSec;
    log(`warm logins: ${rate.toFixed(0)}/s at ${WARM_CONNECTIONS} connections (p50 ${run.p50Ms.toFixed(1)} ms)`);
    return rate;
  } finally {
    await gate.stop();
    await localnet.admin('provider', { latencyMs, requestsPerSecond });
  }
}

interface TimedRun {
  responses: number;
  durationSec: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  statusCounts: Record<string, number>;
  socketErrors: number;
}

/** Every prepared login sent once over `connections`; timed from the start to the last response. */
async function timedLogins(gate: Child, logins: Record<string, string>[], connections: number): Promise<TimedRun> {
  let next = 0;
  let lastResponseAt = 0;
  const requests: autocannon.Request[] = [
    {
      method: 'GET',
      path: AUTH_PATH,
      setupRequest: (request) => {
        const headers = logins[next++];
        if (headers === undefined) throw new Error('ran out of prepared logins (a nonce would be reused)');
        return { ...request, headers };
      },
      onResponse: () => {
        lastResponseAt = performance.now();
      },
    },
  ];
  const startedAt = performance.now();
  // The load's own deadline is only a safety net: the run ends when `amount` responses are in.
  const load = await runLoad({ url: gate.url + AUTH_PATH, connections, durationSec: 600, amount: logins.length, requests });
  return {
    responses: load.responses,
    durationSec: (lastResponseAt - startedAt) / 1000,
    p50Ms: load.p50Ms,
    p99Ms: load.p99Ms,
    maxMs: load.maxMs,
    statusCounts: load.statusCounts,
    socketErrors: load.errors,
  };
}

/** A run against a provider without limits: the issue's targets apply to it. */
function unlimited(result: Pick<LaunchResult, 'requestsPerSecond' | 'profile'>): boolean {
  return result.requestsPerSecond === 0 && (result.profile ?? 'none') === 'none';
}

/** The provider's limits of a run in a few words: its request rate and its profile. */
function providerLimits(result: Pick<LaunchResult, 'requestsPerSecond' | 'profile' | 'gateSettings'>): string {
  const parts = [...(result.requestsPerSecond > 0 ? [`${result.requestsPerSecond} requests/s`] : []), ...((result.profile ?? 'none') !== 'none' ? [`\`${result.profile}\``] : [])];
  const limits = parts.length ? parts.join(' + ') : 'none';
  return result.gateSettings ? `${limits}; gate \`${result.gateSettings}\`` : limits;
}

/** The gate's own settings of a run, beyond the scope the report shows in its own column. */
function gateSettingsOf(gateEnv: Record<string, string> | undefined): string | undefined {
  const settings = Object.entries(gateEnv ?? {}).filter(([name]) => name !== 'HOLDINGS_SCOPE' && name !== 'POLICIES_FILE');
  return settings.length ? settings.map(([name, value]) => `${name}=${value}`).join(' ') : undefined;
}

/** Lines for a log or a report: the figures and each target, met or not. */
export function describeLaunch(result: LaunchResult): string[] {
  const rateLimit = result.requestsPerSecond === 0 ? 'no rate limit' : `rate limit ${result.requestsPerSecond} requests/s (${result.rpcRateLimited} answered 429)`;
  const refused = Object.entries(result.rpcRefusedByReason ?? {}).map(([reason, n]) => `${reason} ${n}`).join(', ');
  return [
    `launch: ${result.wallets} never-seen wallets, ${result.connections} connections, RPC ${result.latencyMs} ms, ${rateLimit}, provider profile ${result.profileDescription ?? 'none'}, HOLDINGS_SCOPE=${result.holdingsScope ?? 'all'}${result.gateSettings ? `, gate ${result.gateSettings}` : ''}, ${result.warmGate ? 'gate process warmed on other wallets and mints' : 'gate process just started'}`,
    `  ${result.loginsPerSecond.toFixed(0)} logins/s over ${result.durationSec.toFixed(2)} s, p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms, max ${result.maxMs.toFixed(1)} ms`,
    `  statuses ${JSON.stringify(result.statusCounts)}, errors ${result.errors} (503: ${result.unavailable})`,
    `  RPC: ${result.rpcHttpRequests} HTTP requests (${result.rpcHttpPerLogin.toFixed(4)}/login), ${result.rpcCalls} JSON-RPC calls (${result.rpcCallsPerLogin.toFixed(4)}/login: ${JSON.stringify(result.rpcCallsByMethod ?? {})}), ${result.rpcRefusedCalls ?? 0} calls refused by the provider${refused ? ` (${refused})` : ''}, ${Math.round(result.rpcRequestBytesPerLogin ?? 0)} B sent / ${Math.round(result.rpcResponseBytesPerLogin ?? 0)} B received per login; gate ${result.gateCpuUsPerLogin.toFixed(0)} µs CPU/login`,
    // The targets are the issue's for a provider without limits.
    ...(unlimited(result) ? result.targets.map((t) => `  ${t.met ? 'met    ' : 'NOT MET'} ${t.what}: ${t.value} (target ${t.target})`) : []),
  ];
}

/** The report's section (bench/report.ts): each run's figures, and the targets of the runs without provider limits. */
export function renderLaunch(results: LaunchResult[]): string[] {
  const lines = ['## Launch: first sign-ins at RPC latency', ''];
  lines.push(
    'Never-seen wallets, each signing in once (signed beforehand), against the local chain answering every JSON-RPC request after `RPC_LATENCY_MS`, optionally with `RPC_REQUESTS_PER_SECOND` (HTTP 429 above it) or a provider profile (`RPC_PROFILE`, docs/local-chain.md "Provider profiles": batches refused, a budget in calls where every batch member counts, …) set for the launch; a new gate process with its default configuration, warmed (as a gate running before a launch is) by 2,000 logins of other wallets on other mints, so the launch\'s wallets and mints are unseen. Durations run from the first request to the last response. `bench/launch.ts`.',
    '',
    '| wallets | connections | RPC latency | provider limits | HOLDINGS_SCOPE | logins/s | p50 ms | p99 ms | max ms | statuses | errors | 503 | RPC HTTP/login sent | JSON-RPC calls/login sent | calls refused | bytes sent / received per login | 429s | gate CPU µs/login |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const r of results) {
    const refused = Object.entries(r.rpcRefusedByReason ?? {}).map(([reason, n]) => `${reason}: ${n}`).join(', ');
    const bytes = r.rpcResponseBytesPerLogin === undefined ? '–' : `${Math.round(r.rpcRequestBytesPerLogin ?? 0)} / ${Math.round(r.rpcResponseBytesPerLogin)}`;
    lines.push(
      `| ${r.wallets.toLocaleString('en-US')} | ${r.connections} | ${r.latencyMs} ms | ${providerLimits(r)} | ${r.holdingsScope ?? 'all'} | ${r.loginsPerSecond.toFixed(0)} | ${r.p50Ms.toFixed(1)} | ${r.p99Ms.toFixed(1)} | ${r.maxMs.toFixed(1)} | ${Object.entries(r.statusCounts).map(([status, n]) => `${status}: ${n}`).join(', ')} | ${r.errors} | ${r.unavailable} | ${r.rpcHttpPerLogin.toFixed(4)} | ${r.rpcCallsPerLogin.toFixed(4)} | ${r.rpcRefusedCalls ?? 0}${refused ? ` (${refused})` : ''} | ${bytes} | ${r.rpcRateLimited} | ${r.gateCpuUsPerLogin.toFixed(0)} |`,
    );
  }
  lines.push(
    '',
    'HOLDINGS_SCOPE `all` (the default): the blacklist\'s two mints count every token account the wallet owns, read after the signature verified (getTokenAccountsByOwner by mint), so a first sign-in waits for the verify and then a round trip; `ata`: its associated token accounts, read beside the signature (the longer of the two).',
  );
  for (const r of results.filter(unlimited)) {
    lines.push('', `Targets at ${r.latencyMs} ms, HOLDINGS_SCOPE=${r.holdingsScope ?? 'all'} (warm logins/s of this machine: ${r.warmLoginsPerSecond.toFixed(0)}):`, '', '| target | measured | |', '|---|---|---|');
    for (const t of r.targets) lines.push(`| ${t.what} ${t.target} | ${t.value} | ${t.met ? 'met' : '**not met**'} |`);
  }
  if (results.some((result) => !unlimited(result))) {
    lines.push(
      '',
      'Under provider limits a login gets a token only after its read was answered; one whose read cannot be done within `LOGIN_TIMEOUT_MS` answers 503 with `Retry-After` (counted above). "Calls refused" are the JSON-RPC calls the provider profile refused (every member of a refused array counts), by reason; 429s are HTTP requests refused by `RPC_REQUESTS_PER_SECOND`.',
    );
  }
  lines.push('');
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name: string): number | undefined => {
    const raw = process.argv.slice(2).find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} must be a non-negative number`);
    return value;
  };
  const warm = arg('warm-rps');
  const gateEnvArg = process.argv.slice(2).find((a) => a.startsWith('--gate-env='))?.slice('--gate-env='.length);
  const gateEnv = gateEnvArg === undefined ? undefined : Object.fromEntries(gateEnvArg.split(';').map((pair) => pair.split('=', 2) as [string, string]));
  const profiles = process.argv.slice(2).filter((a) => a.startsWith('--profile=')).map((a) => a.slice('--profile='.length));
  // Every profile is checked before the first run starts.
  for (const profile of profiles) profileFromEnv({ RPC_PROFILE: profile });
  const results: LaunchResult[] = [];
  let warmLoginsPerSecond = warm;
  for (const profile of profiles.length ? profiles : ['none']) {
    const result = await launchScenario({
      wallets: arg('wallets') ?? 20_000,
      connections: arg('connections') ?? 256,
      latencyMs: arg('latency') ?? 80,
      requestsPerSecond: arg('rps-limit') ?? 0,
      profile,
      ...(warmLoginsPerSecond === undefined ? {} : { warmLoginsPerSecond }),
      warmGate: !process.argv.includes('--cold'),
      ...(gateEnv === undefined ? {} : { gateEnv }),
    });
    warmLoginsPerSecond = result.warmLoginsPerSecond;
    results.push(result);
    console.log(describeLaunch(result).join('\n'));
  }
  if (results.length > 1) console.log(['', ...renderLaunch(results)].join('\n'));
}

import type autocannon from 'autocannon';
import { runLoad, type LoadResult } from './load.js';
import { type Child, type LocalnetChild, type RpcCounters, sampleMachine, sampleProcess } from './processes.js';
import { signLogins } from './sign-pool.js';
import { AUTH_PATH, authPath, type BenchSignMode, type BenchWallet, FEATURE, proofLoginHeaders, signedLoginHeaders, walletSeeds } from './wallets.js';

/**
 * The four scenarios of the issue, each one autocannon run against the gate process with the
 * gate's CPU time, RSS and the local chain's RPC counters read around it.
 */

export interface BenchContext {
  gate: Child;
  localnet: LocalnetChild;
  wallets: BenchWallet[];
  /** The blacklist policy headers every login and re-authentication carries. */
  policy: Record<string, string>;
  /** Re-authentication tokens, one per wallet, filled by warmUp. */
  tokens: string[];
  /**
   * Where logins get their nonces (default: the gate itself). A second gate with the same secret
   * issues nonces the first accepts; the profiler uses one so that preparing logins stays out of
   * the profile.
   */
  nonceSource?: Child;
}

export interface ScenarioResult {
  name: string;
  workerThreads: string;
  load: LoadResult;
  /** Successful signed logins (200 with a token). */
  authentications: number;
  gateCpuMs: number;
  gateCpuUsPerRequest: number;
  /** The gate's main thread (event loop) alone; the rest is the verify workers, libuv and V8 helpers. */
  gateMainThreadCpuUsPerRequest: number;
  gateRssBeforeMb: number;
  gateRssAfterMb: number;
  /** CPU time of the local chain process, per successful login. */
  localnetCpuUsPerAuth: number | undefined;
  /**
   * Where the machine's CPU went during the run, as a share of all cores: the gate, the load
   * generator (this process), the local chain, everything else (other jobs), idle.
   */
  machine: { gate: number; loadGenerator: number; localnet: number; other: number; idle: number };
  rpcHttpRequests: number;
  rpcCalls: number;
  rpcHttpPerAuth: number | undefined;
  rpcCallsPerAuth: number | undefined;
  /** JSON-RPC calls by method over the run (the local chain's counters). */
  rpcCallsByMethod?: Record<string, number>;
  /** Bytes of JSON-RPC requests the gate sent and of the answers it read, per successful login. */
  rpcRequestBytesPerAuth?: number | undefined;
  rpcResponseBytesPerAuth?: number | undefined;
}

interface Measured {
  load: LoadResult;
  authentications: number;
}

async function measure(name: string, workerThreads: string, ctx: BenchContext, run: () => Promise<Measured>): Promise<ScenarioResult> {
  await ctx.localnet.resetStats();
  const before = sampleProcess(ctx.gate.pid);
  const localnetBefore = sampleProcess(ctx.localnet.pid);
  const machineBefore = sampleMachine();
  const { load, authentications } = await run();
  const machineAfter = sampleMachine();
  const after = sampleProcess(ctx.gate.pid);
  const localnetCpuMs = sampleProcess(ctx.localnet.pid).cpuMs - localnetBefore.cpuMs;
  const machineMs = machineAfter.totalMs - machineBefore.totalMs;
  const idleMs = machineAfter.idleMs - machineBefore.idleMs;
  const rpc = await ctx.localnet.stats();
  const rpcCalls = totalCalls(rpc);
  const gateCpuMs = after.cpuMs - before.cpuMs;
  return {
    name,
    workerThreads,
    load,
    authentications,
    gateCpuMs,
    gateCpuUsPerRequest: load.responses > 0 ? (gateCpuMs * 1000) / load.responses : NaN,
    gateMainThreadCpuUsPerRequest: load.responses > 0 ? ((after.mainThreadCpuMs - before.mainThreadCpuMs) * 1000) / load.responses : NaN,
    gateRssBeforeMb: before.rssMb,
    gateRssAfterMb: after.rssMb,
    localnetCpuUsPerAuth: authentications > 0 ? (localnetCpuMs * 1000) / authentications : undefined,
    machine: {
      gate: gateCpuMs / machineMs,
      loadGenerator: load.loadGeneratorCpuMs / machineMs,
      localnet: localnetCpuMs / machineMs,
      other: Math.max(0, machineMs - idleMs - gateCpuMs - load.loadGeneratorCpuMs - localnetCpuMs) / machineMs,
      idle: idleMs / machineMs,
    },
    rpcHttpRequests: rpc.httpRequests,
    rpcCalls,
    rpcHttpPerAuth: authentications > 0 ? rpc.httpRequests / authentications : undefined,
    rpcCallsPerAuth: authentications > 0 ? rpcCalls / authentications : undefined,
    rpcCallsByMethod: rpc.calls,
    rpcRequestBytesPerAuth: authentications > 0 && rpc.requestBytes !== undefined ? rpc.requestBytes / authentications : undefined,
    rpcResponseBytesPerAuth: authentications > 0 && rpc.responseBytes !== undefined ? rpc.responseBytes / authentications : undefined,
  };
}

function totalCalls(counters: RpcCounters): number {
  return Object.values(counters.calls).reduce((sum, n) => sum + n, 0);
}

export interface RunShape {
  connections: number;
  durationSec: number;
  workerThreads: string;
}

/** 1. GET /x404_auth/blacklist without headers: a fresh nonce each time. */
export function nonceScenario(ctx: BenchContext, shape: RunShape): Promise<ScenarioResult> {
  return measure('nonce issuance', shape.workerThreads, ctx, async () => {
    const load = await runLoad({ url: ctx.gate.url + AUTH_PATH, connections: shape.connections, durationSec: shape.durationSec });
    return { load, authentications: 0 };
  });
}

/** Nonces from the gate (untimed), for the logins about to be signed. */
export async function collectNonces(gateUrl: string, count: number, target = FEATURE): Promise<string[]> {
  const nonces: string[] = [];
  await runLoad({
    url: gateUrl + authPath(target),
    connections: 64,
    durationSec: 120,
    amount: count,
    requests: [
      {
        method: 'GET',
        path: authPath(target),
        onResponse: (status, body) => {
          if (status === 200) nonces.push((JSON.parse(body) as { nonce: string }).nonce);
        },
      },
    ],
  });
  if (nonces.length < count) throw new Error(`asked the gate for ${count} nonces, got ${nonces.length}`);
  return nonces;
}

/** Signed login headers, wallets (seeds) in rotation, each nonce used exactly once; signed on every core. */
export async function prepareLogins(
  ctx: BenchContext,
  count: number,
  seeds: Uint8Array[] = ctx.wallets.map((w) => w.seed),
  mode: BenchSignMode = 'challenge',
  target = FEATURE,
): Promise<Record<string, string>[]> {
  const nonces = await collectNonces((ctx.nonceSource ?? ctx.gate).url, count, target);
  const signed = await signLogins(
    nonces.map((nonce, i) => ({ seed: seeds[i % seeds.length]!, nonce })),
    mode,
    target,
  );
  return signed.map(({ address, nonce, signature, message }) =>
    proofLoginHeaders(address, nonce, { signature, ...(message === undefined ? {} : { message }) }, mode, ctx.policy, target),
  );
}

let freshFamilies = 0;
/**
 * Logins of wallets this gate has never seen, one each: a launch, where every wallet signs in
 * for the first time (no cached ATA, no imported key). They hold nothing, so all pass.
 */
export async function prepareFirstLogins(ctx: BenchContext, count: number): Promise<Record<string, string>[]> {
  return prepareLogins(ctx, count, walletSeeds(count, `fresh-${process.pid}-${freshFamilies++}`));
}

/**
 * Requests that hand out `logins` one by one. autocannon calls setupRequest once per request it
 * sends; `amount` is kept below the number prepared, so a nonce is never sent twice.
 */
function loginRequests(logins: Record<string, string>[], onToken?: (status: number, body: string) => void, path = AUTH_PATH): autocannon.Request[] {
  let next = 0;
  return [
    {
      method: 'GET',
      path,
      setupRequest: (request) => {
        const headers = logins[next++];
        if (headers === undefined) throw new Error('ran out of prepared logins (a nonce would be reused)');
        return { ...request, headers };
      },
      ...(onToken ? { onResponse: onToken } : {}),
    },
  ];
}

/** Logins to prepare for a run: what `expectedRate` could use in `durationSec`, plus a margin. */
export function loginBudget(expectedRate: number, durationSec: number, connections: number): number {
  return Math.ceil(expectedRate * durationSec * 1.3) + 4 * connections;
}

/** 2. Signed blacklist logins: nonces issued and challenges signed before the timed phase. */
export async function loginScenario(
  ctx: BenchContext,
  shape: RunShape,
  prepared: Record<string, string>[],
  name = 'signed authentication',
  target = FEATURE,
): Promise<ScenarioResult> {
  return measure(name, shape.workerThreads, ctx, async () => {
    let authentications = 0;
    const load = await runLoad({
      url: ctx.gate.url + authPath(target),
      connections: shape.connections,
      durationSec: shape.durationSec,
      amount: prepared.length - 2 * shape.connections,
      requests: loginRequests(
        prepared,
        (status) => {
          if (status === 200) authentications++;
        },
        authPath(target),
      ),
    });
    return { load, authentications };
  });
}

/**
 * Untimed: one login per wallet, so the gate's caches are warm and the tokens for
 * re-authentication are collected; then, when `steadyLogins` > 0, that many more warm logins, so a
 * timed warm-login run finds the gate at steady state (STEADY_STATE_LOGINS says why).
 */
export async function warmUp(ctx: BenchContext, target = FEATURE, steadyLogins = 0): Promise<void> {
  const tokens = new Map<string, string>();
  await untimedLogins(ctx, ctx.wallets.length, target, (body) => {
    const reply = JSON.parse(body) as { token: string; publicKey: string };
    tokens.set(reply.publicKey, reply.token);
  });
  ctx.tokens = [...tokens.values()];
  if (steadyLogins > 0) await untimedLogins(ctx, steadyLogins, target);
}

/**
 * After one login per wallet the gate is still compiling: 8 back-to-back 3-second runs on one
 * fresh gate (2 cores, 64 connections, ~36,000 logins each) cost 116.5, 108.2, 101.8, 101.2,
 * 100.4, 98.1, 99.2 and 99.8 µs of CPU per login with the default pool, and 110.4 → 98.4 µs with
 * WORKER_THREADS=0 — TurboFan on V8's helper threads and the event loop's not-yet-optimized code.
 * The pool has two isolates to warm, so a short run charges it more than the inline verifier
 * (bench/PROFILE.md, "steady state"). A gate serves for days; a warm login is measured after this
 * many untimed ones (warmUp's `steadyLogins`).
 */
export const STEADY_STATE_LOGINS = 100_000;

/** `count` signed logins at 64 connections, untimed; any answer but 200 fails the bench. */
async function untimedLogins(ctx: BenchContext, count: number, target: string, onSuccess?: (body: string) => void): Promise<void> {
  // A few more prepared than sent: autocannon may start a request or two past `amount`.
  const logins = await prepareLogins(ctx, count + 256, undefined, 'challenge', target);
  const failures: Record<string, number> = {};
  await runLoad({
    url: ctx.gate.url + authPath(target),
    connections: 64,
    durationSec: 300,
    amount: count,
    requests: loginRequests(
      logins,
      (status, body) => {
        if (status === 200) return onSuccess?.(body);
        const key = `${status} ${body.slice(0, 200)}`;
        failures[key] = (failures[key] ?? 0) + 1;
      },
      authPath(target),
    ),
  });
  if (Object.keys(failures).length > 0) throw new Error(`untimed logins of ${target} failed: ${JSON.stringify(failures)}`);
}

/**
 * Re-authentication requests: x-jwt plus the same policy headers the login carried, one static
 * request per token. autocannon builds static requests once per connection and then only cycles
 * through them, which keeps the load generator's cost per request as low as for nonce requests
 * (a setupRequest per request would cost it ~10 µs more each, and it shares the cores).
 */
export function reauthRequests(ctx: Pick<BenchContext, 'tokens' | 'policy'>): autocannon.Request[] {
  return ctx.tokens.map((token) => ({ method: 'GET', path: AUTH_PATH, headers: { 'x-jwt': token, ...ctx.policy } }));
}

/** 3. Re-authentication with the tokens of 1000 wallets. */
export function reauthScenario(ctx: BenchContext, shape: RunShape): Promise<ScenarioResult> {
  return measure('re-authentication', shape.workerThreads, ctx, async () => {
    const load = await runLoad({
      url: ctx.gate.url + AUTH_PATH,
      connections: shape.connections,
      durationSec: shape.durationSec,
      requests: reauthRequests(ctx),
    });
    return { load, authentications: 0 };
  });
}

/**
 * 4. Mixed: every connection loops nonce → sign → login, wallets in rotation, as real clients do
 * (the load generator signs during the timed phase, ~60–90 µs of its CPU per login).
 */
export function mixedScenario(ctx: BenchContext, shape: RunShape): Promise<ScenarioResult> {
  return measure('mixed nonce + login', shape.workerThreads, ctx, async () => {
    let nextWallet = 0;
    let authentications = 0;
    const load = await runLoad({
      url: ctx.gate.url + AUTH_PATH,
      connections: shape.connections,
      durationSec: shape.durationSec,
      requests: [
        {
          method: 'GET',
          path: AUTH_PATH,
          onResponse: (status, body, context) => {
            (context as { nonce?: string }).nonce = status === 200 ? (JSON.parse(body) as { nonce: string }).nonce : undefined;
          },
        },
        {
          method: 'GET',
          path: AUTH_PATH,
          setupRequest: (request, context) => {
            const nonce = (context as { nonce?: string }).nonce;
            if (nonce === undefined) return { ...request, headers: {} };
            const wallet = ctx.wallets[nextWallet++ % ctx.wallets.length]!;
            return { ...request, headers: signedLoginHeaders(wallet, nonce, ctx.policy) };
          },
          onResponse: (status) => {
            if (status === 200) authentications++;
          },
        },
      ],
    });
    return { load, authentications };
  });
}

/** Forward-auth requests (`/x404_verify`, as nginx auth_request sends them), one static request per token. */
export const FORWARD_AUTH_PATH = '/x404_verify?feature=blacklist';
export function forwardAuthRequests(ctx: Pick<BenchContext, 'tokens'>): autocannon.Request[] {
  return ctx.tokens.map((token) => ({ method: 'GET', path: FORWARD_AUTH_PATH, headers: { authorization: `Bearer ${token}` } }));
}

/** 5. Forward auth: a proxy asking whether each request's bearer token is good (tokens of 256 wallets). */
export function forwardAuthScenario(ctx: BenchContext, shape: RunShape, name = 'forward auth'): Promise<ScenarioResult> {
  return measure(name, shape.workerThreads, ctx, async () => {
    const load = await runLoad({ url: ctx.gate.url + FORWARD_AUTH_PATH, connections: shape.connections, durationSec: shape.durationSec, requests: forwardAuthRequests(ctx) });
    return { load, authentications: 0 };
  });
}

/** First sign-ins against logins of known wallets, measured in alternation (see pairedFirstSignIns). */
export interface PairedFirstSignIns {
  rounds: number;
  durationSec: number;
  /** Logins/s of known wallets and of first sign-ins, in the order they ran (two of each per round). */
  known: number[];
  first: number[];
  /** Σ first ÷ Σ known. */
  ratio: number;
}

/**
 * First sign-ins beside logins of known wallets, ABBA per round (known, first, first, known): on a
 * shared machine whose speed drifts by tens of percent within minutes, two single runs taken one
 * after the other compare the drift as much as the scenarios; alternating cancels a steady drift.
 */
export async function pairedFirstSignIns(ctx: BenchContext, shape: RunShape, rounds: number, budget: number): Promise<PairedFirstSignIns> {
  const known: number[] = [];
  const first: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const which of ['known', 'first', 'first', 'known'] as const) {
      const prepared = which === 'known' ? await prepareLogins(ctx, budget) : await prepareFirstLogins(ctx, budget);
      const result = await loginScenario(ctx, shape, prepared, which);
      (which === 'known' ? known : first).push(result.load.rps);
    }
  }
  const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0);
  return { rounds, durationSec: shape.durationSec, known, first, ratio: sum(first) / sum(known) };
}

export type ScenarioName = 'nonce' | 'reauth' | 'mixed' | 'first' | 'login' | 'forward';

/** One named scenario (compare.ts and profile.ts pick them by name); `logins` signed beforehand. */
export async function runScenario(ctx: BenchContext, name: ScenarioName, shape: RunShape, logins: number): Promise<ScenarioResult> {
  switch (name) {
    case 'nonce':
      return nonceScenario(ctx, shape);
    case 'reauth':
      return reauthScenario(ctx, shape);
    case 'mixed':
      return mixedScenario(ctx, shape);
    case 'first':
      return loginScenario(ctx, shape, await prepareFirstLogins(ctx, logins));
    case 'login':
      return loginScenario(ctx, shape, await prepareLogins(ctx, logins));
    case 'forward':
      return forwardAuthScenario(ctx, shape);
  }
}

/** Any other name (e.g. "login", "auth") means the signed-login scenario. */
export function scenarioName(text: string): ScenarioName {
  return text === 'nonce' || text === 'reauth' || text === 'mixed' || text === 'first' || text === 'forward' ? text : 'login';
}

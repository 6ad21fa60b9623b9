/**
 * The call budget over time (issue 33): a provider that sells `--budget` calls per second, every
 * batch member counted (the local chain's `per-call-budget` profile, a rolling one-second window,
 * `--latency` ms per answer), and a burst of first sign-ins (blacklist, never-seen wallets) at
 * `--connections`; once with RPC_CALLS_PER_SECOND told, once without it (the gate learns the budget
 * from the provider's refusals, src/chain/learned-budget.ts). Per second, side by side: calls the
 * provider received, accepted and refused (the local chain's provider.perSecond), and the budget
 * the gate paced by (its x404_rpc_call_budget, sampled every 250 ms: the lowest of the second).
 *
 *   npm run build && node dist/bench/learned-budget.js [--logins=2000] [--connections=64]
 *        [--latency=80] [--budget=150] [--out=bench/LEARNED-BUDGET.md]
 *
 * It loads the machine for about a minute: run it once.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { demoMint } from 'x404-localnet/fixture.js';
import { BENCH_JWT_SECRET, type LocalnetChild, startGateProcess, startLocalnetProcess } from './processes.js';
import { machineLine } from './provider-budget.js';
import { AUTH_PATH, keyFromSeed, signedLoginHeaders } from './wallets.js';

export interface LearnedBudgetOptions {
  logins?: number;
  connections?: number;
  latencyMs?: number;
  budget?: number;
  log?: (message: string) => void;
}

export interface SecondRow {
  calls: number;
  refused: number;
  /** The budget the gate paced by (0: none; undefined: not sampled). */
  budget: number | undefined;
}

export interface ModeResult {
  mode: 'told' | 'learned';
  logins: number;
  statusCounts: Record<string, number>;
  durationMs: number;
  calls: number;
  refused: number;
  /** The second of the first refusal (-1: none). */
  firstRefusal: number;
  /** The last second in which every connection still had a sign-in to send. */
  lastBusy: number;
  seconds: SecondRow[];
}

export interface LearnedBudgetResult {
  date: string;
  machine: string;
  logins: number;
  connections: number;
  latencyMs: number;
  budget: number;
  modes: ModeResult[];
}

const POLICY = { excluded_mints: JSON.stringify([demoMint('usdc')]), max_holdings: '{}', geo_code: 'false', geo_code_locs: '' };

export async function learnedBudget(options: LearnedBudgetOptions = {}): Promise<LearnedBudgetResult> {
  const logins = options.logins ?? 2000;
  const connections = options.connections ?? 64;
  const latencyMs = options.latencyMs ?? 80;
  const budget = options.budget ?? 150;
  const log = options.log ?? ((message: string) => process.stderr.write(`[learned-budget ${new Date().toISOString().slice(11, 19)}] ${message}\n`));
  const localnet = await startLocalnetProcess({ RPC_LATENCY_MS: String(latencyMs) });
  const modes: ModeResult[] = [];
  try {
    await localnet.admin('provider', { profile: { preset: 'per-call-budget', callsPerSecond: budget } });
    for (const mode of ['told', 'learned'] as const) {
      log(`${mode}: ${logins} first sign-ins at ${connections} connections, a provider of ${budget} calls/s, ${latencyMs} ms away`);
      modes.push(await runMode(localnet, mode, { logins, connections, budget }));
      const last = modes.at(-1)!;
      log(`${mode}: ${JSON.stringify(last.statusCounts)} in ${(last.durationMs / 1000).toFixed(1)} s, ${last.calls} calls, ${last.refused} refused`);
    }
  } finally {
    await localnet.admin('provider', { profile: 'none' }).catch(() => undefined);
    await localnet.stop();
  }
  return { date: new Date().toISOString(), machine: machineLine(), logins, connections, latencyMs, budget, modes };
}

async function runMode(localnet: LocalnetChild, mode: 'told' | 'learned', options: { logins: number; connections: number; budget: number }): Promise<ModeResult> {
  const gate = await startGateProcess({ rpcUrl: localnet.url, jwtSecret: BENCH_JWT_SECRET, env: mode === 'told' ? { RPC_CALLS_PER_SECOND: String(options.budget) } : {} });
  try {
    // Never-seen wallets: fresh seeds each run.
    const wallets = Array.from({ length: options.logins }, () => keyFromSeed(randomBytes(32)));
    await localnet.resetStats();
    const samples: { at: number; perSecond: number }[] = [];
    let running = true;
    const sampling = (async () => {
      while (running) {
        const text = await (await fetch(`${gate.url}/metrics`)).text();
        samples.push({ at: Date.now(), perSecond: Number(/^x404_rpc_call_budget (\S+)$/m.exec(text)?.[1] ?? Number.NaN) });
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();
    const statusCounts: Record<string, number> = {};
    const started = performance.now();
    let next = 0;
    let lastStartedAt = Date.now();
    await Promise.all(
      Array.from({ length: options.connections }, async () => {
        while (next < wallets.length) {
          const wallet = wallets[next++]!;
          lastStartedAt = Date.now();
          let status: string;
          try {
            const challenge = await fetch(`${gate.url}${AUTH_PATH}`);
            await challenge.arrayBuffer();
            const nonce = challenge.headers.get('x-404-nonce') ?? '';
            const answer = await fetch(`${gate.url}${AUTH_PATH}`, { headers: signedLoginHeaders(wallet, nonce, POLICY) });
            await answer.arrayBuffer();
            status = String(answer.status);
          } catch {
            status = 'socket error';
          }
          statusCounts[status] = (statusCounts[status] ?? 0) + 1;
        }
      }),
    );
    const durationMs = performance.now() - started;
    running = false;
    await sampling;
    const provider = (await localnet.stats()).provider!;
    const { startedAt, seconds } = provider.perSecond;
    const budgetIn = (second: number): number | undefined => {
      const inSecond = samples.filter(({ at }) => Math.floor((at - startedAt) / 1000) === second).map(({ perSecond }) => perSecond);
      return inSecond.length > 0 ? Math.min(...inSecond) : undefined;
    };
    return {
      mode,
      logins: options.logins,
      statusCounts,
      durationMs,
      calls: provider.calls,
      refused: provider.refusedCalls,
      firstRefusal: seconds.findIndex((second) => second.refused > 0),
      lastBusy: Math.floor((lastStartedAt - startedAt) / 1000) - 1,
      seconds: seconds.map((second, i) => ({ ...second, budget: budgetIn(i) })),
    };
  } finally {
    await gate.stop();
  }
}

/** Calls the provider accepted per second over [from, to]: mean and lowest (undefined: no such second). */
function acceptedOver(result: ModeResult, from: number, to: number): { mean: number; lowest: number } | undefined {
  const accepted = result.seconds.slice(from, to + 1).map((second) => second.calls - second.refused);
  if (accepted.length === 0) return undefined;
  return { mean: accepted.reduce((sum, n) => sum + n, 0) / accepted.length, lowest: Math.min(...accepted) };
}

export function renderLearnedBudget(result: LearnedBudgetResult): string[] {
  const statuses = (mode: ModeResult): string => Object.entries(mode.statusCounts).map(([status, n]) => `${status}: ${n}`).join(', ');
  const lines = [
    '## The call budget over time, told and learned',
    '',
    `${result.date}, ${result.machine}. \`node dist/bench/learned-budget.js --logins=${result.logins} --connections=${result.connections} --latency=${result.latencyMs} --budget=${result.budget}\`.`,
    '',
    `A provider that sells ${result.budget} calls per second, every batch member counted in a rolling one-second window (the local chain's \`per-call-budget\` profile, in its own process, ${result.latencyMs} ms per answer), and ${result.logins} first sign-ins of never-seen wallets (blacklist, one excluded mint) at ${result.connections} connections, on a fresh gate: "told" with \`RPC_CALLS_PER_SECOND=${result.budget}\`, "learned" without it (the gate learns the budget from the provider's refusals, \`src/chain/learned-budget.ts\`). Per second of the run: calls the provider received, accepted and refused (the local chain's \`provider.perSecond\`) and the budget the gate paced by (\`x404_rpc_call_budget\`, the lowest of the second's samples; 0: none yet). "Steady" is from 10 s after the first refusal (from 10 s for a run without one) to the last second in which every connection still had a sign-in to send.`,
    '',
    '| run | sign-ins | statuses | time | sign-ins/s | calls sent | refused | first refusal | accepted/s, steady: mean (lowest) |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const mode of result.modes) {
    const from = (mode.firstRefusal < 0 ? 0 : mode.firstRefusal) + 10;
    const steady = acceptedOver(mode, from, mode.lastBusy);
    lines.push(
      `| ${mode.mode} | ${mode.logins} | ${statuses(mode)} | ${(mode.durationMs / 1000).toFixed(1)} s | ${((mode.logins * 1000) / mode.durationMs).toFixed(0)} | ${mode.calls} | ${mode.refused} (${((100 * mode.refused) / Math.max(1, mode.calls)).toFixed(1)} %) | ${mode.firstRefusal < 0 ? '–' : `${mode.firstRefusal} s`} | ${steady ? `${steady.mean.toFixed(0)} (${steady.lowest}) = ${((100 * steady.mean) / result.budget).toFixed(0)} % of ${result.budget}` : '–'} |`,
    );
  }
  const [told, learned] = result.modes;
  const cell = (mode: ModeResult | undefined, second: number): string => {
    const row = mode?.seconds[second];
    if (row === undefined) return '| | | | ';
    return `| ${row.calls} | ${row.calls - row.refused} | ${row.refused} | ${row.budget === undefined ? '' : Number.isFinite(row.budget) ? row.budget : '?'}`;
  };
  lines.push(
    '',
    `| second | told: sent | accepted | refused | budget | learned: sent | accepted | refused | budget |`,
    '|---|---|---|---|---|---|---|---|---|',
  );
  const rows = Math.max(told?.seconds.length ?? 0, learned?.seconds.length ?? 0);
  for (let second = 0; second < rows; second++) lines.push(`| ${second} ${cell(told, second)} ${cell(learned, second)} |`);
  lines.push('');
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name: string): string | undefined => process.argv.slice(2).find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const positive = (name: string, fallback: number): number => {
    const raw = arg(name);
    const value = raw === undefined ? fallback : Number(raw);
    if (!(Number.isFinite(value) && value > 0)) throw new Error(`--${name} must be a positive number`);
    return value;
  };
  const out = arg('out') ?? fileURLToPath(new URL('../../bench/LEARNED-BUDGET.md', import.meta.url));
  const result = await learnedBudget({
    logins: positive('logins', 2000),
    connections: positive('connections', 64),
    latencyMs: positive('latency', 80),
    budget: positive('budget', 150),
  });
  writeFileSync(out, ['# Call budget, told and learned', '', ...renderLearnedBudget(result)].join('\n'));
  process.stderr.write(`wrote ${out}\n`);
}

/**
 * A launch's whole rule beside one feature (issue 15): the example rule of docs/rules.md against
 * blacklist alone, the same gate, the same 1,000 warm wallets, in alternation (blacklist, rule,
 * rule, blacklist) × rounds so that the machine's drift cancels.
 *
 *   node dist/bench/rule.js [--seconds=10] [--rounds=2] [--out=bench/RULE.md] [--only=launch|blacklist]
 *
 * Every bench wallet meets the rule the way most holders of a real launch would: it is on the
 * snapshot list (so the collection leaf is not needed), not on the deny list, holds no banned mint,
 * first transacted 40 days ago, holds the tier mint and has no lending debt (so `atLeast 2` is met
 * by tier + nodebt and activity's history is not read). The lists carry filler addresses so that
 * the lookups run against lists of launch size (100,000 and 10,000 addresses).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import bs58 from 'bs58';
import { fileURLToPath } from 'node:url';
import { BENCH_JWT_SECRET, type LocalnetChild, startGateProcess, startLocalnetProcess } from './processes.js';
import { type BenchContext, loginBudget, loginScenario, prepareLogins, type ScenarioResult, warmUp } from './scenarios.js';
import { benchWallets, type BenchWallet, FEATURE } from './wallets.js';
import { exampleLaunchRule } from './example-rule.js';

export const RULE = 'launch';
const WALLETS = 1000;
const CONNECTIONS = 64;
const SNAPSHOT_SIZE = 100_000;
const DENIED_SIZE = 10_000;
const TIER_AMOUNT = '100000000';

export interface RuleBenchResult {
  date: string;
  machine: string;
  durationSec: number;
  connections: number;
  wallets: number;
  blacklist: ScenarioResult[];
  rule: ScenarioResult[];
  /** Σ rule CPU ÷ Σ rule logins against the same for blacklist (≤ 1.5 is the target). */
  cpuRatio: number;
  /** Σ rule logins/s ÷ Σ blacklist logins/s. */
  rateRatio: number;
}

function log(message: string): void {
  process.stderr.write(`[rule bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

const randomAddress = (): string => bs58.encode(randomBytes(32));

interface RuleChain {
  policiesFile: string;
  /** Headers of the blacklist login measured beside the rule (the rule's own blacklist leaf). */
  blacklistHeaders: Record<string, string>;
}

/** The chain state and the policies file (with its two lists) every bench wallet passes. */
async function setUpRuleChain(localnet: LocalnetChild, wallets: BenchWallet[], dir: string): Promise<RuleChain> {
  const banned = (await localnet.admin('mint', { decimals: 6, program: 'token' })).address as string;
  const tierMint = (await localnet.admin('mint', { decimals: 6, program: 'token2022' })).address as string;
  const funder = wallets[0]!.address;
  for (let start = 0; start < wallets.length; start += 32) {
    await Promise.all(
      wallets.slice(start, start + 32).flatMap((wallet, i) => [
        localnet.admin('token-account', { owner: wallet.address, mint: tierMint, amount: TIER_AMOUNT, program: 'token2022' }),
        // An empty account of the banned mint for a third of them: read and checked, not held.
        ...((start + i) % 3 === 0 ? [localnet.admin('token-account', { owner: wallet.address, mint: banned, amount: '0', program: 'token' })] : []),
        localnet.admin('sol-transfer', { from: funder, to: wallet.address, lamports: 1_000_000, daysAgo: 40 }),
      ]),
    );
  }
  const snapshot = [...wallets.map((w) => w.address), ...Array.from({ length: SNAPSHOT_SIZE - wallets.length }, randomAddress)];
  writeFileSync(`${dir}snapshot.txt`, `# bench snapshot\n${snapshot.join('\n')}\n`);
  writeFileSync(`${dir}denied.txt`, `${Array.from({ length: DENIED_SIZE }, randomAddress).join('\n')}\n`);
  const collection = randomAddress();
  const policies = {
    blacklist: { launch: { excluded_mints: [banned], max_holdings: {} } },
    rules: {
      [RULE]: exampleLaunchRule({ collection, tierMint, tierAmount: TIER_AMOUNT }),
    },
  };
  const policiesFile = `${dir}policies.json`;
  writeFileSync(policiesFile, JSON.stringify(policies, null, 2));
  return { policiesFile, blacklistHeaders: { 'X-404-Policy': 'launch' } };
}

const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);

/** `only`: measure one side (for a profile: BENCH_CPU_PROF_DIR=<dir> node dist/bench/rule.js --only=launch). */
export async function ruleBench(options: { durationSec: number; rounds: number; only?: string }): Promise<RuleBenchResult> {
  const dir = fileURLToPath(new URL('../../bench/.tmp/rule/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const wallets = benchWallets(WALLETS, 'rule');
  const localnet = await startLocalnetProcess();
  try {
    const chain = await setUpRuleChain(localnet, wallets, dir);
    const cpuProfileDir = process.env.BENCH_CPU_PROF_DIR;
    const gate = await startGateProcess({ rpcUrl: localnet.url, jwtSecret: BENCH_JWT_SECRET, env: { POLICIES_FILE: chain.policiesFile }, ...(cpuProfileDir ? { cpuProfileDir } : {}) });
    try {
      const blacklistCtx: BenchContext = { gate, localnet, wallets, policy: chain.blacklistHeaders, tokens: [] };
      const ruleCtx: BenchContext = { gate, localnet, wallets, policy: {}, tokens: [] };
      await warmUp(blacklistCtx, FEATURE);
      await warmUp(ruleCtx, RULE);
      // Logins/s to prepare for (then what the previous run of the same side achieved).
      const rates: Record<string, number> = { [FEATURE]: 6000, [RULE]: 6000 };
      const blacklist: ScenarioResult[] = [];
      const rule: ScenarioResult[] = [];
      for (let round = 0; round < options.rounds; round++) {
        for (const which of options.only === undefined ? [FEATURE, RULE, RULE, FEATURE] : [options.only]) {
          const isRule = which === RULE;
          const ctx = isRule ? ruleCtx : blacklistCtx;
          const prepared = await prepareLogins(ctx, loginBudget(Math.max(rates[which]!, 2000) * 1.5, options.durationSec, CONNECTIONS), undefined, 'challenge', which);
          const shape = { connections: CONNECTIONS, durationSec: options.durationSec, workerThreads: 'default' };
          const result = await loginScenario(ctx, shape, prepared, isRule ? `rule ${RULE}` : 'blacklist alone', which);
          rates[which] = result.load.rps;
          (isRule ? rule : blacklist).push(result);
          log(`${result.name}: ${result.load.rps.toFixed(0)}/s, p99 ${result.load.p99Ms.toFixed(1)} ms, ${result.gateCpuUsPerRequest.toFixed(0)} µs CPU/login, ${result.rpcHttpPerAuth?.toFixed(3)} RPC HTTP/login, non-2xx ${result.load.non2xx}`);
        }
      }
      const cpuPerLogin = (runs: ScenarioResult[]): number => sum(runs.map((r) => r.gateCpuMs)) / sum(runs.map((r) => r.load.responses));
      return {
        date: new Date().toISOString(),
        machine: `${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${os.availableParallelism()} cores, Node ${process.version}`,
        durationSec: options.durationSec,
        connections: CONNECTIONS,
        wallets: WALLETS,
        blacklist,
        rule,
        cpuRatio: cpuPerLogin(rule) / cpuPerLogin(blacklist),
        rateRatio: sum(rule.map((r) => r.load.rps)) / sum(blacklist.map((r) => r.load.rps)),
      };
    } finally {
      await gate.stop();
    }
  } finally {
    await localnet.stop();
  }
}

/** The section of RESULTS.md (and of bench/RULE.md when run alone). */
export function renderRuleBench(result: RuleBenchResult): string {
  const row = (r: ScenarioResult): string =>
    `| ${r.name} | ${r.load.rps.toFixed(0)} | ${r.load.p50Ms.toFixed(2)} | ${r.load.p99Ms.toFixed(2)} | ${r.load.non2xx} | ${r.authentications} | ${r.gateCpuUsPerRequest.toFixed(1)} | ${r.rpcHttpPerAuth?.toFixed(3) ?? '–'} | ${r.rpcCallsPerAuth?.toFixed(3) ?? '–'} |`;
  const interleaved = result.blacklist.flatMap((b, i) => (i % 2 === 0 ? [b, result.rule[i]!] : [result.rule[i]!, b]));
  const met = result.cpuRatio <= 1.5 ? 'met' : '**not met**';
  return [
    `## A launch's whole rule beside one feature`,
    '',
    `The example rule of docs/rules.md (blacklist + age ≥ 30 days + (collection or snapshot list of ${SNAPSHOT_SIZE.toLocaleString('en-US')}) + not on a deny list of ${DENIED_SIZE.toLocaleString('en-US')} + 2 of (tier, activity, nodebt)) against blacklist alone, the same gate, ${result.wallets.toLocaleString('en-US')} warm wallets, ${result.connections} connections, ${result.durationSec} s per run, in the order shown. Every wallet passes the rule through the snapshot, tier and nodebt (activity not needed): per login the gate reads the wallet's ATAs (one getMultipleAccounts batch shared with other logins), one getSignaturesForAddress page (age) and three getProgramAccounts scans (nodebt: kamino, save, marginfi).`,
    '',
    '| run | logins/s | p50 ms | p99 ms | non-2xx | logins | gate CPU µs/login | RPC HTTP/login | RPC calls/login |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...interleaved.map(row),
    '',
    `| target | measured | |`,
    '| --- | --- | --- |',
    `| the rule's gate CPU per login ≤ 1.5× blacklist alone | ${result.cpuRatio.toFixed(2)}× | ${met} |`,
    `| the rule's logins/s beside blacklist alone (no target) | ${(result.rateRatio * 100).toFixed(1)} % | |`,
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const numberArg = (name: string, fallback: number): number => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
  const out = process.argv.find((a) => a.startsWith('--out='))?.slice(6) ?? fileURLToPath(new URL('../../bench/RULE.md', import.meta.url));
  const only = process.argv.find((a) => a.startsWith('--only='))?.slice(7);
  const result = await ruleBench({ durationSec: numberArg('seconds', 10), rounds: numberArg('rounds', 2), ...(only ? { only } : {}) });
  writeFileSync(out, `# Rule benchmark\n\n${result.date}, ${result.machine}. \`node dist/bench/rule.js\`.\n\n${renderRuleBench(result)}`);
  log(`wrote ${out}: rule CPU/login ${result.cpuRatio.toFixed(2)}× blacklist alone`);
}

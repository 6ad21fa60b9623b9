import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createChainReader } from '../chain/reader.js';
import { ConfigError, loadConfig } from '../config.js';
import { decodeBase58 } from '../lib/base58.js';
import { loadPolicyFile } from '../policy/load.js';
import { evaluateRule, valueOf, type LeafOutcome, type RuleOutcome } from '../rules/evaluate.js';
import type { Rule, RuleNode } from '../rules/types.js';
import { EXIT, printResult, UsageError } from './io.js';

export const CHECK_HELP = `Usage: x404 check --rule <name> --wallet <address> [--policies <file>] [--rpc <url>] [--lat <n> --long <n>] [--json]

Evaluates one of the gate's rules for a wallet, as a sign-in would, without a signature and without
issuing anything: every leaf is checked (even those a sign-in would skip) and the tree is printed
with each leaf's outcome and figures — what support needs when a holder says "it refused me".

  --rule <name>       the rule, as named in the policies file
  --wallet <address>  the wallet (base58)
  --policies <file>   the gate's POLICIES_FILE (default: $POLICIES_FILE)
  --rpc <url>         the RPC endpoint(s) (default: $SOLANA_RPC_URL); other settings (HOLDINGS_SCOPE,
                      HISTORY_MAX_PAGES, DAS_URL, …) are read from the environment as the gate reads them
  --lat <n> --long <n>  the holder's position, for leaves whose policy turns geolocation on
  --json              print {rule, wallet, passed, error, leaves} as JSON instead of the tree

Exit codes: 0 the wallet meets the rule; 1 it does not; 2 usage error; 3 a leaf could not be read.`;

export async function checkCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      rule: { type: 'string' },
      wallet: { type: 'string' },
      policies: { type: 'string' },
      rpc: { type: 'string' },
      lat: { type: 'string' },
      long: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    printResult(CHECK_HELP);
    return EXIT.ok;
  }
  const policiesFile = values.policies ?? process.env.POLICIES_FILE;
  const rpc = values.rpc ?? process.env.SOLANA_RPC_URL;
  if (values.rule === undefined || values.wallet === undefined) throw new UsageError('give --rule and --wallet');
  if (!policiesFile) throw new UsageError('give --policies (or set POLICIES_FILE)');
  if (!rpc) throw new UsageError('give --rpc (or set SOLANA_RPC_URL)');
  const publicKey = decodeBase58(values.wallet);
  if (publicKey?.length !== 32) throw new UsageError(`--wallet must be a base58 Solana address, got "${values.wallet.slice(0, 60)}"`);

  let config;
  let rule: Rule | undefined;
  try {
    // The secret keys nothing here; the gate's other settings apply as they would to a sign-in.
    config = loadConfig({ ...process.env, JWT_SECRET: randomBytes(32).toString('base64url'), SOLANA_RPC_URL: rpc, POLICIES_FILE: policiesFile, LOG_LEVEL: 'silent' });
    const policies = loadPolicyFile(policiesFile, config.policyMode);
    rule = policies.rules.get(values.rule);
    if (rule === undefined) throw new UsageError(`${policiesFile} has no rule "${values.rule}"; rules: ${policies.ruleNames.join(', ') || '(none)'}`);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }

  const chain = createChainReader(config);
  let outcome: RuleOutcome;
  try {
    outcome = await evaluateRule(rule, { address: values.wallet, publicKey }, { chain, config, now: Date.now, latitude: values.lat, longitude: values.long, exhaustive: true });
  } finally {
    await chain.close();
  }

  if (values.json) {
    printResult(JSON.stringify({ rule: rule.name, pol: rule.digest, wallet: values.wallet, passed: outcome.passed, error: outcome.error?.body(), leaves: outcome.leaves.map(leafJson) }, null, 2));
  } else {
    printResult(verdict(rule, values.wallet, outcome));
    printResult(renderTree(rule.root, outcome.leaves).join('\n'));
  }
  if (outcome.passed === undefined) return EXIT.unavailable;
  return outcome.passed ? EXIT.ok : EXIT.refused;
}

function verdict(rule: Rule, wallet: string, outcome: RuleOutcome): string {
  const what = `rule ${rule.name} (pol ${rule.digest}) for ${wallet}`;
  if (outcome.passed === true) return `✓ ${what}: passes`;
  const error = outcome.error!;
  if (outcome.passed === false) return `✗ ${what}: refused with ${error.httpStatus} ${error.code}: ${error.message}`;
  return `? ${what}: undecided — ${error.httpStatus} ${error.code}: ${error.message}`;
}

const MARK = { passed: '✓', failed: '✗', unknown: '?', skipped: '·' } as const;

/** The tree, one line per node, each leaf with its outcome and, below it, its figures. */
function renderTree(node: RuleNode, leaves: readonly LeafOutcome[], prefix = '', last = true, root = true): string[] {
  const branch = root ? '' : last ? '└─ ' : '├─ ';
  const below = root ? '' : last ? '   ' : '│  ';
  if (node.kind === 'feature' || node.kind === 'wallets') {
    const outcome = leaves[node.index]!;
    const what = node.kind === 'wallets' ? `wallets ${node.file} (${node.list.size} ${node.list.size === 1 ? 'address' : 'addresses'})` : `${node.feature}${node.policyName ? ` (policy ${node.policyName})` : ''}`;
    const lines = [`${prefix}${branch}${MARK[outcome.state]} ${node.path}  ${what}: ${describeState(outcome)}`];
    for (const figure of figures(outcome)) lines.push(`${prefix}${below}    ${figure}`);
    return lines;
  }
  const label = node.kind === 'atLeast' ? `at least ${node.needed} of` : node.kind;
  const children = node.kind === 'not' ? [node.child] : node.children;
  const value = valueOf(node, leaves);
  const lines = [`${prefix}${branch}${value === true ? '✓' : value === false ? '✗' : '?'} ${label}  ${node.path}`];
  children.forEach((child, i) => lines.push(...renderTree(child, leaves, prefix + below, i === children.length - 1, false)));
  return lines;
}

function describeState({ state, error, leaf }: LeafOutcome): string {
  if (state === 'passed') return leaf.kind === 'wallets' ? 'listed' : 'passed';
  if (state === 'skipped') return 'not evaluated';
  if (leaf.kind === 'wallets' && state === 'failed') return 'not listed';
  return `${state === 'failed' ? 'failed' : 'could not be read'} — ${error?.code}: ${error?.message}`;
}

/** The leaf's numbers: its results when it passed, the error's fields when it did not. */
function figures({ results, error }: LeafOutcome): string[] {
  const fields = error ? { ...error.options.extra } : { ...results };
  return Object.entries(fields).map(([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
}

function leafJson({ leaf, state, results, error }: LeafOutcome): Record<string, unknown> {
  const what = leaf.kind === 'wallets' ? { wallets: leaf.file } : { feature: leaf.feature, policy: leaf.policyName };
  return { path: leaf.path, ...what, state, ...(results ? { results } : {}), ...(error ? { error: error.body() } : {}) };
}

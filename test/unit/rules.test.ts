import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainReader } from '../../src/chain/types.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { FEATURE_NAMES } from '../../src/contract/features.js';
import { demoMint, demoWallet } from 'x404-localnet/fixture.js';
import { loadPolicyFile } from '../../src/policy/load.js';
import { ruleFailure } from '../../src/rules/answer.js';
import { evaluateRule } from '../../src/rules/evaluate.js';
import type { Rule, RuleNode } from '../../src/rules/types.js';
import { prng, Seeded } from '../helpers/seeded.js';

/**
 * Rules without the network: the loader against 10,000 generated files (only clear start-up
 * errors, never a crash), and the evaluator against a plain truth-table evaluation of random trees.
 */
let dir: string;
const wallet = demoWallet('old');
const LISTS = { 'in.txt': [wallet.publicKey], 'out.txt': [demoWallet('young').publicKey], 'empty.txt': [] as string[] };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'x404-rules-unit-'));
  for (const [name, addresses] of Object.entries(LISTS)) writeFileSync(join(dir, name), addresses.join('\n'));
  writeFileSync(join(dir, 'bad.txt'), 'not an address\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function load(document: unknown): ReturnType<typeof loadPolicyFile> {
  const path = join(dir, 'policies.json');
  writeFileSync(path, typeof document === 'string' ? document : JSON.stringify(document));
  return loadPolicyFile(path, 'open');
}

describe('the rule loader', () => {
  it('gives the same digest to the same tree whatever the key order, and a different one when a leaf changes', () => {
    const a = load({ rules: { r: { all: [{ feature: 'age', min_wallet_age_days: '30' }, { wallets: 'in.txt' }] } } }).rules.get('r')!;
    const b = load({ rules: { r: { all: [{ min_wallet_age_days: '30', feature: 'age' }, { wallets: 'in.txt' }] } } }).rules.get('r')!;
    const c = load({ rules: { r: { all: [{ feature: 'age', min_wallet_age_days: '31' }, { wallets: 'in.txt' }] } } }).rules.get('r')!;
    const d = load({ rules: { r: { all: [{ feature: 'age', min_wallet_age_days: '30' }, { wallets: 'out.txt' }] } } }).rules.get('r')!;
    expect(a.digest).toBe(b.digest);
    expect(c.digest).not.toBe(a.digest);
    expect(d.digest).not.toBe(a.digest);
  });

  it('resolves a leaf that names a policy to that policy, and the rule\'s digest follows the policy', () => {
    const policy = (mints: string[]) => ({ blacklist: { launch: { excluded_mints: mints, max_holdings: {} } }, rules: { r: { feature: 'blacklist', policy: 'launch' } } });
    const one = load(policy([demoMint('banned')])).rules.get('r')!;
    const two = load(policy([demoMint('banned'), demoMint('bonk')])).rules.get('r')!;
    expect(one.leaves[0]).toMatchObject({ kind: 'feature', feature: 'blacklist', policyName: 'launch' });
    expect(one.digest).not.toBe(two.digest);
    expect(one.heldMints).toEqual([demoMint('banned')]);
  });

  it('survives 10,000 generated files: each loads or stops with a POLICIES_FILE error naming where', () => {
    const random = new Seeded(prng(20261124));
    let loaded = 0;
    for (let i = 0; i < 10_000; i++) {
      const document = randomDocument(random);
      let outcome: 'loaded' | string;
      try {
        load(document);
        outcome = 'loaded';
        loaded++;
      } catch (error) {
        if (!(error instanceof ConfigError)) throw new Error(`file ${i} (${JSON.stringify(document).slice(0, 300)}) threw ${String(error)}`);
        outcome = error.message;
      }
      if (outcome !== 'loaded') {
        expect(outcome, `file ${i}`).toMatch(/^Invalid configuration: POLICIES_FILE .*policies\.json: /);
        // A problem inside a rule names the rule and, below its top, the path in its tree.
        if (/^Invalid configuration: POLICIES_FILE [^:]*: rule "/.test(outcome)) expect(outcome).toMatch(/: rule "[^"]*"(: | at \$[^ ]*: )/);
      }
    }
    // The generator makes valid files too, so the happy path is exercised, not only refusals.
    expect(loaded).toBeGreaterThan(500);
  });
});

describe('the evaluator', () => {
  it('agrees with a plain evaluation of 2,000 random trees over wallet lists, and fails with the deciding leaf', async () => {
    const random = new Seeded(prng(7));
    const chain = {} as ChainReader; // wallet lists read nothing
    const config = loadConfig({ JWT_SECRET: 'x'.repeat(32), SOLANA_RPC_URL: 'http://127.0.0.1:9' });
    for (let i = 0; i < 2_000; i++) {
      const tree = randomTree(random, 1);
      const rule = load({ rules: { r: tree } }).rules.get('r')!;
      const outcome = await evaluateRule(rule, { address: wallet.publicKey, publicKey: Buffer.from(wallet.publicKey ? decode(wallet.publicKey) : []) }, {
        chain,
        config,
        now: Date.now,
        latitude: undefined,
        longitude: undefined,
      });
      const expected = reference(rule.root);
      expect(outcome.passed, JSON.stringify(tree)).toBe(expected);
      if (expected === false) {
        expect(outcome.error?.code).toBe(decidingCode(rule.root));
        // `failed` names only leaves that counted against the wallet (leaves the outcome did not need may be left out).
        const failed = ruleFailure(rule, outcome).body().failed as string[];
        expect(failed.length).toBeGreaterThan(0);
        for (const path of failed) expect(countsAgainst(rule, path), `${path} in ${JSON.stringify(tree)}`).toBe(true);
      }
      for (const { leaf, state } of outcome.leaves) {
        if (state !== 'skipped') expect(state, leaf.path).toBe(listed((leaf as { file: string }).file) ? 'passed' : 'failed');
      }
    }
  });
});

// --- reference semantics -------------------------------------------------------------------------

const listed = (file: string): boolean => (LISTS as Record<string, string[]>)[file]?.includes(wallet.publicKey) ?? false;

function reference(node: RuleNode): boolean {
  switch (node.kind) {
    case 'wallets':
      return listed(node.file);
    case 'feature':
      throw new Error('only wallet lists here');
    case 'not':
      return !reference(node.child);
    case 'all':
      return node.children.every(reference);
    case 'any':
      return node.children.some(reference);
    case 'atLeast':
      return node.children.filter(reference).length >= node.needed;
  }
}

/** docs/rules.md: the first failing child decides all/any/atLeast; a failing `not` of a list is WALLET_DENIED. */
function decidingCode(node: RuleNode): string {
  switch (node.kind) {
    case 'wallets':
      return 'WALLET_NOT_LISTED';
    case 'not':
      return node.child.kind === 'wallets' ? 'WALLET_DENIED' : 'RULE_NOT_MET';
    case 'feature':
      throw new Error('only wallet lists here');
    default:
      return decidingCode(node.children.find((child) => !reference(child))!);
  }
}

function countsAgainst(rule: Rule, path: string): boolean {
  const leaf = rule.leaves.find((candidate) => candidate.path === path)!;
  if (leaf.kind !== 'wallets') return false;
  const negations = (path.match(/\.not/g) ?? []).length;
  return negations % 2 === 1 ? listed(leaf.file) : !listed(leaf.file);
}

function decode(address: string): Uint8Array {
  const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  let value = 0n;
  for (const char of address) value = value * 58n + BigInt(alphabet.indexOf(char));
  const bytes = new Uint8Array(32);
  for (let i = 31; i >= 0; i--) {
    bytes[i] = Number(value & 0xffn);
    value >>= 8n;
  }
  return bytes;
}

// --- generators ----------------------------------------------------------------------------------

function randomTree(random: Seeded, depth: number): unknown {
  const leafOnly = depth >= 4 || random.chance(0.35);
  if (leafOnly) return { wallets: random.pick(['in.txt', 'out.txt', 'empty.txt']) };
  const children = Array.from({ length: 1 + random.int(4) }, () => randomTree(random, depth + 1));
  switch (random.int(4)) {
    case 0:
      return { all: children };
    case 1:
      return { any: children };
    case 2:
      return { atLeast: 1 + random.int(children.length), of: children };
    default:
      return { not: children[0] };
  }
}

const FIELD_VALUES: Record<string, () => unknown> = {
  excluded_mints: () => [demoMint('banned')],
  max_holdings: () => ({}),
  min_wallet_age_days: () => '30',
  tier_config: () => ({ bronze: { mint: demoMint('tier'), amount: '1' } }),
  required_tokens: () => [{ mint: demoMint('usdc'), amount: '1' }],
  min_transactions: () => '3',
  time_period_days: () => '30',
  check_protocols: () => ['kamino'],
};

const NOISE: (() => unknown)[] = [() => null, () => 7, () => -1, () => 'x', () => '', () => [], () => ({}), () => [1, 2], () => ({ a: 1 }), () => true, () => 1.5, () => 'ñ'.repeat(70)];

/** A policies document: mostly well-formed rules, with one or two things wrong in many of them. */
function randomDocument(random: Seeded): unknown {
  if (random.chance(0.02)) return random.pick(['', '[]', 'null', '{', '"rules"']);
  const rules: Record<string, unknown> = {};
  for (let i = 0; i < 1 + random.int(3); i++) {
    const name = random.chance(0.9) ? `rule-${i}` : random.pick(['blacklist', 'Age', '', '-x', 'a b', 'x'.repeat(80), 'rule-0']);
    rules[name] = randomNode(random, 1);
  }
  const document: Record<string, unknown> = { rules: random.chance(0.03) ? random.pick(NOISE)() : rules };
  if (random.chance(0.3)) document.blacklist = { launch: { excluded_mints: [demoMint('banned')], max_holdings: {} } };
  if (random.chance(0.02)) document[random.pick(['nope', 'Rules', 'collections'])] = {};
  return document;
}

function randomNode(random: Seeded, depth: number): unknown {
  if (random.chance(0.03)) return random.pick(NOISE)();
  if (depth > 9 || random.chance(0.4)) return randomLeaf(random);
  const children = random.chance(0.03) ? [] : Array.from({ length: 1 + random.int(3) }, () => randomNode(random, depth + 1));
  const node: Record<string, unknown> = (() => {
    switch (random.int(5)) {
      case 0:
        return { all: children };
      case 1:
        return { any: children };
      case 2:
        return { atLeast: random.chance(0.9) ? 1 + random.int(children.length || 1) : random.pick(NOISE)(), of: children };
      case 3:
        return { not: children[0] ?? {} };
      default:
        return { any: children.length > 0 ? children : random.pick(NOISE)() };
    }
  })();
  if (random.chance(0.03)) node[random.pick(['all', 'feature', 'extra', 'of'])] = random.pick(NOISE)();
  return node;
}

function randomLeaf(random: Seeded): unknown {
  if (random.chance(0.3)) {
    const leaf: Record<string, unknown> = { wallets: random.chance(0.9) ? random.pick(['in.txt', 'out.txt', 'empty.txt']) : random.pick(['bad.txt', 'missing.txt', '', '../nope', 7]) };
    if (random.chance(0.03)) leaf.extra = 1;
    return leaf;
  }
  const feature = random.chance(0.95) ? random.pick([...FEATURE_NAMES]) : random.pick(['nope', '', 5]);
  if (random.chance(0.15)) return { feature, policy: random.pick(['launch', 'nope', 7]), ...(random.chance(0.1) ? { min_wallet_age_days: '1' } : {}) };
  const leaf: Record<string, unknown> = { feature };
  const fields: Record<string, string[]> = {
    blacklist: ['excluded_mints', 'max_holdings'],
    age: ['min_wallet_age_days'],
    tier: ['tier_config'],
    multitoken: ['required_tokens'],
    activity: ['min_transactions', 'time_period_days'],
    nodebt: ['check_protocols'],
    timelock: ['required_mint', 'mint_amount', 'min_hold_duration_days'],
  };
  for (const field of fields[feature as string] ?? []) {
    if (random.chance(0.05)) continue; // a required field left out
    leaf[field] = random.chance(0.92) ? (FIELD_VALUES[field]?.() ?? (field === 'required_mint' ? demoMint('lock') : '1')) : random.pick(NOISE)();
  }
  if (random.chance(0.05)) leaf[random.pick(['lat', 'unknown_field', 'geo_code'])] = random.pick(NOISE)();
  return leaf;
}

import type { ChainReader } from '../chain/types.js';
import { type HoldingsPlan, walletHoldings, type WalletHoldings } from '../chain/wallet-holdings.js';
import type { Config } from '../config.js';
import { GateError } from '../errors.js';
import { holdingsPlan as planHoldings } from '../features/holdings-plan.js';
import { FEATURES } from '../features/registry.js';
import type { FeatureContext, FeatureResults, ReadCost } from '../features/types.js';
import { checkLocation } from '../geo/locate.js';
import { abortableChain, LeafStop } from './abortable-chain.js';
import type { Rule, RuleLeaf, RuleNode } from './types.js';

/**
 * Evaluates a rule for one wallet (docs/rules.md): the fewest reads that decide the tree.
 *
 * Leaves run in waves by what their reads cost — wallet lists (no read), then account reads, then
 * program scans, then history walks — and a wave starts only the leaves whose answer can still
 * change the outcome: none under a node that is already decided (`any` with a passing child, `all`
 * with a failing one, `atLeast` reached or out of reach). The leaves of one wave run together, so
 * their reads share round trips (their balances come from one WalletHoldings, their account reads
 * merge in the batcher). The moment a running leaf can no longer change the outcome it is aborted:
 * its chain reader refuses new reads, so a history walk stops at its next page.
 *
 * A leaf that passes or fails by its feature's own answers (Feature.failures) is decided; any other
 * error — the chain could not be read, a history bound was hit — leaves it unknown. A rule that
 * cannot be decided without an unknown leaf fails closed with that leaf's error (503 for an
 * unreadable chain); one that is decided anyway does not care.
 */
export interface RuleEnvironment {
  /** The login's chain reader (it carries LOGIN_TIMEOUT_MS's deadline). */
  chain: ChainReader;
  config: Config;
  now(): number;
  /** The login's deadline (performance.now() ms), for reads that do not go through `chain` (DAS). */
  deadlineMs?: number;
  /** The caller's position (X-Lat / X-Long), for leaves whose policy turns geolocation on. */
  latitude: string | undefined;
  longitude: string | undefined;
  /** Evaluate every leaf, even those the outcome does not need (`x404 check`: support wants every figure). */
  exhaustive?: boolean;
}

export type LeafState = 'passed' | 'failed' | 'unknown' | 'skipped';

export interface LeafOutcome {
  leaf: RuleLeaf;
  /** `skipped`: the outcome was decided without it (never started, or aborted). */
  state: LeafState;
  /** A passing feature leaf's results (as the feature alone would answer them). */
  results?: FeatureResults;
  /** Why a leaf failed (its feature's answer) or is unknown (the read that did not work). */
  error?: GateError;
}

export interface RuleOutcome {
  /** undefined: the outcome depends on a leaf that could not be read. */
  passed: boolean | undefined;
  /** One per leaf, in tree order. */
  leaves: LeafOutcome[];
  /**
   * On failure: the error of the leaf that decided it (docs/rules.md, "Answers"). Undecided: the
   * first reason (tree order) a leaf the outcome needs could not be read — fail closed with it.
   */
  error?: GateError;
}

const WAVES: readonly (ReadCost | 'memory')[] = ['memory', 'accounts', 'scan', 'history'];

export async function evaluateRule(rule: Rule, wallet: { address: string; publicKey: Uint8Array }, environment: RuleEnvironment): Promise<RuleOutcome> {
  // Planned when the first feature leaf starts, from the leaves that can still change the outcome.
  let holdings: WalletHoldings | undefined;
  const run = (leaf: RuleLeaf, stop: LeafStop, states: readonly LeafOutcome[]): Promise<LeafOutcome> => {
    if (leaf.kind === 'wallets') return Promise.resolve(listOutcome(leaf, wallet.publicKey));
    holdings ??= walletHoldings(environment.chain, wallet.address, holdingsPlan(rule, states, environment.config.holdingsScope));
    return runLeaf(leaf, { wallet, environment, holdings, chain: abortableChain(environment.chain, stop), stop });
  };

  if (environment.exhaustive) {
    // Every leaf, for the figures; the verdict is what a sign-in would answer: the same schedule
    // replayed over these outcomes (outcomes do not depend on which other leaves ran).
    const never = new LeafStop();
    const none: LeafOutcome[] = rule.leaves.map((leaf) => ({ leaf, state: 'skipped' }));
    const all = await Promise.all(rule.leaves.map((leaf) => run(leaf, never, none)));
    const replayed = await schedule(rule, (leaf) => Promise.resolve(all[leaf.index]!));
    return { ...verdict(rule, replayed), leaves: all };
  }
  return verdict(rule, await schedule(rule, run));
}

/**
 * Runs the waves; returns each leaf's outcome (`skipped` for those not run or aborted). Within a
 * wave a leaf that can no longer change the outcome is aborted — but never one that comes before
 * the deciding leaf in tree order and could still become it — so the answer is the same whatever
 * order the leaves of a wave finish in.
 */
async function schedule(rule: Rule, run: (leaf: RuleLeaf, stop: LeafStop, states: readonly LeafOutcome[]) => Promise<LeafOutcome>): Promise<LeafOutcome[]> {
  const states: LeafOutcome[] = rule.leaves.map((leaf) => ({ leaf, state: 'skipped' }));
  for (const wave of WAVES) {
    if (valueOf(rule.root, states) !== undefined) break;
    const runnable = rule.leaves.filter((leaf) => waveOf(leaf) === wave && undecidedAbove(rule.root, leaf, states));
    if (runnable.length === 0) continue;
    const running = new Map(runnable.map((leaf) => [leaf, new LeafStop()]));
    await new Promise<void>((resolve, reject) => {
      for (const [leaf, stop] of running) {
        run(leaf, stop, states).then(
          (outcome) => {
            if (!running.delete(leaf)) return;
            states[leaf.index] = outcome;
            // Whatever can no longer change the answer stops reading now.
            for (const [other, otherAbort] of running) {
              if (stillMatters(rule, other, states)) continue;
              otherAbort.abort();
              running.delete(other);
            }
            if (running.size === 0) resolve();
          },
          (error: unknown) => {
            // A bug, not an answer: the login ends in 500 INTERNAL_ERROR.
            for (const otherAbort of running.values()) otherAbort.abort();
            running.clear();
            reject(error);
          },
        );
      }
    });
  }
  return states;
}

/**
 * What the leaves that can still change the outcome will read (src/chain/wallet-holdings.ts): a
 * leaf already decided away costs nothing — when the snapshot list passed the `any` beside a
 * collection leaf, balances come from the ATAs and the wallet's token-account lists are not read.
 * A leaf under a `not` is planned as the deny condition it is (its `negated`), so a `not` over
 * tier or multitoken counts every account the wallet owns (unless its policy says `scope: ata`).
 */
function holdingsPlan(rule: Rule, states: readonly LeafOutcome[], defaultScope: Config['holdingsScope']): HoldingsPlan {
  const checks = [];
  for (const leaf of rule.leaves) {
    if (leaf.kind !== 'feature' || !undecidedAbove(rule.root, leaf, states)) continue;
    checks.push({ module: FEATURES[leaf.feature], params: leaf.policy.params, negated: leaf.negated });
  }
  return planHoldings(checks, defaultScope);
}

function verdict(rule: Rule, states: LeafOutcome[]): RuleOutcome {
  const value = valueOf(rule.root, states);
  if (value === true) return { passed: true, leaves: states };
  if (value === false) return { passed: false, leaves: states, error: decidingError(rule.root, states) };
  // Undecided: a leaf it needs could not be read. Fail closed with the first such reason, in tree order.
  const unknown = states.find((outcome) => outcome.state === 'unknown' && undecidedAbove(rule.root, outcome.leaf, states));
  return { passed: undefined, leaves: states, error: unknown?.error ?? new GateError(500, 'INTERNAL_ERROR', 'The rule could not be decided; no token was issued.') };
}

/**
 * Whether a running leaf can still change the answer. While the root is open: when no node above
 * it is decided. Once the root passed: never. Once it failed: when it comes before the deciding
 * leaf in tree order and every node between the root and it is still open — it could fail and
 * become the deciding leaf (decidingError takes the first failing child).
 */
function stillMatters(rule: Rule, leaf: RuleLeaf, states: readonly LeafOutcome[]): boolean {
  const root = valueOf(rule.root, states);
  if (root === undefined) return undecidedAbove(rule.root, leaf, states);
  if (root === true) return false;
  const deciding = decidingLeaf(rule.root, states);
  if (leaf.index > deciding.index) return false;
  const children = rule.root.kind === 'not' ? [rule.root.child] : rule.root.kind === 'feature' || rule.root.kind === 'wallets' ? [] : rule.root.children;
  return children.some((child) => contains(child, leaf) && undecidedAbove(child, leaf, states));
}

interface LeafContext {
  wallet: { address: string; publicKey: Uint8Array };
  environment: RuleEnvironment;
  holdings: WalletHoldings;
  chain: ChainReader;
  stop: LeafStop;
}

function waveOf(leaf: RuleLeaf): (typeof WAVES)[number] {
  return leaf.kind === 'wallets' ? 'memory' : FEATURES[leaf.feature].cost;
}

/** What a leaf's check gets: the login's context, its own chain view, and its stop switch's signal only when asked for. */
class LeafFeatureContext implements FeatureContext {
  readonly chain: ChainReader;
  readonly holdings: WalletHoldings;
  readonly config: Config;
  readonly now: () => number;
  readonly deadlineMs: number | undefined;
  private readonly stop: LeafStop;

  constructor({ chain, holdings, environment, stop }: LeafContext) {
    this.chain = chain;
    this.holdings = holdings;
    this.config = environment.config;
    this.now = environment.now;
    this.deadlineMs = environment.deadlineMs;
    this.stop = stop;
  }

  get signal(): AbortSignal {
    return this.stop.signal;
  }
}

function listOutcome(leaf: RuleLeaf & { kind: 'wallets' }, publicKey: Uint8Array): LeafOutcome {
  if (leaf.list.has(publicKey)) return { leaf, state: 'passed' };
  return { leaf, state: 'failed', error: notListed(leaf.file) };
}

async function runLeaf(leaf: RuleLeaf & { kind: 'feature' }, context: LeafContext): Promise<LeafOutcome> {
  const module = FEATURES[leaf.feature];
  const { environment, stop } = context;
  try {
    const results = await module.check(context.wallet.address, leaf.policy.params, new LeafFeatureContext(context));
    if (leaf.policy.geo.enabled) checkLocation({ ...leaf.policy.geo, latitude: environment.latitude, longitude: environment.longitude });
    return { leaf, state: 'passed', results };
  } catch (error) {
    if (stop.aborted) return { leaf, state: 'skipped' };
    if (!(error instanceof GateError)) throw error;
    const failed = error.code === 'LOCATION_DENIED' || module.failures.some(({ code }) => code === error.code);
    return { leaf, state: failed ? 'failed' : 'unknown', error };
  }
}

/** true / false once decided by the leaves known so far; undefined while it depends on others. */
export function valueOf(node: RuleNode, states: readonly LeafOutcome[]): boolean | undefined {
  switch (node.kind) {
    case 'feature':
    case 'wallets': {
      const state = states[node.index]!.state;
      return state === 'passed' ? true : state === 'failed' ? false : undefined;
    }
    case 'not': {
      const value = valueOf(node.child, states);
      return value === undefined ? undefined : !value;
    }
    case 'all':
    case 'any':
    case 'atLeast': {
      const needed = node.kind === 'all' ? node.children.length : node.kind === 'any' ? 1 : node.needed;
      let passed = 0;
      let open = 0;
      for (const child of node.children) {
        const value = valueOf(child, states);
        if (value === true) passed++;
        else if (value === undefined) open++;
      }
      if (passed >= needed) return true;
      if (passed + open < needed) return false;
      return undefined;
    }
  }
}

/**
 * Whether `leaf` can still change the outcome: no node on the way from the root down to it is
 * decided (an undecided all/any/atLeast/not depends on each of its undecided children).
 */
function undecidedAbove(node: RuleNode, leaf: RuleLeaf, states: readonly LeafOutcome[]): boolean {
  if (node === leaf) return true;
  if (valueOf(node, states) !== undefined) return false;
  const children = node.kind === 'not' ? [node.child] : node.kind === 'feature' || node.kind === 'wallets' ? [] : node.children;
  return children.some((child) => contains(child, leaf) && undecidedAbove(child, leaf, states));
}

function contains(node: RuleNode, leaf: RuleLeaf): boolean {
  return (leafMask(node) & (1 << leaf.index)) !== 0;
}

/** The leaves under a node as bits (a rule has at most 32 leaves), worked out once per node. */
const leafMasks = new WeakMap<RuleNode, number>();
function leafMask(node: RuleNode): number {
  let mask = leafMasks.get(node);
  if (mask === undefined) {
    if (node.kind === 'feature' || node.kind === 'wallets') mask = 1 << node.index;
    else if (node.kind === 'not') mask = leafMask(node.child);
    else mask = node.children.reduce((bits, child) => bits | leafMask(child), 0);
    leafMasks.set(node, mask);
  }
  return mask;
}

/**
 * The error a failed node answers with: that of the first failing child (tree order) for
 * all/any/atLeast, so a client sees the same status and message the feature alone would give.
 * A `not` fails because what it negates passed: a deny list that lists the wallet, or a check the
 * wallet must not meet.
 */
function decidingError(node: RuleNode, states: readonly LeafOutcome[]): GateError {
  if (node.kind === 'not') return negationFailed(node.child, node.path);
  if (node.kind === 'feature' || node.kind === 'wallets') return states[node.index]!.error!;
  return decidingError(node.children.find((child) => valueOf(child, states) === false)!, states);
}

/** The leaf whose answer decidingError gives (under a failing `not`, the negated subtree's first leaf). */
function decidingLeaf(node: RuleNode, states: readonly LeafOutcome[]): RuleLeaf {
  if (node.kind === 'feature' || node.kind === 'wallets') return node;
  if (node.kind === 'not') return firstLeaf(node.child);
  return decidingLeaf(node.children.find((child) => valueOf(child, states) === false)!, states);
}

function firstLeaf(node: RuleNode): RuleLeaf {
  if (node.kind === 'feature' || node.kind === 'wallets') return node;
  return firstLeaf(node.kind === 'not' ? node.child : node.children[0]!);
}

/**
 * One answer per list file, made once: under a deny list (`not`) most wallets are "not listed",
 * and an Error's stack trace costs more than the lookup. GateErrors are never changed once made.
 */
const notListedErrors = new Map<string, GateError>();
function notListed(file: string): GateError {
  let error = notListedErrors.get(file);
  if (error === undefined) {
    error = new GateError(403, 'WALLET_NOT_LISTED', `Wallet is not on the list ${file}`, { extra: { list: file } });
    if (notListedErrors.size < 1024) notListedErrors.set(file, error);
  }
  return error;
}

function negationFailed(negated: RuleNode, path: string): GateError {
  if (negated.kind === 'wallets') {
    return new GateError(403, 'WALLET_DENIED', `Wallet is on the deny list ${negated.file}`, { extra: { list: negated.file } });
  }
  const what = negated.kind === 'feature' ? `the ${negated.feature} check at ${negated.path}` : `the condition at ${negated.path}`;
  return new GateError(403, 'RULE_NOT_MET', `Wallet meets ${what}, which this rule requires it not to meet (${path})`);
}

/**
 * The chain state and operator policies behind bench/provider-budget.ts: for each target (a
 * feature under a typical named policy, the example launch rule, the rule passing through its
 * collection leaf) wallets whose state makes them pass, wallets whose state makes them fail, and a
 * few warm-up wallets that pass. Every address is derived (wallet seeds by family, mints and other
 * accounts by label), so this process and the local chain's process agree without talking.
 *
 * Run as the local chain's process (`startLocalnetProcess(env, 'bench/budget-chain.js')`): it
 * starts the local chain with its demo fixture (packages/localnet/src/server.ts), adds the state for
 * BUDGET_WALLETS wallets per family, and prints the URL line packages/localnet/src/main.ts prints. The admin
 * API cannot build histories of token transfers, lending obligations or NFTs, so the state is built
 * here with the local chain's own recipes.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { editionPda, metadataAccount, metadataPda, TOKEN_STANDARD } from 'x404-localnet/collections/metaplex.js';
import { DEMO_COLLECTIONS } from 'x404-localnet/collections/fixture.js';
import { providerSettingsFromEnv } from 'x404-localnet/provider.js';
import { solTransfer, tokenTransfer } from 'x404-localnet/recipes.js';
import { startLocalnet } from 'x404-localnet/server.js';
import { type ChainState, labelAddress } from 'x404-localnet/state.js';
import { benchWallets, walletSeeds } from './wallets.js';
import { exampleLaunchRule } from './example-rule.js';

/** Warm-up wallets per target: they teach a fresh gate the policy's mint programs and the node's horizon. */
export const WARM_UP_WALLETS = 16;
/** The example rule's name in the policies file (as bench/rule.ts names it). */
export const BUDGET_RULE = 'launch';

const mint = (name: string): string => labelAddress(`budget:mint:${name}`);
export const BUDGET_MINTS = {
  banned: mint('banned'),
  capped: mint('capped'),
  wanted1: mint('wanted-1'),
  wanted2: mint('wanted-2'),
  tier: mint('tier'),
  lock: mint('lock'),
} as const;
/** The collection the collection feature and the rule's collection leaf name: the demo fixture's Token Metadata collection A. */
export const BUDGET_COLLECTION = DEMO_COLLECTIONS.a;
const FUNDER = labelAddress('budget:funder');
const LOCK_SOURCE = labelAddress('budget:lock-source');
const NFT_AUTHORITY = labelAddress('collection:update-authority');

const CAP = '1000000000';
const HELD = '250000000';
const TIER = { bronze: '100000000', silver: '1000000000', gold: '10000000000' };
const WANTED = '5000000';
const LOCKED = '1000000000';

export type Outcome = 'pass' | 'fail' | 'warmup';
type Build = (state: ChainState, wallet: string, i: number) => void;

/** One thing a wallet signs in to, as a launch would configure it. */
export interface BudgetTarget {
  /** Name in the report. */
  name: string;
  /** The feature or the rule signed in to (/x404_auth/<path>). */
  path: string;
  /** The named policy (X-404-Policy) of a feature; a rule needs none. */
  policy?: string;
  /** Wallet families: targets with the same chain state share them (each gate is new, so they are unseen). */
  family: string;
  /** What the typical policy asks, in words. */
  describe: string;
  /** Gate settings worth a row of their own (HOLDINGS_SCOPE only matters to deny conditions). */
  scopes: ('all' | 'ata')[];
  pass: string;
  fail: string;
}

export const BUDGET_TARGETS: BudgetTarget[] = [
  { name: 'blacklist', path: 'blacklist', policy: 'launch', family: 'blacklist', describe: '1 excluded mint, 1 max_holdings mint', scopes: ['all', 'ata'], pass: 'holds the capped mint under its cap', fail: 'holds the excluded mint' },
  { name: 'multitoken', path: 'multitoken', policy: 'launch', family: 'multitoken', describe: '2 required mints, ALL', scopes: ['all'], pass: 'holds both', fail: 'holds one of the two' },
  { name: 'tier', path: 'tier', policy: 'launch', family: 'tier', describe: 'bronze/silver/gold of one mint', scopes: ['all'], pass: 'holds silver', fail: 'holds less than bronze' },
  { name: 'timelock', path: 'timelock', policy: 'launch', family: 'timelock', describe: '1 mint, held ≥ 30 days', scopes: ['all'], pass: 'received it 60 days ago (1 transfer)', fail: 'received it 3 days ago' },
  { name: 'age', path: 'age', policy: 'launch', family: 'age', describe: 'min_wallet_age_days 30', scopes: ['all'], pass: 'first transaction 40 days ago', fail: 'first transaction 3 days ago' },
  { name: 'activity', path: 'activity', policy: 'launch', family: 'activity', describe: '≥ 5 transactions in 30 days', scopes: ['all'], pass: '6 transfers sent in the period', fail: '2 in the period, 1 before' },
  { name: 'activity (types)', path: 'activity', policy: 'typed', family: 'activity', describe: '≥ 5 transfers in 30 days (transaction_types: reads transactions)', scopes: ['all'], pass: '6 transfers sent in the period', fail: '2 in the period, 1 before' },
  { name: 'nodebt', path: 'nodebt', policy: 'launch', family: 'nodebt', describe: 'all 3 protocols, max $0', scopes: ['all'], pass: 'no lending account', fail: '$100 borrowed on Save' },
  { name: 'collection', path: 'collection', policy: 'launch', family: 'collection', describe: '1 Token Metadata collection, no DAS_URL', scopes: ['all'], pass: '1 verified NFT + 1 fungible account', fail: '1 fungible account, no NFT' },
  { name: 'rule (snapshot)', path: BUDGET_RULE, family: 'rule', describe: "bench/rule.ts's example rule; on the snapshot list", scopes: ['all', 'ata'], pass: 'old, tier held, no debt, on the list', fail: 'the same but first transaction 3 days ago' },
  { name: 'rule (collection leaf)', path: BUDGET_RULE, family: 'rule-collection', describe: 'the same rule; not on the list, passes through the collection leaf', scopes: ['all'], pass: 'the same + 1 NFT of the collection, not on the list', fail: 'not on the list, no NFT' },
];

/** The chain state of each family's wallets, by outcome (warm-up wallets pass). */
const BUILDERS: Record<string, { pass: Build; fail: Build }> = {
  blacklist: {
    pass: (state, wallet, i) => {
      state.addTokenAccount({ owner: wallet, mint: BUDGET_MINTS.capped, amount: HELD, program: 'token2022' });
      if (i % 3 === 0) state.addTokenAccount({ owner: wallet, mint: BUDGET_MINTS.banned, amount: '0', program: 'token' });
    },
    fail: (state, wallet) => {
      state.addTokenAccount({ owner: wallet, mint: BUDGET_MINTS.banned, amount: '5000000', program: 'token' });
    },
  },
  multitoken: {
    pass: (state, wallet) => {
      state.addTokenAccount({ owner: wallet, mint: BUDGET_MINTS.wanted1, amount: WANTED, program: 'token' });
      state.addTokenAccount({ owner: wallet, mint: BUDGET_MINTS.wanted2, amount: WANTED, program: 'token2022' });
    },
    fail: (state, wallet) => {
      state.addTokenAccount({ owner: wallet, mint: BUDGET_MINTS.wanted1, amount: WANTED, program: 'token' });
    },
  },
  tier: {
    pass: (state, wallet) => void state.addTokenAccount({ owner: wallet, mint: BUDGET_MINTS.tier, amount: TIER.silver, program: 'token2022' }),
    fail: (state, wallet) => void state.addTokenAccount({ owner: wallet, mint: BUDGET_MINTS.tier, amount: '1000', program: 'token2022' }),
  },
  timelock: {
    pass: (state, wallet) => lockHolder(state, wallet, 60),
    fail: (state, wallet) => lockHolder(state, wallet, 3),
  },
  age: {
    pass: (state, wallet) => void fund(state, wallet, 40),
    fail: (state, wallet) => void fund(state, wallet, 3),
  },
  // Transfers the wallet sends (a `transfer` for transaction_types is one the wallet signs).
  activity: {
    pass: (state, wallet) => [40, 6, 5, 4, 3, 2, 1].forEach((days) => send(state, wallet, days)),
    fail: (state, wallet) => [40, 2, 1].forEach((days) => send(state, wallet, days)),
  },
  nodebt: {
    pass: () => {},
    fail: (state, wallet) => void state.addSaveObligation({ owner: wallet, borrowedUsd: '100' }),
  },
  collection: {
    pass: (state, wallet) => {
      state.addTokenAccount({ owner: wallet, mint: BUDGET_MINTS.wanted1, amount: WANTED, program: 'token' });
      collectionNft(state, wallet);
    },
    fail: (state, wallet) => void state.addTokenAccount({ owner: wallet, mint: BUDGET_MINTS.wanted1, amount: WANTED, program: 'token' }),
  },
  rule: {
    pass: (state, wallet, i) => ruleWallet(state, wallet, i, 40),
    fail: (state, wallet, i) => ruleWallet(state, wallet, i, 3),
  },
  'rule-collection': {
    pass: (state, wallet, i) => {
      ruleWallet(state, wallet, i, 40);
      collectionNft(state, wallet);
    },
    fail: (state, wallet, i) => ruleWallet(state, wallet, i, 40),
  },
};

/** A SOL transfer from the funder `daysAgo` days ago: the wallet's history gets one transaction. */
function fund(state: ChainState, wallet: string, daysAgo: number): void {
  solTransfer(state, { from: FUNDER, to: wallet, lamports: 1_000_000, daysAgo, fromBefore: 1_000_000_000_000 });
}

/** A SOL transfer the wallet sends to the funder `daysAgo` days ago. */
function send(state: ChainState, wallet: string, daysAgo: number): void {
  solTransfer(state, { from: wallet, to: FUNDER, lamports: 1_000_000, daysAgo, fromBefore: 1_000_000_000 });
}

/** The lock mint received in one transfer `daysAgo` days ago into the wallet's ATA, held since. */
function lockHolder(state: ChainState, wallet: string, daysAgo: number): void {
  const account = state.addTokenAccount({ owner: wallet, mint: BUDGET_MINTS.lock, amount: LOCKED, program: 'token' });
  const source = state.ataAddress(LOCK_SOURCE, BUDGET_MINTS.lock, 'token');
  tokenTransfer(state, { wallet, walletTokenAccount: account, counterparty: LOCK_SOURCE, counterpartyTokenAccount: source, mint: BUDGET_MINTS.lock, decimals: 6, walletBefore: null, walletAfter: BigInt(LOCKED), daysAgo });
}

/** A Token Metadata NFT verified in the collection, in the wallet's ATA (as the demo fixture builds them). */
function collectionNft(state: ChainState, wallet: string): void {
  const nft = labelAddress(`budget:nft:${wallet}`);
  state.addMint({ address: nft, decimals: 0, supply: 1, program: 'token', mintAuthority: editionPda(nft) });
  state.setAccount(metadataPda(nft), metadataAccount({ mint: nft, updateAuthority: NFT_AUTHORITY, name: 'X404 budget', tokenStandard: TOKEN_STANDARD.nonFungible, collection: { key: BUDGET_COLLECTION, verified: true } }));
  state.addTokenAccount({ owner: wallet, mint: nft, amount: 1, program: 'token' });
}

/** As bench/rule.ts's wallets: the tier mint held, an empty account of the banned mint for a third, first transaction `daysAgo`. */
function ruleWallet(state: ChainState, wallet: string, i: number, daysAgo: number): void {
  state.addTokenAccount({ owner: wallet, mint: BUDGET_MINTS.tier, amount: TIER.bronze, program: 'token2022' });
  if (i % 3 === 0) state.addTokenAccount({ owner: wallet, mint: BUDGET_MINTS.banned, amount: '0', program: 'token' });
  fund(state, wallet, daysAgo);
}

/** The wallet family of a target's outcome (seeds: wallets.ts walletSeeds). */
export const familyOf = (family: string, outcome: Outcome): string => `budget-${family}-${outcome}`;
export const countOf = (outcome: Outcome, wallets: number): number => (outcome === 'warmup' ? WARM_UP_WALLETS : wallets);

/** Every family's wallets and their state, `wallets` per pass and fail family. */
export function buildBudgetChain(state: ChainState, wallets: number): void {
  state.addMint({ address: BUDGET_MINTS.banned, decimals: 6, program: 'token' });
  state.addMint({ address: BUDGET_MINTS.capped, decimals: 9, program: 'token2022' });
  state.addMint({ address: BUDGET_MINTS.wanted1, decimals: 6, program: 'token' });
  state.addMint({ address: BUDGET_MINTS.wanted2, decimals: 6, program: 'token2022' });
  state.addMint({ address: BUDGET_MINTS.tier, decimals: 6, program: 'token2022' });
  state.addMint({ address: BUDGET_MINTS.lock, decimals: 6, program: 'token' });
  state.addTokenAccount({ owner: LOCK_SOURCE, mint: BUDGET_MINTS.lock, amount: '1000000000000000', program: 'token' });
  state.setLamports(FUNDER, 1_000_000_000_000);
  for (const [family, build] of Object.entries(BUILDERS)) {
    for (const outcome of ['pass', 'fail', 'warmup'] as const) {
      const make = outcome === 'fail' ? build.fail : build.pass;
      benchWallets(countOf(outcome, wallets), familyOf(family, outcome)).forEach((wallet, i) => make(state, wallet.address, i));
    }
  }
}

/** The operator's POLICIES_FILE (written into `dir`, with the rule's wallet lists beside it); returns its path. */
export function writeBudgetPolicies(dir: string, wallets: number): string {
  const addresses = (family: string): string[] => (['pass', 'fail', 'warmup'] as const).flatMap((outcome) => benchWallets(countOf(outcome, wallets), familyOf(family, outcome)).map((w) => w.address));
  // bench/rule.ts pads its lists to launch size (100,000 and 10,000); their size costs no chain read.
  const filler = (n: number, label: string): string[] => Array.from({ length: n }, (_, i) => labelAddress(`budget:${label}:${i}`));
  writeFileSync(`${dir}snapshot.txt`, `# budget snapshot\n${[...addresses('rule'), ...filler(1000, 'snapshot')].join('\n')}\n`);
  writeFileSync(`${dir}denied.txt`, `${filler(1000, 'denied').join('\n')}\n`);
  const tierConfig = Object.fromEntries(Object.entries(TIER).map(([tier, amount]) => [tier, { mint: BUDGET_MINTS.tier, amount }]));
  const policies = {
    blacklist: { launch: { excluded_mints: [BUDGET_MINTS.banned], max_holdings: { [BUDGET_MINTS.capped]: CAP }, geo_code: false, geo_code_locs: '' } },
    multitoken: { launch: { required_tokens: [{ mint: BUDGET_MINTS.wanted1, amount: WANTED }, { mint: BUDGET_MINTS.wanted2, amount: WANTED }], verification_mode: 'ALL' } },
    tier: { launch: { tier_config: tierConfig } },
    timelock: { launch: { required_mint: BUDGET_MINTS.lock, mint_amount: LOCKED, min_hold_duration_days: '30' } },
    age: { launch: { min_wallet_age_days: '30' } },
    activity: { launch: { min_transactions: '5', time_period_days: '30' }, typed: { min_transactions: '5', time_period_days: '30', transaction_types: ['transfer'] } },
    nodebt: { launch: { check_protocols: [] } },
    collection: { launch: { collections: [BUDGET_COLLECTION] } },
    // bench/rule.ts's example rule (docs/rules.md), with a collection that exists on this chain.
    rules: {
      [BUDGET_RULE]: exampleLaunchRule({ collection: BUDGET_COLLECTION, tierMint: BUDGET_MINTS.tier, tierAmount: TIER.bronze }),
    },
  };
  const file = `${dir}policies.json`;
  writeFileSync(file, JSON.stringify(policies, null, 2));
  return file;
}

/** The seeds of a target's wallets of one outcome. */
export const budgetSeeds = (target: BudgetTarget, outcome: Outcome, wallets: number): Buffer[] => walletSeeds(countOf(outcome, wallets), familyOf(target.family, outcome));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const wallets = Number(process.env.BUDGET_WALLETS ?? '200');
  if (!Number.isInteger(wallets) || wallets < 1) throw new Error(`BUDGET_WALLETS must be a positive integer, got ${process.env.BUDGET_WALLETS}`);
  const handle = await startLocalnet({ port: Number(process.env.PORT ?? '0'), host: process.env.HOST ?? '127.0.0.1', provider: providerSettingsFromEnv(process.env) });
  buildBudgetChain(handle.state, wallets);
  console.log(`localnet: Solana JSON-RPC on ${handle.url} (budget chain: ${wallets} wallets per family)`);
  const stop = (): void => {
    handle.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

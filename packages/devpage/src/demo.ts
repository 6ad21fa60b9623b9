import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_COLLECTIONS } from 'x404-localnet/collections/fixture.js';
import { DEMO_MINTS, DEMO_WALLETS, demoMint, demoWallet, type DemoMintName, type DemoWalletName } from 'x404-localnet/fixture.js';
import { DEMO_LAUNCH_MINTS, DEMO_MINT_SIGNER, writeDemoMintSigner } from 'x404-localnet/demo-mint.js';
import {
  ASSOCIATED_TOKEN_PROGRAM,
  associatedTokenAddress,
  COMPUTE_BUDGET_PROGRAM,
  KAMINO_LEND_PROGRAM,
  MARGINFI_V2_PROGRAM,
  SAVE_PROGRAM,
  SYSTEM_PROGRAM,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
} from 'x404-localnet/programs.js';
import type { Feature, PolicyByFeature } from '../../../dist/src/sdk/index.js';

/**
 * What the watch page offers for the local chain's demo state (packages/localnet/src/fixture.ts): a policy
 * per feature written with the demo mints, and for each a wallet that passes and one that fails.
 * Development only: the wallets' secret keys are public test keys (demoWallet(name)).
 */
const usdc = demoMint('usdc');
const tokens = (amount: number, decimals: number): string => (BigInt(amount) * 10n ** BigInt(decimals)).toString();

export const DEMO_POLICIES: { [F in Feature]: PolicyByFeature[F] } = {
  blacklist: {
    excluded_mints: [demoMint('banned'), demoMint('banned-t22')],
    max_holdings: { [usdc]: tokens(1_000, 6) },
    geo_code: false,
    geo_code_locs: '',
  },
  timelock: { required_mint: demoMint('lock'), mint_amount: tokens(1_000, 6), min_hold_duration_days: '30' },
  multitoken: {
    required_tokens: [
      { mint: usdc, amount: tokens(100, 6) },
      { mint: demoMint('bonk'), amount: tokens(1_000_000, 5) },
    ],
    verification_mode: 'ALL',
  },
  activity: { min_transactions: '10', time_period_days: '30' },
  tier: {
    tier_config: {
      bronze: { mint: demoMint('tier'), amount: tokens(100, 6) },
      silver: { mint: demoMint('tier'), amount: tokens(1_000, 6) },
      gold: { mint: demoMint('tier'), amount: tokens(10_000, 6) },
    },
  },
  nodebt: { check_protocols: [], max_debt_allowed: '0' },
  age: { min_wallet_age_days: '180' },
  collection: { collections: [DEMO_COLLECTIONS.a, DEMO_COLLECTIONS.g, DEMO_COLLECTIONS.c] },
  balance: { min_lamports: '1000000000' },
};

/** Wallets to try with each feature's policy above: the first passes, the others fail. */
export const DEMO_TRIES: Record<Feature, { passes: DemoWalletName; fails: DemoWalletName[] }> = {
  blacklist: { passes: 'clean', fails: ['banned-holder', 'whale'] },
  timelock: { passes: 'lock-steady', fails: ['lock-rebought', 'lock-new'] },
  multitoken: { passes: 'portfolio', fails: ['clean'] },
  activity: { passes: 'active', fails: ['quiet'] },
  tier: { passes: 'tier-gold', fails: ['clean'] },
  nodebt: { passes: 'no-debt', fails: ['debtor-save', 'multi-debtor'] },
  age: { passes: 'old', fails: ['young'] },
  collection: { passes: 'nft-holder', fails: ['nft-unverified', 'nft-zero'] },
  balance: { passes: 'clean', fails: ['sol-short', 'empty'] },
};

/** The wallets to try with the demo launch rule (writeDemoRules), and so with its co-signed mints: the first passes. */
export const DEMO_LAUNCH_TRIES = { passes: 'old', fails: ['young', 'banned-holder', 'clean'] } as const satisfies { passes: DemoWalletName; fails: readonly DemoWalletName[] };

/**
 * A launch's rule over the demo state (docs/rules.md), with its wallet lists, written to `dir` for
 * `npm run dev` when no POLICIES_FILE is given: `old` passes it; `young` is too new, `banned-holder`
 * holds a banned token, `clean` is on the deny list (DEMO_LAUNCH_TRIES).
 */
export function writeDemoRules(dir: string): string {
  const snapshot = (['old', 'young', 'banned-holder', 'clean', 'tier-gold'] as const).map((name) => demoWallet(name).publicKey);
  writeFileSync(join(dir, 'snapshot.txt'), ['# the launch snapshot: one address per line', ...snapshot, ''].join('\n'));
  writeFileSync(join(dir, 'denied.txt'), ['# wallets that may not take part', demoWallet('clean').publicKey, ''].join('\n'));
  const bronze = { feature: 'tier', tier_config: { bronze: { mint: demoMint('tier'), amount: tokens(100, 6) } } };
  const policies = {
    blacklist: { launch: { excluded_mints: DEMO_POLICIES.blacklist.excluded_mints, max_holdings: DEMO_POLICIES.blacklist.max_holdings } },
    rules: {
      launch: {
        all: [
          { feature: 'blacklist', policy: 'launch' },
          { feature: 'age', min_wallet_age_days: '30' },
          { any: [{ feature: 'collection', collections: [DEMO_COLLECTIONS.a] }, { wallets: 'snapshot.txt' }] },
          { not: { wallets: 'denied.txt' } },
          { atLeast: 2, of: [bronze, { feature: 'activity', min_transactions: '5', time_period_days: '30' }, { feature: 'nodebt' }] },
        ],
      },
    },
    // The demo launch's co-signed mints (docs/minting.md): their mint authority is the demo signer.
    mints: {
      genesis: { rule: 'launch', signer: writeDemoMintSigner(), program: 'spl-token', mint: DEMO_LAUNCH_MINTS.genesis.address, amount: '1', per_wallet: 1, supply: 1000 },
      'genesis-t22': { rule: 'launch', signer: writeDemoMintSigner(), program: 'token-2022', mint: DEMO_LAUNCH_MINTS['genesis-t22'].address, amount: '1', per_wallet: 1, supply: 1000 },
    },
  };
  const path = join(dir, 'policies.json');
  writeFileSync(path, JSON.stringify(policies, null, 2));
  return path;
}

export interface DemoCatalogue {
  wallets: { name: string; about: string; publicKey: string; secretKey: number[] }[];
  policies: typeof DEMO_POLICIES;
  tries: typeof DEMO_TRIES;
  /** The demo launch's co-signed mints (writeDemoRules' "mints") and the wallets to try with their rule. */
  mints: { names: string[]; tries: { passes: string; fails: readonly string[] } };
  /** Names for the addresses a login reads: wallets, mints, their associated token accounts, programs. */
  labels: Record<string, string>;
}

export function demoCatalogue(): DemoCatalogue {
  const names = Object.keys(DEMO_WALLETS) as DemoWalletName[];
  const mints = Object.keys(DEMO_MINTS) as DemoMintName[];
  const labels: Record<string, string> = {
    [TOKEN_PROGRAM]: 'Token program',
    [TOKEN_2022_PROGRAM]: 'Token-2022 program',
    [KAMINO_LEND_PROGRAM]: 'Kamino Lend program',
    [SAVE_PROGRAM]: 'Save (Solend) program',
    [MARGINFI_V2_PROGRAM]: 'MarginFi v2 program',
    [SYSTEM_PROGRAM]: 'System program',
    [ASSOCIATED_TOKEN_PROGRAM]: 'Associated Token Account program',
    [COMPUTE_BUDGET_PROGRAM]: 'Compute Budget program',
    [DEMO_MINT_SIGNER.publicKey]: "the gate's co-signing key (mint authority of the launch mints)",
  };
  for (const mint of mints) labels[demoMint(mint)] = `mint ${mint}`;
  for (const [name, mint] of Object.entries(DEMO_LAUNCH_MINTS)) labels[mint.address] = `mint ${name}`;
  const wallets = names.map((name) => {
    const { publicKey, secretKey } = demoWallet(name);
    labels[publicKey] = `wallet ${name}`;
    for (const mint of mints) {
      labels[associatedTokenAddress(publicKey, demoMint(mint), DEMO_MINTS[mint].program)] = `${name}'s ${mint} account (ATA)`;
    }
    for (const [launchMint, { address, program }] of Object.entries(DEMO_LAUNCH_MINTS)) {
      labels[associatedTokenAddress(publicKey, address, program)] = `${name}'s ${launchMint} account (ATA)`;
    }
    return { name, about: DEMO_WALLETS[name].replaceAll('`', ''), publicKey, secretKey: [...secretKey] };
  });
  return { wallets, policies: DEMO_POLICIES, tries: DEMO_TRIES, mints: { names: Object.keys(DEMO_LAUNCH_MINTS), tries: DEMO_LAUNCH_TRIES }, labels };
}

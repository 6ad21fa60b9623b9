/**
 * The default demo state of the local chain, built deterministically: every key comes from a seed
 * (Keypair.fromSeed(sha256('x404-localnet:' + name))), and every blockTime is relative to `now`
 * (taken when the state is built, injectable), so durations are the same whenever tests run.
 * DEMO_MINTS and DEMO_WALLETS name what there is (docs/local-chain.md has the table, with amounts
 * and the feature each wallet passes or fails); the launch mints are in demo-mint.ts, the
 * collections in collections/fixture.ts; the real lending dumps of fixtures/lending are loaded at
 * their mainnet addresses (LOCALNET_LENDING_DUMPS points elsewhere).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Keypair } from '@solana/web3.js';
import { immutableOwnerExtension, transferFeeAmountExtension, transferFeeConfigExtension } from './layouts.js';
import type { TokenProgramName } from './programs.js';
import { buildCollections } from './collections/fixture.js';
import { addDemoLaunchMints } from './demo-mint.js';
import { customError, jupiterSwap, metaplexCall, solTransfer, stakeDelegation, tokenTransfer } from './recipes.js';
import { ChainState, labelAddress } from './state.js';

export interface DemoWallet {
  publicKey: string;
  /** 64 bytes: seed || public key, as Solana keypair files store it. */
  secretKey: Uint8Array;
}

const walletCache = new Map<string, DemoWallet>();

/** The deterministic keypair of a named demo wallet (any name works; the catalogue ones have state). */
export function demoWallet(name: string): DemoWallet {
  const cached = walletCache.get(name);
  if (cached) return { publicKey: cached.publicKey, secretKey: Uint8Array.from(cached.secretKey) };
  const seed = createHash('sha256').update(`x404-localnet:${name}`).digest();
  const keypair = Keypair.fromSeed(seed);
  const wallet = { publicKey: keypair.publicKey.toBase58(), secretKey: keypair.secretKey };
  walletCache.set(name, wallet);
  return { publicKey: wallet.publicKey, secretKey: Uint8Array.from(wallet.secretKey) };
}

export const DEMO_MINTS = {
  usdc: { program: 'token', decimals: 6, purpose: 'USDC-like stablecoin' },
  bonk: { program: 'token', decimals: 5, purpose: 'BONK-like memecoin' },
  t22: { program: 'token2022', decimals: 6, purpose: 'Token-2022 mint with TransferFeeConfig' },
  banned: { program: 'token', decimals: 6, purpose: 'blacklisted token (Token program)' },
  'banned-t22': { program: 'token2022', decimals: 9, purpose: 'blacklisted token (Token-2022)' },
  tier: { program: 'token', decimals: 6, purpose: 'tier token: bronze ≥100, silver ≥1,000, gold ≥10,000' },
  lock: { program: 'token', decimals: 6, purpose: 'timelock token: hold ≥1,000' },
} as const satisfies Record<string, { program: TokenProgramName; decimals: number; purpose: string }>;

export type DemoMintName = keyof typeof DEMO_MINTS;

/** Address of a demo mint. */
export function demoMint(name: DemoMintName): string {
  return demoWallet(`mint:${name}`).publicKey;
}

/** Address of a named non-wallet demo account (banks, non-ATA token accounts, obligations). */
export function demoAddress(name: string): string {
  return labelAddress(`demo:${name}`);
}

export const DEMO_WALLETS = {
  clean: 'SOL, a little USDC and BONK in ATAs, nothing banned',
  'banned-holder': 'holds `banned` in its ATA',
  'banned-nonata': 'holds `banned` only in a non-ATA token account',
  'banned-nonata-t22': 'holds `banned-t22` only in two non-ATA Token-2022 accounts',
  'banned-t22': 'holds `banned-t22` in its Token-2022 ATA',
  'zero-balance': 'ATAs for both banned mints with amount 0 (not holding)',
  whale: '5,000,000 USDC in ATA + 1,000,000 in a non-ATA account',
  't22-holder': '42.5 t22 in a Token-2022 ATA with ImmutableOwner + TransferFeeAmount',
  portfolio: 'USDC, BONK and t22 (multitoken)',
  'tier-bronze': '150 tier',
  'tier-silver': '1,500 tier',
  'tier-gold': '12,000 tier in ATA + 3,000 non-ATA',
  'lock-steady': '≥1,000 lock for 60 days',
  'lock-rebought': 'held 60 days, dipped below 1,000 one day ago, bought back',
  'lock-new': '1,000 lock bought 3 days ago',
  active: 'many transfers, a Jupiter swap (v0), Metaplex, Stake, some failed txs',
  quiet: '2 transactions',
  old: '2,500 transactions, first 400 days ago',
  young: 'first transaction 2 days ago',
  'debtor-save': 'Save obligation with $2,500 borrowed',
  'debtor-kamino': 'Kamino obligation with $800 borrowed',
  'debtor-marginfi': 'MarginFi account with USDC liability shares',
  'no-debt': 'obligations on all three protocols, none with debt',
  'multi-debtor': 'small debts on all three protocols',
  empty: 'no accounts at all',
  'nft-holder': 'a Token Metadata NFT of collection A (verified)',
  'nft-unverified': 'a Token Metadata NFT of collection A, not verified',
  'pnft-holder': 'a programmable NFT of collection A, frozen token account',
  'edition-holder': 'a print edition of collection A',
  'creator-holder': 'NFTs with creator X first+verified, second, and unverified',
  't22-member': 'a Token-2022 member of group G',
  'core-holder': 'a Core asset of collection C',
  'cnft-holder': 'compressed NFTs of A in the DAS index (one burnt, one unverified)',
  'nft-zero': 'a collection-A NFT token account with amount 0',
  collector: 'NFTs of A, G and C across every standard',
  'sol-short': 'one lamport short of 1 SOL (balance)',
} as const;

export type DemoWalletName = keyof typeof DEMO_WALLETS;

const SOL = 1_000_000_000;

function units(tokens: number | string, decimals: number): bigint {
  const [whole, fraction = ''] = String(tokens).split('.');
  return BigInt(whole!) * 10n ** BigInt(decimals) + BigInt((fraction + '0'.repeat(decimals)).slice(0, decimals) || '0');
}

export interface DemoStateOptions {
  now?: number;
  /** Directory of real lending account dumps to load; null to skip. Default: LOCALNET_LENDING_DUMPS or the package's fixtures/lending. */
  lendingDumpsDir?: string | null;
  /** The collection feature's NFTs (LiteSVM and the Metaplex serializers, ~0.3 s); default true. */
  collections?: boolean;
}

export function buildDemoState(options: DemoStateOptions = {}): ChainState {
  const state = new ChainState({ now: options.now ?? Date.now() });
  const w = (name: DemoWalletName) => demoWallet(name).publicKey;
  const mint = (name: DemoMintName) => demoMint(name);
  const decimals = (name: DemoMintName) => DEMO_MINTS[name].decimals;
  const hold = (wallet: DemoWalletName, name: DemoMintName, tokens: number | string, address?: string) =>
    state.addTokenAccount({
      owner: w(wallet),
      mint: mint(name),
      amount: units(tokens, decimals(name)),
      program: DEMO_MINTS[name].program,
      ...(address ? { address } : {}),
    });

  // Mints
  const mintAuthority = demoWallet('mint-authority').publicKey;
  for (const [name, spec] of Object.entries(DEMO_MINTS) as [DemoMintName, (typeof DEMO_MINTS)[DemoMintName]][]) {
    state.addMint({
      address: mint(name),
      decimals: spec.decimals,
      program: spec.program,
      mintAuthority,
      ...(name === 't22' ? { extensions: [transferFeeConfigExtension(mintAuthority, 50, 5_000_000n)] } : {}),
    });
  }

  addDemoLaunchMints(state);

  // Wallet SOL balances (every catalogue wallet except `empty` exists as a system account).
  const lamports: Partial<Record<DemoWalletName, number>> = { whale: 10_000 * SOL, active: 80 * SOL, old: 30 * SOL, quiet: 2 * SOL, 'sol-short': SOL - 1 };
  for (const name of Object.keys(DEMO_WALLETS) as DemoWalletName[]) {
    if (name !== 'empty') state.setLamports(w(name), lamports[name] ?? (name === 'clean' ? 5 * SOL : 1 * SOL));
  }

  // blacklist / multitoken
  hold('clean', 'usdc', 25);
  hold('clean', 'bonk', 150_000);
  hold('banned-holder', 'banned', 1_000);
  hold('banned-nonata', 'banned', 5_000, demoAddress('banned-nonata:token-account'));
  hold('banned-nonata', 'usdc', 10);
  hold('banned-t22', 'banned-t22', 7);
  // Keypair accounts (not ATAs) under Token-2022: one without extensions (165 bytes), one with ImmutableOwner (170).
  hold('banned-nonata-t22', 'banned-t22', 4, demoAddress('banned-nonata-t22:plain'));
  state.addTokenAccount({
    owner: w('banned-nonata-t22'),
    mint: mint('banned-t22'),
    amount: units(3, decimals('banned-t22')),
    program: 'token2022',
    address: demoAddress('banned-nonata-t22:extended'),
    extensions: [immutableOwnerExtension()],
  });
  hold('zero-balance', 'banned', 0);
  hold('zero-balance', 'banned-t22', 0);
  hold('zero-balance', 'usdc', 3);
  hold('whale', 'usdc', 5_000_000);
  hold('whale', 'usdc', 1_000_000, demoAddress('whale:usdc-2'));
  state.addTokenAccount({
    owner: w('t22-holder'),
    mint: mint('t22'),
    amount: units('42.5', 6),
    program: 'token2022',
    extensions: [immutableOwnerExtension(), transferFeeAmountExtension(1_234n)],
  });
  hold('portfolio', 'usdc', 500);
  hold('portfolio', 'bonk', 2_000_000);
  // A token account of a transfer-fee mint carries TransferFeeAmount, as the ATA program creates it (the real program refuses transfers otherwise).
  state.addTokenAccount({
    owner: w('portfolio'),
    mint: mint('t22'),
    amount: units(10, 6),
    program: 'token2022',
    extensions: [immutableOwnerExtension(), transferFeeAmountExtension(0n)],
  });

  // tier
  hold('tier-bronze', 'tier', 150);
  hold('tier-silver', 'tier', 1_500);
  hold('tier-gold', 'tier', 12_000);
  hold('tier-gold', 'tier', 3_000, demoAddress('tier-gold:tier-2'));

  buildTimelock(state, hold);
  buildActivity(state);
  buildAge(state);
  buildLending(state);

  const dumps = options.lendingDumpsDir === undefined ? (process.env.LOCALNET_LENDING_DUMPS ?? defaultDumpsDir('lending')) : options.lendingDumpsDir;
  if (dumps) loadAccountDumps(state, dumps);
  if (options.collections !== false) {
    buildCollections(state, (name) => w(name));
  }
  return state;
}

type Hold = (wallet: DemoWalletName, name: DemoMintName, tokens: number | string, address?: string) => string;

function buildTimelock(state: ChainState, hold: Hold): void {
  const lock = demoMint('lock');
  const seller = demoWallet('lock-market').publicKey;
  const sellerAccount = state.ataAddress(seller, lock, 'token');
  state.addTokenAccount({ owner: seller, mint: lock, amount: units(10_000_000, 6), program: 'token' });
  const move = (wallet: DemoWalletName, account: string, before: number | null, after: number, daysAgo: number) =>
    tokenTransfer(state, {
      wallet: demoWallet(wallet).publicKey,
      walletTokenAccount: account,
      counterparty: seller,
      counterpartyTokenAccount: sellerAccount,
      mint: lock,
      decimals: 6,
      walletBefore: before === null ? null : units(before, 6),
      walletAfter: units(after, 6),
      daysAgo,
    });

  const steady = hold('lock-steady', 'lock', 1_200);
  move('lock-steady', steady, null, 1_000, 60);
  move('lock-steady', steady, 1_000, 1_200, 20);

  const rebought = hold('lock-rebought', 'lock', 1_000);
  move('lock-rebought', rebought, null, 1_000, 60);
  move('lock-rebought', rebought, 1_000, 400, 1);
  move('lock-rebought', rebought, 400, 1_000, 0.5);

  const fresh = hold('lock-new', 'lock', 1_000);
  move('lock-new', fresh, null, 1_000, 3);
}

function buildActivity(state: ChainState): void {
  const active = demoWallet('active').publicKey;
  const friend = demoWallet('active-friend').publicKey;
  const usdc = demoMint('usdc');
  const bonk = demoMint('bonk');
  const usdcAccount = state.addTokenAccount({ owner: active, mint: usdc, amount: units(40, 6), program: 'token' });
  const bonkAccount = state.addTokenAccount({ owner: active, mint: bonk, amount: units(1_000_000, 5), program: 'token' });
  const friendUsdc = state.addTokenAccount({ owner: friend, mint: usdc, amount: units(1_000, 6), program: 'token' });

  let balance = 80 * SOL + 40 * 6_000_000 + 100_000;
  for (let i = 0; i < 40; i += 1) {
    const failed = i % 10 === 3;
    const outgoing = i % 2 === 0;
    const daysAgo = 29 - i * 0.7;
    if (outgoing) {
      solTransfer(state, {
        from: active,
        to: friend,
        lamports: 5_000_000,
        daysAgo,
        fromBefore: balance,
        ...(failed ? { err: customError(0, 1) } : {}),
        ...(i === 0 ? { memo: 'first payment' } : {}),
      });
      balance -= 5000 + (failed ? 0 : 5_000_000);
    } else {
      solTransfer(state, { from: friend, to: active, lamports: 1_000_000, daysAgo, fromBefore: 50 * SOL, toBefore: balance, ...(failed ? { err: customError(0, 1) } : {}) });
      if (!failed) balance += 1_000_000;
    }
  }
  let usdcBalance = 100n * 1_000_000n;
  for (let i = 0; i < 12; i += 1) {
    const next = usdcBalance - 5_000_000n;
    tokenTransfer(state, {
      wallet: active,
      walletTokenAccount: usdcAccount,
      counterparty: friend,
      counterpartyTokenAccount: friendUsdc,
      mint: usdc,
      decimals: 6,
      walletBefore: usdcBalance,
      walletAfter: next,
      daysAgo: 25 - i * 2,
      ...(i === 5 ? { err: customError(0, 1) } : {}),
    });
    if (i !== 5) usdcBalance = next;
  }
  jupiterSwap(state, {
    wallet: active,
    daysAgo: 2,
    input: { mint: usdc, decimals: 6, walletAccount: usdcAccount, before: usdcBalance, after: units(40, 6) },
    output: { mint: bonk, decimals: 5, walletAccount: bonkAccount, before: units(400_000, 5), after: units(1_000_000, 5) },
    lamportsBefore: 80 * SOL + 15_000,
  });
  metaplexCall(state, active, 5);
  stakeDelegation(state, active, 6);

  const quiet = demoWallet('quiet').publicKey;
  solTransfer(state, { from: friend, to: quiet, lamports: 2 * SOL, daysAgo: 50, fromBefore: 50 * SOL, toBefore: 0 });
  solTransfer(state, { from: quiet, to: friend, lamports: 1_000_000, daysAgo: 10, fromBefore: 2 * SOL });
}

function buildAge(state: ChainState): void {
  const old = demoWallet('old').publicKey;
  const peer = demoWallet('old-peer').publicKey;
  const usdc = demoMint('usdc');
  const oldUsdc = state.addTokenAccount({ owner: old, mint: usdc, amount: units(20, 6), program: 'token' });
  const peerUsdc = state.addTokenAccount({ owner: peer, mint: usdc, amount: units(1_000_000, 6), program: 'token' });
  const total = 2_500;
  const firstDaysAgo = 400;
  const lastDaysAgo = 1;
  for (let i = 0; i < total; i += 1) {
    const daysAgo = firstDaysAgo - ((firstDaysAgo - lastDaysAgo) * i) / (total - 1);
    if (i < 5) {
      // The wallet's first transactions carry token balances recorded before owner/programId existed.
      tokenTransfer(state, {
        wallet: old,
        walletTokenAccount: oldUsdc,
        counterparty: peer,
        counterpartyTokenAccount: peerUsdc,
        mint: usdc,
        decimals: 6,
        walletBefore: i === 0 ? null : units(4 * i, 6),
        walletAfter: units(4 * (i + 1), 6),
        daysAgo,
        legacyBalances: true,
      });
    } else {
      solTransfer(state, {
        from: i % 3 === 0 ? peer : old,
        to: i % 3 === 0 ? old : peer,
        lamports: 1_000 + i,
        daysAgo,
        fromBefore: 30 * SOL,
        ...(i % 97 === 0 ? { err: customError(0, 1) } : {}),
      });
    }
  }

  const young = demoWallet('young').publicKey;
  solTransfer(state, { from: peer, to: young, lamports: 1 * SOL, daysAgo: 2, fromBefore: 30 * SOL, toBefore: 0 });
  solTransfer(state, { from: young, to: peer, lamports: 1_000_000, daysAgo: 1, fromBefore: SOL });
  solTransfer(state, { from: young, to: peer, lamports: 1_000_000, daysAgo: 0.2, fromBefore: SOL - 1_005_000 });
}

function buildLending(state: ChainState): void {
  const w = (name: DemoWalletName) => demoWallet(name).publicKey;
  const usdcBank = state.addMarginfiBank({
    address: demoAddress('marginfi-usdc-bank'),
    // Mainnet USDC: the gate prices MarginFi liabilities only in stablecoins it knows by mint.
    mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    decimals: 6,
    assetShareValue: '1.02',
    liabilityShareValue: '1.05',
  });
  const solBank = state.addMarginfiBank({
    address: demoAddress('marginfi-sol-bank'),
    mint: 'So11111111111111111111111111111111111111112',
    decimals: 9,
    assetShareValue: '1.01',
    liabilityShareValue: '1.03',
  });

  state.addSaveObligation({ owner: w('debtor-save'), address: demoAddress('save:debtor-save'), depositedUsd: '10000', borrowedUsd: '2500' });
  state.addKaminoObligation({ owner: w('debtor-kamino'), address: demoAddress('kamino:debtor-kamino'), depositedUsd: '3000', borrowedUsd: '800' });
  state.addMarginfiAccount({
    authority: w('debtor-marginfi'),
    address: demoAddress('marginfi:debtor-marginfi'),
    balances: [
      { bank: solBank, assetShares: '10000000000' },
      { bank: usdcBank, liabilityShares: '500000000' },
    ],
  });

  state.addSaveObligation({ owner: w('no-debt'), address: demoAddress('save:no-debt'), depositedUsd: '500', borrowedUsd: '0' });
  state.addKaminoObligation({ owner: w('no-debt'), address: demoAddress('kamino:no-debt'), depositedUsd: '750', borrowedUsd: '0' });
  state.addMarginfiAccount({
    authority: w('no-debt'),
    address: demoAddress('marginfi:no-debt'),
    balances: [{ bank: usdcBank, assetShares: '250000000' }],
  });

  state.addSaveObligation({ owner: w('multi-debtor'), address: demoAddress('save:multi-debtor'), depositedUsd: '1000', borrowedUsd: '100' });
  state.addKaminoObligation({ owner: w('multi-debtor'), address: demoAddress('kamino:multi-debtor'), depositedUsd: '1000', borrowedUsd: '200' });
  state.addMarginfiAccount({
    authority: w('multi-debtor'),
    address: demoAddress('marginfi:multi-debtor'),
    balances: [
      { bank: solBank, assetShares: '2000000000' },
      { bank: usdcBank, liabilityShares: '50000000' },
    ],
  });
}

/** Loads getAccountInfo-shaped dumps ({pubkey, account}) into the state as they are. */
function loadAccountDumps(state: ChainState, dir: string): void {
  if (!existsSync(dir)) return;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const dump = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
      pubkey?: string;
      account?: { data?: [string, string]; owner?: string; lamports?: number; executable?: boolean };
    };
    const account = dump.account;
    if (!dump.pubkey || !account?.owner || !account.data || account.data[1] !== 'base64') continue;
    state.setAccount(dump.pubkey, {
      owner: account.owner,
      lamports: BigInt(account.lamports ?? 0),
      data: Buffer.from(account.data[0], 'base64'),
      executable: account.executable ?? false,
    });
  }
}

/** fixtures/<name> of this package, found from this module whether it runs from src/ or dist/. */
function defaultDumpsDir(name: 'lending'): string | null {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'fixtures', name);
  }
  return null;
}

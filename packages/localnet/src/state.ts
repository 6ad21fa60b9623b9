/**
 * The local chain's state: accounts (in real byte layouts) and transaction histories, with the
 * indexes the RPC methods need so that no request scans every account.
 *
 * Everything is constructible from code; packages/localnet/src/fixture.ts builds the default demo state.
 */
import { createHash } from 'node:crypto';
import bs58 from 'bs58';
import { rentExemptLamports, StoredAccount, type AccountInput } from './accounts.js';
import { AccountVersions } from './account-versions.js';
import {
  decodeTokenAccount,
  encodeKaminoObligation,
  encodeMarginfiAccount,
  encodeMarginfiBank,
  encodeMint,
  encodeSaveObligation,
  encodeTokenAccount,
  immutableOwnerExtension,
  KAMINO_OBLIGATION_SIZE,
  MARGINFI_ACCOUNT_SIZE,
  MARGINFI_BANK_SIZE,
  SAVE_OBLIGATION_SIZE,
  type Extension,
  type MarginfiBalanceLayout,
  type TokenAccountState,
} from './layouts.js';
import {
  associatedTokenAddress,
  ASSOCIATED_TOKEN_PROGRAM,
  BPF_LOADER_2,
  BPF_LOADER_UPGRADEABLE,
  isTokenProgram,
  KAMINO_LEND_PROGRAM,
  MARGINFI_V2_PROGRAM,
  NATIVE_LOADER,
  SAVE_PROGRAM,
  SYSTEM_PROGRAM,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  tokenProgramId,
  type TokenProgramName,
} from './programs.js';
import { buildTransaction, type StoredTransaction, type TransactionInput } from './transactions.js';

export type { TokenProgramName } from './programs.js';
export type { TransactionInput } from './transactions.js';

/** A mainnet-like slot so slot arithmetic looks real. */
const DEFAULT_SLOT = 330_000_000;
const SLOT_MS = 400;

/** MarginFi's mainnet group (as in the real account dumps). */
export const MARGINFI_MAIN_GROUP = '4qp6Fx6tnZkY5Wropq9wUYgtFxXKwE6viZxFHg3rdAG8';

/** A deterministic 32-byte address from a label (not a key anyone can sign with). */
export function labelAddress(label: string): string {
  return bs58.encode(createHash('sha256').update(`x404-localnet:${label}`).digest());
}

function toBigInt(value: bigint | number | string): bigint {
  const result = BigInt(value);
  if (result < 0n || result > 0xffff_ffff_ffff_ffffn) throw new Error(`not a u64: ${String(value)}`);
  return result;
}

export interface MintOptions {
  address?: string;
  decimals: number;
  program: TokenProgramName;
  supply?: bigint | number | string;
  mintAuthority?: string | null;
  /** Token-2022 only. */
  extensions?: Extension[];
}

export interface TokenAccountOptions {
  owner: string;
  mint: string;
  amount: bigint | number | string;
  program: TokenProgramName;
  /** Omitted: the owner's associated token account for the mint. */
  address?: string;
  state?: TokenAccountState;
  /** Token-2022 only. Omitted on a Token-2022 ATA: [ImmutableOwner], as the ATA program creates it. */
  extensions?: Extension[];
}

export interface SaveObligationOptions {
  owner: string;
  address?: string;
  lendingMarket?: string;
  depositedUsd?: string;
  /** Risk-weighted borrowed value. */
  borrowedUsd: string;
  /** Defaults to borrowedUsd. */
  unweightedBorrowedUsd?: string;
  /** Number of borrow positions (borrows_len); defaults to 1 when borrowedUsd > 0, else 0. */
  borrowCount?: number;
}

export interface KaminoObligationOptions {
  owner: string;
  address?: string;
  lendingMarket?: string;
  depositedUsd?: string;
  borrowedUsd: string;
  borrowCount?: number;
}

export interface MarginfiBankOptions {
  address?: string;
  mint: string;
  decimals: number;
  group?: string;
  assetShareValue?: string;
  liabilityShareValue: string;
}

export interface MarginfiAccountOptions {
  authority: string;
  address?: string;
  group?: string;
  balances: { bank: string; assetShares?: string; liabilityShares?: string }[];
}

/** An asset as a DAS API indexes it (searchAssets, packages/localnet/src/das.ts): compressed NFTs live only there. */
export interface DasAsset {
  id: string;
  owner: string;
  compressed: boolean;
  burnt: boolean;
  /** The collection group; DAS lists it in `grouping` only when verified. */
  collection?: { key: string; verified: boolean };
  creators?: { address: string; verified: boolean; share: number }[];
}

export interface SignaturePage {
  transactions: StoredTransaction[];
}

export class ChainState {
  /** Wall-clock reference (ms) for blockTimes and slots: "now" as far as this chain is concerned. */
  readonly now: number;
  slot: number;
  private readonly accounts = new Map<string, StoredAccount>();
  /** Versions replaced by landed transactions, for the banks behind the newest block (account-versions.ts). */
  private readonly versions = new AccountVersions();
  /** The slot of the transaction landing now (landing()), null for any other write. */
  private landingSlot: number | null = null;
  /** program id → addresses of accounts it owns (getProgramAccounts). */
  private readonly byProgram = new Map<string, Set<string>>();
  /** wallet → its token accounts of both programs (getTokenAccountsByOwner). */
  private readonly tokenAccountsByWallet = new Map<string, Set<string>>();
  /** token account → wallet it is indexed under. */
  private readonly walletOfTokenAccount = new Map<string, string>();
  private readonly transactions = new Map<string, StoredTransaction>();
  /** address → its transactions, newest first once sorted. */
  private readonly history = new Map<string, StoredTransaction[]>();
  private readonly unsortedHistories = new Set<string>();
  private readonly historyPosition = new Map<string, Map<string, number>>();
  /** owner → assets a DAS index knows (searchAssets). */
  private readonly dasAssetsByOwner = new Map<string, DasAsset[]>();
  private autoAddressCounter = 0;
  private transactionCounter = 0;

  constructor(options: { now?: number; slot?: number } = {}) {
    this.now = options.now ?? Date.now();
    this.slot = options.slot ?? DEFAULT_SLOT;
    this.addProgramAccounts();
  }

  // ---- accounts ----

  getAccount(address: string): StoredAccount | undefined {
    return this.accounts.get(address);
  }

  /**
   * The account as the bank at `slot` has it (cluster.ts): as before a transaction landed after
   * `slot`, for as long as versions are kept (`pruneVersions`).
   */
  accountAt(address: string, slot: number): StoredAccount | undefined {
    return this.versions.at(address, slot, this.accounts.get(address));
  }

  /** Addresses a transaction landed after `slot` has written (list reads at an older bank consider them too). */
  changedAfter(slot: number): string[] {
    return this.versions.changedAfter(slot);
  }

  /** Runs `write` as the landing of a transaction in `slot`: the versions it replaces are kept. */
  landing<T>(slot: number, write: () => T): T {
    this.landingSlot = slot;
    try {
      return write();
    } finally {
      this.landingSlot = null;
    }
  }

  /** Forgets the versions replaced at or before `slot`: no bank is that far behind. */
  pruneVersions(slot: number): void {
    this.versions.prune(slot);
  }

  private noteWrite(address: string, previous: StoredAccount | undefined): void {
    if (this.landingSlot === null) this.versions.forget(address);
    else this.versions.record(address, previous, this.landingSlot);
  }

  /** Creates or replaces an account; keeps every index in step with the bytes. */
  setAccount(address: string, input: AccountInput): void {
    const previous = this.accounts.get(address);
    this.noteWrite(address, previous);
    if (previous) this.byProgram.get(previous.owner)?.delete(address);
    this.unindexTokenAccount(address);

    const account = new StoredAccount(address, input.owner, input.lamports, input.data, input.executable ?? false);
    this.accounts.set(address, account);
    let owned = this.byProgram.get(account.owner);
    if (!owned) this.byProgram.set(account.owner, (owned = new Set()));
    owned.add(address);

    if (isTokenProgram(account.owner)) {
      const decoded = decodeTokenAccount(account.data, account.owner === TOKEN_2022_PROGRAM);
      if (decoded) {
        let wallets = this.tokenAccountsByWallet.get(decoded.owner);
        if (!wallets) this.tokenAccountsByWallet.set(decoded.owner, (wallets = new Set()));
        wallets.add(address);
        this.walletOfTokenAccount.set(address, decoded.owner);
      }
    }
  }

  deleteAccount(address: string): void {
    const previous = this.accounts.get(address);
    if (!previous) return;
    this.noteWrite(address, previous);
    this.byProgram.get(previous.owner)?.delete(address);
    this.unindexTokenAccount(address);
    this.accounts.delete(address);
  }

  private unindexTokenAccount(address: string): void {
    const wallet = this.walletOfTokenAccount.get(address);
    if (wallet === undefined) return;
    this.tokenAccountsByWallet.get(wallet)?.delete(address);
    this.walletOfTokenAccount.delete(address);
  }

  /** Addresses of accounts owned by a program (unordered, live view: do not mutate). */
  programAccounts(programId: string): ReadonlySet<string> {
    return this.byProgram.get(programId) ?? new Set();
  }

  /** Token accounts (both programs) whose owner field is this wallet. */
  tokenAccountsOf(wallet: string): ReadonlySet<string> {
    return this.tokenAccountsByWallet.get(wallet) ?? new Set();
  }

  /** A system account holding SOL (a wallet). Keeps data/owner of an existing non-system account. */
  setLamports(address: string, lamports: bigint | number | string): void {
    const existing = this.accounts.get(address);
    const value = toBigInt(lamports);
    if (existing) {
      this.setAccount(address, { owner: existing.owner, lamports: value, data: existing.data, executable: existing.executable });
    } else {
      this.setAccount(address, { owner: SYSTEM_PROGRAM, lamports: value, data: Buffer.alloc(0) });
    }
  }

  /** A fresh deterministic address for accounts created without one. */
  nextAddress(kind: string): string {
    this.autoAddressCounter += 1;
    return labelAddress(`auto:${kind}:${this.autoAddressCounter}`);
  }

  addMint(options: MintOptions): string {
    const address = options.address ?? this.nextAddress('mint');
    if (options.extensions?.length && options.program !== 'token2022') throw new Error('extensions need Token-2022');
    const data = encodeMint({
      decimals: options.decimals,
      supply: toBigInt(options.supply ?? 1_000_000_000_000_000n),
      mintAuthority: options.mintAuthority ?? null,
      extensions: options.program === 'token2022' && options.extensions?.length ? options.extensions : null,
    });
    this.setAccount(address, { owner: tokenProgramId(options.program), lamports: rentExemptLamports(data.length), data });
    return address;
  }

  /** Creates or updates a token account; without `address`, the owner's ATA. Returns its address. */
  addTokenAccount(options: TokenAccountOptions): string {
    const address = options.address ?? associatedTokenAddress(options.owner, options.mint, options.program);
    let extensions = options.extensions ?? null;
    if (options.program === 'token2022' && extensions === null && options.address === undefined) {
      extensions = [immutableOwnerExtension()];
    }
    if (extensions?.length && options.program !== 'token2022') throw new Error('extensions need Token-2022');
    const data = encodeTokenAccount({
      mint: options.mint,
      owner: options.owner,
      amount: toBigInt(options.amount),
      state: options.state ?? 'initialized',
      extensions: extensions?.length ? extensions : null,
    });
    this.setAccount(address, { owner: tokenProgramId(options.program), lamports: rentExemptLamports(data.length), data });
    return address;
  }

  ataAddress(owner: string, mint: string, program: TokenProgramName): string {
    return associatedTokenAddress(owner, mint, program);
  }

  // ---- DAS index (compressed NFTs) ----

  addDasAsset(asset: DasAsset): void {
    let assets = this.dasAssetsByOwner.get(asset.owner);
    if (!assets) this.dasAssetsByOwner.set(asset.owner, (assets = []));
    assets.push(asset);
  }

  dasAssetsOf(owner: string): readonly DasAsset[] {
    return this.dasAssetsByOwner.get(owner) ?? [];
  }

  // ---- lending (nodebt) ----

  addSaveObligation(options: SaveObligationOptions): string {
    const address = options.address ?? this.nextAddress('save-obligation');
    const borrowCount = options.borrowCount ?? (Number(options.borrowedUsd) > 0 ? 1 : 0);
    const reserves = Array.from({ length: borrowCount }, (_, i) => labelAddress(`save-reserve:${i}`));
    const data = encodeSaveObligation({
      lendingMarket: options.lendingMarket ?? labelAddress('save-main-market'),
      owner: options.owner,
      depositedUsd: options.depositedUsd ?? '1000',
      borrowedUsd: options.borrowedUsd,
      unweightedBorrowedUsd: options.unweightedBorrowedUsd ?? options.borrowedUsd,
      deposits: [{ reserve: labelAddress('save-reserve:sol'), amount: 10_000_000_000n, marketUsd: options.depositedUsd ?? '1000' }],
      borrows: reserves.map((reserve) => ({ reserve, amountWads: 10n ** 24n, marketUsd: options.borrowedUsd })),
      lastUpdateSlot: BigInt(this.slot - 10),
    });
    this.setAccount(address, { owner: SAVE_PROGRAM, lamports: rentExemptLamports(SAVE_OBLIGATION_SIZE), data });
    return address;
  }

  addKaminoObligation(options: KaminoObligationOptions): string {
    const address = options.address ?? this.nextAddress('kamino-obligation');
    const borrowCount = options.borrowCount ?? (Number(options.borrowedUsd) > 0 ? 1 : 0);
    const data = encodeKaminoObligation({
      lendingMarket: options.lendingMarket ?? '7u3HeHxYDLhnCoErrtycNokbQYbWGzLs6JSDqGAv5PfF',
      owner: options.owner,
      depositedUsd: options.depositedUsd ?? '1000',
      borrowedUsd: options.borrowedUsd,
      deposits: [{ reserve: labelAddress('kamino-reserve:sol'), amount: 10_000_000_000n, marketUsd: options.depositedUsd ?? '1000' }],
      borrows: Array.from({ length: borrowCount }, (_, i) => ({
        reserve: labelAddress(`kamino-reserve:${i}`),
        amountSf: 1n << 80n,
        marketUsd: options.borrowedUsd,
      })),
      lastUpdateSlot: BigInt(this.slot - 10),
    });
    this.setAccount(address, { owner: KAMINO_LEND_PROGRAM, lamports: rentExemptLamports(KAMINO_OBLIGATION_SIZE), data });
    return address;
  }

  addMarginfiBank(options: MarginfiBankOptions): string {
    const address = options.address ?? this.nextAddress('marginfi-bank');
    const data = encodeMarginfiBank(
      options.mint,
      options.decimals,
      options.group ?? MARGINFI_MAIN_GROUP,
      options.assetShareValue ?? '1',
      options.liabilityShareValue,
    );
    this.setAccount(address, { owner: MARGINFI_V2_PROGRAM, lamports: rentExemptLamports(MARGINFI_BANK_SIZE), data });
    return address;
  }

  addMarginfiAccount(options: MarginfiAccountOptions): string {
    const address = options.address ?? this.nextAddress('marginfi-account');
    const balances: MarginfiBalanceLayout[] = options.balances.map((b) => ({
      bank: b.bank,
      assetShares: b.assetShares ?? '0',
      liabilityShares: b.liabilityShares ?? '0',
    }));
    const data = encodeMarginfiAccount(options.group ?? MARGINFI_MAIN_GROUP, options.authority, balances);
    this.setAccount(address, { owner: MARGINFI_V2_PROGRAM, lamports: rentExemptLamports(MARGINFI_ACCOUNT_SIZE), data });
    return address;
  }

  // ---- transactions ----

  /** The slot a block produced at `blockTime` (unix seconds) has, counting back from the current slot. */
  slotAt(blockTime: number): number {
    const slotsAgo = Math.ceil((this.now - blockTime * 1000) / SLOT_MS);
    return Math.max(1, this.slot - Math.max(0, slotsAgo));
  }

  /** The block time (unix seconds) of `slot`, counting back from the current slot: slotAt's inverse, to the second. */
  blockTimeOfSlot(slot: number): number {
    return Math.floor((this.now - (this.slot - slot) * SLOT_MS) / 1000);
  }

  /** Records a transaction and indexes it under every address it touches. Returns its signature. */
  addTransaction(input: TransactionInput): string {
    this.transactionCounter += 1;
    const sequence = this.transactionCounter;
    const signature = input.signature ?? bs58.encode(createHash('sha512').update(`x404-localnet:tx:${sequence}`).digest());
    if (bs58.decode(signature).length !== 64) throw new Error('a signature is 64 bytes');
    if (this.transactions.has(signature)) throw new Error(`duplicate signature ${signature}`);
    const slot = input.slot ?? (input.blockTime === null ? this.slot - 100_000_000 : this.slotAt(input.blockTime));
    const stored = buildTransaction(
      input,
      {
        signature,
        slot,
        sequence,
        blockhash: labelAddress(`blockhash:${slot}`),
        lookupTable: labelAddress('lookup-table'),
      },
      (address) => Number(this.accounts.get(address)?.lamports ?? 0n),
    );
    this.index(stored);
    return signature;
  }

  /**
   * Records a transaction the local chain executed (executor.ts), already in its stored form;
   * `build` receives its insertion sequence. Throws on a signature already recorded.
   */
  recordTransaction(build: (sequence: number) => StoredTransaction): StoredTransaction {
    this.transactionCounter += 1;
    const stored = build(this.transactionCounter);
    if (this.transactions.has(stored.signature)) throw new Error(`duplicate signature ${stored.signature}`);
    this.index(stored);
    return stored;
  }

  private index(stored: StoredTransaction): void {
    this.transactions.set(stored.signature, stored);
    for (const address of new Set(stored.addresses)) {
      let list = this.history.get(address);
      if (!list) this.history.set(address, (list = []));
      list.push(stored);
      this.unsortedHistories.add(address);
    }
  }

  getTransaction(signature: string): StoredTransaction | undefined {
    return this.transactions.get(signature);
  }

  /**
   * One page of an address's history, newest first; `before` and `until` are exclusive. An unknown
   * `before` gives an empty page; an unknown `until` is ignored. A node that lags or has pruned old
   * blocks (ledger.ts) sees only slots `oldestSlot..newestSlot`: a `before` outside them is unknown.
   */
  signaturesFor(address: string, options: { limit: number; before?: string; until?: string; newestSlot?: number; oldestSlot?: number }): StoredTransaction[] {
    const list = this.sortedHistory(address);
    const positions = this.historyPosition.get(address);
    const newest = options.newestSlot ?? Infinity;
    const oldest = options.oldestSlot ?? 0;
    const visible = (tx: StoredTransaction): boolean => tx.slot <= newest && tx.slot >= oldest;
    let start = 0;
    if (options.before !== undefined) {
      const at = positions?.get(options.before);
      if (at === undefined || !visible(list[at]!)) return [];
      start = at + 1;
    }
    let end = list.length;
    if (options.until !== undefined) {
      const at = positions?.get(options.until);
      if (at !== undefined) end = at;
    }
    if (newest === Infinity && oldest === 0) return list.slice(start, Math.min(end, start + options.limit));
    const page: StoredTransaction[] = [];
    // Newest first: skip what the node has not reached, stop at what it has pruned.
    for (let i = start; i < end && page.length < options.limit; i++) {
      const tx = list[i]!;
      if (tx.slot < oldest) break;
      if (tx.slot <= newest) page.push(tx);
    }
    return page;
  }

  private sortedHistory(address: string): StoredTransaction[] {
    const list = this.history.get(address) ?? [];
    if (this.unsortedHistories.has(address)) {
      list.sort((a, b) => b.slot - a.slot || b.sequence - a.sequence);
      this.historyPosition.set(address, new Map(list.map((tx, i) => [tx.signature, i])));
      this.unsortedHistories.delete(address);
    }
    return list;
  }

  // ---- built-in programs ----

  private addProgramAccounts(): void {
    const program = (address: string, loader: string, data: Buffer) =>
      this.setAccount(address, { owner: loader, lamports: rentExemptLamports(data.length), data, executable: true });
    // Upgradeable programs store a 36-byte pointer (tag 2, program data address) in the program account.
    const upgradeable = (label: string) => {
      const data = Buffer.alloc(36);
      data.writeUInt32LE(2, 0);
      Buffer.from(bs58.decode(labelAddress(`programdata:${label}`))).copy(data, 4);
      return data;
    };
    program(SYSTEM_PROGRAM, NATIVE_LOADER, Buffer.from('system_program'));
    program(TOKEN_PROGRAM, BPF_LOADER_2, Buffer.from('\x7fELF spl-token (stand-in for the program binary)'));
    program(TOKEN_2022_PROGRAM, BPF_LOADER_UPGRADEABLE, upgradeable('token-2022'));
    program(ASSOCIATED_TOKEN_PROGRAM, BPF_LOADER_2, Buffer.from('\x7fELF spl-associated-token-account (stand-in)'));
  }
}


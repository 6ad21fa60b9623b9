import type { AtaSeed } from './ata.js';
/**
 * What the gate reads from the chain. Every method either returns data that was validated
 * against Solana's documented wire format (docs/solana-wire-format.md) or throws a GateError
 * 503 UPSTREAM_UNAVAILABLE (unreachable, HTTP/JSON-RPC error, rate limited, timed out, malformed
 * reply). Callers never see a partial answer: fail closed.
 */
export interface AccountInfo {
  /** Program owning the account (base58). */
  owner: string;
  lamports: number;
  /** Account data, or the requested slice of it. */
  data: Buffer;
  executable: boolean;
  /** The whole data's length (`space`), when the reply gives it (it is optional: older nodes leave it out). */
  space?: number;
}

export interface KeyedAccount {
  pubkey: string;
  account: AccountInfo;
}

export interface DataSlice {
  offset: number;
  length: number;
}

export type ProgramAccountsFilter = { dataSize: number } | { memcmp: { offset: number; bytes: string } };

/**
 * What a scan's caller knows of each account it asked for beyond the filters (its program's layout,
 * the owner a decoded field must name): why `account` is not such an account, or undefined when it
 * is. Run inside the reply's check, so a wrong account is a malformed reply, retried elsewhere.
 */
export type AccountLayoutCheck = (account: KeyedAccount) => string | undefined;

export interface ProgramAccountsQuery {
  filters: ProgramAccountsFilter[];
  dataSlice?: DataSlice;
  /** The answer serves later logins too (src/chain/shared-scans.ts); its filters must name no wallet. */
  shared?: boolean;
  /**
   * Checked on every account of the answer. Identical scans in flight share one answer, checked by
   * the first caller's `layout`: callers sending the same filters must check the same layout.
   */
  layout?: AccountLayoutCheck;
}

export interface SignatureInfo {
  signature: string;
  slot: number;
  /** null when the transaction succeeded. */
  err: unknown;
  blockTime: number | null;
  memo: string | null;
}

/**
 * How far back the node that answered a history page keeps history: its getFirstAvailableBlock.
 * It holds every block from `firstSlot` on; older ones are pruned (0: it keeps the ledger from
 * genesis, e.g. backed by long-term storage). A page that ends above a pruned part may be missing
 * older entries (docs/solana-wire-format.md, "One view of the chain").
 */
export interface HistoryHorizon {
  firstSlot: number;
  /** The block time of `firstSlot` (unix seconds); null when the node did not give one. */
  blockTime: number | null;
}

/** One getSignaturesForAddress page, newest first, and the horizon of the node that answered it. */
export interface HistoryPage {
  signatures: SignatureInfo[];
  /**
   * The answering node's horizon (cached per endpoint, read with getFirstAvailableBlock when not
   * known): asked only when a walk ends at the end of the list and needs to know whether older
   * entries could exist. Rejects with 503 when it cannot be read.
   */
  horizon(): Promise<HistoryHorizon>;
}

export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string | undefined;
  programId: string | undefined;
  /** Base units, as the chain stores them. */
  amount: bigint;
  decimals: number;
}

export interface ChainInstruction {
  programId: string;
  /** Account keys the instruction touches. */
  accounts: string[];
  /** Raw instruction data. */
  data: Buffer;
}

/** A transaction as getTransaction returns it, flattened into what the features need. */
export interface ChainTransaction {
  signature: string;
  slot: number;
  blockTime: number | null;
  err: unknown;
  /** Static keys, then loaded writable, then loaded readonly addresses (how accountIndex counts). */
  accountKeys: string[];
  /** Lamports by account index. */
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  /** Top-level instructions, then inner instructions, in order. */
  instructions: ChainInstruction[];
}

/** A token account the wallet owns, as getTokenAccountsByOwner lists it (decoded and checked). */
export interface OwnedTokenAccount {
  /** The token account's address. */
  address: string;
  /** The token program that owns it (Token or Token-2022). */
  program: string;
  mint: string;
  /** Base units. */
  amount: bigint;
  /** State 2: a frozen account still holds its tokens (a programmable NFT's always is). */
  frozen: boolean;
}

/** A wallet's SOL and its token balances, read together. */
export interface WalletBalances {
  tokens: Map<string, bigint>;
  lamports: bigint;
}

export interface ChainReader {
  /**
   * Summed balance (base units) of each mint over the wallet's ASSOCIATED token accounts (the one
   * under the mint's own token program; batched getMultipleAccounts). A mint the wallet holds
   * nothing of maps to 0n. Cheap, and bypassable by a holder who keeps the mint in another account:
   * src/chain/wallet-holdings.ts decides when it is enough. Mints must be valid base58 addresses.
   */
  getTokenBalances(wallet: string, mints: readonly string[]): Promise<Map<string, bigint>>;
  /**
   * getTokenBalances, and the wallet's own lamports (its account; 0n when it has none) read in the
   * same getMultipleAccounts. Lamports above 2^53 are as exact as the node's JSON number is.
   */
  getWalletBalances(wallet: string, mints: readonly string[]): Promise<WalletBalances>;
  /**
   * The associated token accounts getTokenBalances(wallet, mints) would derive and has not derived
   * yet — those of mints whose token program is already known. The pipeline has them derived in
   * the verify pool, in the task that checks the signature, so a first sign-in does not spend
   * event-loop time on them (rememberAtas hands them back).
   */
  atasToDerive(wallet: string, mints: readonly string[]): AtaSeed[];
  /** Caches ATAs derived elsewhere (`addresses[i]` is the ATA of `seeds[i]`). */
  rememberAtas(seeds: readonly AtaSeed[], addresses: readonly string[]): void;
  /**
   * Token accounts the wallet owns, every one of them (getTokenAccountsByOwner): without `mints`,
   * its whole list under both token programs (one call per program); with `mints`, those holding
   * each of them (one call per mint). Never read before the wallet's signature verified: the reply
   * grows with the wallet.
   */
  getTokenAccounts(wallet: string, mints?: readonly string[]): Promise<OwnedTokenAccount[]>;
  /** Batched, deduplicated, limited: concurrent callers share getMultipleAccounts calls. */
  getMultipleAccounts(keys: readonly string[], slice?: DataSlice): Promise<(AccountInfo | null)[]>;
  /**
   * One page, newest first (limit ≤ 1000; before/until exclusive), at least as new as every read
   * this reader (one login) has already made: it carries `minContextSlot`, and a node behind it is
   * not used (docs/solana-wire-format.md, "One view of the chain").
   */
  getSignaturesForAddress(
    address: string,
    options: { limit: number; before?: string; until?: string },
  ): Promise<HistoryPage>;
  /** JSON-RPC batched under the concurrency limiter; null for a transaction the node does not have. */
  getTransactions(signatures: readonly string[]): Promise<(ChainTransaction | null)[]>;
  /**
   * Identical scans in flight are sent once (src/chain/shared-scans.ts); with `shared`, whose
   * filters must name no wallet, the answer also serves later logins for PROGRAM_SCAN_SHARE_MS.
   */
  getProgramAccounts(programId: string, query: ProgramAccountsQuery): Promise<KeyedAccount[]>;
  /**
   * The same reader, bounded by `deadlineMs` (performance.now() ms): every RPC call it makes stops
   * retrying when no attempt fits before the deadline, aborts an attempt still in flight at the
   * deadline, and rejects with 503 by then even when its read is shared with other callers. A
   * cheap view (one small object): the pipeline makes one per login (LOGIN_TIMEOUT_MS). It is also
   * one view of the chain: its reads after the first are at least as new as every reply its
   * earlier reads used (minContextSlot; docs/solana-wire-format.md, "One view of the chain").
   */
  withDeadline(deadlineMs: number): ChainReader;
  /**
   * The earliest block time (ms since the epoch) at which `address` is known, from earlier history
   * reads, to have had a transaction, or undefined. A transaction's time never changes, so a wallet
   * once proven old stays proven without reading its history again (the age feature).
   */
  knownTransactionAt(address: string): number | undefined;
  /** Remembers a transaction of `address` at `timeMs` (kept only when older than an hour: final). */
  rememberTransactionAt(address: string, timeMs: number): void;
  /** Counters for metrics and the benchmark. */
  stats(): ChainStats;
  close(): Promise<void>;
}

export interface ChainStats {
  httpRequests: number;
  rpcCalls: Record<string, number>;
  errors: number;
  batchedKeys: number;
}

/** Optional hooks for metrics; called synchronously, must not throw. */
export interface ChainObserver {
  /** One JSON-RPC call sent (each batch member and each retry). */
  rpcCall?(method: string): void;
  /**
   * A failed attempt: kind is timeout, deadline, rate_limited, http, network, malformed, rpc, or
   * behind (the node answered from a slot older than the read needs, or -32016).
   */
  rpcError?(method: string, kind: string): void;
  /**
   * A hedged request settled (RPC_HEDGE_MS): `won` — the hedge answered first; `lost` — the first
   * provider answered after all; `failed` — neither answered cleanly.
   */
  rpcHedge?(outcome: 'won' | 'lost' | 'failed'): void;
  /** Keys in one getMultipleAccounts call, after merging concurrent callers. */
  accountsBatch?(keys: number): void;
  /** The calls per second a request about to be sent is paced by (RPC_CALLS_PER_SECOND or learned; 0: none). */
  callBudget?(perSecond: number): void;
}

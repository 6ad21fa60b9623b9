import type { Config } from '../config.js';
import { upstreamUnavailable } from '../errors.js';
import { AccountBatcher } from './account-batcher.js';
import { CallCoalescer } from './call-coalescer.js';
import { isAtaCached, rememberAssociatedTokenAddress, type AtaSeed } from './ata.js';
import { readSignatures, readTransactions, type HistoryCommitment } from './history.js';
import { readAtaBalances, readTokenAccounts, readTokenAccountsOfMints } from './holdings.js';
import { LruCache } from '../lib/lru-cache.js';
import { MintPrograms } from './mint-programs.js';
import { readProgramAccounts } from './program-accounts.js';
import { scanKey, SharedScans } from './shared-scans.js';
import { RpcClient } from './rpc.js';
import { LAGGING_SLOTS } from './slot-view.js';
import { type FetchLike, keepAliveFetch } from './transport.js';
import type { AccountInfo, ChainObserver, OwnedTokenAccount, ChainReader, ChainStats, DataSlice, HistoryPage, KeyedAccount, ProgramAccountsQuery, WalletBalances } from './types.js';

/**
 * The gate's ChainReader over JSON-RPC (rpc.ts), with getMultipleAccounts — and so the ATA
 * holdings path — merged across concurrent callers (account-batcher.ts). Invalid arguments (a key
 * that is not an address, a limit out of range) reject with TypeError: callers validate input
 * first, so that is a bug, not a 503.
 */
export function createChainReader(config: Config, options: { fetch?: FetchLike; observer?: ChainObserver } = {}): ChainReader {
  // Sockets for every slot the concurrency limit may open, and as many hedges.
  const rpc = new RpcClient(config, options.fetch ?? keepAliveFetch(2 * config.rpcConcurrencyMax, config.rpcMaxResponseBytes), options.observer);
  const batcher = new AccountBatcher(rpc, config, options.observer);
  return new RpcChainReader(
    {
      config,
      rpc,
      batcher,
      calls: new CallCoalescer(rpc, config),
      transactionTimes: new LruCache(KNOWN_TRANSACTION_TIMES),
      mintPrograms: new MintPrograms(batcher),
      scans: new SharedScans(config.programScanShareMs),
      historyCommitment: config.rpcCommitment === 'processed' ? 'confirmed' : config.rpcCommitment,
    },
    Infinity,
  );
}

/**
 * Addresses whose earliest seen transaction time is remembered: ~100 bytes each, so at most ~10 MB.
 * A forgotten address only costs its next age check one history read.
 */
export const KNOWN_TRANSACTION_TIMES = 100_000;
/** A transaction younger than this is not remembered: it could still be rolled back (`confirmed`). */
const FINAL_AFTER_MS = 3_600_000;

interface Parts {
  config: Config;
  rpc: RpcClient;
  batcher: AccountBatcher;
  /** Single calls of concurrent logins (history pages, program scans) merged into JSON-RPC batches. */
  calls: CallCoalescer;
  /** Per address, the earliest transaction time seen (knownTransactionAt). */
  transactionTimes: LruCache<string, number>;
  mintPrograms: MintPrograms;
  /** Program scans shared across logins for PROGRAM_SCAN_SHARE_MS (shared-scans.ts). */
  scans: SharedScans;
  historyCommitment: HistoryCommitment;
}

/**
 * Shared parts plus one deadline and one view of the chain: withDeadline() costs one small object
 * per login.
 *
 * The view (docs/solana-wire-format.md, "One view of the chain"): `seenSlot` is at least the slot of
 * every reply this login's reads used — the newest slot any endpoint had answered at when each of
 * them completed (a bound the shared, merged reads can give without telling each caller its own
 * slot). Later reads of the login ask for it as their minimum: a history page after a balance read
 * comes from a node that has seen at least what the balance read saw. A login's first read has no
 * minimum, so the hot path (one merged getMultipleAccounts) sends nothing more.
 */
class RpcChainReader implements ChainReader {
  private seenSlot = 0;
  /** This login's history pages (made on the first one: most logins read none). */
  private historyPages: Map<string, { minimum: number; page: Promise<HistoryPage> }> | undefined;

  constructor(
    private readonly parts: Parts,
    private readonly deadlineMs: number,
  ) {}

  /** After a read completed: what it used is no newer than what the client has seen now. */
  private saw(): void {
    const newest = this.parts.rpc.newestSlot();
    if (newest > this.seenSlot) this.seenSlot = newest;
  }

  /**
   * The minimum for a read whose reply carries no slot (history pages, program scans): the login's
   * view, and never more than LAGGING_SLOTS behind the chain as last seen, so a node that has fallen
   * behind refuses it even on a login's first read.
   */
  private minimumWithoutContext(): number {
    return Math.max(this.seenSlot, this.parts.rpc.newestSlot() - LAGGING_SLOTS, 0);
  }

  withDeadline(deadlineMs: number): ChainReader {
    return new RpcChainReader(this.parts, deadlineMs);
  }

  async getTokenBalances(wallet: string, mints: readonly string[]): Promise<Map<string, bigint>> {
    const { batcher, mintPrograms } = this.parts;
    const { balances } = await readAtaBalances(batcher, mintPrograms, wallet, mints, this.deadlineMs);
    this.saw();
    return balances;
  }

  async getWalletBalances(wallet: string, mints: readonly string[]): Promise<WalletBalances> {
    const { batcher, mintPrograms } = this.parts;
    const { balances, lamports } = await readAtaBalances(batcher, mintPrograms, wallet, mints, this.deadlineMs, true);
    this.saw();
    return { tokens: balances, lamports: lamports ?? 0n };
  }

  async getTokenAccounts(wallet: string, mints?: readonly string[]): Promise<OwnedTokenAccount[]> {
    const { calls, mintPrograms, config } = this.parts;
    const accounts = await (mints === undefined
      ? readTokenAccounts(calls, config.rpcCommitment, wallet, this.deadlineMs, config.tokenAccountsMax)
      : readTokenAccountsOfMints(calls, mintPrograms, config.rpcCommitment, wallet, mints, this.deadlineMs, config.tokenAccountsMax));
    this.saw();
    return accounts;
  }

  atasToDerive(wallet: string, mints: readonly string[]): AtaSeed[] {
    const seeds: AtaSeed[] = [];
    // Each mint once: a policy's handful is searched faster than a Set is built.
    const unique = mints.length > 16 ? new Set(mints) : mints.filter((mint, i) => mints.indexOf(mint) === i);
    for (const mint of unique) {
      const program = this.parts.mintPrograms.knownProgramOf(mint);
      if (program === undefined || program === null) continue;
      const seed = { owner: wallet, mint, program };
      if (!isAtaCached(seed)) seeds.push(seed);
    }
    return seeds;
  }

  rememberAtas(seeds: readonly AtaSeed[], addresses: readonly string[]): void {
    seeds.forEach((seed, i) => rememberAssociatedTokenAddress(seed, addresses[i] as string));
  }

  async getMultipleAccounts(keys: readonly string[], slice?: DataSlice): Promise<(AccountInfo | null)[]> {
    const accounts = await this.parts.batcher.load(keys, slice, false, this.deadlineMs, this.seenSlot);
    this.saw();
    return accounts;
  }

  /**
   * A rule's history leaves (age, activity) ask for the same first page of the same wallet: one
   * call for the login, as long as what was read is at least as new as what the login needs now.
   */
  getSignaturesForAddress(address: string, page: { limit: number; before?: string; until?: string }): Promise<HistoryPage> {
    const key = `${address} ${page.limit} ${page.before ?? ''} ${page.until ?? ''}`;
    const read = this.historyPages?.get(key);
    // The page read is as new as the login's view was then; it serves while that view has not grown.
    if (read !== undefined && read.minimum >= this.seenSlot) return read.page;
    const minimum = this.minimumWithoutContext();
    const fresh = this.readSignatures(address, page, minimum);
    (this.historyPages ??= new Map()).set(key, { minimum, page: fresh });
    fresh.catch(() => {
      if (this.historyPages?.get(key)?.page === fresh) this.historyPages.delete(key);
    });
    return fresh;
  }

  private async readSignatures(address: string, page: { limit: number; before?: string; until?: string }, minimum: number): Promise<HistoryPage> {
    const { rpc, calls, historyCommitment } = this.parts;
    const deadlineMs = this.deadlineMs;
    const { signatures, endpoint } = await readSignatures(calls, historyCommitment, address, page, deadlineMs, minimum);
    // The page carries no slot: it is as new as the minimum only if its node honours the parameter.
    if (minimum > 0 && !(await rpc.honoursHistoryMinimum(endpoint, { address, commitment: historyCommitment }, deadlineMs))) {
      throw upstreamUnavailable('getSignaturesForAddress: the RPC node ignores minContextSlot, so its history may be older than what this login already read');
    }
    return { signatures, horizon: () => rpc.historyHorizon(endpoint, deadlineMs) };
  }

  async getTransactions(signatures: readonly string[]) {
    return readTransactions(this.parts.rpc, this.parts.historyCommitment, signatures, this.deadlineMs);
  }

  async getProgramAccounts(programId: string, query: ProgramAccountsQuery): Promise<KeyedAccount[]> {
    const { calls, config, scans } = this.parts;
    const minimum = this.minimumWithoutContext();
    // A shared answer (shared-scans.ts) carries its sender's deadline; this login's own bounds its wait.
    // Shared answers are read-only for every caller (they decode, never write).
    const { filters, dataSlice, shared = false } = query;
    return scans.read(scanKey(programId, filters, dataSlice), { viewSlot: this.seenSlot, minSlot: minimum, keep: shared }, () =>
      readProgramAccounts(calls, config.rpcCommitment, programId, query, this.deadlineMs, minimum),
    );
  }

  knownTransactionAt(address: string): number | undefined {
    return this.parts.transactionTimes.get(address);
  }

  rememberTransactionAt(address: string, timeMs: number): void {
    if (!(timeMs <= Date.now() - FINAL_AFTER_MS)) return;
    const known = this.parts.transactionTimes.peek(address);
    if (known === undefined || timeMs < known) this.parts.transactionTimes.set(address, timeMs);
  }

  stats(): ChainStats {
    return { ...this.parts.rpc.stats(), batchedKeys: this.parts.batcher.batchedKeys() };
  }

  async close(): Promise<void> {
    await Promise.all([this.parts.batcher.flushNow(), this.parts.calls.flushNow()]);
  }
}

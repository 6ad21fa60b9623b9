import type { AtaSeed } from '../chain/ata.js';
import type { ChainReader, DataSlice, ProgramAccountsFilter } from '../chain/types.js';

/**
 * A rule leaf's view of the chain: the login's reader, refusing every new read once the leaf is no
 * longer needed (src/rules/evaluate.ts aborts it). Reads already sent finish (others may share
 * them); what a check would have read next — another history page, a program scan — is not sent.
 */
export function abortableChain(chain: ChainReader, signal: AbortSignal): ChainReader {
  return new AbortableChain(chain, signal);
}

/** A class, not an object of closures: one small object per leaf of every login. */
class AbortableChain implements ChainReader {
  constructor(
    private readonly chain: ChainReader,
    private readonly signal: AbortSignal,
  ) {}

  private guard<T>(read: () => Promise<T>): Promise<T> {
    if (this.signal.aborted) return Promise.reject(this.signal.reason);
    return read();
  }

  getTokenBalances(wallet: string, mints: readonly string[]) {
    return this.guard(() => this.chain.getTokenBalances(wallet, mints));
  }
  getTokenAccounts(wallet: string) {
    return this.guard(() => this.chain.getTokenAccounts(wallet));
  }
  atasToDerive(wallet: string, mints: readonly string[]) {
    return this.chain.atasToDerive(wallet, mints);
  }
  rememberAtas(seeds: readonly AtaSeed[], addresses: readonly string[]) {
    this.chain.rememberAtas(seeds, addresses);
  }
  getMultipleAccounts(keys: readonly string[], slice?: DataSlice) {
    return this.guard(() => this.chain.getMultipleAccounts(keys, slice));
  }
  getSignaturesForAddress(address: string, options: { limit: number; before?: string; until?: string }) {
    return this.guard(() => this.chain.getSignaturesForAddress(address, options));
  }
  getTransactions(signatures: readonly string[]) {
    return this.guard(() => this.chain.getTransactions(signatures));
  }
  getProgramAccounts(programId: string, options: { filters: ProgramAccountsFilter[]; dataSlice?: DataSlice }) {
    return this.guard(() => this.chain.getProgramAccounts(programId, options));
  }
  withDeadline(deadlineMs: number): ChainReader {
    return new AbortableChain(this.chain.withDeadline(deadlineMs), this.signal);
  }
  knownTransactionAt(address: string) {
    return this.chain.knownTransactionAt(address);
  }
  rememberTransactionAt(address: string, timeMs: number) {
    this.chain.rememberTransactionAt(address, timeMs);
  }
  stats() {
    return this.chain.stats();
  }
  close() {
    return this.chain.close();
  }
}

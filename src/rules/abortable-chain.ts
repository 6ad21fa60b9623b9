import type { AtaSeed } from '../chain/ata.js';
import type { ChainReader, DataSlice, ProgramAccountsQuery } from '../chain/types.js';

/**
 * A rule leaf's view of the chain: the login's reader, refusing every new read once the leaf is no
 * longer needed (src/rules/evaluate.ts aborts it). Reads already sent finish (others may share
 * them); what a check would have read next — another history page, a program scan — is not sent.
 */
export function abortableChain(chain: ChainReader, stop: Stoppable): ChainReader {
  return new AbortableChain(chain, stop);
}

/** What the chain view looks at: an AbortSignal, or a LeafStop. */
export interface Stoppable {
  readonly aborted: boolean;
  readonly reason: unknown;
}

/**
 * A leaf's stop switch: an AbortController's `abort()` and `aborted`, with the AbortSignal itself
 * made only when a check asks for it (the collection feature's DAS pages). Most leaves never do,
 * and a rule runs several leaves on every login.
 */
export class LeafStop implements Stoppable {
  aborted = false;
  reason: unknown = undefined;
  private controller: AbortController | undefined;

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = new DOMException('This operation was aborted', 'AbortError');
    this.controller?.abort(this.reason);
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }
}

/** A class, not an object of closures: one small object per leaf of every login. */
class AbortableChain implements ChainReader {
  constructor(
    private readonly chain: ChainReader,
    private readonly stop: Stoppable,
  ) {}

  private guard<T>(read: () => Promise<T>): Promise<T> {
    if (this.stop.aborted) return Promise.reject(this.stop.reason);
    return read();
  }

  getTokenBalances(wallet: string, mints: readonly string[]) {
    return this.guard(() => this.chain.getTokenBalances(wallet, mints));
  }
  getWalletBalances(wallet: string, mints: readonly string[]) {
    return this.guard(() => this.chain.getWalletBalances(wallet, mints));
  }
  getTokenAccounts(wallet: string, mints?: readonly string[]) {
    return this.guard(() => this.chain.getTokenAccounts(wallet, mints));
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
  getProgramAccounts(programId: string, query: ProgramAccountsQuery) {
    return this.guard(() => this.chain.getProgramAccounts(programId, query));
  }
  withDeadline(deadlineMs: number): ChainReader {
    return new AbortableChain(this.chain.withDeadline(deadlineMs), this.stop);
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

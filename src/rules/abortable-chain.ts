import type { ChainReader } from '../chain/types.js';

/**
 * A rule leaf's view of the chain: the login's reader, refusing every new read once the leaf is no
 * longer needed (src/rules/evaluate.ts aborts it). Reads already sent finish (others may share
 * them); what a check would have read next — another history page, a program scan — is not sent.
 */
export function abortableChain(chain: ChainReader, signal: AbortSignal): ChainReader {
  const guard = <T>(read: () => Promise<T>): Promise<T> => {
    if (signal.aborted) return Promise.reject(signal.reason);
    return read();
  };
  return {
    getTokenBalances: (wallet, mints) => guard(() => chain.getTokenBalances(wallet, mints)),
    getTokenAccounts: (wallet) => guard(() => chain.getTokenAccounts(wallet)),
    atasToDerive: (wallet, mints) => chain.atasToDerive(wallet, mints),
    rememberAtas: (seeds, addresses) => chain.rememberAtas(seeds, addresses),
    getMultipleAccounts: (keys, slice) => guard(() => chain.getMultipleAccounts(keys, slice)),
    getSignaturesForAddress: (address, options) => guard(() => chain.getSignaturesForAddress(address, options)),
    getTransactions: (signatures) => guard(() => chain.getTransactions(signatures)),
    getProgramAccounts: (programId, options) => guard(() => chain.getProgramAccounts(programId, options)),
    withDeadline: (deadlineMs) => abortableChain(chain.withDeadline(deadlineMs), signal),
    stats: () => chain.stats(),
    close: () => chain.close(),
  };
}

import type { Config } from '../config.js';
import { AccountBatcher } from './account-batcher.js';
import { readSignatures, readTransactions, type HistoryCommitment } from './history.js';
import { readAllBalances, readAtaBalances } from './holdings.js';
import { MintPrograms } from './mint-programs.js';
import { readProgramAccounts } from './program-accounts.js';
import { type FetchLike, RpcClient } from './rpc.js';
import type { ChainObserver, ChainReader } from './types.js';

/**
 * The gate's ChainReader over JSON-RPC (rpc.ts), with getMultipleAccounts — and so the ATA
 * holdings path — merged across concurrent callers (account-batcher.ts). Invalid arguments (a key
 * that is not an address, a limit out of range) reject with TypeError: callers validate input
 * first, so that is a bug, not a 503.
 */
export function createChainReader(config: Config, options: { fetch?: FetchLike; observer?: ChainObserver } = {}): ChainReader {
  const rpc = new RpcClient(config, options.fetch, options.observer);
  const batcher = new AccountBatcher(rpc, config, options.observer);
  const mintPrograms = new MintPrograms(batcher);
  const historyCommitment: HistoryCommitment = config.rpcCommitment === 'processed' ? 'confirmed' : config.rpcCommitment;

  return {
    async getTokenBalances(wallet, mints) {
      return config.holdingsScope === 'ata'
        ? readAtaBalances(batcher, mintPrograms, wallet, mints)
        : readAllBalances(rpc, config.rpcCommitment, wallet, mints);
    },
    async getMultipleAccounts(keys, slice) {
      return batcher.load(keys, slice);
    },
    async getSignaturesForAddress(address, page) {
      return readSignatures(rpc, historyCommitment, address, page);
    },
    async getTransactions(signatures) {
      return readTransactions(rpc, historyCommitment, signatures);
    },
    async getProgramAccounts(programId, query) {
      return readProgramAccounts(rpc, config.rpcCommitment, programId, query);
    },
    stats() {
      return { ...rpc.stats(), batchedKeys: batcher.batchedKeys() };
    },
    async close() {
      await batcher.flushNow();
    },
  };
}

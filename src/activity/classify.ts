import type { ChainInstruction, ChainTransaction } from '../chain/types.js';
import { NFT_PROGRAMS, STAKE_PROGRAM, SWAP_PROGRAMS, SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './classifying-programs.js';

/** The activity feature's transaction types (docs/api.md §5). */
export const ACTIVITY_TYPES = ['transfer', 'swap', 'nft', 'stake'] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

/** System Program instruction tags (u32 LE): Transfer and TransferWithSeed. */
const SYSTEM_TRANSFER = 2;
const SYSTEM_TRANSFER_WITH_SEED = 11;
/** SPL Token instruction tags (u8), the same under Token-2022: Transfer and TransferChecked. */
const TOKEN_TRANSFER = 3;
const TOKEN_TRANSFER_CHECKED = 12;

/**
 * The types of one transaction as seen from `wallet`; a transaction can have several (a swap
 * usually also moves the wallet's tokens with an inner SPL transfer). Every instruction counts,
 * top-level and inner alike, so a swap routed through an aggregator is still a swap.
 */
export function classifyTransaction(transaction: ChainTransaction, wallet: string): Set<ActivityType> {
  const types = new Set<ActivityType>();
  for (const instruction of transaction.instructions) {
    if (SWAP_PROGRAMS.has(instruction.programId)) types.add('swap');
    else if (NFT_PROGRAMS.has(instruction.programId)) types.add('nft');
    else if (instruction.programId === STAKE_PROGRAM) types.add('stake');
    else if (isTransferByWallet(instruction, transaction, wallet)) types.add('transfer');
  }
  return types;
}

/**
 * A transfer "by the wallet": a System Program transfer whose funding account (or, with a seed,
 * base signer) is the wallet, or an SPL Token transfer whose authority is the wallet or whose
 * source token account the wallet owns. Receiving a transfer is not activity of the wallet.
 */
export function isTransferByWallet(instruction: ChainInstruction, transaction: ChainTransaction, wallet: string): boolean {
  const { programId, accounts, data } = instruction;
  if (programId === SYSTEM_PROGRAM) {
    if (data.length < 4) return false;
    const tag = data.readUInt32LE(0);
    if (tag === SYSTEM_TRANSFER) return accounts[0] === wallet;
    if (tag === SYSTEM_TRANSFER_WITH_SEED) return accounts[1] === wallet;
    return false;
  }
  if (programId === TOKEN_PROGRAM || programId === TOKEN_2022_PROGRAM) {
    const tag = data[0];
    let source: string | undefined;
    let authority: string | undefined;
    if (tag === TOKEN_TRANSFER) [source, , authority] = accounts;
    else if (tag === TOKEN_TRANSFER_CHECKED) [source, , , authority] = accounts;
    else return false;
    return authority === wallet || (source !== undefined && tokenAccountOwner(transaction, source) === wallet);
  }
  return false;
}

/** The owner the transaction's token balances record for a token account, if any. */
function tokenAccountOwner(transaction: ChainTransaction, tokenAccount: string): string | undefined {
  for (const balance of [...transaction.preTokenBalances, ...transaction.postTokenBalances]) {
    if (transaction.accountKeys[balance.accountIndex] === tokenAccount && balance.owner !== undefined) return balance.owner;
  }
  return undefined;
}

/** The wallet's absolute SOL balance change in the transaction, in lamports (fees included). */
export function walletLamportChange(transaction: ChainTransaction, wallet: string): bigint {
  const index = transaction.accountKeys.indexOf(wallet);
  if (index < 0) return 0n;
  const change = (transaction.postBalances[index] ?? 0n) - (transaction.preBalances[index] ?? 0n);
  return change < 0n ? -change : change;
}

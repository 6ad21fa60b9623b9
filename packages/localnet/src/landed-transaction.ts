/**
 * A transaction the local chain executed, in the form its history serves (getTransaction `json`,
 * getSignaturesForAddress): the message as it was signed, and the meta the runtime produced —
 * fee, lamport and token balances before and after by account index, inner instructions, logs,
 * compute units, loaded addresses — shaped like agave's UiTransactionStatusMeta.
 */
import bs58 from 'bs58';
import type { Execution, AccountSnapshot } from './executor.js';
import { decodeMintDecimals, decodeTokenAccount } from './layouts.js';
import { isTokenProgram, TOKEN_2022_PROGRAM } from './programs.js';
import { uiTokenAmount, type StoredTransaction } from './transactions.js';
import type { WireTransaction } from './wire-transaction.js';

/** Memo v1 and v3 (spl-memo): getSignaturesForAddress reports what either was given. */
const MEMO_PROGRAMS: ReadonlySet<string> = new Set(['MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo']);

export interface Placement {
  slot: number;
  blockTime: number;
  fee: number;
  sequence: number;
}

/** `mintDecimals` finds a mint the transaction does not name (a plain Transfer names none), as the node reads it from the bank. */
export function landedTransaction(tx: WireTransaction, run: Execution, placement: Placement, mintDecimals: (mint: string) => number | null): StoredTransaction {
  const decimalsOf = (mint: string) => decimalsInRun(mint, run) ?? mintDecimals(mint);
  const signature = bs58.encode(tx.signatures[0]!);
  const memos = tx.instructions.filter((ix) => MEMO_PROGRAMS.has(tx.staticKeys[ix.programIdIndex] ?? '')).map((ix) => ix.data);
  const message: Record<string, unknown> = {
    accountKeys: tx.staticKeys,
    header: tx.header,
    instructions: tx.instructions.map((ix) => ({ accounts: ix.accounts, data: bs58.encode(ix.data), programIdIndex: ix.programIdIndex, stackHeight: null })),
    recentBlockhash: tx.recentBlockhash,
  };
  if (tx.version === 0) message.addressTableLookups = tx.lookups;
  const meta: Record<string, unknown> = {
    computeUnitsConsumed: run.unitsConsumed,
    err: run.err,
    fee: placement.fee,
    innerInstructions: run.innerInstructions,
    loadedAddresses: { readonly: run.loadedAddresses.readonly, writable: run.loadedAddresses.writable },
    logMessages: run.logs,
    postBalances: run.post.map(lamportsOf),
    postTokenBalances: tokenBalances(run.post, decimalsOf),
    preBalances: run.pre.map(lamportsOf),
    preTokenBalances: tokenBalances(run.pre, decimalsOf),
    rewards: [],
    status: run.err === null ? { Ok: null } : { Err: run.err },
  };
  if (run.returnData) meta.returnData = run.returnData;
  return {
    signature,
    slot: placement.slot,
    blockTime: placement.blockTime,
    err: run.err,
    memo: memos.length ? memos.map(memoText).join('; ') : null,
    ...(memos.length ? { formattedMemo: memos.map((data) => `[${data.length}] ${memoText(data)}`).join('; ') } : {}),
    version: tx.version,
    addresses: run.accountKeys,
    result: {
      blockTime: placement.blockTime,
      meta,
      slot: placement.slot,
      transaction: { message, signatures: tx.signatures.map((s) => bs58.encode(s)) },
    },
    sequence: placement.sequence,
    wire: tx.bytes.toString('base64'),
  };
}

function lamportsOf(account: AccountSnapshot | null): number {
  return account ? Number(account.lamports) : 0;
}

/** The node's memo parsing: UTF-8 text, "(unparseable)" otherwise. */
function memoText(data: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return '(unparseable)';
  }
}

/** Token accounts among the transaction's accounts, with their mint's decimals, as the node collects them. */
function tokenBalances(accounts: (AccountSnapshot | null)[], decimalsOf: (mint: string) => number | null): Record<string, unknown>[] {
  const balances: Record<string, unknown>[] = [];
  accounts.forEach((account, accountIndex) => {
    if (!account || !isTokenProgram(account.owner)) return;
    const token = decodeTokenAccount(account.data, account.owner === TOKEN_2022_PROGRAM);
    if (!token) return;
    const decimals = decimalsOf(token.mint);
    if (decimals === null) return;
    balances.push({ accountIndex, mint: token.mint, owner: token.owner, programId: account.owner, uiTokenAmount: uiTokenAmount(token.amount, decimals, true) });
  });
  return balances;
}

/** A mint the transaction touched (its decimals never change). */
function decimalsInRun(mint: string, run: Execution): number | null {
  const index = run.accountKeys.indexOf(mint);
  const account = index >= 0 ? (run.post[index] ?? run.pre[index]) : null;
  if (!account || !isTokenProgram(account.owner)) return null;
  return decodeMintDecimals(account.data, account.owner === TOKEN_2022_PROGRAM);
}

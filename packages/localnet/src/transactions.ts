/**
 * Transactions of the local chain: what a caller describes (TransactionInput, by addresses) and
 * how it is stored (the getTransaction `json` result, with keys resolved to indexes the way the
 * node does: static keys, then loaded writable, then loaded readonly addresses).
 */
import bs58 from 'bs58';
import { MEMO_PROGRAM, TOKEN_PROGRAM } from './programs.js';

export interface InstructionInput {
  programId: string;
  accounts: string[];
  /** Raw bytes, or already base58 text. */
  data?: Uint8Array | string;
}

export interface TokenBalanceInput {
  /** The token account. */
  account: string;
  mint: string;
  /** Wallet owning the token account; null for old transactions that did not record it. */
  owner: string | null;
  /** Defaults to the Token program; null (with owner null) for old transactions. */
  programId?: string | null;
  decimals: number;
  /** null: the account did not exist before (pre) / was closed after (post). */
  pre: bigint | null;
  post: bigint | null;
}

export interface TransactionInput {
  /** Valid base58 of 64 bytes; derived deterministically when omitted. */
  signature?: string;
  /** Unix seconds; null as for some old blocks. */
  blockTime: number | null;
  /** Defaults to the slot matching blockTime (400 ms slots back from the chain's current slot). */
  slot?: number;
  /** Transaction error as the node reports it (e.g. {InstructionError:[0,{Custom:1}]}); null/omitted = success. */
  err?: unknown;
  /** Memo text; also adds a Memo program instruction. */
  memo?: string | null;
  version?: 'legacy' | 0;
  feePayer: string;
  fee?: number;
  /** Extra static keys, in order (instruction accounts and programs not listed are appended). */
  accountKeys?: string[];
  /** v0 only: addresses loaded through an address lookup table. */
  loadedAddresses?: { writable: string[]; readonly: string[] };
  instructions: InstructionInput[];
  innerInstructions?: { index: number; instructions: InstructionInput[] }[];
  /** Lamport changes; any key not listed keeps `defaultLamports` before and after (fee payer pays the fee). */
  lamportChanges?: { address: string; pre: number; post: number }[];
  tokenBalances?: TokenBalanceInput[];
  logMessages?: string[];
}

export interface StoredTransaction {
  signature: string;
  slot: number;
  blockTime: number | null;
  err: unknown;
  memo: string | null;
  /** getSignaturesForAddress's `memo` as the node formats it, when `memo` alone cannot say it (several memo instructions). */
  formattedMemo?: string;
  version: 'legacy' | 0;
  /** Every address the transaction touches (static and loaded): getSignaturesForAddress indexes these. */
  addresses: string[];
  /** The getTransaction result without `version` (added per request); JSON-safe values only. */
  result: Record<string, unknown>;
  /** Insertion order: ties within a slot list the later one first. */
  sequence: number;
  /** The wire transaction (base64), for transactions the chain executed: getTransaction's `base64` encoding. */
  wire?: string;
}

function toBase58Data(data: Uint8Array | string | undefined): string {
  if (data === undefined) return '';
  return typeof data === 'string' ? data : bs58.encode(data);
}

function uiAmountString(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const digits = amount.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, -decimals);
  const fraction = digits.slice(-decimals).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

export function uiTokenAmount(amount: bigint, decimals: number, zeroAsNull: boolean) {
  const text = uiAmountString(amount, decimals);
  return {
    amount: amount.toString(),
    decimals,
    // Transaction token balances report uiAmount null for zero, as the node does.
    uiAmount: zeroAsNull && amount === 0n ? null : Number(text),
    uiAmountString: text,
  };
}

/**
 * Resolves a TransactionInput into the stored form. `lamportsOf` gives the default balance of keys
 * whose change is not described; `lookupTable` names the v0 lookup table.
 */
export function buildTransaction(
  input: TransactionInput,
  placement: { signature: string; slot: number; sequence: number; blockhash: string; lookupTable: string },
  lamportsOf: (address: string) => number,
): StoredTransaction {
  const version = input.version ?? 'legacy';
  const loaded = input.loadedAddresses ?? { writable: [], readonly: [] };
  if (version === 'legacy' && (loaded.writable.length || loaded.readonly.length)) {
    throw new Error('legacy transactions cannot load addresses');
  }
  const instructions = [...input.instructions];
  if (input.memo) instructions.push({ programId: MEMO_PROGRAM, accounts: [], data: Buffer.from(input.memo, 'utf8') });

  const staticKeys: string[] = [input.feePayer];
  const addStatic = (key: string) => {
    if (!staticKeys.includes(key) && !loaded.writable.includes(key) && !loaded.readonly.includes(key)) staticKeys.push(key);
  };
  for (const key of input.accountKeys ?? []) addStatic(key);
  const allInstructions = [...instructions, ...(input.innerInstructions ?? []).flatMap((group) => group.instructions)];
  for (const ix of allInstructions) for (const key of ix.accounts) addStatic(key);
  // Program ids must be static keys; they are the read-only unsigned tail of the list.
  const programs: string[] = [];
  for (const ix of allInstructions) {
    if (!staticKeys.includes(ix.programId)) {
      staticKeys.push(ix.programId);
      programs.push(ix.programId);
    }
  }
  const allKeys = [...staticKeys, ...loaded.writable, ...loaded.readonly];
  const indexOf = (key: string) => {
    const index = allKeys.indexOf(key);
    if (index < 0) throw new Error(`key ${key} not in transaction`);
    return index;
  };
  const compile = (ix: InstructionInput, stackHeight: number | null) => ({
    accounts: ix.accounts.map(indexOf),
    data: toBase58Data(ix.data),
    programIdIndex: indexOf(ix.programId),
    stackHeight,
  });

  const fee = input.fee ?? 5000;
  const preBalances = allKeys.map(lamportsOf);
  const postBalances = [...preBalances];
  postBalances[0] = Math.max(0, preBalances[0]! - fee);
  for (const change of input.lamportChanges ?? []) {
    const index = indexOf(change.address);
    preBalances[index] = change.pre;
    postBalances[index] = change.post;
  }

  const tokenBalance = (balance: TokenBalanceInput, amount: bigint) => {
    const entry: Record<string, unknown> = {
      accountIndex: indexOf(balance.account),
      mint: balance.mint,
    };
    if (balance.owner !== null) entry.owner = balance.owner;
    const programId = balance.programId === undefined ? TOKEN_PROGRAM : balance.programId;
    if (programId !== null) entry.programId = programId;
    entry.uiTokenAmount = uiTokenAmount(amount, balance.decimals, true);
    return entry;
  };
  const tokenBalances = input.tokenBalances ?? [];
  const err = input.err ?? null;

  const message: Record<string, unknown> = {
    accountKeys: staticKeys,
    header: {
      numReadonlySignedAccounts: 0,
      numReadonlyUnsignedAccounts: programs.length,
      numRequiredSignatures: 1,
    },
    instructions: instructions.map((ix) => compile(ix, null)),
    recentBlockhash: placement.blockhash,
  };
  if (version === 0) {
    message.addressTableLookups =
      loaded.writable.length || loaded.readonly.length
        ? [
            {
              accountKey: placement.lookupTable,
              readonlyIndexes: loaded.readonly.map((_, i) => loaded.writable.length + i),
              writableIndexes: loaded.writable.map((_, i) => i),
            },
          ]
        : [];
  }
  const result = {
    blockTime: input.blockTime,
    meta: {
      computeUnitsConsumed: 1000 + 500 * allInstructions.length,
      err,
      fee,
      innerInstructions: (input.innerInstructions ?? []).map((group) => ({
        index: group.index,
        instructions: group.instructions.map((ix) => compile(ix, 2)),
      })),
      loadedAddresses: { readonly: loaded.readonly, writable: loaded.writable },
      logMessages: input.logMessages ?? [],
      postBalances,
      postTokenBalances: tokenBalances.filter((b) => b.post !== null).map((b) => tokenBalance(b, b.post!)),
      preBalances,
      preTokenBalances: tokenBalances.filter((b) => b.pre !== null).map((b) => tokenBalance(b, b.pre!)),
      rewards: [],
      status: err === null ? { Ok: null } : { Err: err },
    },
    slot: placement.slot,
    transaction: { message, signatures: [placement.signature] },
  };
  return {
    signature: placement.signature,
    slot: placement.slot,
    blockTime: input.blockTime,
    err,
    memo: input.memo ?? null,
    version,
    addresses: allKeys,
    result,
    sequence: placement.sequence,
  };
}

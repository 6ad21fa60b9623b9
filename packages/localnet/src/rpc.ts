/**
 * The JSON-RPC methods of the local chain. Each handler takes the request's `params` and returns
 * the `result` as JSON text (see encoding.ts for why text), or throws an RpcError.
 */
import bs58 from 'bs58';
import { searchAssets } from './das.js';
import { renderAccount, parseEncodingOptions, type EncodingOptions } from './encoding.js';
import type { StoredAccount } from './accounts.js';
import { ACCOUNT_TYPE_ACCOUNT, decodeMintDecimals, decodeTokenAccount, TOKEN_ACCOUNT_SIZE } from './layouts.js';
import { DEFAULT_LEDGER, type LedgerSettings } from './ledger.js';
import { isTokenProgram, TOKEN_2022_PROGRAM } from './programs.js';
import {
  RpcError,
  RPC_BLOCK_NOT_AVAILABLE,
  RPC_INVALID_PARAMS,
  RPC_METHOD_NOT_FOUND,
  RPC_MIN_CONTEXT_SLOT_NOT_REACHED,
  RPC_TRANSACTION_HISTORY_NOT_AVAILABLE,
  RPC_UNSUPPORTED_TRANSACTION_VERSION,
} from './rpc-error.js';
import type { ChainState } from './state.js';
import type { AccountTamper, TamperAnswer } from './tamper.js';

/** The RPC version the local chain claims to be (context.apiVersion, getVersion). */
export const API_VERSION = '2.2.16';
const FEATURE_SET = 3294202862;
const MAX_MULTIPLE_ACCOUNTS = 100;
const MAX_SIGNATURES_LIMIT = 1000;
const MAX_PROGRAM_ACCOUNT_FILTERS = 4;
const MAX_MEMCMP_BYTES = 128;

/**
 * The node answering a call: the slot it is at for this method (the chain's, or older when it lags,
 * ledger.ts) and what part of the ledger it serves.
 */
export interface NodeView {
  slot: number;
  ledger: Readonly<LedgerSettings>;
  /** The tampered-accounts fault (tamper.ts), applied to every account an answer shows. */
  tamper: AccountTamper | undefined;
  /** Blocks the bank of a commitment (a request's value) trails `slot` by (cluster.ts). */
  lagOf(commitment: unknown): number;
  /** The slot account reads at a commitment answer as of (cluster.ts); null: the newest state. */
  accountSlotOf(commitment: unknown, slot: number): number | null;
}

type Handler = (state: ChainState, params: unknown[], node: NodeView) => string;

/** `{context, value}` as of `slot`: the node's (a lagging node answers as of an older one, ledger.ts). */
export function context(state: ChainState, valueJson: string, slot = state.slot): string {
  return `{"context":{"apiVersion":"${API_VERSION}","slot":${slot}},"value":${valueJson}}`;
}

/**
 * `minContextSlot` (the methods that take a context config): above the node's slot, -32016 with the
 * node's slot in `data.contextSlot`, as the validator answers (agave `get_bank_with_config`).
 */
function checkMinContextSlot(config: Record<string, unknown>, node: NodeView, slot = node.slot): void {
  const minimum = config.minContextSlot;
  if (minimum === undefined || minimum === null) return;
  if (typeof minimum !== 'number' || !Number.isSafeInteger(minimum) || minimum < 0) {
    throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: invalid type: expected u64 for minContextSlot.');
  }
  if (node.ledger.honoursMinContextSlot && minimum > slot) {
    throw new RpcError(RPC_MIN_CONTEXT_SLOT_NOT_REACHED, 'Minimum context slot has not been reached', { contextSlot: slot });
  }
}

/** The slot of the bank a request's commitment names (cluster.ts). */
function bankSlot(config: Record<string, unknown>, node: NodeView): number {
  return node.slot - node.lagOf(config.commitment);
}

/** The accounts a read sees: the newest state, or (cluster.ts) the versions its commitment's bank has; `slot` answers as of. */
interface AccountBank {
  get(address: string): StoredAccount | undefined;
  slot: number;
  /** The bank's slot when it is not the newest state: lists must also consider accounts written since. */
  olderThanState: number | null;
}

function accountBank(state: ChainState, config: Record<string, unknown>, node: NodeView): AccountBank {
  const at = node.accountSlotOf(config.commitment, node.slot);
  if (at === null) return { get: (address) => state.getAccount(address), slot: node.slot, olderThanState: null };
  return { get: (address) => state.accountAt(address, at), slot: at, olderThanState: at };
}

/** `indexed`, plus at an older bank the accounts written since (the indexes follow the newest state). */
function candidates(state: ChainState, indexed: Iterable<string>, bank: AccountBank): Iterable<string> {
  if (bank.olderThanState === null) return indexed;
  return new Set([...indexed, ...state.changedAfter(bank.olderThanState)]);
}

function requireTransactionHistory(node: NodeView): void {
  if (!node.ledger.transactionHistory) throw new RpcError(RPC_TRANSACTION_HISTORY_NOT_AVAILABLE, 'Transaction history is not available from this node');
}

export function configAt(params: unknown[], index: number): Record<string, unknown> {
  const config = params[index];
  if (config === undefined || config === null) return {};
  if (typeof config !== 'object' || Array.isArray(config)) {
    throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: invalid type: expected struct config.');
  }
  return config as Record<string, unknown>;
}

function rejectProcessedForHistory(config: Record<string, unknown>): void {
  if (config.commitment === 'processed') {
    throw new RpcError(RPC_INVALID_PARAMS, 'Method does not support commitment below `confirmed`');
  }
}

/**
 * A base58 32-byte parameter: an address (verify_pubkey: "Invalid param: Invalid"/"WrongSize"), or
 * with `prefix` '' a blockhash (Hash::from_str: "Invalid"/"WrongSize"), as the node words each.
 */
export function pubkeyParam(value: unknown, prefix = 'Invalid param: '): string {
  if (typeof value !== 'string') throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: invalid type: expected a string.');
  let bytes: Uint8Array;
  try {
    bytes = bs58.decode(value);
  } catch {
    throw new RpcError(RPC_INVALID_PARAMS, `${prefix}Invalid`);
  }
  if (bytes.length !== 32) throw new RpcError(RPC_INVALID_PARAMS, `${prefix}WrongSize`);
  return value;
}

export function signatureParam(value: unknown): string {
  if (typeof value === 'string') {
    try {
      if (bs58.decode(value).length === 64) return value;
    } catch {
      // fall through
    }
  }
  throw new RpcError(RPC_INVALID_PARAMS, 'Invalid param: Invalid');
}

export function mintDecimalsLookup(state: ChainState): (mint: string) => number | null {
  return (mint) => {
    const account = state.getAccount(mint);
    if (!account || !isTokenProgram(account.owner)) return null;
    return decodeMintDecimals(account.data, account.owner === TOKEN_2022_PROGRAM);
  };
}

function keyedAccountsJson(
  state: ChainState,
  bank: AccountBank,
  addresses: Iterable<string>,
  options: EncodingOptions,
  dropUnparsed: boolean,
  tamper: AccountTamper | undefined,
  answer: TamperAnswer = 'other',
): string {
  const decimals = mintDecimalsLookup(state);
  const parts: string[] = [];
  for (const address of addresses) {
    const account = bank.get(address);
    if (!account) continue;
    const json = renderAccount(tamper ? tamper.render(state, account, answer) : account, options, decimals, dropUnparsed);
    if (json === null) continue;
    const copies = tamper ? tamper.copies(state, address) : 1;
    for (let copy = 0; copy < copies; copy++) parts.push(`{"account":${json},"pubkey":"${address}"}`);
  }
  return `[${parts.join(',')}]`;
}

const getAccountInfo: Handler = (state, params, node) => {
  const { tamper } = node;
  const address = pubkeyParam(params[0]);
  const config = configAt(params, 1);
  const options = parseEncodingOptions(config);
  const bank = accountBank(state, config, node);
  checkMinContextSlot(config, node, bank.slot);
  const account = bank.get(address);
  return context(state, account ? renderAccount(tamper ? tamper.render(state, account) : account, options, mintDecimalsLookup(state))! : 'null', bank.slot);
};

const getMultipleAccounts: Handler = (state, params, node) => {
  const { tamper } = node;
  const keys = params[0];
  if (!Array.isArray(keys)) throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: invalid type: expected a sequence.');
  if (keys.length > MAX_MULTIPLE_ACCOUNTS) {
    throw new RpcError(RPC_INVALID_PARAMS, `Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
  }
  const config = configAt(params, 1);
  const options = parseEncodingOptions(config);
  const bank = accountBank(state, config, node);
  checkMinContextSlot(config, node, bank.slot);
  const decimals = mintDecimalsLookup(state);
  const values = keys.map((key: unknown) => {
    // A key naming a stored account is valid; only unknown keys need the base58 check (hot path).
    const account = typeof key === 'string' ? bank.get(key) : undefined;
    if (!account) {
      pubkeyParam(key);
      return 'null';
    }
    return renderAccount(tamper ? tamper.render(state, account) : account, options, decimals)!;
  });
  return context(state, `[${values.join(',')}]`, bank.slot);
};

const getBalance: Handler = (state, params, node) => {
  const address = pubkeyParam(params[0]);
  const config = configAt(params, 1);
  const bank = accountBank(state, config, node);
  checkMinContextSlot(config, node, bank.slot);
  return context(state, String(bank.get(address)?.lamports ?? 0n), bank.slot);
};

const getTokenAccountsByOwner: Handler = (state, params, node) => {
  const { tamper } = node;
  const owner = pubkeyParam(params[0]);
  const filter = params[1] as Record<string, unknown> | undefined;
  if (!filter || typeof filter !== 'object') {
    throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: missing field `mint` or `programId`.');
  }
  let programId: string;
  let mint: string | null = null;
  if (filter.mint !== undefined) {
    mint = pubkeyParam(filter.mint);
    const mintAccount = state.getAccount(mint);
    if (!mintAccount || !isTokenProgram(mintAccount.owner)) {
      throw new RpcError(RPC_INVALID_PARAMS, 'Invalid param: could not find mint');
    }
    programId = mintAccount.owner;
  } else if (filter.programId !== undefined) {
    programId = pubkeyParam(filter.programId);
    if (!isTokenProgram(programId)) throw new RpcError(RPC_INVALID_PARAMS, 'Invalid param: unrecognized Token program id');
  } else {
    throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: missing field `mint` or `programId`.');
  }
  const config = configAt(params, 2);
  const options = parseEncodingOptions(config);
  const bank = accountBank(state, config, node);
  checkMinContextSlot(config, node, bank.slot);
  const matching: string[] = [];
  for (const address of candidates(state, state.tokenAccountsOf(owner), bank)) {
    const account = bank.get(address);
    if (!account || account.owner !== programId) continue;
    if (mint !== null && bs58.encode(account.data.subarray(0, 32)) !== mint) continue;
    // The index follows the newest state: at an older bank the owner field is read from its version.
    if (bank.olderThanState !== null && decodeTokenAccount(account.data, account.owner === TOKEN_2022_PROGRAM)?.owner !== owner) continue;
    matching.push(address);
  }
  return context(state, keyedAccountsJson(state, bank, matching, options, true, tamper, mint === null ? 'other' : 'mint-list'), bank.slot);
};

interface MemcmpFilter {
  offset: number;
  bytes: Buffer;
}

/** The account state byte of a token account (0: uninitialized), as agave's `valid_account_data` reads it. */
const TOKEN_ACCOUNT_STATE_OFFSET = 108;

/** agave's `tokenAccountState` filter: an initialized 165-byte token account, or a Token-2022 one with extensions. */
function isTokenAccountData(data: Buffer): boolean {
  if (data.length === TOKEN_ACCOUNT_SIZE) return data[TOKEN_ACCOUNT_STATE_OFFSET] !== 0;
  return data.length > TOKEN_ACCOUNT_SIZE && data[TOKEN_ACCOUNT_SIZE] === ACCOUNT_TYPE_ACCOUNT;
}

function parseProgramAccountFilters(raw: unknown): { dataSize: number | null; memcmps: MemcmpFilter[]; tokenAccountState: boolean } {
  if (raw === undefined || raw === null) return { dataSize: null, memcmps: [], tokenAccountState: false };
  if (!Array.isArray(raw)) throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: filters must be an array.');
  if (raw.length > MAX_PROGRAM_ACCOUNT_FILTERS) {
    throw new RpcError(RPC_INVALID_PARAMS, `Too many filters provided; max ${MAX_PROGRAM_ACCOUNT_FILTERS}`);
  }
  let dataSize: number | null = null;
  let tokenAccountState = false;
  const memcmps: MemcmpFilter[] = [];
  for (const filter of raw as Record<string, unknown>[]) {
    // The validator's RpcFilterType::TokenAccountState, a unit variant: the string "tokenAccountState".
    if ((filter as unknown) === 'tokenAccountState' || (filter && typeof filter === 'object' && 'tokenAccountState' in filter)) {
      tokenAccountState = true;
    } else if (filter && typeof filter.dataSize === 'number') {
      dataSize = filter.dataSize;
    } else if (filter && filter.memcmp && typeof filter.memcmp === 'object') {
      const memcmp = filter.memcmp as Record<string, unknown>;
      if (typeof memcmp.offset !== 'number' || typeof memcmp.bytes !== 'string') {
        throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: memcmp needs offset and bytes.');
      }
      let bytes: Buffer;
      try {
        bytes = memcmp.encoding === 'base64' ? Buffer.from(memcmp.bytes, 'base64') : Buffer.from(bs58.decode(memcmp.bytes));
      } catch {
        throw new RpcError(RPC_INVALID_PARAMS, `Invalid param: invalid memcmp bytes ${JSON.stringify(memcmp.bytes)}`);
      }
      if (bytes.length > MAX_MEMCMP_BYTES) throw new RpcError(RPC_INVALID_PARAMS, 'Invalid param: filter bytes too large');
      memcmps.push({ offset: memcmp.offset, bytes });
    } else {
      throw new RpcError(RPC_INVALID_PARAMS, `Invalid param: unsupported filter ${JSON.stringify(filter)}`);
    }
  }
  return { dataSize, memcmps, tokenAccountState };
}

const getProgramAccounts: Handler = (state, params, node) => {
  const { tamper } = node;
  const programId = pubkeyParam(params[0]);
  const config = configAt(params, 1);
  const options = parseEncodingOptions(config);
  const bank = accountBank(state, config, node);
  checkMinContextSlot(config, node, bank.slot);
  const { dataSize, memcmps, tokenAccountState } = parseProgramAccountFilters(config.filters);
  // Token accounts filtered by owner (offset 32) come straight from the wallet index.
  const ownerFilter = isTokenProgram(programId) ? memcmps.find((m) => m.offset === 32 && m.bytes.length === 32) : undefined;
  const indexed = ownerFilter ? state.tokenAccountsOf(bs58.encode(ownerFilter.bytes)) : state.programAccounts(programId);
  const matching: string[] = [];
  for (const address of candidates(state, indexed, bank)) {
    const account = bank.get(address);
    if (!account || account.owner !== programId) continue;
    const data = account.data;
    if (dataSize !== null && data.length !== dataSize) continue;
    if (tokenAccountState && !isTokenAccountData(data)) continue;
    if (!memcmps.every((m) => m.offset + m.bytes.length <= data.length && data.compare(m.bytes, 0, m.bytes.length, m.offset, m.offset + m.bytes.length) === 0)) continue;
    matching.push(address);
  }
  const list = keyedAccountsJson(state, bank, matching, options, false, tamper);
  return config.withContext === true ? context(state, list, bank.slot) : list;
};

/** The node reports memos as "[byte length] text". */
function formatMemo(memo: string | null): string | null {
  return memo === null ? null : `[${Buffer.byteLength(memo, 'utf8')}] ${memo}`;
}

/** A transaction as this node serves it: not yet there when it lags, pruned below its first available block. */
function served(slot: number, node: NodeView): boolean {
  return slot <= node.slot && slot >= node.ledger.firstAvailableBlock;
}

const getSignaturesForAddress: Handler = (state, params, node) => {
  const address = pubkeyParam(params[0]);
  const config = configAt(params, 1);
  requireTransactionHistory(node);
  rejectProcessedForHistory(config);
  // History as of the commitment's bank: what it has not reached is not there yet.
  const newestSlot = bankSlot(config, node);
  const finalizedSlot = node.slot - node.lagOf('finalized');
  checkMinContextSlot(config, node, newestSlot);
  const limit = config.limit ?? MAX_SIGNATURES_LIMIT;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_SIGNATURES_LIMIT) {
    throw new RpcError(RPC_INVALID_PARAMS, `Invalid limit; max ${MAX_SIGNATURES_LIMIT}`);
  }
  const before = config.before === undefined || config.before === null ? undefined : signatureParam(config.before);
  const until = config.until === undefined || config.until === null ? undefined : signatureParam(config.until);
  const page = state.signaturesFor(address, { limit, before, until, newestSlot, oldestSlot: node.ledger.firstAvailableBlock });
  return JSON.stringify(
    page.map((tx) => ({
      blockTime: node.ledger.blockTimes ? tx.blockTime : null,
      confirmationStatus: tx.slot <= finalizedSlot ? 'finalized' : 'confirmed',
      err: tx.err,
      memo: tx.formattedMemo ?? formatMemo(tx.memo),
      signature: tx.signature,
      slot: tx.slot,
    })),
  );
};

const getTransaction: Handler = (state, params, node) => {
  const signature = signatureParam(params[0]);
  // The second parameter may be a bare encoding string (older clients).
  const config = typeof params[1] === 'string' ? { encoding: params[1] } : configAt(params, 1);
  requireTransactionHistory(node);
  rejectProcessedForHistory(config);
  const encoding = config.encoding ?? 'json';
  if (encoding !== 'json' && encoding !== 'base64') {
    throw new RpcError(RPC_INVALID_PARAMS, `Invalid params: the local chain serves encodings "json" and "base64", not ${JSON.stringify(encoding)}.`);
  }
  const maxVersion = config.maxSupportedTransactionVersion;
  if (maxVersion !== undefined && maxVersion !== null && (typeof maxVersion !== 'number' || !Number.isInteger(maxVersion) || maxVersion < 0 || maxVersion > 255)) {
    throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: maxSupportedTransactionVersion must be an integer 0..255.');
  }
  const tx = state.getTransaction(signature);
  if (!tx || !served(tx.slot, { ...node, slot: bankSlot(config, node) })) return 'null';
  const versionAware = typeof maxVersion === 'number';
  if (tx.version === 0 && !versionAware) {
    throw new RpcError(
      RPC_UNSUPPORTED_TRANSACTION_VERSION,
      'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
    );
  }
  const timed = node.ledger.blockTimes ? tx.result : { ...(tx.result as Record<string, unknown>), blockTime: null };
  if (encoding === 'base64' && tx.wire === undefined) {
    throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: the local chain serves "base64" for transactions it executed, not for ones described to it (use "json").');
  }
  // base64: the wire transaction as it was signed, in place of the parsed one.
  const result = encoding === 'base64' ? { ...timed, transaction: [tx.wire, 'base64'] } : timed;
  return JSON.stringify(versionAware ? { ...result, version: tx.version } : result);
};

const getSlot: Handler = (_state, params, node) => {
  const config = configAt(params, 0);
  const slot = bankSlot(config, node);
  checkMinContextSlot(config, node, slot);
  return String(slot);
};

/** The oldest block this node keeps (agave: the blockstore's, or long-term storage's if lower). */
const getFirstAvailableBlock: Handler = (_state, _params, node) => String(node.ledger.firstAvailableBlock);

/** A block's time, from its slot (400 ms slots back from the chain's now); -32004 for a block the node does not have. */
const getBlockTime: Handler = (state, params, node) => {
  const slot = params[0];
  if (typeof slot !== 'number' || !Number.isSafeInteger(slot) || slot < 0) throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: invalid type: expected u64.');
  if (!served(slot, node)) throw new RpcError(RPC_BLOCK_NOT_AVAILABLE, `Block not available for slot ${slot}`);
  return node.ledger.blockTimes ? String(state.blockTimeOfSlot(slot)) : 'null';
};
const getHealth: Handler = () => '"ok"';
const getVersion: Handler = () => JSON.stringify({ 'feature-set': FEATURE_SET, 'solana-core': API_VERSION });

const HANDLERS: Record<string, Handler> = {
  getAccountInfo,
  getMultipleAccounts,
  getBalance,
  getTokenAccountsByOwner,
  getProgramAccounts,
  getSignaturesForAddress,
  getTransaction,
  getSlot,
  getFirstAvailableBlock,
  getBlockTime,
  getHealth,
  getVersion,
};

/** Runs one call; the result as JSON text. `ledger`: what part of the ledger the node serves (default: all of it, current); accounts shown as `tamper` says, when given. */
export function callMethod(
  state: ChainState,
  method: string,
  params: unknown,
  ledger: { view: Readonly<LedgerSettings>; slotFor(chainSlot: number, method: string): number } = FULL_LEDGER,
  tamper?: AccountTamper,
  cluster?: Pick<NodeView, 'lagOf' | 'accountSlotOf'>,
): string {
  // The DAS API (named parameters) on the same endpoint, as DAS providers serve it.
  if (method === 'searchAssets') return searchAssets(state, params);
  const handler = Object.hasOwn(HANDLERS, method) ? HANDLERS[method] : undefined;
  if (!handler) throw new RpcError(RPC_METHOD_NOT_FOUND, 'Method not found');
  if (params !== undefined && params !== null && !Array.isArray(params)) {
    throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: expected an array.');
  }
  return handler(state, (params as unknown[] | undefined) ?? [], { slot: ledger.slotFor(state.slot, method), ledger: ledger.view, tamper, lagOf: cluster?.lagOf ?? NO_LAG, accountSlotOf: cluster?.accountSlotOf ?? NEWEST_STATE });
}

const FULL_LEDGER = { view: DEFAULT_LEDGER, slotFor: (chainSlot: number) => chainSlot };
const NO_LAG = (): number => 0;
const NEWEST_STATE = (): null => null;

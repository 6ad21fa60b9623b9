/**
 * The JSON-RPC methods of the local chain. Each handler takes the request's `params` and returns
 * the `result` as JSON text (see encoding.ts for why text), or throws an RpcError.
 */
import bs58 from 'bs58';
import { searchAssets } from './das.js';
import { renderAccount, parseEncodingOptions, type EncodingOptions } from './encoding.js';
import { decodeMintDecimals } from './layouts.js';
import { isTokenProgram, TOKEN_2022_PROGRAM } from './programs.js';
import {
  RpcError,
  RPC_INVALID_PARAMS,
  RPC_METHOD_NOT_FOUND,
  RPC_UNSUPPORTED_TRANSACTION_VERSION,
} from './rpc-error.js';
import type { ChainState } from './state.js';
import type { AccountTamper } from './tamper.js';

/** The RPC version the local chain claims to be (context.apiVersion, getVersion). */
export const API_VERSION = '2.2.16';
const FEATURE_SET = 3294202862;
const MAX_MULTIPLE_ACCOUNTS = 100;
const MAX_SIGNATURES_LIMIT = 1000;
const MAX_PROGRAM_ACCOUNT_FILTERS = 4;
const MAX_MEMCMP_BYTES = 128;

/** `tamper`: the tampered-accounts fault (tamper.ts), applied to every account an answer shows. */
type Handler = (state: ChainState, params: unknown[], tamper: AccountTamper | undefined) => string;

function context(state: ChainState, valueJson: string): string {
  return `{"context":{"apiVersion":"${API_VERSION}","slot":${state.slot}},"value":${valueJson}}`;
}

function configAt(params: unknown[], index: number): Record<string, unknown> {
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

/** A base58 address parameter; the node answers "Invalid param: Invalid"/"WrongSize" otherwise. */
function pubkeyParam(value: unknown): string {
  if (typeof value !== 'string') throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: invalid type: expected a string.');
  let bytes: Uint8Array;
  try {
    bytes = bs58.decode(value);
  } catch {
    throw new RpcError(RPC_INVALID_PARAMS, 'Invalid param: Invalid');
  }
  if (bytes.length !== 32) throw new RpcError(RPC_INVALID_PARAMS, 'Invalid param: WrongSize');
  return value;
}

function signatureParam(value: unknown): string {
  if (typeof value === 'string') {
    try {
      if (bs58.decode(value).length === 64) return value;
    } catch {
      // fall through
    }
  }
  throw new RpcError(RPC_INVALID_PARAMS, 'Invalid param: Invalid');
}

function mintDecimalsLookup(state: ChainState): (mint: string) => number | null {
  return (mint) => {
    const account = state.getAccount(mint);
    if (!account || !isTokenProgram(account.owner)) return null;
    return decodeMintDecimals(account.data, account.owner === TOKEN_2022_PROGRAM);
  };
}

function keyedAccountsJson(state: ChainState, addresses: Iterable<string>, options: EncodingOptions, dropUnparsed: boolean, tamper: AccountTamper | undefined): string {
  const decimals = mintDecimalsLookup(state);
  const parts: string[] = [];
  for (const address of addresses) {
    const account = state.getAccount(address);
    if (!account) continue;
    const json = renderAccount(tamper ? tamper.render(state, account) : account, options, decimals, dropUnparsed);
    if (json === null) continue;
    const copies = tamper ? tamper.copies(state, address) : 1;
    for (let copy = 0; copy < copies; copy++) parts.push(`{"account":${json},"pubkey":"${address}"}`);
  }
  return `[${parts.join(',')}]`;
}

const getAccountInfo: Handler = (state, params, tamper) => {
  const address = pubkeyParam(params[0]);
  const options = parseEncodingOptions(configAt(params, 1));
  const account = state.getAccount(address);
  return context(state, account ? renderAccount(tamper ? tamper.render(state, account) : account, options, mintDecimalsLookup(state))! : 'null');
};

const getMultipleAccounts: Handler = (state, params, tamper) => {
  const keys = params[0];
  if (!Array.isArray(keys)) throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: invalid type: expected a sequence.');
  if (keys.length > MAX_MULTIPLE_ACCOUNTS) {
    throw new RpcError(RPC_INVALID_PARAMS, `Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
  }
  const options = parseEncodingOptions(configAt(params, 1));
  const decimals = mintDecimalsLookup(state);
  const values = keys.map((key: unknown) => {
    // A key naming a stored account is valid; only unknown keys need the base58 check (hot path).
    const account = typeof key === 'string' ? state.getAccount(key) : undefined;
    if (!account) {
      pubkeyParam(key);
      return 'null';
    }
    return renderAccount(tamper ? tamper.render(state, account) : account, options, decimals)!;
  });
  return context(state, `[${values.join(',')}]`);
};

const getBalance: Handler = (state, params) => {
  const address = pubkeyParam(params[0]);
  return context(state, String(state.getAccount(address)?.lamports ?? 0n));
};

const getTokenAccountsByOwner: Handler = (state, params, tamper) => {
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
  const options = parseEncodingOptions(configAt(params, 2));
  const matching: string[] = [];
  for (const address of state.tokenAccountsOf(owner)) {
    const account = state.getAccount(address);
    if (!account || account.owner !== programId) continue;
    if (mint !== null && bs58.encode(account.data.subarray(0, 32)) !== mint) continue;
    matching.push(address);
  }
  return context(state, keyedAccountsJson(state, matching, options, true, tamper));
};

interface MemcmpFilter {
  offset: number;
  bytes: Buffer;
}

function parseProgramAccountFilters(raw: unknown): { dataSize: number | null; memcmps: MemcmpFilter[] } {
  if (raw === undefined || raw === null) return { dataSize: null, memcmps: [] };
  if (!Array.isArray(raw)) throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: filters must be an array.');
  if (raw.length > MAX_PROGRAM_ACCOUNT_FILTERS) {
    throw new RpcError(RPC_INVALID_PARAMS, `Too many filters provided; max ${MAX_PROGRAM_ACCOUNT_FILTERS}`);
  }
  let dataSize: number | null = null;
  const memcmps: MemcmpFilter[] = [];
  for (const filter of raw as Record<string, unknown>[]) {
    if (filter && typeof filter.dataSize === 'number') {
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
  return { dataSize, memcmps };
}

const getProgramAccounts: Handler = (state, params, tamper) => {
  const programId = pubkeyParam(params[0]);
  const config = configAt(params, 1);
  const options = parseEncodingOptions(config);
  const { dataSize, memcmps } = parseProgramAccountFilters(config.filters);
  // Token accounts filtered by owner (offset 32) come straight from the wallet index.
  const ownerFilter = isTokenProgram(programId) ? memcmps.find((m) => m.offset === 32 && m.bytes.length === 32) : undefined;
  const candidates = ownerFilter ? state.tokenAccountsOf(bs58.encode(ownerFilter.bytes)) : state.programAccounts(programId);
  const matching: string[] = [];
  for (const address of candidates) {
    const account = state.getAccount(address);
    if (!account || account.owner !== programId) continue;
    const data = account.data;
    if (dataSize !== null && data.length !== dataSize) continue;
    if (!memcmps.every((m) => m.offset + m.bytes.length <= data.length && data.compare(m.bytes, 0, m.bytes.length, m.offset, m.offset + m.bytes.length) === 0)) continue;
    matching.push(address);
  }
  const list = keyedAccountsJson(state, matching, options, false, tamper);
  return config.withContext === true ? context(state, list) : list;
};

/** The node reports memos as "[byte length] text". */
function formatMemo(memo: string | null): string | null {
  return memo === null ? null : `[${Buffer.byteLength(memo, 'utf8')}] ${memo}`;
}

const getSignaturesForAddress: Handler = (state, params) => {
  const address = pubkeyParam(params[0]);
  const config = configAt(params, 1);
  rejectProcessedForHistory(config);
  const limit = config.limit ?? MAX_SIGNATURES_LIMIT;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_SIGNATURES_LIMIT) {
    throw new RpcError(RPC_INVALID_PARAMS, `Invalid limit; max ${MAX_SIGNATURES_LIMIT}`);
  }
  const before = config.before === undefined || config.before === null ? undefined : signatureParam(config.before);
  const until = config.until === undefined || config.until === null ? undefined : signatureParam(config.until);
  const page = state.signaturesFor(address, { limit, before, until });
  return JSON.stringify(
    page.map((tx) => ({
      blockTime: tx.blockTime,
      confirmationStatus: 'finalized',
      err: tx.err,
      memo: formatMemo(tx.memo),
      signature: tx.signature,
      slot: tx.slot,
    })),
  );
};

const getTransaction: Handler = (state, params) => {
  const signature = signatureParam(params[0]);
  // The second parameter may be a bare encoding string (older clients).
  const config = typeof params[1] === 'string' ? { encoding: params[1] } : configAt(params, 1);
  rejectProcessedForHistory(config);
  const encoding = config.encoding ?? 'json';
  if (encoding !== 'json') {
    throw new RpcError(RPC_INVALID_PARAMS, `Invalid params: the local chain only serves encoding "json", not ${JSON.stringify(encoding)}.`);
  }
  const maxVersion = config.maxSupportedTransactionVersion;
  if (maxVersion !== undefined && maxVersion !== null && (typeof maxVersion !== 'number' || !Number.isInteger(maxVersion) || maxVersion < 0 || maxVersion > 255)) {
    throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: maxSupportedTransactionVersion must be an integer 0..255.');
  }
  const tx = state.getTransaction(signature);
  if (!tx) return 'null';
  const versionAware = typeof maxVersion === 'number';
  if (tx.version === 0 && !versionAware) {
    throw new RpcError(
      RPC_UNSUPPORTED_TRANSACTION_VERSION,
      'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
    );
  }
  return JSON.stringify(versionAware ? { ...tx.result, version: tx.version } : tx.result);
};

const getSlot: Handler = (state) => String(state.slot);
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
  getHealth,
  getVersion,
};

/** Runs one call; the result as JSON text (accounts shown as `tamper` says, when given). */
export function callMethod(state: ChainState, method: string, params: unknown, tamper?: AccountTamper): string {
  // The DAS API (named parameters) on the same endpoint, as DAS providers serve it.
  if (method === 'searchAssets') return searchAssets(state, params);
  const handler = Object.hasOwn(HANDLERS, method) ? HANDLERS[method] : undefined;
  if (!handler) throw new RpcError(RPC_METHOD_NOT_FOUND, 'Method not found');
  if (params !== undefined && params !== null && !Array.isArray(params)) {
    throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: expected an array.');
  }
  return handler(state, (params as unknown[] | undefined) ?? [], tamper);
}

/**
 * The local chain's transaction methods, with the validator's wire format and rules (agave
 * rpc/src/rpc.rs `simulate_transaction`, `send_transaction`, `get_signature_statuses`,
 * `get_latest_blockhash`, `is_blockhash_valid`, `get_fee_for_message`; rpc-client-api
 * custom_error.rs for the codes):
 *
 * - sendTransaction: decode (base58 by default, base64), sanitize, then unless `skipPreflight`
 *   verify every signature (-32003 "Transaction signature verification failure", by the runtime's
 *   own strict check) and simulate
 *   (-32002 "Transaction simulation failed: …" with the simulation result as `data`); answer the
 *   first signature. The transaction then lands at the current slot, or `landingBlocks` blocks
 *   later (cluster.ts) — as the leader would take it: a blockhash older than 150 blocks, a
 *   signature that does not verify, a transaction already processed or a fee payer that cannot
 *   pay, and it is dropped without a word, as on a real cluster.
 *   A transaction whose instruction fails lands too, failed, its fee paid.
 * - simulateTransaction: `value { err, logs, accounts, unitsConsumed, loadedAccountsDataSize,
 *   returnData, innerInstructions, replacementBlockhash, fee, preBalances, postBalances,
 *   preTokenBalances, postTokenBalances, loadedAddresses }`; `sigVerify` (default false),
 *   `replaceRecentBlockhash` (not with sigVerify), `accounts {addresses, encoding}`.
 * - getSignatureStatuses: at most 256 signatures; without `searchTransactionHistory` only the
 *   status cache (transactions landed in the last 300 slots), with it also older history.
 *   `confirmationStatus` processed until the confirmed bank reaches the landing block (one block
 *   at the soonest), then confirmed, then finalized (`finalizedLag`, 32 blocks by default);
 *   `confirmations` 0 while processed, counting from 1 once confirmed, null once finalized.
 * - requestAirdrop: the faucet's transfer (faucet.ts), landing as a sent transaction does.
 *
 * Blockhashes, block height and minContextSlot are answered as of the requested commitment's
 * bank (cluster.ts); simulation and preflight run against the newest block whatever the commitment.
 *
 * Faults (faults.ts): tx-dropped, tx-delayed, simulate-failure.
 */
import bs58 from 'bs58';
import { StoredAccount } from './accounts.js';
import { MAX_PROCESSING_AGE, MAX_RECENT_BLOCKHASHES, MAX_SIMULATION_AGE, type BlockClock } from './blocks.js';
import { MAX_CLUSTER_LAG, type ClusterModel } from './cluster.js';
import { parseEncodingOptions, renderAccount } from './encoding.js';
import type { AccountSnapshot, Execution, TransactionExecutor } from './executor.js';
import type { FaultSpec } from './faults.js';
import { transactionFee } from './fees.js';
import { landedTransaction } from './landed-transaction.js';
import { Faucet, type Airdrop } from './faucet.js';
import { configAt, context, mintDecimalsLookup, pubkeyParam, signatureParam } from './rpc.js';
import {
  RpcError,
  RPC_INVALID_PARAMS,
  RPC_MIN_CONTEXT_SLOT_NOT_REACHED,
  RPC_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  RPC_TRANSACTION_SIGNATURE_VERIFICATION_FAILURE,
} from './rpc-error.js';
import type { ChainState } from './state.js';
import { describeTransactionError, type TransactionErrorJson } from './transaction-errors.js';
import { MAX_TRANSACTION_BYTES, parseWireTransaction, WireFormatError, withBlockhash, type WireTransaction } from './wire-transaction.js';

export const TRANSACTION_METHODS: ReadonlySet<string> = new Set([
  'sendTransaction',
  'simulateTransaction',
  'getLatestBlockhash',
  'isBlockhashValid',
  'getSignatureStatuses',
  'getBlockHeight',
  'getFeeForMessage',
  'getMinimumBalanceForRentExemption',
  'requestAirdrop',
]);

/** MAX_GET_SIGNATURE_STATUSES_QUERY_ITEMS. */
const MAX_SIGNATURE_STATUSES = 256;
/** decode_and_deserialize's limits on the encoded text (they follow from PACKET_DATA_SIZE). */
const MAX_BASE58_CHARS = 1683;
const MAX_BASE64_CHARS = 1644;
const TRANSACTION_TYPE = 'solana_transaction::versioned::VersionedTransaction';
const MESSAGE_TYPE = 'solana_message::versioned::VersionedMessage';
const DEFAULT_DELAY_BLOCKS = 10;
const DEFAULT_SIMULATE_FAULT_ERR = { InstructionError: [0, { Custom: 1 }] };
/** Errors agave raises while sanitizing (before simulation): answered -32602 "invalid transaction: …". */
const SANITIZE_ERRORS: ReadonlySet<unknown> = new Set([
  'SanitizeFailure',
  'UnsupportedVersion',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
]);
const COMMITMENTS: ReadonlySet<unknown> = new Set(['processed', 'confirmed', 'finalized']);

export interface TransactionCounts {
  /** Landed: in history, with a status. */
  landed: number;
  /** Accepted by sendTransaction, never landed (fault, expired blockhash, bad signature, duplicate, unpayable). */
  dropped: number;
  /** Waiting for their landing block (tx-delayed). */
  pending: number;
}

/** A transaction waiting for its landing block: one sent, or the faucet's transfer of an airdrop. */
type Pending = { atHeight: number } & ({ tx: WireTransaction } | { airdrop: Airdrop });

export class TransactionRpc {
  /** Signatures this chain executed → the slot they landed in (the status cache's window is measured from it). */
  private readonly executed = new Map<string, number>();
  private pending: Pending[] = [];
  private droppedCount = 0;

  constructor(
    private readonly state: ChainState,
    private readonly blocks: BlockClock,
    private readonly executor: TransactionExecutor,
    private readonly cluster: ClusterModel,
    private readonly faucet = new Faucet(state, () => blocks.blockTime()),
  ) {
    blocks.onBlock((height) => {
      // No bank trails by more than MAX_CLUSTER_LAG: older account versions are no longer read.
      state.pruneVersions(state.slot - MAX_CLUSTER_LAG);
      this.deliverDue(height);
    });
  }

  handles(method: string): boolean {
    return TRANSACTION_METHODS.has(method);
  }

  /** Whether LiteSVM has been loaded: only simulateTransaction and sendTransaction load it. */
  get engineLoaded(): boolean {
    return this.executor.loaded;
  }

  counts(): TransactionCounts {
    return { landed: this.executed.size, dropped: this.droppedCount, pending: this.pending.length };
  }

  /** Runs one call; the result as JSON text. `fault` is a transaction fault that hits this call. */
  call(method: string, params: unknown, fault: FaultSpec | null): string {
    if (params !== undefined && params !== null && !Array.isArray(params)) {
      throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: expected an array.');
    }
    const list = (params as unknown[] | undefined) ?? [];
    switch (method) {
      case 'getLatestBlockhash': {
        const lag = this.contextConfig(configAt(list, 0));
        return context(this.state, JSON.stringify(this.blocks.latest(lag)), this.state.slot - lag);
      }
      case 'isBlockhashValid': {
        const blockhash = hashParam(list[0]);
        const lag = this.contextConfig(configAt(list, 1));
        return context(this.state, String(this.blocks.isValid(blockhash, MAX_PROCESSING_AGE, lag)), this.state.slot - lag);
      }
      case 'getBlockHeight':
        return String(this.blocks.blockHeight - this.contextConfig(configAt(list, 0)));
      case 'getMinimumBalanceForRentExemption':
        return String(this.minimumBalance(list));
      case 'getFeeForMessage':
        return this.feeForMessage(list);
      case 'getSignatureStatuses':
        return this.signatureStatuses(list);
      case 'simulateTransaction':
        return this.simulateTransaction(list, fault?.mode === 'simulate-failure' ? fault : null);
      case 'sendTransaction':
        return this.sendTransaction(list, fault);
      case 'requestAirdrop':
        return this.requestAirdrop(list);
      default:
        throw new RpcError(-32601, 'Method not found');
    }
  }

  // ---- reading parameters

  /**
   * commitment and minContextSlot, as every context-taking method reads them. Returns how many
   * blocks the commitment's bank trails the newest block by (cluster.ts); minContextSlot is
   * checked against that bank's slot, as agave's `get_bank_with_config` does.
   */
  private contextConfig(config: Record<string, unknown>, commitmentField = 'commitment'): number {
    const commitment = config[commitmentField];
    if (commitment !== undefined && commitment !== null && !COMMITMENTS.has(commitment)) {
      throw new RpcError(RPC_INVALID_PARAMS, `Invalid params: unknown variant \`${String(commitment)}\`, expected one of \`processed\`, \`confirmed\`, \`finalized\`.`);
    }
    const lag = this.cluster.lagOf(commitment);
    const minContextSlot = config.minContextSlot;
    if (minContextSlot === undefined || minContextSlot === null) return lag;
    if (typeof minContextSlot !== 'number' || !Number.isSafeInteger(minContextSlot) || minContextSlot < 0) {
      throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: invalid type: expected u64.');
    }
    const bankSlot = this.state.slot - lag;
    if (bankSlot < minContextSlot) {
      throw new RpcError(RPC_MIN_CONTEXT_SLOT_NOT_REACHED, 'Minimum context slot has not been reached', { contextSlot: bankSlot });
    }
    return lag;
  }

  private decodeTransaction(data: unknown, config: Record<string, unknown>): WireTransaction {
    const bytes = decodeWire(data, config.encoding, TRANSACTION_TYPE);
    let tx: WireTransaction;
    try {
      tx = parseWireTransaction(bytes);
    } catch (error) {
      if (error instanceof WireFormatError) throw new RpcError(RPC_INVALID_PARAMS, `failed to deserialize ${TRANSACTION_TYPE}: ${error.message}`);
      throw error;
    }
    // VersionedTransaction::sanitize: one signature per required signer, all of them static keys.
    const required = tx.header.numRequiredSignatures;
    if (tx.signatures.length !== required || required > tx.staticKeys.length || required === 0) {
      throw invalidTransaction('SanitizeFailure');
    }
    return tx;
  }

  private minimumBalance(list: unknown[]): bigint {
    const size = list[0];
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
      throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: invalid type: expected usize.');
    }
    this.contextConfig(configAt(list, 1));
    // Rent::minimum_balance: (128 + size) bytes at 3,480 lamports per byte-year for 2 years.
    return BigInt(128 + size) * 3480n * 2n;
  }

  // ---- methods

  private feeForMessage(list: unknown[]): string {
    // The message alone: the same reading, behind an empty signature list.
    const messageBytes = decodeWire(list[0], 'base64', MESSAGE_TYPE);
    this.contextConfig(configAt(list, 1));
    let tx: WireTransaction;
    try {
      tx = parseWireTransaction(Buffer.concat([Buffer.from([0]), messageBytes]));
    } catch (error) {
      if (error instanceof WireFormatError) throw new RpcError(RPC_INVALID_PARAMS, `failed to deserialize ${MESSAGE_TYPE}: ${error.message}`);
      throw error;
    }
    // get_fee_for_message: null once the blockhash has left the queue.
    const known = this.blocks.ageOf(tx.recentBlockhash) !== null;
    return context(this.state, known ? String(transactionFee(tx)) : 'null');
  }

  private signatureStatuses(list: unknown[]): string {
    const signatures = list[0];
    if (!Array.isArray(signatures)) throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: invalid type: expected a sequence.');
    if (signatures.length > MAX_SIGNATURE_STATUSES) {
      throw new RpcError(RPC_INVALID_PARAMS, `Too many inputs provided; max ${MAX_SIGNATURE_STATUSES}`);
    }
    const checked = signatures.map(signatureParam);
    const config = configAt(list, 1);
    const searchHistory = config.searchTransactionHistory === true;
    const slot = this.state.slot;
    const depths = this.cluster.statusDepths();
    const statuses = checked.map((signature) => {
      const tx = this.state.getTransaction(signature);
      if (!tx) return null;
      const landedAt = this.executed.get(signature);
      const inStatusCache = landedAt !== undefined && slot - landedAt <= MAX_RECENT_BLOCKHASHES;
      const depth = slot - tx.slot;
      const finalized = depth >= depths.finalized;
      const confirmed = depth >= depths.confirmed;
      // The history (blockstore) holds what the confirmed bank has reached.
      if (!inStatusCache && !(searchHistory && confirmed)) return null;
      return {
        confirmationStatus: finalized ? 'finalized' : confirmed ? 'confirmed' : 'processed',
        // Votes counted on the block since the confirmed bank reached it; none before.
        confirmations: finalized ? null : confirmed ? depth - depths.confirmed + 1 : 0,
        err: tx.err,
        slot: tx.slot,
        status: tx.err === null ? { Ok: null } : { Err: tx.err },
      };
    });
    return context(this.state, JSON.stringify(statuses));
  }

  private simulateTransaction(list: unknown[], fault: FaultSpec | null): string {
    const config = configAt(list, 1);
    let tx = this.decodeTransaction(list[0], config);
    this.contextConfig(config);
    const sigVerify = config.sigVerify === true;
    const replace = config.replaceRecentBlockhash === true;
    if (sigVerify && replace) throw new RpcError(RPC_INVALID_PARAMS, 'sigVerify may not be used with replaceRecentBlockhash');
    const accountsConfig = simulationAccountsConfig(config.accounts);
    let replacement: { blockhash: string; lastValidBlockHeight: number } | null = null;
    if (replace) {
      replacement = this.blocks.latest();
      tx = withBlockhash(tx, replacement.blockhash);
    }
    const outcome = this.simulate(tx, sigVerify, fault);
    const keys = outcome.run?.accountKeys ?? tx.staticKeys;
    let accounts: (string | null)[] | null = null;
    if (accountsConfig) {
      if (accountsConfig.addresses.length > keys.length) throw new RpcError(RPC_INVALID_PARAMS, `Too many accounts provided; max ${keys.length}`);
      accounts = accountsConfig.addresses.map((address) => (outcome.err === null ? this.renderSimulated(address, outcome.run!, accountsConfig.encoding) : null));
    }
    const value = simulationValue(outcome, tx, {
      accounts,
      replacement,
      innerInstructions: config.innerInstructions === true,
      decimals: mintDecimalsLookup(this.state),
    });
    return context(this.state, value);
  }

  private sendTransaction(list: unknown[], fault: FaultSpec | null): string {
    const config = configAt(list, 1);
    const tx = this.decodeTransaction(list[0], config);
    const skipPreflight = config.skipPreflight === true;
    this.contextConfig(config, 'preflightCommitment');
    const maxRetries = config.maxRetries;
    if (maxRetries !== undefined && maxRetries !== null && !(typeof maxRetries === 'number' && Number.isSafeInteger(maxRetries) && maxRetries >= 0)) {
      throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: invalid type: expected usize.');
    }
    if (!skipPreflight) {
      const preflight = this.simulate(tx, true, fault?.mode === 'simulate-failure' ? fault : null);
      if (preflight.err !== null) {
        throw new RpcError(RPC_SEND_TRANSACTION_PREFLIGHT_FAILURE, `Transaction simulation failed: ${describeTransactionError(preflight.err)}`, preflightData(preflight));
      }
    }
    const signature = bs58.encode(tx.signatures[0]!);
    if (fault?.mode === 'tx-dropped') {
      this.droppedCount += 1;
    } else {
      const delay = fault?.mode === 'tx-delayed' ? (fault.blocks ?? DEFAULT_DELAY_BLOCKS) : this.cluster.landingBlocks;
      if (delay > 0) this.pending.push({ tx, atHeight: this.blocks.blockHeight + delay });
      else this.land(tx);
    }
    return JSON.stringify(signature);
  }

  /**
   * requestAirdrop(address, lamports, config?): the faucet's transfer, landing as a sent
   * transaction does (now, or `landingBlocks` later); the balance is credited when it lands.
   * Parameters refused as agave's `request_airdrop` refuses them (-32602).
   */
  private requestAirdrop(list: unknown[]): string {
    const to = addressParam(list[0]);
    const lamports = list[1];
    if (typeof lamports !== 'number' || !Number.isSafeInteger(lamports) || lamports < 0) {
      throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: invalid type: expected u64.');
    }
    const config = configAt(list, 2);
    this.contextConfig(config);
    if (config.recentBlockhash !== undefined && config.recentBlockhash !== null) hashParam(config.recentBlockhash);
    const airdrop = this.faucet.reserve(to, lamports);
    const delay = this.cluster.landingBlocks;
    if (delay > 0) this.pending.push({ airdrop, atHeight: this.blocks.blockHeight + delay });
    else this.landAirdrop(airdrop);
    return JSON.stringify(airdrop.signature);
  }

  // ---- execution

  /**
   * A simulation as the node runs it: with `verify` (sigVerify, sendTransaction's preflight) every
   * signature is checked first — by the runtime's own verification in LiteSVM, agave's strict one
   * (node:crypto alone would accept a forgery under a small-order key), which runs before anything
   * else there — and fails -32003; then blockhash age (144 blocks at most), status cache, programs.
   */
  private simulate(tx: WireTransaction, verify: boolean, fault: FaultSpec | null): Simulation {
    const runChecked = (sigVerify: boolean): Execution => {
      const run = this.executor.simulate(tx, sigVerify);
      if (run.err !== null && SANITIZE_ERRORS.has(run.err)) throw invalidTransaction(run.err);
      if (run.err === 'SignatureFailure') throw signatureFailure();
      return run;
    };
    const verified = verify ? runChecked(true) : null;
    const blocked = this.checkBeforeExecution(tx, MAX_SIMULATION_AGE);
    if (blocked) return { err: blocked, run: null, fault: false };
    if (fault) return { err: (fault.err ?? DEFAULT_SIMULATE_FAULT_ERR) as TransactionErrorJson, run: null, fault: true };
    const run = verified ?? runChecked(false);
    return { err: run.err, run, fault: false };
  }

  /** BlockhashNotFound or AlreadyProcessed, checked in the bank's order; null when neither. */
  private checkBeforeExecution(tx: WireTransaction, maxAge: number): TransactionErrorJson | null {
    if (!this.blocks.isValid(tx.recentBlockhash, maxAge)) return 'BlockhashNotFound';
    if (this.executed.has(bs58.encode(tx.signatures[0]!))) return 'AlreadyProcessed';
    return null;
  }

  /**
   * The leader takes the transaction: it lands in the current slot, or is dropped as a leader drops
   * it — its blockhash too old, already processed, or refused by the runtime before it could charge
   * a fee (a signature that does not verify under the runtime's own check, a fee payer that cannot pay).
   */
  private land(tx: WireTransaction): void {
    if (this.checkBeforeExecution(tx, MAX_PROCESSING_AGE) !== null) {
      this.droppedCount += 1;
      return;
    }
    const run = this.state.landing(this.state.slot, () => this.executor.execute(tx));
    if (!run.processed) {
      this.droppedCount += 1;
      return;
    }
    const slot = this.state.slot;
    const stored = this.state.recordTransaction((sequence) =>
      landedTransaction(tx, run, { slot, blockTime: this.blocks.blockTime(), fee: transactionFee(tx), sequence }, mintDecimalsLookup(this.state)),
    );
    this.executed.set(stored.signature, slot);
  }

  private landAirdrop(airdrop: Airdrop): void {
    this.state.landing(this.state.slot, () => this.faucet.land(airdrop, this.state.slot));
    this.executed.set(airdrop.signature, this.state.slot);
  }

  private deliverDue(height: number): void {
    if (this.pending.length === 0) return;
    const due = this.pending.filter((p) => p.atHeight <= height);
    this.pending = this.pending.filter((p) => p.atHeight > height);
    for (const entry of due) {
      if ('tx' in entry) this.land(entry.tx);
      else this.landAirdrop(entry.airdrop);
    }
  }

  private renderSimulated(address: string, run: Execution, encoding: 'base64' | 'base64+zstd' | 'jsonParsed'): string | null {
    const index = run.accountKeys.indexOf(address);
    const snapshot: AccountSnapshot | null | undefined = index >= 0 ? run.post[index] : undefined;
    let account: StoredAccount | undefined;
    if (snapshot === undefined) account = this.state.getAccount(address);
    else if (snapshot) account = new StoredAccount(address, snapshot.owner, snapshot.lamports, snapshot.data, snapshot.executable);
    if (!account) return null;
    return renderAccount(account, parseEncodingOptions({ encoding: encoding === 'base64+zstd' ? 'base64' : encoding }), mintDecimalsLookup(this.state));
  }
}

interface Simulation {
  err: TransactionErrorJson | null;
  /** null when refused before the programs ran (blockhash, duplicate, fault). */
  run: Execution | null;
  fault: boolean;
}

function simulationValue(
  outcome: Simulation,
  tx: WireTransaction,
  extra: {
    accounts: (string | null)[] | null;
    replacement: { blockhash: string; lastValidBlockHeight: number } | null;
    innerInstructions: boolean;
    decimals: (mint: string) => number | null;
  },
): string {
  const run = outcome.run;
  const history = run ? landedTransaction(tx, run, { slot: 0, blockTime: 0, fee: transactionFee(tx), sequence: 0 }, extra.decimals) : null;
  const meta = history ? (history.result.meta as Record<string, unknown>) : null;
  // The run's own fields (preflightData), then what the call asked for and the landing's meta.
  const fields: Record<string, unknown> = {
    ...preflightData(outcome),
    innerInstructions: extra.innerInstructions && run ? run.innerInstructions : null,
    replacementBlockhash: extra.replacement,
    fee: run?.processed ? transactionFee(tx) : null,
    preBalances: meta?.preBalances ?? null,
    postBalances: meta?.postBalances ?? null,
    preTokenBalances: meta?.preTokenBalances ?? null,
    postTokenBalances: meta?.postTokenBalances ?? null,
    loadedAddresses: meta?.loadedAddresses ?? null,
  };
  // Account JSON is text (rentEpoch is u64::MAX): spliced in rather than re-serialized.
  const json = JSON.stringify(fields);
  if (!extra.accounts) return json;
  return json.replace('"accounts":null', `"accounts":[${extra.accounts.map((a) => a ?? 'null').join(',')}]`);
}

/**
 * The `data` of a -32002 preflight failure: the simulation result as the run alone gives it (no
 * accounts, inner instructions, fee or balances). simulationValue starts from it, so the fields
 * keep one order.
 */
function preflightData(outcome: Simulation): Record<string, unknown> {
  const run = outcome.run;
  return {
    err: outcome.err,
    logs: run ? run.logs : outcome.fault ? ['Program log: local chain fault: simulate-failure'] : [],
    accounts: null,
    unitsConsumed: run ? run.unitsConsumed : 0,
    loadedAccountsDataSize: run ? run.loadedAccountsDataSize : 0,
    returnData: run?.returnData ?? null,
    innerInstructions: null,
    replacementBlockhash: null,
    fee: null,
    preBalances: null,
    postBalances: null,
    preTokenBalances: null,
    postTokenBalances: null,
    loadedAddresses: null,
  };
}

function simulationAccountsConfig(raw: unknown): { addresses: string[]; encoding: 'base64' | 'base64+zstd' | 'jsonParsed' } | null {
  if (raw === undefined || raw === null) return null;
  const config = raw as Record<string, unknown>;
  if (typeof raw !== 'object' || !Array.isArray(config.addresses) || !config.addresses.every((a) => typeof a === 'string')) {
    throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: invalid type: expected struct RpcSimulateTransactionAccountsConfig.');
  }
  const encoding = config.encoding ?? 'base64';
  if (encoding === 'base58' || encoding === 'binary') throw new RpcError(RPC_INVALID_PARAMS, 'base58 encoding not supported');
  if (encoding !== 'base64' && encoding !== 'base64+zstd' && encoding !== 'jsonParsed') {
    throw new RpcError(RPC_INVALID_PARAMS, `Invalid params: unknown variant \`${String(encoding)}\`, expected one of \`binary\`, \`base58\`, \`base64\`, \`jsonParsed\`, \`base64+zstd\`.`);
  }
  for (const address of config.addresses as string[]) {
    let bytes: Uint8Array | null = null;
    try {
      bytes = bs58.decode(address);
    } catch {
      // reported below
    }
    if (!bytes || bytes.length !== 32) throw new RpcError(RPC_INVALID_PARAMS, `Invalid param: ${bytes ? 'WrongSize' : 'Invalid'}`);
  }
  return { addresses: config.addresses as string[], encoding };
}

/** The wire bytes of an encoded transaction or message, with decode_and_deserialize's limits and messages. */
function decodeWire(data: unknown, encodingParam: unknown, typeName: string): Buffer {
  if (typeof data !== 'string') throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: invalid type: expected a string.');
  const encoding = encodingParam ?? 'base58';
  let bytes: Buffer;
  if (encoding === 'base58' || encoding === 'binary') {
    if (data.length > MAX_BASE58_CHARS) {
      throw new RpcError(RPC_INVALID_PARAMS, `base58 encoded ${typeName} too large: ${data.length} bytes (max: encoded/raw ${MAX_BASE58_CHARS}/${MAX_TRANSACTION_BYTES})`);
    }
    try {
      bytes = Buffer.from(bs58.decode(data));
    } catch {
      throw new RpcError(RPC_INVALID_PARAMS, 'invalid base58 encoding: InvalidCharacter');
    }
  } else if (encoding === 'base64') {
    if (data.length > MAX_BASE64_CHARS) {
      throw new RpcError(RPC_INVALID_PARAMS, `base64 encoded ${typeName} too large: ${data.length} bytes (max: encoded/raw ${MAX_BASE64_CHARS}/${MAX_TRANSACTION_BYTES})`);
    }
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data) || data.length % 4 !== 0) throw new RpcError(RPC_INVALID_PARAMS, 'invalid base64 encoding: InvalidByte');
    bytes = Buffer.from(data, 'base64');
  } else {
    throw new RpcError(RPC_INVALID_PARAMS, `unsupported encoding: ${String(encoding)}. Supported encodings: base58, base64`);
  }
  if (bytes.length > MAX_TRANSACTION_BYTES) {
    throw new RpcError(RPC_INVALID_PARAMS, `decoded ${typeName} too large: ${bytes.length} bytes (max: ${MAX_TRANSACTION_BYTES} bytes)`);
  }
  return bytes;
}

/** An address parameter (verify_pubkey). */
const addressParam = (value: unknown): string => pubkeyParam(value);

/** A blockhash parameter (Hash::from_str). */
const hashParam = (value: unknown): string => pubkeyParam(value, '');

function signatureFailure(): RpcError {
  return new RpcError(RPC_TRANSACTION_SIGNATURE_VERIFICATION_FAILURE, 'Transaction signature verification failure');
}

function invalidTransaction(err: TransactionErrorJson): RpcError {
  return new RpcError(RPC_INVALID_PARAMS, `invalid transaction: ${describeTransactionError(err)}`);
}

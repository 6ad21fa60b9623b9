/**
 * Runs transactions with the real programs: System, Compute Budget, SPL Token, Token-2022,
 * Associated Token Account, Memo and Address Lookup Table, as LiteSVM (npm `litesvm`, agave's
 * runtime in-process) bundles them, with signature verification on whenever the node would verify.
 *
 * The chain state (state.ts) stays the one source every read method answers from. LiteSVM is an
 * execution engine beside it: before each run the accounts the transaction names (static keys,
 * lookup tables and the addresses they load) are copied in from the state, and after a send the
 * writable ones are copied back, so getMultipleAccounts, getTokenAccountsByOwner and the history
 * see what the programs wrote. Programs and sysvars stay LiteSVM's own: the state's program
 * accounts are stand-ins and are never copied in.
 *
 * LiteSVM is loaded on the first transaction (about 40 MB of native code and 0.2 s); a chain that
 * only answers reads never loads it. It is driven through its native binding (litesvm/dist/internal),
 * which takes the wire bytes as they arrived, so nothing is decoded and encoded again on the way.
 */
import { createRequire } from 'node:module';
import bs58 from 'bs58';
import type { Account as LiteSvmAccount, LiteSvm } from 'litesvm/dist/internal.js';
import { fromLiteSvmError, type TransactionErrorJson } from './transaction-errors.js';
import { SYSTEM_PROGRAM } from './programs.js';
import type { ChainState } from './state.js';
import { isStaticWritable, type WireTransaction } from './wire-transaction.js';

const require = createRequire(import.meta.url);

const SYSVAR_OWNER = 'Sysvar1111111111111111111111111111111111111';
const BPF_LOADER_UPGRADEABLE = 'BPFLoaderUpgradeab1e11111111111111111111111';
const ADDRESS_LOOKUP_TABLE_PROGRAM = 'AddressLookupTab1e1111111111111111111111111';
/** Address lookup table: 56 bytes of LookupTableMeta, then the addresses. */
const LOOKUP_TABLE_META_BYTES = 56;
/** TRANSACTION_ACCOUNT_BASE_SIZE: what each loaded account adds to loadedAccountsDataSize besides its data. */
const ACCOUNT_BASE_SIZE = 64;
const RENT_EPOCH_EXEMPT = 0xffff_ffff_ffff_ffffn;

export interface AccountSnapshot {
  owner: string;
  lamports: bigint;
  /** Empty for a program: its bytes (up to megabytes) are never copied out of LiteSVM. */
  data: Buffer;
  executable: boolean;
}

export interface InnerInstructionJson {
  programIdIndex: number;
  accounts: number[];
  data: string;
  stackHeight: number;
}

export interface Execution {
  err: TransactionErrorJson | null;
  logs: string[];
  unitsConsumed: number;
  loadedAccountsDataSize: number;
  returnData: { programId: string; data: [string, 'base64'] } | null;
  /** One entry per top-level instruction that invoked others, as getTransaction lists them. */
  innerInstructions: { index: number; instructions: InnerInstructionJson[] }[];
  /** Static keys, then the writable and the read-only addresses loaded from lookup tables. */
  accountKeys: string[];
  loadedAddresses: { writable: string[]; readonly: string[] };
  /** By account index: before, and after (committed by a send, or as simulated). null: no account. */
  pre: (AccountSnapshot | null)[];
  post: (AccountSnapshot | null)[];
  /** The runtime processed it: the fee payer paid (a failed instruction still pays); false when refused before (no fee payer, bad signature). */
  processed: boolean;
}

type LiteSvmModule = typeof import('litesvm/dist/internal.js');

export class TransactionExecutor {
  private module: LiteSvmModule | null = null;
  private svm: LiteSvm | null = null;
  /** Addresses whose state account has been copied into LiteSVM (and may need clearing there). */
  private readonly mirrored = new Set<string>();
  /** A program's part of loadedAccountsDataSize (its account and program data), computed once. */
  private readonly programSizes = new Map<string, number>();
  /**
   * Programs seen, as snapshots without their bytes. LiteSVM's getAccount copies an account whole
   * (the ATA program's is 105 kB), so a program is read from it once: the local chain never
   * changes one.
   */
  private readonly programs = new Map<string, AccountSnapshot>();

  constructor(
    private readonly state: ChainState,
    /** Unix seconds the Clock sysvar shows. */
    private readonly unixTime: () => number,
  ) {}

  /** Whether LiteSVM has been loaded (tests check reads never load it). */
  get loaded(): boolean {
    return this.svm !== null;
  }

  /** Runs without committing; `sigVerify` as the caller asked (the runtime checks signatures before anything else). */
  simulate(tx: WireTransaction, sigVerify: boolean): Execution {
    return this.run(tx, sigVerify, false);
  }

  /** Runs with the runtime's own signature verification and commits what the programs wrote to the state. */
  execute(tx: WireTransaction): Execution {
    return this.run(tx, true, true);
  }

  private engine(): LiteSvm {
    if (!this.svm) {
      this.module = require('litesvm/dist/internal.js') as LiteSvmModule;
      const svm = new this.module.LiteSvm();
      // The local chain keeps blockhashes (blocks.ts) and the status cache itself.
      svm.setBlockhashCheck(false);
      svm.setTransactionHistory(0n);
      this.svm = svm;
    }
    return this.svm;
  }

  private run(tx: WireTransaction, sigVerify: boolean, commit: boolean): Execution {
    const svm = this.engine();
    const loaded = this.copyIn(tx);
    const accountKeys = [...tx.staticKeys, ...loaded.writable, ...loaded.readonly];
    const pre = accountKeys.map((key) => this.snapshot(key));
    const clock = svm.getClock();
    clock.unixTimestamp = BigInt(this.unixTime());
    svm.setClock(clock);
    svm.setSigverify(sigVerify);

    const legacy = tx.version === 'legacy';
    const result = commit
      ? legacy
        ? svm.sendLegacyTransaction(tx.bytes)
        : svm.sendVersionedTransaction(tx.bytes)
      : legacy
        ? svm.simulateLegacyTransaction(tx.bytes)
        : svm.simulateVersionedTransaction(tx.bytes);

    const module = this.module!;
    const failed = result instanceof module.FailedTransactionMetadata;
    const meta = result instanceof module.FailedTransactionMetadata || result instanceof module.SimulatedTransactionInfo ? result.meta() : result;
    let post: (AccountSnapshot | null)[];
    if (commit) {
      // Only what the transaction may write can have changed.
      const written = this.writtenAccounts(tx, accountKeys, loaded.writable.length);
      post = accountKeys.map((key, i) => (written[i] ? this.snapshot(key) : pre[i]!));
      this.commit(accountKeys, written, post);
    } else if (result instanceof module.SimulatedTransactionInfo) {
      const changed = new Map<string, AccountSnapshot>();
      for (const entry of result.postAccounts()) changed.set(bs58.encode(entry.address), toSnapshot(entry.account()));
      post = accountKeys.map((key, i) => changed.get(key) ?? pre[i]!);
    } else {
      post = pre;
    }
    const payerBefore = pre[0]?.lamports ?? 0n;
    const payerAfter = post[0]?.lamports ?? 0n;
    const returned = meta.returnData();
    return {
      err: failed ? fromLiteSvmError(result.err()) : null,
      logs: meta.logs(),
      unitsConsumed: Number(meta.computeUnitsConsumed()),
      loadedAccountsDataSize: this.loadedDataSize(accountKeys, pre),
      returnData: returned.data().length > 0 ? { programId: bs58.encode(returned.programId()), data: [Buffer.from(returned.data()).toString('base64'), 'base64'] } : null,
      innerInstructions: meta
        .innerInstructions()
        .map((group, index) => ({
          index,
          instructions: group.map((inner) => {
            const compiled = inner.instruction();
            return { programIdIndex: compiled.programIdIndex(), accounts: [...compiled.accounts()], data: bs58.encode(compiled.data()), stackHeight: inner.stackHeight() };
          }),
        }))
        .filter((group) => group.instructions.length > 0),
      accountKeys,
      loadedAddresses: loaded,
      pre,
      post,
      processed: !failed || payerAfter < payerBefore,
    };
  }

  /** Copies in every account the transaction names; returns the addresses its lookup tables load. */
  private copyIn(tx: WireTransaction): { writable: string[]; readonly: string[] } {
    const loaded = { writable: [] as string[], readonly: [] as string[] };
    for (const key of tx.staticKeys) this.mirror(key);
    for (const lookup of tx.lookups) {
      this.mirror(lookup.accountKey);
      const addresses = lookupTableAddresses(this.state.getAccount(lookup.accountKey));
      const resolve = (index: number) => addresses?.[index];
      const writable = lookup.writableIndexes.map(resolve);
      const readonly = lookup.readonlyIndexes.map(resolve);
      // An unresolvable lookup fails in the runtime (InvalidAddressLookupTableIndex and the like).
      if (writable.some((a) => a === undefined) || readonly.some((a) => a === undefined)) continue;
      loaded.writable.push(...(writable as string[]));
      loaded.readonly.push(...(readonly as string[]));
    }
    for (const key of [...loaded.writable, ...loaded.readonly]) this.mirror(key);
    return loaded;
  }

  /** Makes LiteSVM's copy of one address match the state (programs and sysvars stay LiteSVM's). */
  private mirror(key: string): void {
    const svm = this.svm!;
    const account = this.state.getAccount(key);
    if (account && !account.executable) {
      svm.setAccount(bs58.decode(key), this.toLiteSvm(account.owner, account.lamports, account.data));
      this.mirrored.add(key);
    } else if (!account && this.mirrored.has(key)) {
      // Deleted from the state since it was copied in: a zero-lamport account is no account.
      svm.setAccount(bs58.decode(key), this.toLiteSvm(SYSTEM_PROGRAM, 0n, Buffer.alloc(0)));
      this.mirrored.delete(key);
    }
  }

  /** By account index: writable by the message, and not a program the transaction calls (the runtime demotes those). */
  private writtenAccounts(tx: WireTransaction, accountKeys: string[], loadedWritable: number): boolean[] {
    const invoked = new Set(tx.instructions.map((ix) => tx.staticKeys[ix.programIdIndex]));
    return accountKeys.map((key, index) => {
      const writable = index < tx.staticKeys.length ? isStaticWritable(tx, index) : index < tx.staticKeys.length + loadedWritable;
      return writable && !invoked.has(key);
    });
  }

  /** Copies back what the runtime wrote (never to programs or sysvars, which it does not write). */
  private commit(accountKeys: string[], written: boolean[], post: (AccountSnapshot | null)[]): void {
    accountKeys.forEach((key, index) => {
      if (!written[index]) return;
      const after = post[index];
      if (!after) {
        if (this.state.getAccount(key)) this.state.deleteAccount(key);
        this.mirrored.delete(key);
        return;
      }
      if (after.owner === SYSVAR_OWNER || after.executable) return;
      const before = this.state.getAccount(key);
      if (before && before.lamports === after.lamports && before.owner === after.owner && before.data.equals(after.data)) return;
      this.state.setAccount(key, { owner: after.owner, lamports: after.lamports, data: after.data });
      this.mirrored.add(key);
    });
  }

  private snapshot(key: string): AccountSnapshot | null {
    const program = this.programs.get(key);
    if (program) return program;
    const account = this.svm!.getAccount(bs58.decode(key));
    if (!account || account.lamports() === 0n) return null;
    const snapshot = toSnapshot(account);
    if (snapshot.executable) this.programs.set(key, snapshot);
    return snapshot;
  }

  /** Each loaded account's data plus 64 bytes; an upgradeable program adds its program data account. */
  private loadedDataSize(accountKeys: string[], pre: (AccountSnapshot | null)[]): number {
    let total = 0;
    const seen = new Set<string>();
    accountKeys.forEach((key, index) => {
      const account = pre[index];
      if (!account || seen.has(key)) return;
      seen.add(key);
      total += account.executable ? this.programSize(key) : account.data.length + ACCOUNT_BASE_SIZE;
    });
    return total;
  }

  private programSize(key: string): number {
    let size = this.programSizes.get(key);
    if (size === undefined) {
      const account = this.svm!.getAccount(bs58.decode(key))!;
      const data = account.data();
      size = data.length + ACCOUNT_BASE_SIZE;
      if (bs58.encode(account.owner()) === BPF_LOADER_UPGRADEABLE && data.length >= 36) {
        const programData = this.svm!.getAccount(data.subarray(4, 36));
        if (programData) size += programData.data().length + ACCOUNT_BASE_SIZE;
      }
      this.programSizes.set(key, size);
    }
    return size;
  }

  private toLiteSvm(owner: string, lamports: bigint, data: Buffer): LiteSvmAccount {
    return new this.module!.Account(lamports, data, bs58.decode(owner), false, RENT_EPOCH_EXEMPT);
  }
}

const NO_DATA = Buffer.alloc(0);

function toSnapshot(account: LiteSvmAccount): AccountSnapshot {
  const executable = account.executable();
  return { owner: bs58.encode(account.owner()), lamports: account.lamports(), data: executable ? NO_DATA : Buffer.from(account.data()), executable };
}

/** The addresses an address lookup table holds, or null when the account is not one. */
function lookupTableAddresses(account: { owner: string; data: Buffer } | undefined): string[] | null {
  if (!account || account.owner !== ADDRESS_LOOKUP_TABLE_PROGRAM) return null;
  const body = account.data.length - LOOKUP_TABLE_META_BYTES;
  if (body < 0 || body % 32 !== 0) return null;
  const addresses: string[] = [];
  for (let at = LOOKUP_TABLE_META_BYTES; at < account.data.length; at += 32) addresses.push(bs58.encode(account.data.subarray(at, at + 32)));
  return addresses;
}

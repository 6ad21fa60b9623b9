/**
 * Token-2022 group and member mints made by the real Token-2022 program, run in LiteSVM (npm
 * `litesvm`, whose native binary ships in the package): the local chain copies the resulting
 * account bytes, so the gate's decoder (src/collection/token-group.ts) is tested against what the
 * program writes, not against a layout written down a second time.
 *
 * Instruction data below follows the program's interface (solana-program/token-2022:
 * interface/src/instruction.rs, extension/group_pointer, extension/group_member_pointer, and
 * spl-token-group-interface for InitializeGroup / InitializeMember). Signatures are not verified
 * (withSigverify(false)), so the demo authorities need no private keys.
 *
 * litesvm and @solana/kit are development dependencies: this module is loaded by the local chain
 * only (npm run dev / localnet / tests), never by the gate.
 */
import { createRequire } from 'node:module';
import bs58 from 'bs58';
import type { AccountInput } from '../accounts.js';
import { ASSOCIATED_TOKEN_PROGRAM, associatedTokenAddress, SYSTEM_PROGRAM, TOKEN_2022_PROGRAM } from '../programs.js';

const require = createRequire(import.meta.url);

export interface TokenGroupSpec {
  /** The group mint (a Token-2022 mint with GroupPointer → itself and a TokenGroup). */
  group: string;
  /** Mint and update authority of the group and its members; pays for everything. */
  authority: string;
  /** Member mints, each minted once (supply 1, decimals 0) to `holder`'s associated token account. */
  members: { mint: string; holder: string }[];
}

/** The accounts the program wrote: the group mint, each member mint and each holder's ATA. */
export function buildTokenGroup(spec: TokenGroupSpec): Map<string, AccountInput> {
  const { LiteSVM } = require('litesvm') as typeof import('litesvm');
  const kit = require('@solana/kit') as typeof import('@solana/kit');
  const svm = new LiteSVM().withSigverify(false);
  const authority = kit.address(spec.authority);
  svm.airdrop(authority, kit.lamports(1_000_000_000_000n));

  const send = (instructions: Instruction[]): void => {
    const message = kit.pipe(
      kit.createTransactionMessage({ version: 0 }),
      (m) => kit.setTransactionMessageFeePayer(authority, m),
      (m) => kit.setTransactionMessageLifetimeUsingBlockhash({ blockhash: svm.latestBlockhash(), lastValidBlockHeight: 0n }, m),
      (m) => kit.appendTransactionMessageInstructions(instructions.map((ix) => toKit(kit, ix)), m),
    );
    const compiled = kit.compileTransaction(message);
    // Unsigned: zero signatures in every signer's place (sigverify is off).
    const signatures = Object.fromEntries(Object.keys(compiled.signatures).map((key) => [key, new Uint8Array(64)]));
    const result = svm.sendTransaction({ ...compiled, signatures } as unknown as Parameters<typeof svm.sendTransaction>[0]);
    if ('err' in result) throw new Error(`LiteSVM refused a Token-2022 transaction: ${String(result.err())}\n${result.meta().logs().join('\n')}`);
  };
  const rent = (size: number): bigint => svm.minimumBalanceForRentExemption(BigInt(size));

  send([
    createAccount(spec.authority, spec.group, rent(GROUP_MINT_FINAL_SIZE), GROUP_MINT_INITIAL_SIZE),
    initializeGroupPointer(spec.group, spec.authority),
    initializeMint2(spec.group, spec.authority),
    initializeGroup(spec.group, spec.authority, BigInt(spec.members.length)),
  ]);
  for (const { mint, holder } of spec.members) {
    send([
      createAccount(spec.authority, mint, rent(MEMBER_MINT_FINAL_SIZE), MEMBER_MINT_INITIAL_SIZE),
      initializeGroupMemberPointer(mint, spec.authority),
      initializeMint2(mint, spec.authority),
      initializeMember(mint, spec.group, spec.authority),
      createAssociatedTokenAccount(spec.authority, holder, mint),
      mintTo(mint, ataOf(holder, mint), spec.authority, 1n),
    ]);
  }

  const accounts = new Map<string, AccountInput>();
  const copy = (key: string): void => {
    const account = svm.getAccount(kit.address(key));
    if (!account.exists) throw new Error(`LiteSVM has no account ${key}`);
    accounts.set(key, { owner: account.programAddress, lamports: account.lamports, data: Buffer.from(account.data) });
  };
  copy(spec.group);
  for (const { mint, holder } of spec.members) {
    copy(mint);
    copy(ataOf(holder, mint));
  }
  return accounts;
}

// ---- instructions (plain data; turned into @solana/kit instructions by toKit)

interface Instruction {
  program: string;
  accounts: { address: string; signer?: boolean; writable?: boolean }[];
  data: Uint8Array;
}

/** Base mint padded to 165 bytes, the account-type byte, then TLV entries (4-byte header + value). */
const BASE_WITH_TYPE = 166;
const POINTER_ENTRY = 4 + 64;
const GROUP_ENTRY = 4 + 80;
const MEMBER_ENTRY = 4 + 72;
/** The pointer must exist before InitializeMint2; the group/member entry is added by a realloc the rent must already cover. */
const GROUP_MINT_INITIAL_SIZE = BASE_WITH_TYPE + POINTER_ENTRY;
const GROUP_MINT_FINAL_SIZE = GROUP_MINT_INITIAL_SIZE + GROUP_ENTRY;
const MEMBER_MINT_INITIAL_SIZE = BASE_WITH_TYPE + POINTER_ENTRY;
const MEMBER_MINT_FINAL_SIZE = MEMBER_MINT_INITIAL_SIZE + MEMBER_ENTRY;

/** TokenInstruction tags and the group interface's 8-byte discriminators. */
const INITIALIZE_MINT_2 = 20;
const MINT_TO = 7;
const GROUP_POINTER_EXTENSION = 40;
const GROUP_MEMBER_POINTER_EXTENSION = 41;
const INITIALIZE = 0;
const INITIALIZE_GROUP = [121, 113, 108, 39, 54, 51, 0, 4];
const INITIALIZE_MEMBER = [152, 32, 222, 176, 223, 237, 116, 134];

const key = (address: string): Uint8Array => bs58.decode(address);
const u64 = (value: bigint): Uint8Array => {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64LE(value);
  return bytes;
};
const bytes = (...parts: (number[] | Uint8Array)[]): Uint8Array => Buffer.concat(parts.map((part) => Buffer.from(part)));

function createAccount(payer: string, account: string, lamports: bigint, space: number): Instruction {
  const data = Buffer.alloc(52);
  data.writeUInt32LE(0, 0); // SystemInstruction::CreateAccount
  data.writeBigUInt64LE(lamports, 4);
  data.writeBigUInt64LE(BigInt(space), 12);
  Buffer.from(key(TOKEN_2022_PROGRAM)).copy(data, 20);
  return { program: SYSTEM_PROGRAM, accounts: [{ address: payer, signer: true, writable: true }, { address: account, signer: true, writable: true }], data };
}

/** GroupPointer: authority, group address (the mint itself). */
function initializeGroupPointer(mint: string, authority: string): Instruction {
  return { program: TOKEN_2022_PROGRAM, accounts: [{ address: mint, writable: true }], data: bytes([GROUP_POINTER_EXTENSION, INITIALIZE], key(authority), key(mint)) };
}

/** GroupMemberPointer: authority, member address (the mint itself). */
function initializeGroupMemberPointer(mint: string, authority: string): Instruction {
  return { program: TOKEN_2022_PROGRAM, accounts: [{ address: mint, writable: true }], data: bytes([GROUP_MEMBER_POINTER_EXTENSION, INITIALIZE], key(authority), key(mint)) };
}

/** Decimals 0, the authority as mint authority, no freeze authority. */
function initializeMint2(mint: string, authority: string): Instruction {
  return { program: TOKEN_2022_PROGRAM, accounts: [{ address: mint, writable: true }], data: bytes([INITIALIZE_MINT_2, 0], key(authority), [0]) };
}

function initializeGroup(group: string, authority: string, maxSize: bigint): Instruction {
  return {
    program: TOKEN_2022_PROGRAM,
    accounts: [{ address: group, writable: true }, { address: group }, { address: authority, signer: true }],
    data: bytes(INITIALIZE_GROUP, key(authority), u64(maxSize)),
  };
}

function initializeMember(mint: string, group: string, authority: string): Instruction {
  return {
    program: TOKEN_2022_PROGRAM,
    accounts: [{ address: mint, writable: true }, { address: mint }, { address: authority, signer: true }, { address: group, writable: true }, { address: authority, signer: true }],
    data: bytes(INITIALIZE_MEMBER),
  };
}

function createAssociatedTokenAccount(payer: string, owner: string, mint: string): Instruction {
  return {
    program: ASSOCIATED_TOKEN_PROGRAM,
    accounts: [
      { address: payer, signer: true, writable: true },
      { address: ataOf(owner, mint), writable: true },
      { address: owner },
      { address: mint },
      { address: SYSTEM_PROGRAM },
      { address: TOKEN_2022_PROGRAM },
    ],
    data: bytes([0]), // Create
  };
}

function mintTo(mint: string, account: string, authority: string, amount: bigint): Instruction {
  return {
    program: TOKEN_2022_PROGRAM,
    accounts: [{ address: mint, writable: true }, { address: account, writable: true }, { address: authority, signer: true }],
    data: bytes([MINT_TO], u64(amount)),
  };
}

const ataOf = (owner: string, mint: string): string => associatedTokenAddress(owner, mint, 'token2022');

function toKit(kit: typeof import('@solana/kit'), ix: Instruction): import('@solana/kit').Instruction {
  return {
    programAddress: kit.address(ix.program),
    accounts: ix.accounts.map(({ address, signer, writable }) => ({
      address: kit.address(address),
      role: signer ? (writable ? kit.AccountRole.WRITABLE_SIGNER : kit.AccountRole.READONLY_SIGNER) : writable ? kit.AccountRole.WRITABLE : kit.AccountRole.READONLY,
    })),
    data: ix.data,
  };
}

import bs58 from 'bs58';
import { PROGRAM_IDS, computeBudgetKind, decodeTransaction, keyRole, type CompiledInstruction } from '../../../dist/src/transaction/index.js';

/**
 * A wire transaction in the words of the watch page's mint view: each account key with its role
 * (signer, writable, fee payer) and each instruction decoded for the programs the token mint
 * templates name — Compute Budget, the Associated Token Account program, SPL Token / Token-2022
 * MintTo and MintToChecked (docs/minting.md, "Transaction shapes"); any other instruction is shown
 * as its program and its data in hex. For display: the gate's own judgement is src/mint/check.ts.
 * Browser-safe.
 */
export interface TransactionKey {
  index: number;
  address: string;
  signer: boolean;
  writable: boolean;
}

export interface DescribedInstruction {
  /** The program's address. */
  program: string;
  /** The instruction's name (`MintTo`, `CreateIdempotent`, `SetComputeUnitLimit`) or `instruction <tag>`. */
  name: string;
  /** Each account the instruction names, with what the program calls it. */
  accounts: { role: string; address: string }[];
  /** Its decoded arguments, as text (u64 amounts exact). */
  args: Record<string, string>;
}

export interface DescribedTransaction {
  version: 'legacy' | 0;
  /** The wire transaction's size. */
  size: number;
  signatures: Uint8Array[];
  /** The bytes every signature signs. */
  messageBytes: Uint8Array;
  blockhash: string;
  numRequiredSignatures: number;
  keys: TransactionKey[];
  instructions: DescribedInstruction[];
  /** Address lookup tables (v0): none in any mint template. */
  lookups: number;
}

const ATA_ACCOUNTS = ['funding account (payer)', 'associated token account', 'wallet (owner)', 'mint', 'System program', 'token program'];
const ATA_INSTRUCTIONS: Record<number, string> = { 0: 'Create', 1: 'CreateIdempotent', 2: 'RecoverNested' };
const COMPUTE_BUDGET: Record<number, { name: string; arg: string }> = {
  1: { name: 'RequestHeapFrame', arg: 'bytes' },
  2: { name: 'SetComputeUnitLimit', arg: 'units' },
  3: { name: 'SetComputeUnitPrice', arg: 'micro-lamports per unit' },
  4: { name: 'SetLoadedAccountsDataSizeLimit', arg: 'bytes' },
};

export function describeTransaction(bytes: Uint8Array): DescribedTransaction {
  const tx = decodeTransaction(bytes);
  const { message } = tx;
  const addresses = message.accountKeys.map((key) => bs58.encode(key));
  const keys = addresses.map((address, index) => ({ index, address, ...keyRole(message.header, addresses.length, index) }));
  return {
    version: message.version,
    size: bytes.length,
    signatures: tx.signatures,
    messageBytes: tx.messageBytes,
    blockhash: bs58.encode(message.recentBlockhash),
    numRequiredSignatures: message.header.numRequiredSignatures,
    keys,
    instructions: message.instructions.map((instruction) => describeInstruction(instruction, addresses)),
    lookups: message.lookups.length,
  };
}

function describeInstruction(instruction: CompiledInstruction, addresses: readonly string[]): DescribedInstruction {
  const program = addresses[instruction.programIdIndex] ?? '?';
  const accountAt = (position: number): string => addresses[instruction.accountIndexes[position]!] ?? '?';
  const accounts = (names: readonly string[], extra: string): { role: string; address: string }[] =>
    [...instruction.accountIndexes].map((_, position) => ({ role: names[position] ?? extra, address: accountAt(position) }));
  const { data } = instruction;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);

  if (program === PROGRAM_IDS.computeBudget) {
    const kind = computeBudgetKind(instruction);
    const known = kind === undefined ? undefined : COMPUTE_BUDGET[kind];
    if (known) return { program, name: known.name, accounts: [], args: { [known.arg]: (data.length === 9 ? view.getBigUint64(1, true) : view.getUint32(1, true)).toString() } };
  }
  if (program === PROGRAM_IDS.associatedToken) {
    const tag = data.length === 0 ? 0 : data.length === 1 ? data[0]! : -1;
    const name = ATA_INSTRUCTIONS[tag];
    if (name) return { program, name, accounts: accounts(ATA_ACCOUNTS, 'account'), args: {} };
  }
  if (program === PROGRAM_IDS.token || program === PROGRAM_IDS.token2022) {
    if (data[0] === 7 && data.length === 9) return { program, name: 'MintTo', accounts: accounts(['mint', 'destination', 'mint authority'], 'multisig signer'), args: { amount: view.getBigUint64(1, true).toString() } };
    if (data[0] === 14 && data.length === 10) {
      return { program, name: 'MintToChecked', accounts: accounts(['mint', 'destination', 'mint authority'], 'multisig signer'), args: { amount: view.getBigUint64(1, true).toString(), decimals: String(data[9]) } };
    }
  }
  const hex = [...data].map((byte) => byte.toString(16).padStart(2, '0')).join(' ');
  return { program, name: data.length > 0 ? `instruction ${data[0]}` : 'instruction', accounts: accounts([], 'account'), args: { data: hex || '(none)' } };
}

import type { MintProgram } from '../contract/mint.js';
import { PROGRAM_BYTES } from './template-programs.js';
import { equalBytes } from '../lib/bytes.js';
import { computeBudgetKind } from '../transaction/compute-budget.js';
import { keyRole, type CompiledInstruction, type WireTransaction } from '../transaction/message.js';
import { TransactionRejected } from '../transaction/transaction-rejected.js';
import { checkPaymentInstruction, requirePayment, type MintPayment } from './payment.js';

/**
 * Whether a decoded transaction is exactly a mint template's (docs/minting.md, "Transaction
 * shapes"), judged on the message alone: no chain read, no signature, no allocation beyond a few
 * small arrays, so it runs before anything costly and a fuzzer can drive it by the thousand.
 *
 * What is checked for every template:
 * - no address lookup table (every key must be in the message to be judged), no repeated key, no
 *   durable-nonce advance anywhere (the transaction must expire with its blockhash, or a reservation
 *   could never be released);
 * - the gate's key is a read-only signer, not the fee payer, and appears in exactly one place: the
 *   template's slot (MintTo's authority, or the guard's thirdPartySigner among mintV2's remaining
 *   accounts). An instruction that does not name a key cannot use its signature, even through a
 *   cross-program call: the runtime lends an instruction only the signer privileges of the accounts
 *   it lists;
 * - no signer besides the fee payer, the gate and (candy) the new NFT's own account;
 * - every instruction is the template's, a compute-budget one, or one of allow_programs.
 *
 * Two facts the message cannot show are left to the caller: the fee payer's associated token
 * account (derived in the verify pool beside the signature check; `confirmDestination`) and, for
 * the candy templates, where the guard set puts the thirdPartySigner (read from the candy guard
 * account; `confirmSignerSlot`). Throws TransactionRejected with the reason's word.
 */
export interface TemplateSpec {
  program: MintProgram;
  /** The gate's co-signing public key. */
  signer: Uint8Array;
  /** spl-token / token-2022. */
  mint?: Uint8Array;
  amount?: bigint;
  /** candy-guard / core-candy-guard. */
  candyGuard?: Uint8Array;
  candyMachine?: Uint8Array;
  /** The guard group's label; undefined: none. */
  group?: string | undefined;
  allowPrograms: readonly Uint8Array[];
  /** A paid mint: its one System Program transfer (payment.ts). */
  payment?: MintPayment | undefined;
}

export interface TemplateMatch {
  /** The fee payer's key: the minter, whose quota is spent. */
  feePayer: Uint8Array;
  /** Index of the gate's key among the static keys, and so of its signature. */
  signerIndex: number;
  /** Token templates: the account MintTo credits (must be the fee payer's ATA). */
  destination?: Uint8Array;
  /** Candy templates: the gate's key's position among mintV2's remaining accounts. */
  signerSlot?: number;
}

const reject = (reason: string, message: string): never => {
  throw new TransactionRejected(reason, message);
};

/** SystemInstruction::AdvanceNonceAccount: a u32 little-endian 4. */
const ADVANCE_NONCE = 4;
/** Token instruction tags (spl-token and token-2022 share them). */
const MINT_TO = 7;
const MINT_TO_CHECKED = 14;
/** AssociatedTokenAccountInstruction::CreateIdempotent. */
const ATA_CREATE_IDEMPOTENT = 1;

/** The candy templates: the guard program's mint instruction, its discriminator and its fixed accounts. */
interface CandyLayout {
  guardProgram: Uint8Array;
  machineProgram: Uint8Array;
  /** Anchor discriminator of mintV2 (Candy Guard) / mintV1 (Core Candy Guard). */
  discriminator: readonly number[];
  /** Accounts before the guards' remaining accounts. */
  fixedAccounts: number;
  /** The new account the mint creates (NFT mint / Core asset): a signer of its own. */
  newAccount: number;
  /** Core only: the asset's owner, which must be the minter (or the program id, meaning "none"). */
  owner?: number;
}
const CANDY_GUARD = 0;
const CANDY_MACHINE_PROGRAM = 1;
const CANDY_MACHINE = 2;
const CANDY_PAYER = 4;
const CANDY_MINTER = 5;
export const CANDY_LAYOUTS: Record<'candy-guard' | 'core-candy-guard', CandyLayout> = {
  // mpl-candy-machine 6.1.0 generated/instructions/mintV2: 25 accounts, nftMint at 6.
  'candy-guard': {
    guardProgram: PROGRAM_BYTES.candyGuard,
    machineProgram: PROGRAM_BYTES.candyMachineCore,
    discriminator: [120, 121, 23, 146, 173, 110, 199, 205],
    fixedAccounts: 25,
    newAccount: 6,
  },
  // mpl-core-candy-machine 0.3.0 generated/instructions/mintV1: 13 accounts, owner at 6, asset at 7.
  'core-candy-guard': {
    guardProgram: PROGRAM_BYTES.coreCandyGuard,
    machineProgram: PROGRAM_BYTES.coreCandyMachine,
    discriminator: [145, 98, 192, 118, 184, 147, 118, 104],
    fixedAccounts: 13,
    newAccount: 7,
    owner: 6,
  },
};

export function checkTemplate(tx: WireTransaction, spec: TemplateSpec): TemplateMatch {
  const { header, accountKeys, instructions, lookups } = tx.message;
  if (lookups.length > 0) reject('lookup_table', 'the transaction loads keys from an address lookup table; list every key in the message');
  for (let i = 1; i < accountKeys.length; i++) {
    for (let j = 0; j < i; j++) if (equalBytes(accountKeys[i]!, accountKeys[j]!)) reject('duplicate_key', `account keys ${j} and ${i} are the same`);
  }
  const signerIndex = accountKeys.findIndex((key) => equalBytes(key, spec.signer));
  if (signerIndex === 0) reject('signer_key_fee_payer', 'the gate\'s key cannot pay the fee');
  if (signerIndex < 0) reject('signer_key_missing', 'the gate\'s key is not in the transaction');
  const role = keyRole(header, accountKeys.length, signerIndex);
  if (!role.signer) reject('signer_key_missing', 'the gate\'s key is in the transaction but not as a signer');
  if (role.writable) reject('signer_key_writable', 'the gate\'s key must be read-only');

  const candy = spec.program === 'candy-guard' || spec.program === 'core-candy-guard' ? CANDY_LAYOUTS[spec.program] : undefined;
  const tokenProgram = spec.program === 'token-2022' ? PROGRAM_BYTES.token2022 : PROGRAM_BYTES.token;
  const otherTokenProgram = spec.program === 'token-2022' ? PROGRAM_BYTES.token : PROGRAM_BYTES.token2022;
  const budgetKinds = new Set<number>();
  let mintInstruction: CompiledInstruction | undefined;
  let ataInstruction: CompiledInstruction | undefined;
  let paid: CompiledInstruction | undefined;

  instructions.forEach((instruction, i) => {
    const program = accountKeys[instruction.programIdIndex]!;
    const where = `instruction ${i}`;
    if (equalBytes(program, PROGRAM_BYTES.system) && isAdvanceNonce(instruction.data)) reject('durable_nonce', `${where} advances a durable nonce`);
    const namesSigner = instruction.programIdIndex === signerIndex || instruction.accountIndexes.includes(signerIndex);
    if (spec.payment !== undefined && equalBytes(program, PROGRAM_BYTES.system)) {
      if (namesSigner) reject('signer_key_elsewhere', `${where} (the payment) names the gate's key`);
      paid = checkPaymentInstruction(instruction, accountKeys, spec.payment, paid !== undefined, where);
      return;
    }

    if (equalBytes(program, PROGRAM_BYTES.computeBudget)) {
      const kind = computeBudgetKind(instruction) ?? reject('compute_budget', `${where} is not a valid compute-budget instruction`);
      // The runtime fails a transaction that repeats a kind (DuplicateInstruction).
      if (budgetKinds.has(kind)) reject('compute_budget', `${where} repeats a compute-budget instruction`);
      budgetKinds.add(kind);
      return;
    }
    if (candy === undefined && equalBytes(program, PROGRAM_BYTES.associatedToken)) {
      if (namesSigner) reject('signer_key_elsewhere', `${where} (associated token account) names the gate's key`);
      if (ataInstruction !== undefined) reject('ata_instruction', `${where} is a second associated-token-account instruction`);
      ataInstruction = checkAtaCreation(instruction, accountKeys, spec, tokenProgram, where);
      return;
    }
    if (candy === undefined && equalBytes(program, tokenProgram)) {
      if (mintInstruction !== undefined) reject('mint_instruction', `${where} is a second token instruction; the template has one MintTo`);
      mintInstruction = checkMintTo(instruction, accountKeys, spec, signerIndex, where);
      return;
    }
    if (candy === undefined && equalBytes(program, otherTokenProgram)) reject('wrong_program', `${where} calls the other token program than the mint's (${spec.program})`);
    if (candy !== undefined && equalBytes(program, candy.guardProgram)) {
      if (mintInstruction !== undefined) reject('mint_instruction', `${where} is a second candy guard instruction; the template has one mint`);
      mintInstruction = instruction;
      return;
    }
    if (namesSigner) reject('signer_key_elsewhere', `${where} names the gate's key outside the template's slot`);
    if (!spec.allowPrograms.some((allowed) => equalBytes(allowed, program))) reject('instruction_not_allowed', `${where} calls a program the template does not allow`);
  });

  requirePayment(spec.payment, paid !== undefined);
  if (mintInstruction === undefined) reject('mint_instruction', candy ? 'no mint instruction of the candy guard' : 'no MintTo or MintToChecked instruction');
  const mint = mintInstruction!;
  if (candy !== undefined) return checkCandyMint(tx, mint, spec, candy, signerIndex);

  const destinationIndex = mint.accountIndexes[1]!;
  if (ataInstruction !== undefined && ataInstruction.accountIndexes[1] !== destinationIndex) {
    reject('ata_instruction', 'the associated token account created is not the one MintTo credits');
  }
  if (header.numRequiredSignatures !== 2) reject('extra_signer', `${header.numRequiredSignatures} signers: the template has the fee payer and the gate`);
  return { feePayer: accountKeys[0]!, signerIndex, destination: accountKeys[destinationIndex]! };
}

function isAdvanceNonce(data: Uint8Array): boolean {
  return data.length >= 4 && data[0] === ADVANCE_NONCE && data[1] === 0 && data[2] === 0 && data[3] === 0;
}

/** CreateIdempotent of the fee payer's own ATA: [payer, ata, owner, mint, system, token program], payer = owner = fee payer. */
function checkAtaCreation(instruction: CompiledInstruction, keys: Uint8Array[], spec: TemplateSpec, tokenProgram: Uint8Array, where: string): CompiledInstruction {
  const { accountIndexes, data } = instruction;
  if (data.length !== 1 || data[0] !== ATA_CREATE_IDEMPOTENT) reject('ata_instruction', `${where}: only CreateIdempotent of the fee payer's own account is allowed`);
  if (accountIndexes.length !== 6) reject('ata_instruction', `${where}: CreateIdempotent takes 6 accounts, not ${accountIndexes.length}`);
  const [payer, , owner, mint, system, program] = accountIndexes as unknown as number[];
  if (payer !== 0 || owner !== 0) reject('ata_instruction', `${where}: the account created must be the fee payer's, paid by it`);
  if (!equalBytes(keys[mint!]!, spec.mint!)) reject('wrong_mint', `${where}: creates an account of another mint`);
  if (!equalBytes(keys[system!]!, PROGRAM_BYTES.system) || !equalBytes(keys[program!]!, tokenProgram)) reject('ata_instruction', `${where}: not the system and ${spec.program} programs`);
  return instruction;
}

/** MintTo / MintToChecked: [mint, destination, authority], authority the gate's key, no multisig signers. */
function checkMintTo(instruction: CompiledInstruction, keys: Uint8Array[], spec: TemplateSpec, signerIndex: number, where: string): CompiledInstruction {
  const { accountIndexes, data } = instruction;
  const tag = data[0];
  if (!((tag === MINT_TO && data.length === 9) || (tag === MINT_TO_CHECKED && data.length === 10))) reject('mint_instruction', `${where}: the only token instruction allowed is MintTo or MintToChecked`);
  if (accountIndexes.length !== 3) reject('wrong_authority', `${where}: MintTo takes the mint, the destination and the gate's key as its single authority`);
  const [mint, destination, authority] = accountIndexes as unknown as number[];
  if (authority !== signerIndex) reject('wrong_authority', `${where}: the mint authority is not the gate's key`);
  if (mint === signerIndex || destination === signerIndex) reject('signer_key_elsewhere', `${where}: the gate's key in MintTo's mint or destination`);
  if (!equalBytes(keys[mint!]!, spec.mint!)) reject('wrong_mint', `${where}: mints another mint`);
  const amount = new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(1, true);
  if (amount !== spec.amount) reject('wrong_amount', `${where}: mints ${amount} base units, the mint's amount is ${spec.amount}`);
  return instruction;
}

function checkCandyMint(tx: WireTransaction, instruction: CompiledInstruction, spec: TemplateSpec, candy: CandyLayout, signerIndex: number): TemplateMatch {
  const { header, accountKeys } = tx.message;
  const { accountIndexes, data } = instruction;
  const key = (position: number): Uint8Array => accountKeys[accountIndexes[position]!]!;
  if (data.length < 8 || candy.discriminator.some((byte, i) => data[i] !== byte)) reject('mint_instruction', `the candy guard instruction is not ${spec.program === 'candy-guard' ? 'mintV2' : 'mintV1'}`);
  if (accountIndexes.length < candy.fixedAccounts) reject('candy_accounts', `the mint instruction lists ${accountIndexes.length} accounts, fewer than its ${candy.fixedAccounts}`);
  if (!equalBytes(key(CANDY_GUARD), spec.candyGuard!)) reject('candy_accounts', 'the mint names another candy guard');
  if (!equalBytes(key(CANDY_MACHINE_PROGRAM), candy.machineProgram)) reject('candy_accounts', 'the mint names another candy machine program');
  if (!equalBytes(key(CANDY_MACHINE), spec.candyMachine!)) reject('candy_accounts', 'the mint names another candy machine');
  if (accountIndexes[CANDY_PAYER] !== 0 || accountIndexes[CANDY_MINTER] !== 0) reject('candy_accounts', 'the payer and the minter must both be the fee payer');
  if (candy.owner !== undefined) {
    const owner = key(candy.owner);
    if (accountIndexes[candy.owner] !== 0 && !equalBytes(owner, candy.guardProgram)) reject('candy_accounts', 'the asset\'s owner must be the minter');
  }

  const group = readGroup(data);
  if (group !== (spec.group ?? null)) reject('wrong_group', `the mint is for group ${JSON.stringify(group)}, the configuration's is ${JSON.stringify(spec.group ?? null)}`);

  // The gate's key once, among the remaining accounts (where the guards read theirs).
  let slot = -1;
  accountIndexes.forEach((index, position) => {
    if (index !== signerIndex) return;
    if (position < candy.fixedAccounts || slot >= 0) reject('signer_slot', 'the gate\'s key must be listed once, as the thirdPartySigner guard\'s account');
    slot = position - candy.fixedAccounts;
  });
  if (slot < 0) reject('signer_slot', 'the mint instruction does not list the gate\'s key');

  // Signers: the fee payer, the gate, and the account the mint creates (it signs for its own creation).
  const newAccountIndex = accountIndexes[candy.newAccount]!;
  if (header.numRequiredSignatures > 3) reject('extra_signer', `${header.numRequiredSignatures} signers: the template has the fee payer, the new NFT's account and the gate`);
  for (let index = 1; index < header.numRequiredSignatures; index++) {
    if (index !== signerIndex && index !== newAccountIndex) reject('extra_signer', `signer ${index} is neither the gate nor the account the mint creates`);
  }
  return { feePayer: accountKeys[0]!, signerIndex, signerSlot: slot };
}

/** mintArgs (u32-length bytes), then group: Option<String> (u8 tag, u32-length UTF-8), and nothing after. */
function readGroup(data: Uint8Array): string | null {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let offset = 8;
  const need = (bytes: number): void => {
    if (offset + bytes > data.length) reject('mint_instruction', 'the mint instruction\'s data is truncated');
  };
  need(4);
  const argsLength = view.getUint32(offset, true);
  offset += 4;
  need(argsLength);
  offset += argsLength;
  need(1);
  const tag = data[offset++];
  let group: string | null = null;
  if (tag === 1) {
    need(4);
    const length = view.getUint32(offset, true);
    offset += 4;
    need(length);
    group = new TextDecoder('utf-8', { fatal: false }).decode(data.subarray(offset, offset + length));
    offset += length;
  } else if (tag !== 0) {
    reject('mint_instruction', 'the mint instruction\'s group is not an Option<String>');
  }
  if (offset !== data.length) reject('mint_instruction', 'bytes after the mint instruction\'s group');
  return group;
}

/** Token templates: MintTo must credit the fee payer's associated token account of the mint. */
export function confirmDestination(match: TemplateMatch, feePayerAta: Uint8Array): void {
  if (match.destination === undefined || !equalBytes(match.destination, feePayerAta)) {
    reject('wrong_destination', 'MintTo must credit the fee payer\'s associated token account of the mint');
  }
}

/** Candy templates: the gate's key must be where the guard set reads its thirdPartySigner. */
export function confirmSignerSlot(match: TemplateMatch, slot: number): void {
  if (match.signerSlot !== slot) {
    reject('signer_slot', `the gate's key is remaining account ${match.signerSlot}, but the guard set reads its thirdPartySigner at ${slot}`);
  }
}

import { writeFileSync } from 'node:fs';
import {
  ComputeBudgetProgram,
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  TransactionMessage,
  VersionedMessage,
  VersionedTransaction,
  type AddressLookupTableAccount,
} from '@solana/web3.js';
import { TransactionRejected } from '../../src/transaction/transaction-rejected.js';

/**
 * Mint transactions as a page builds them with @solana/web3.js (not with the gate's own encoder),
 * signed by the wallet only: the gate's signature slot is left as zeros for the gate to fill.
 */
export const TOKEN_PROGRAM = new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
export const TOKEN_2022_PROGRAM = new PublicKey('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');
export const ATA_PROGRAM = new PublicKey('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL');

const derived = new Map<string, PublicKey>();
/** web3.js's own derivation (independent of the gate's), remembered: the fuzzers ask for the same few. */
export function associatedTokenAccount(owner: PublicKey, mint: PublicKey, tokenProgram = TOKEN_PROGRAM): PublicKey {
  const key = `${owner.toBase58()} ${mint.toBase58()} ${tokenProgram.toBase58()}`;
  let ata = derived.get(key);
  if (ata === undefined) derived.set(key, (ata = PublicKey.findProgramAddressSync([owner.toBuffer(), tokenProgram.toBuffer(), mint.toBuffer()], ATA_PROGRAM)[0]));
  return ata;
}

export function createAtaIdempotent(payer: PublicKey, owner: PublicKey, mint: PublicKey, tokenProgram = TOKEN_PROGRAM, ata = associatedTokenAccount(owner, mint, tokenProgram)): TransactionInstruction {
  return new TransactionInstruction({
    programId: ATA_PROGRAM,
    keys: [
      { pubkey: payer, isSigner: true, isWritable: true },
      { pubkey: ata, isSigner: false, isWritable: true },
      { pubkey: owner, isSigner: false, isWritable: false },
      { pubkey: mint, isSigner: false, isWritable: false },
      { pubkey: SystemProgram.programId, isSigner: false, isWritable: false },
      { pubkey: tokenProgram, isSigner: false, isWritable: false },
    ],
    data: Buffer.from([1]),
  });
}

export function mintTo(mint: PublicKey, destination: PublicKey, authority: PublicKey, amount: bigint, options: { tokenProgram?: PublicKey; decimals?: number; authorityWritable?: boolean } = {}): TransactionInstruction {
  const data = Buffer.alloc(options.decimals === undefined ? 9 : 10);
  data[0] = options.decimals === undefined ? 7 : 14;
  data.writeBigUInt64LE(amount, 1);
  if (options.decimals !== undefined) data[9] = options.decimals;
  return new TransactionInstruction({
    programId: options.tokenProgram ?? TOKEN_PROGRAM,
    keys: [
      { pubkey: mint, isSigner: false, isWritable: true },
      { pubkey: destination, isSigner: false, isWritable: true },
      { pubkey: authority, isSigner: true, isWritable: options.authorityWritable ?? false },
    ],
    data,
  });
}

export interface TokenMintBuild {
  payer: Keypair;
  gate: PublicKey;
  mint: PublicKey;
  amount: bigint;
  blockhash: string;
  tokenProgram?: PublicKey;
  version?: 'legacy' | 0;
  createAta?: boolean;
  computeUnitLimit?: number;
  /** Replaces the whole instruction list (forbidden shapes). */
  instructions?: TransactionInstruction[];
  /** Added after the template's instructions. */
  extra?: TransactionInstruction[];
  tables?: AddressLookupTableAccount[];
  /** Signers besides the payer (they sign too). */
  cosigners?: Keypair[];
  feePayer?: Keypair;
}

/** The template's instructions: [compute limit], [create the payer's ATA], MintTo to it. */
export function tokenMintInstructions(build: TokenMintBuild): TransactionInstruction[] {
  const program = build.tokenProgram ?? TOKEN_PROGRAM;
  const owner = build.payer.publicKey;
  const list: TransactionInstruction[] = [];
  if (build.computeUnitLimit !== undefined) list.push(ComputeBudgetProgram.setComputeUnitLimit({ units: build.computeUnitLimit }));
  if (build.createAta ?? true) list.push(createAtaIdempotent(owner, owner, build.mint, program));
  list.push(mintTo(build.mint, associatedTokenAccount(owner, build.mint, program), build.gate, build.amount, { tokenProgram: program }));
  return list;
}

/** Wire bytes, signed by the payer (and any cosigners), the gate's slot zero. */
export function buildTokenMint(build: TokenMintBuild): Uint8Array {
  const instructions = [...(build.instructions ?? tokenMintInstructions(build)), ...(build.extra ?? [])];
  const feePayer = build.feePayer ?? build.payer;
  const signers = [feePayer, ...(feePayer === build.payer ? [] : [build.payer]), ...(build.cosigners ?? [])];
  return signWith(instructions, feePayer.publicKey, build.blockhash, signers, build.version ?? 'legacy', build.tables);
}

export function signWith(instructions: TransactionInstruction[], feePayer: PublicKey, blockhash: string, signers: Keypair[], version: 'legacy' | 0, tables: AddressLookupTableAccount[] = []): Uint8Array {
  if (version === 'legacy') {
    const transaction = new Transaction({ feePayer, recentBlockhash: blockhash }).add(...instructions);
    if (signers.length > 0) transaction.partialSign(...signers);
    else transaction.signatures = transaction.compileMessage().accountKeys.slice(0, transaction.compileMessage().header.numRequiredSignatures).map((publicKey) => ({ publicKey, signature: null }));
    return transaction.serialize({ requireAllSignatures: false, verifySignatures: false });
  }
  const message = new TransactionMessage({ payerKey: feePayer, recentBlockhash: blockhash, instructions }).compileToV0Message(tables);
  const transaction = new VersionedTransaction(message);
  transaction.sign(signers);
  return transaction.serialize();
}

/** The reason (TransactionRejected) the gate's judgment throws, or 'accepted'. */
export function refusalOf(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    if (error instanceof TransactionRejected) return error.reason;
    throw error;
  }
  return 'accepted';
}

/**
 * The fuzzers' independent reading of wire bytes (web3.js, not the gate's decoder), when it shows
 * what every template needs: no address lookup table, no key twice, and the gate's key a read-only
 * signer other than the fee payer. Each oracle then checks its own template's instructions.
 */
export function independentReading(bytes: Uint8Array, gate: PublicKey): { message: VersionedMessage; keys: PublicKey[]; gateIndex: number } | undefined {
  let message: VersionedMessage;
  try {
    const signatureCount = bytes[0]!;
    if (signatureCount >= 0x80) return undefined;
    message = VersionedMessage.deserialize(bytes.subarray(1 + 64 * signatureCount));
  } catch {
    return undefined;
  }
  if (message.addressTableLookups.length > 0) return undefined;
  const keys = message.staticAccountKeys;
  const gateIndex = keys.findIndex((key) => key.equals(gate));
  if (gateIndex <= 0 || !message.isAccountSigner(gateIndex) || message.isAccountWritable(gateIndex)) return undefined;
  if (new Set(keys.map((key) => key.toBase58())).size !== keys.length) return undefined;
  return { message, keys, gateIndex };
}

/** A solana-keygen file for `keypair`. */
export function writeKeypairFile(path: string, keypair: Keypair): void {
  writeFileSync(path, JSON.stringify([...keypair.secretKey]), { mode: 0o600 });
}

export const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

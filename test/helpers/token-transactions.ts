/**
 * Transactions for the local chain's execution tests, built with @solana/web3.js (a client the
 * local chain does not share code with): SPL Token / Token-2022 MintTo and Transfer, the
 * Associated Token Account program's Create / CreateIdempotent, Memo and Compute Budget, as legacy
 * or v0 transactions, and a JSON-RPC caller for the local chain.
 */
import { createHash } from 'node:crypto';
import * as ed from '@noble/ed25519';
import {
  Keypair,
  PublicKey,
  Transaction,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
  type AddressLookupTableAccount,
} from '@solana/web3.js';
import { ASSOCIATED_TOKEN_PROGRAM, associatedTokenAddress, COMPUTE_BUDGET_PROGRAM, MEMO_PROGRAM, SYSTEM_PROGRAM, tokenProgramId, type TokenProgramName } from 'x404-localnet/programs.js';

export interface RpcReply {
  jsonrpc: string;
  id: unknown;
  result?: any;
  error?: { code: number; message: string; data?: any };
}

/** One JSON-RPC call over HTTP; the whole reply (result or error). */
export async function rpcCall(url: string, method: string, params?: unknown[]): Promise<RpcReply> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  if (res.status !== 200) throw new Error(`${method}: HTTP ${res.status}`);
  return (await res.json()) as RpcReply;
}

/** An admin route of the local chain (POST with a body). */
export async function localnetAdmin(url: string, route: string, body: unknown): Promise<any> {
  const res = await fetch(`${url}/__localnet/${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`${route}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

ed.hashes.sha512 = (message: Uint8Array) => new Uint8Array(createHash('sha512').update(message).digest());

const key = (address: string) => new PublicKey(address);

export function ataOf(owner: string, mint: string, program: TokenProgramName): string {
  return associatedTokenAddress(owner, mint, program);
}

/** ATA program: CreateIdempotent (1) or Create (0) of `owner`'s account for `mint`, paid by `payer`. */
export function createAta(payer: string, owner: string, mint: string, program: TokenProgramName, idempotent = true): TransactionInstruction {
  return new TransactionInstruction({
    programId: key(ASSOCIATED_TOKEN_PROGRAM),
    keys: [
      { pubkey: key(payer), isSigner: true, isWritable: true },
      { pubkey: key(ataOf(owner, mint, program)), isSigner: false, isWritable: true },
      { pubkey: key(owner), isSigner: false, isWritable: false },
      { pubkey: key(mint), isSigner: false, isWritable: false },
      { pubkey: key(SYSTEM_PROGRAM), isSigner: false, isWritable: false },
      { pubkey: key(tokenProgramId(program)), isSigner: false, isWritable: false },
    ],
    data: Buffer.from([idempotent ? 1 : 0]),
  });
}

/** Token MintTo (7): `amount` of `mint` to `destination`; `authorityIsSigner: false` leaves the authority an ordinary account. */
export function mintTo(mint: string, destination: string, authority: string, amount: bigint, program: TokenProgramName, authorityIsSigner = true): TransactionInstruction {
  const data = Buffer.alloc(9);
  data[0] = 7;
  data.writeBigUInt64LE(amount, 1);
  return new TransactionInstruction({
    programId: key(tokenProgramId(program)),
    keys: [
      { pubkey: key(mint), isSigner: false, isWritable: true },
      { pubkey: key(destination), isSigner: false, isWritable: true },
      { pubkey: key(authority), isSigner: authorityIsSigner, isWritable: false },
    ],
    data,
  });
}

/** Token Transfer (3): `amount` from one token account to another, signed by the source's owner. */
export function transfer(source: string, destination: string, owner: string, amount: bigint, program: TokenProgramName = 'token'): TransactionInstruction {
  const data = Buffer.alloc(9);
  data[0] = 3;
  data.writeBigUInt64LE(amount, 1);
  return new TransactionInstruction({
    programId: key(tokenProgramId(program)),
    keys: [
      { pubkey: key(source), isSigner: false, isWritable: true },
      { pubkey: key(destination), isSigner: false, isWritable: true },
      { pubkey: key(owner), isSigner: true, isWritable: false },
    ],
    data,
  });
}

export function memo(text: string): TransactionInstruction {
  return new TransactionInstruction({ programId: key(MEMO_PROGRAM), keys: [], data: Buffer.from(text, 'utf8') });
}

/** Compute Budget SetComputeUnitPrice (3), micro-lamports per compute unit. */
export function computeUnitPrice(microLamports: bigint): TransactionInstruction {
  const data = Buffer.alloc(9);
  data[0] = 3;
  data.writeBigUInt64LE(microLamports, 1);
  return new TransactionInstruction({ programId: key(COMPUTE_BUDGET_PROGRAM), keys: [], data });
}

/** A legacy transaction, signed by every keypair given (the first pays), base64 wire bytes. */
export function legacyTransaction(instructions: TransactionInstruction[], blockhash: string, signers: Keypair[]): string {
  const tx = new Transaction({ feePayer: signers[0]!.publicKey, recentBlockhash: blockhash }).add(...instructions);
  tx.sign(...signers);
  return tx.serialize().toString('base64');
}

/**
 * A legacy transaction in which the keys in `missing` are named as signers but do not sign: their
 * signature stays empty (64 zero bytes), or is `forgedBy` another key's signature of the message.
 */
export function withoutSignatureOf(instructions: TransactionInstruction[], blockhash: string, signers: Keypair[], missing: string[], forgedBy?: Keypair): string {
  const tx = new Transaction({ feePayer: signers[0]!.publicKey, recentBlockhash: blockhash }).add(...instructions);
  tx.partialSign(...signers);
  if (forgedBy) {
    const signature = ed.sign(tx.serializeMessage(), forgedBy.secretKey.slice(0, 32));
    for (const address of missing) tx.addSignature(key(address), Buffer.from(signature));
  }
  return tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64');
}

/** A v0 transaction (optionally with lookup tables), signed by every keypair given (the first pays). */
export function v0Transaction(instructions: TransactionInstruction[], blockhash: string, signers: Keypair[], lookupTables: AddressLookupTableAccount[] = []): string {
  const message = new TransactionMessage({ payerKey: signers[0]!.publicKey, recentBlockhash: blockhash, instructions }).compileToV0Message(lookupTables);
  const tx = new VersionedTransaction(message);
  tx.sign(signers);
  return Buffer.from(tx.serialize()).toString('base64');
}

export function keypair(secretKey: Uint8Array): Keypair {
  return Keypair.fromSecretKey(secretKey);
}

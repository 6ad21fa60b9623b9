import type { SolanaSignInInput } from '@solana/wallet-standard-features';
import { createSignInMessage } from '@solana/wallet-standard-util';
import {
  ComputeBudgetProgram,
  Keypair,
  PublicKey,
  Transaction,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import bs58 from 'bs58';
import * as ed from '@noble/ed25519';
import { challenge, publicKeyOf } from './client.js';

/**
 * The three other proofs of the challenge, produced the way wallets and tools produce them — not
 * with the gate's own codecs: Sign In With Solana text by @solana/wallet-standard-util (what
 * Phantom, Solflare and Backpack build), memo transactions by @solana/web3.js signed with a
 * Keypair, off-chain messages byte by byte from their definition (Agave's offchain-message crate,
 * the Ledger app's parser).
 */
export const MEMO_PROGRAM = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
/** 32 zero bytes: a blockhash no cluster has, so the transaction can never land. */
export const ZERO_BLOCKHASH = bs58.encode(new Uint8Array(32));

/** What a page passes to the wallet's signIn (wallet-standard's input type, with the two fields wallets fill in made required). */
export type SiwsFields = SolanaSignInInput & { domain: string; address: string };

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
const sign = (secretKey: Uint8Array, bytes: Uint8Array): Uint8Array => ed.sign(bytes, secretKey.slice(0, 32));

/** A SIWS input as a page on `domain` would pass to the wallet's signIn, with overrides. */
export function siwsFields(secretKey: Uint8Array, nonce: string, feature: string, overrides: Partial<SiwsFields> = {}): SiwsFields {
  const domain = overrides.domain ?? 'app.example.com';
  return {
    domain,
    address: publicKeyOf(secretKey),
    statement: 'Sign in to the launch',
    uri: `https://${domain}/launch`,
    version: '1',
    chainId: 'mainnet',
    nonce,
    issuedAt: new Date().toISOString(),
    resources: [`x404:${feature}`],
    ...overrides,
  };
}

/** Login headers of a SIWS proof: the wallet-standard message, signed by `signer` (default the wallet). */
export function siwsHeaders(secretKey: Uint8Array, nonce: string, feature: string, fields: SiwsFields, signer = secretKey): Record<string, string> {
  const message = createSignInMessage(fields);
  return {
    'X-404-Sign-Mode': 'siws',
    'X-404-Message': b64(message),
    'X-404-Nonce': nonce,
    'X-404-Signature': bs58.encode(sign(signer, message)),
    'X-404-Addr': publicKeyOf(secretKey),
    'X-404-Feature': feature,
  };
}

/** Headers for a signed transaction's wire bytes: the fee payer's signature goes in X-404-Signature. */
export function memoTxHeaders(wire: Uint8Array, signature: Uint8Array, secretKey: Uint8Array, nonce: string, feature: string): Record<string, string> {
  return {
    'X-404-Sign-Mode': 'memo-tx',
    'X-404-Message': b64(wire),
    'X-404-Nonce': nonce,
    'X-404-Signature': bs58.encode(signature),
    'X-404-Addr': publicKeyOf(secretKey),
    'X-404-Feature': feature,
  };
}

export interface MemoTxOptions {
  version?: 'legacy' | 0;
  memo?: string | Uint8Array;
  blockhash?: string;
  computeUnitPrice?: number;
  /** Instructions before / after the memo. */
  before?: TransactionInstruction[];
  after?: TransactionInstruction[];
  /** Further signers, listed as signer accounts of the memo (which makes them required signers). */
  coSigners?: Keypair[];
  memoProgram?: PublicKey;
}

/** A memo transaction as a wallet would sign it with @solana/web3.js (legacy Transaction or v0 VersionedTransaction). */
export function memoTransaction(secretKey: Uint8Array, nonce: string, feature: string, options: MemoTxOptions = {}): { wire: Uint8Array; signature: Uint8Array } {
  const keypair = Keypair.fromSecretKey(secretKey);
  const memo = options.memo ?? challenge(nonce, feature);
  const instructions: TransactionInstruction[] = [
    ...(options.computeUnitPrice === undefined ? [] : [ComputeBudgetProgram.setComputeUnitPrice({ microLamports: options.computeUnitPrice })]),
    ...(options.before ?? []),
    new TransactionInstruction({
      programId: options.memoProgram ?? MEMO_PROGRAM,
      keys: [keypair, ...(options.coSigners ?? [])].map(({ publicKey }) => ({ pubkey: publicKey, isSigner: true, isWritable: false })),
      data: Buffer.from(memo),
    }),
    ...(options.after ?? []),
  ];
  const blockhash = options.blockhash ?? ZERO_BLOCKHASH;
  const signers = [keypair, ...(options.coSigners ?? [])];
  if (options.version === 0) {
    const message = new TransactionMessage({ payerKey: keypair.publicKey, recentBlockhash: blockhash, instructions }).compileToV0Message();
    const transaction = new VersionedTransaction(message);
    transaction.sign(signers);
    return { wire: transaction.serialize(), signature: transaction.signatures[0] as Uint8Array };
  }
  const transaction = new Transaction({ feePayer: keypair.publicKey, recentBlockhash: blockhash }).add(...instructions);
  transaction.sign(...signers);
  return { wire: transaction.serialize({ requireAllSignatures: true, verifySignatures: true }), signature: transaction.signature as Uint8Array };
}

const SIGNING_DOMAIN = Buffer.concat([Buffer.from([0xff]), Buffer.from('solana offchain')]);

/**
 * Agave's off-chain message (what `solana sign-offchain-message` signs): signing domain ‖ version 0
 * ‖ format ‖ length u16 LE ‖ body. Format 0 (restricted ASCII) for a printable-ASCII body.
 */
export function agaveOffchainMessage(body: string | Uint8Array, options: { version?: number; format?: number } = {}): Uint8Array {
  const text = Buffer.from(body);
  const length = Buffer.alloc(2);
  length.writeUInt16LE(text.length);
  return Buffer.concat([SIGNING_DOMAIN, Buffer.from([options.version ?? 0, options.format ?? 0]), length, text]);
}

/**
 * The spec's v0 preamble, as Ledger's Solana app reads it and Ledger's device SDK builds it: signing
 * domain ‖ version 0 ‖ application domain (32 zero bytes) ‖ format ‖ signer count ‖ signers ‖ length ‖ body.
 */
export function ledgerOffchainMessage(body: string, signers: Uint8Array[]): Uint8Array {
  const text = Buffer.from(body);
  const length = Buffer.alloc(2);
  length.writeUInt16LE(text.length);
  return Buffer.concat([SIGNING_DOMAIN, Buffer.from([0]), Buffer.alloc(32), Buffer.from([0, signers.length]), ...signers, length, text]);
}

export function offchainHeaders(secretKey: Uint8Array, nonce: string, feature: string, message: Uint8Array | undefined, signer = secretKey): Record<string, string> {
  const signed = message ?? agaveOffchainMessage(challenge(nonce, feature));
  return {
    'X-404-Sign-Mode': 'offchain',
    ...(message === undefined ? {} : { 'X-404-Message': b64(message) }),
    'X-404-Nonce': nonce,
    'X-404-Signature': bs58.encode(sign(signer, signed)),
    'X-404-Addr': publicKeyOf(secretKey),
    'X-404-Feature': feature,
  };
}

import { createHash, createPrivateKey, createPublicKey, randomBytes, sign, type KeyObject } from 'node:crypto';
import { createSignInMessageText } from '@solana/wallet-standard-util';
import { PublicKey, Transaction, TransactionInstruction } from '@solana/web3.js';
import bs58 from 'bs58';

/**
 * Benchmark wallets, signing with node:crypto (~60–90 µs per signature here, against ~1.4 ms for
 * @noble/ed25519): thousands of logins must be signed before each timed phase. Wallets come from
 * fixed seeds; the address is the base58 public key.
 */

export interface BenchWallet {
  seed: Buffer;
  address: string;
  publicKey: Buffer;
  privateKey: KeyObject;
}

/** Seeds of `count` wallets, fixed so every run uses the same addresses; `family` names another set. */
export function walletSeeds(count: number, family = 'wallet'): Buffer[] {
  return Array.from({ length: count }, (_, i) => createHash('sha256').update(`x404 bench ${family} ${i}`).digest());
}

/**
 * The key pair of a 32-byte seed. Imported as a JWK: OpenSSL derives the public half from `d`
 * (`x` is not read for a private key), ~40 µs here against ~350 µs for the same seed wrapped in
 * PKCS#8 DER — it matters when a run signs in 50,000 fresh wallets.
 */
export function keyFromSeed(seed: Buffer): BenchWallet {
  const privateKey = createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d: seed.toString('base64url'), x: '' }, format: 'jwk' });
  const publicKey = Buffer.from(createPublicKey(privateKey).export({ format: 'jwk' }).x as string, 'base64url');
  return { seed, address: bs58.encode(publicKey), publicKey, privateKey };
}

export function benchWallets(count: number, family = 'wallet'): BenchWallet[] {
  return walletSeeds(count, family).map(keyFromSeed);
}

/** A wallet never seen before (a launch's buyers, a fresh co-signing key). */
export const randomWallet = (): BenchWallet => keyFromSeed(randomBytes(32));

/** A solana-keygen keypair file's text: the 32-byte seed, then the public key. */
export const keypairFileText = (wallet: BenchWallet): string => JSON.stringify([...wallet.seed, ...wallet.publicKey]);

export const FEATURE = 'blacklist';
/** Where a feature (or a rule) signs in. */
export const authPath = (target: string): string => `/x404_auth/${target}`;
export const AUTH_PATH = authPath(FEATURE);

/** CHALLENGE::<nonce>::<path>::<MECHANISM>_<FEATURE>, written from docs/api.md §4 (not from the gate's code); a rule's name takes the feature's place. */
export function challengeText(nonce: string, mechanism = 'SERVICE404', target = FEATURE): string {
  return `CHALLENGE::${nonce}::${authPath(target)}::${mechanism}_${target.toUpperCase()}`;
}

/** Base58 ed25519 signature of the challenge for `nonce`. */
export function signChallenge(privateKey: KeyObject, nonce: string): string {
  return bs58.encode(sign(null, Buffer.from(challengeText(nonce), 'utf8'), privateKey));
}

/** The headers of a signed login (blacklist unless `target` names another feature or a rule). */
export function loginHeaders(address: string, nonce: string, signature: string, policy: Record<string, string>, target = FEATURE): Record<string, string> {
  return { 'X-404-Nonce': nonce, 'X-404-Signature': signature, 'X-404-Addr': address, 'X-404-Feature': target, ...policy };
}

export function signedLoginHeaders(wallet: BenchWallet, nonce: string, policy: Record<string, string>): Record<string, string> {
  return loginHeaders(wallet.address, nonce, signChallenge(wallet.privateKey, nonce), policy);
}

/** How a bench login proves the challenge (the gate's X-404-Sign-Mode). */
export const SIGN_MODES = ['challenge', 'siws', 'offchain', 'memo-tx'] as const;
export type BenchSignMode = (typeof SIGN_MODES)[number];
/** The SIWS_DOMAINS of the gate that measures siws logins. */
export const BENCH_SIWS_DOMAIN = 'bench.example';
const MEMO_PROGRAM = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const ZERO_BLOCKHASH = bs58.encode(new Uint8Array(32));
const OFFCHAIN_DOMAIN = Buffer.from('\xffsolana offchain', 'latin1');

export interface SignedProof {
  signature: string;
  /** X-404-Message (base64), beyond the challenge. */
  message?: string;
}

/**
 * The bytes each mode signs, produced as wallets do (not with the gate's codecs): the SIWS text by
 * @solana/wallet-standard-util, the off-chain message (Agave's layout) byte by byte, the memo
 * transaction by @solana/web3.js.
 */
export function signProof(privateKey: KeyObject, address: string, nonce: string, mode: BenchSignMode, target = FEATURE): SignedProof {
  const challenge = challengeText(nonce, undefined, target);
  const signed = (bytes: Buffer): string => bs58.encode(sign(null, bytes, privateKey));
  switch (mode) {
    case 'challenge':
      return { signature: signed(Buffer.from(challenge, 'utf8')) };
    case 'siws': {
      const text = createSignInMessageText({
        domain: BENCH_SIWS_DOMAIN,
        address,
        statement: 'Sign in to the bench',
        uri: `https://${BENCH_SIWS_DOMAIN}/`,
        version: '1',
        chainId: 'mainnet',
        nonce,
        issuedAt: new Date().toISOString(),
        resources: [`x404:${target}`],
      });
      const bytes = Buffer.from(text, 'utf8');
      return { signature: signed(bytes), message: bytes.toString('base64') };
    }
    case 'offchain': {
      const body = Buffer.from(challenge, 'utf8');
      const length = Buffer.alloc(2);
      length.writeUInt16LE(body.length);
      const bytes = Buffer.concat([OFFCHAIN_DOMAIN, Buffer.from([0, 0]), length, body]);
      return { signature: signed(bytes), message: bytes.toString('base64') };
    }
    case 'memo-tx': {
      const wallet = new PublicKey(address);
      const transaction = new Transaction({ feePayer: wallet, recentBlockhash: ZERO_BLOCKHASH }).add(
        new TransactionInstruction({ programId: MEMO_PROGRAM, keys: [{ pubkey: wallet, isSigner: true, isWritable: false }], data: Buffer.from(challenge, 'utf8') }),
      );
      const signature = sign(null, transaction.serializeMessage(), privateKey);
      transaction.addSignature(wallet, signature);
      return { signature: bs58.encode(signature), message: transaction.serialize().toString('base64') };
    }
  }
}

/** The headers of a signed blacklist login in `mode`. */
export function proofLoginHeaders(address: string, nonce: string, proof: SignedProof, mode: BenchSignMode, policy: Record<string, string>, target = FEATURE): Record<string, string> {
  const headers = loginHeaders(address, nonce, proof.signature, policy, target);
  if (mode !== 'challenge') headers['X-404-Sign-Mode'] = mode;
  if (proof.message !== undefined) headers['X-404-Message'] = proof.message;
  return headers;
}

/** A wallet's signed login in `mode`, signed here (for benchmarks that sign as they go). */
export function loginHeadersFor(wallet: BenchWallet, nonce: string, mode: BenchSignMode, policy: Record<string, string>): Record<string, string> {
  return proofLoginHeaders(wallet.address, nonce, signProof(wallet.privateKey, wallet.address, nonce, mode), mode, policy);
}

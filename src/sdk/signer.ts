import * as ed from '@noble/ed25519';
import bs58 from 'bs58';
import { createSignInMessageText } from '@solana/wallet-standard-util';
import { decodeBase58 } from '../lib/base58.js';
import { memoTransactionMessage, serializeSignedTransaction } from '../sign-modes/memo-transaction.js';
import { strictEd25519KeyRefusal, strictEd25519Refusal } from '../signature/strict-ed25519.js';

/**
 * What `authenticate` can sign with:
 * - a browser wallet as wallet adapters expose it (Phantom, Solflare, Backpack, …):
 *   `{ publicKey, signMessage?, signIn?, signTransaction?, hardware? }`. `signMessage(bytes)`
 *   resolves to the signature or `{ signature }`; `signIn(input)` is Sign In With Solana
 *   (wallet-standard `solana:signIn`, wallet-adapter's `signIn`); `signTransaction(bytes)` takes a
 *   serialized transaction and resolves to it signed (wrap an adapter's
 *   `signTransaction(VersionedTransaction)` as docs/sign-modes.md shows); `hardware: true` says the wallet
 *   cannot sign arbitrary text (Ledger), so `signMode: 'auto'` sends a memo transaction;
 * - a wallet-standard wallet: `{ wallet, account? }`, its features (`solana:signIn`,
 *   `solana:signMessage`, `solana:signTransaction`) used as above;
 * - a keypair: `{ secretKey }`, the 64-byte Solana secret key (seed ‖ public key, as in a
 *   `solana-keygen` JSON file) or a 32-byte seed. It can sign in every mode. Signing uses
 *   @noble/ed25519 with WebCrypto's SHA-512, so it works in browsers, Node and edge runtimes alike.
 */
export type Signer = WalletSigner | StandardWalletSigner | KeypairSigner;

/** A public key as wallets expose it: base58 text, raw bytes, or an object with toBase58(). */
export type PublicKeyLike = string | Uint8Array | { toBase58(): string } | { toBytes(): Uint8Array };

/** The Sign In With Solana input (wallet-standard SolanaSignInInput) the SDK passes to `signIn`. */
export interface SignInInput {
  domain: string;
  address: string;
  statement?: string;
  uri: string;
  version: '1';
  chainId: string;
  nonce: string;
  issuedAt: string;
  resources: string[];
}

/**
 * What a wallet's `signIn` resolves to: wallet-standard's SolanaSignInOutput (`account`), or
 * Phantom's injected provider's shape (`address`, a PublicKey).
 */
/** Bytes a wallet may hand out read-only (wallet-standard's ReadonlyUint8Array). */
export type ReadonlyBytes = { readonly length: number; readonly [index: number]: number };

export interface SignInOutput {
  account?: { address?: string; publicKey?: ReadonlyBytes };
  address?: PublicKeyLike;
  signedMessage: Uint8Array;
  signature: Uint8Array;
}

export interface WalletSigner {
  publicKey: PublicKeyLike | null | undefined;
  signMessage?(message: Uint8Array): Promise<Uint8Array | { signature: Uint8Array }>;
  signIn?(input: SignInInput): Promise<SignInOutput | readonly SignInOutput[]>;
  signTransaction?(serializedTransaction: Uint8Array): Promise<Uint8Array>;
  /** A hardware wallet (Ledger): it signs transactions, not arbitrary text. */
  hardware?: boolean;
}

/** The parts of a wallet-standard Wallet the SDK uses (structural: no import of @wallet-standard/base). */
export interface StandardWallet {
  readonly accounts: readonly StandardAccount[];
  readonly features: Readonly<Record<`${string}:${string}`, unknown>>;
}

export interface StandardAccount {
  address: string;
  publicKey: ReadonlyBytes;
  features?: readonly string[];
}

export interface StandardWalletSigner {
  wallet: StandardWallet;
  /** Default: the wallet's first account. */
  account?: StandardAccount;
  /** Solana chain for solana:signTransaction, default `solana:mainnet`. */
  chain?: string;
  hardware?: boolean;
}

export interface KeypairSigner {
  secretKey: Uint8Array | readonly number[];
}

/** A signer reduced to what the flow needs: the wallet's base58 address and what it can sign. */
export interface ResolvedSigner {
  address: string;
  /** Signs arbitrary bytes (signMessage); absent when the wallet cannot. */
  sign?(message: Uint8Array): Promise<Uint8Array>;
  /** Builds and signs a Sign In With Solana message from the input. */
  signIn?(input: SignInInput): Promise<{ signedMessage: Uint8Array; signature: Uint8Array; address: string }>;
  /** Signs a serialized transaction; resolves to the signed transaction. */
  signTransaction?(transaction: Uint8Array): Promise<Uint8Array>;
  hardware: boolean;
}

function publicKeyToBase58(key: PublicKeyLike): string {
  if (typeof key === 'string') return key;
  if (key instanceof Uint8Array) return bs58.encode(key);
  if ('toBase58' in key && typeof key.toBase58 === 'function') return key.toBase58();
  if ('toBytes' in key && typeof key.toBytes === 'function') return bs58.encode(key.toBytes());
  throw new TypeError('signer.publicKey is not a base58 string, bytes, or a PublicKey');
}

async function keypairSigner(secretKey: Uint8Array): Promise<ResolvedSigner> {
  if (secretKey.length !== 64 && secretKey.length !== 32) {
    throw new TypeError(`signer.secretKey must be 64 bytes (Solana keypair) or a 32-byte seed, got ${secretKey.length}`);
  }
  const seed = secretKey.slice(0, 32);
  const publicKey = await ed.getPublicKeyAsync(seed);
  // A Solana secret key carries its public key; a mismatch means a corrupted or spliced key file.
  if (secretKey.length === 64 && !secretKey.slice(32).every((byte, index) => byte === publicKey[index])) {
    throw new TypeError('signer.secretKey is inconsistent: its last 32 bytes are not the public key of its seed');
  }
  const address = bs58.encode(publicKey);
  const sign = (message: Uint8Array): Promise<Uint8Array> => ed.signAsync(message, seed);
  return {
    address,
    sign,
    // As a wallet does it: the message text from the input (wallet-standard-util), then signMessage.
    async signIn(input) {
      const signedMessage = new TextEncoder().encode(createSignInMessageText(input));
      return { signedMessage, signature: await sign(signedMessage), address };
    },
    async signTransaction(transaction) {
      const message = messageOfUnsignedMemoTransaction(transaction);
      return serializeSignedTransaction(message, await sign(message));
    },
    hardware: false,
  };
}

/** The message of a transaction the SDK built (one signature slot, then the message). */
function messageOfUnsignedMemoTransaction(transaction: Uint8Array): Uint8Array {
  if (transaction[0] !== 1) throw new TypeError('expected a transaction with one signature slot');
  return transaction.subarray(1 + 64);
}

function checkedSignature(signature: unknown, what: string): Uint8Array {
  if (!(signature instanceof Uint8Array) || signature.length !== 64) throw new TypeError(`${what} did not return a 64-byte signature`);
  return signature;
}

/**
 * The gate's strict ed25519 rules (src/signature/strict-ed25519.ts), applied before anything is
 * signed or sent: a wallet (adapter) that hands out a key of small order or not canonically encoded
 * — one anyone could "sign" for, which every gate refuses — fails here with SIGNING_ERROR, and the
 * SDK never presents it. An address that is not 32 bytes of base58 is left to the gate to refuse.
 */
export function refuseWeakAddress(address: string, what: string): void {
  const key = decodeBase58(address);
  const refusal = key?.length === 32 ? strictEd25519KeyRefusal(key) : undefined;
  if (refusal) throw new TypeError(`${what} ${address} cannot sign in: ${refusal.message}`);
}

/** The same rules on what a wallet signed: its R and S, with the key it signed as. */
export function refuseWeakSignature(address: string, signature: Uint8Array, what: string): void {
  const key = decodeBase58(address);
  const refusal = key?.length === 32 && signature.length === 64 ? strictEd25519Refusal(key, signature) : undefined;
  if (refusal) throw new TypeError(`${what} returned a signature no gate accepts: ${refusal.message}`);
}

function walletSigner(wallet: WalletSigner): ResolvedSigner {
  if (!wallet.publicKey) throw new TypeError('the wallet is not connected (signer.publicKey is empty); call connect() first');
  const address = publicKeyToBase58(wallet.publicKey);
  refuseWeakAddress(address, 'the wallet\'s public key');
  const resolved: ResolvedSigner = { address, hardware: wallet.hardware === true };
  if (typeof wallet.signMessage === 'function') {
    const signMessage = wallet.signMessage.bind(wallet);
    resolved.sign = async (message) => {
      const signed = await signMessage(message);
      return checkedSignature(signed instanceof Uint8Array ? signed : signed?.signature, 'signMessage');
    };
  }
  if (typeof wallet.signIn === 'function') {
    const signIn = wallet.signIn.bind(wallet);
    resolved.signIn = async (input) => signInResult(await signIn(input), address);
  }
  if (typeof wallet.signTransaction === 'function') resolved.signTransaction = wallet.signTransaction.bind(wallet);
  return resolved;
}

function signInResult(output: SignInOutput | readonly SignInOutput[], fallbackAddress: string): { signedMessage: Uint8Array; signature: Uint8Array; address: string } {
  const first = Array.isArray(output) ? output[0] : (output as SignInOutput);
  if (!first || !(first.signedMessage instanceof Uint8Array)) throw new TypeError('signIn did not return a signed message');
  const address =
    first.account?.address ??
    (first.account?.publicKey !== undefined ? bs58.encode(Uint8Array.from(first.account.publicKey)) : first.address !== undefined ? publicKeyToBase58(first.address) : fallbackAddress);
  return { signedMessage: first.signedMessage, signature: checkedSignature(first.signature, 'signIn'), address };
}

type FeatureMethod = (input: unknown) => Promise<unknown>;

function featureMethod(wallet: StandardWallet, feature: `${string}:${string}`, method: string): FeatureMethod | undefined {
  const value = (wallet.features[feature] as Record<string, unknown> | undefined)?.[method];
  return typeof value === 'function' ? (value.bind(wallet.features[feature]) as FeatureMethod) : undefined;
}

function standardWalletSigner({ wallet, account = wallet.accounts[0], chain = 'solana:mainnet', hardware }: StandardWalletSigner): ResolvedSigner {
  if (!account) throw new TypeError('the wallet has no account; call its standard:connect feature first');
  refuseWeakAddress(account.address, 'the wallet\'s account');
  const resolved: ResolvedSigner = { address: account.address, hardware: hardware === true };
  const signMessage = featureMethod(wallet, 'solana:signMessage', 'signMessage');
  if (signMessage) {
    resolved.sign = async (message) => {
      const [output] = (await signMessage({ account, message })) as { signature?: Uint8Array }[];
      return checkedSignature(output?.signature, 'solana:signMessage');
    };
  }
  const signIn = featureMethod(wallet, 'solana:signIn', 'signIn');
  if (signIn) resolved.signIn = async (input) => signInResult((await signIn(input)) as readonly SignInOutput[], account.address);
  const signTransaction = featureMethod(wallet, 'solana:signTransaction', 'signTransaction');
  if (signTransaction) {
    resolved.signTransaction = async (transaction) => {
      const [output] = (await signTransaction({ account, transaction, chain })) as { signedTransaction?: Uint8Array }[];
      if (!(output?.signedTransaction instanceof Uint8Array)) throw new TypeError('solana:signTransaction did not return a signed transaction');
      return output.signedTransaction;
    };
  }
  return resolved;
}

export async function resolveSigner(signer: Signer): Promise<ResolvedSigner> {
  if (signer !== null && typeof signer === 'object' && 'wallet' in signer && signer.wallet !== null && typeof signer.wallet === 'object' && 'features' in signer.wallet) {
    return standardWalletSigner(signer);
  }
  if (signer !== null && typeof signer === 'object' && 'secretKey' in signer) {
    return keypairSigner(Uint8Array.from(signer.secretKey));
  }
  if (signer !== null && typeof signer === 'object' && 'publicKey' in signer) {
    const wallet = signer as WalletSigner;
    if (typeof wallet.signMessage === 'function' || typeof wallet.signIn === 'function' || typeof wallet.signTransaction === 'function') return walletSigner(wallet);
  }
  throw new TypeError('signer must be a wallet ({ publicKey, signMessage | signIn | signTransaction }), a wallet-standard wallet ({ wallet, account }), or a keypair ({ secretKey })');
}

/**
 * The unsigned memo transaction a wallet signs in memo-tx mode (one zeroed signature slot). It sets
 * a compute-unit price of 0: Phantom adds a priority-fee instruction to a transaction that has
 * none, which would make it more than a memo (the gate accepts compute-budget instructions).
 */
export function unsignedMemoTransaction(wallet: string, challenge: string): Uint8Array {
  return serializeSignedTransaction(memoTransactionMessage({ wallet: bs58.decode(wallet), challenge, version: 'legacy', computeUnitPrice: 0n }), new Uint8Array(64));
}

import * as ed from '@noble/ed25519';
import bs58 from 'bs58';

/**
 * What `authenticate` can sign with:
 * - a browser wallet's message signing (Phantom, Solflare, Backpack and every wallet-standard
 *   adapter): `{ publicKey, signMessage(bytes) }`, where signMessage resolves to the signature bytes
 *   or to `{ signature }`;
 * - a keypair: `{ secretKey }`, the 64-byte Solana secret key (seed ‖ public key, as in a
 *   `solana-keygen` JSON file) or a 32-byte seed. Signing uses @noble/ed25519 with WebCrypto's
 *   SHA-512, so it works in browsers, Node and edge runtimes alike.
 */
export type Signer = WalletSigner | KeypairSigner;

/** A public key as wallets expose it: base58 text, raw bytes, or an object with toBase58(). */
export type PublicKeyLike = string | Uint8Array | { toBase58(): string } | { toBytes(): Uint8Array };

export interface WalletSigner {
  publicKey: PublicKeyLike | null | undefined;
  signMessage(message: Uint8Array): Promise<Uint8Array | { signature: Uint8Array }>;
}

export interface KeypairSigner {
  secretKey: Uint8Array | readonly number[];
}

/** A signer reduced to what the flow needs: the wallet's base58 address and a byte signer. */
export interface ResolvedSigner {
  address: string;
  sign(message: Uint8Array): Promise<Uint8Array>;
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
  return { address: bs58.encode(publicKey), sign: (message) => ed.signAsync(message, seed) };
}

function walletSigner(wallet: WalletSigner): ResolvedSigner {
  if (!wallet.publicKey) throw new TypeError('the wallet is not connected (signer.publicKey is empty); call connect() first');
  return {
    address: publicKeyToBase58(wallet.publicKey),
    async sign(message) {
      const signed = await wallet.signMessage(message);
      const signature = signed instanceof Uint8Array ? signed : signed?.signature;
      if (!(signature instanceof Uint8Array) || signature.length !== 64) {
        throw new TypeError('signMessage did not return a 64-byte signature');
      }
      return signature;
    },
  };
}

export async function resolveSigner(signer: Signer): Promise<ResolvedSigner> {
  if (signer !== null && typeof signer === 'object' && 'signMessage' in signer && typeof signer.signMessage === 'function') {
    return walletSigner(signer);
  }
  if (signer !== null && typeof signer === 'object' && 'secretKey' in signer) {
    return keypairSigner(Uint8Array.from(signer.secretKey));
  }
  throw new TypeError('signer must be a wallet ({ publicKey, signMessage }) or a keypair ({ secretKey })');
}

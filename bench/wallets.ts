import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import bs58 from 'bs58';

/**
 * Benchmark wallets, signing with node:crypto (~60–90 µs per signature here, against ~1.4 ms for
 * @noble/ed25519): thousands of logins must be signed before each timed phase. Wallets come from
 * fixed seeds; the address is the base58 public key.
 */

export interface BenchWallet {
  seed: Buffer;
  address: string;
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
  return { seed, address: bs58.encode(publicKey), privateKey };
}

export function benchWallets(count: number, family = 'wallet'): BenchWallet[] {
  return walletSeeds(count, family).map(keyFromSeed);
}

export const FEATURE = 'blacklist';
export const AUTH_PATH = `/x404_auth/${FEATURE}`;

/** CHALLENGE::<nonce>::<path>::<MECHANISM>_<FEATURE>, written from CONTRACT §4 (not from the gate's code). */
export function challengeText(nonce: string, mechanism = 'SERVICE404'): string {
  return `CHALLENGE::${nonce}::${AUTH_PATH}::${mechanism}_${FEATURE.toUpperCase()}`;
}

/** Base58 ed25519 signature of the challenge for `nonce`. */
export function signChallenge(privateKey: KeyObject, nonce: string): string {
  return bs58.encode(sign(null, Buffer.from(challengeText(nonce), 'utf8'), privateKey));
}

/** The headers of a signed blacklist login. */
export function loginHeaders(address: string, nonce: string, signature: string, policy: Record<string, string>): Record<string, string> {
  return { 'X-404-Nonce': nonce, 'X-404-Signature': signature, 'X-404-Addr': address, 'X-404-Feature': FEATURE, ...policy };
}

export function signedLoginHeaders(wallet: BenchWallet, nonce: string, policy: Record<string, string>): Record<string, string> {
  return loginHeaders(wallet.address, nonce, signChallenge(wallet.privateKey, nonce), policy);
}

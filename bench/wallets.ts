import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import bs58 from 'bs58';

/**
 * Benchmark wallets, signing with node:crypto (~60–90 µs per signature here, against ~1.4 ms for
 * @noble/ed25519): thousands of logins must be signed before each timed phase.
 */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface BenchWallet {
  address: string;
  privateKey: KeyObject;
}

/** `count` wallets from fixed seeds, so every run uses the same addresses. */
export function benchWallets(count: number): BenchWallet[] {
  return Array.from({ length: count }, (_, i) => {
    const seed = createHash('sha256').update(`x404 bench wallet ${i}`).digest();
    const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
    const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
    return { address: bs58.encode(spki.subarray(spki.length - 32)), privateKey };
  });
}

export const FEATURE = 'blacklist';
export const AUTH_PATH = `/x404_auth/${FEATURE}`;

/** CHALLENGE::<nonce>::<path>::<MECHANISM>_<FEATURE>, written from CONTRACT §4 (not from the gate's code). */
export function challengeText(nonce: string, mechanism = 'SERVICE404'): string {
  return `CHALLENGE::${nonce}::${AUTH_PATH}::${mechanism}_${FEATURE.toUpperCase()}`;
}

/** The headers of a signed blacklist login. */
export function signedLoginHeaders(wallet: BenchWallet, nonce: string, policy: Record<string, string>): Record<string, string> {
  const signature = sign(null, Buffer.from(challengeText(nonce), 'utf8'), wallet.privateKey);
  return {
    'X-404-Nonce': nonce,
    'X-404-Signature': bs58.encode(signature),
    'X-404-Addr': wallet.address,
    'X-404-Feature': FEATURE,
    ...policy,
  };
}

import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { strictEd25519Refusal } from './strict-ed25519.js';

/**
 * Ed25519 verification with node:crypto (OpenSSL): about 130 µs here against about 1.4 ms for
 * @noble/ed25519, which the client side uses to sign. Cross-checked against RFC 8032 vectors and
 * @noble/ed25519 in test/unit/ed25519.test.ts.
 *
 * The raw key is imported as a JWK (OKP/Ed25519), which Node hands to OpenSSL as a raw public key
 * (EVP_PKEY_new_raw_public_key): ~15 µs here, against ~80–100 µs for the same 32 bytes wrapped in
 * DER SPKI, which goes through OpenSSL 3's generic decoder. Same key, same verification.
 */
export function ed25519PublicKey(rawPublicKey: Uint8Array): KeyObject {
  return importJwkX(Buffer.from(rawPublicKey.buffer, rawPublicKey.byteOffset, rawPublicKey.byteLength).toString('base64url'));
}

const importJwkX = (x: string): KeyObject => createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });

/**
 * Imported keys by their base64url text (the raw 32 bytes, so a different key is a different
 * entry): a returning wallet's login skips the import (~5 µs and a KeyObject to collect). Bounded
 * at KEY_CACHE_ENTRIES per thread (a KeyObject and its 43-character key: well under 1 KB each, so
 * at most a few MB); past it the oldest insert goes. A key is kept only once it has verified a
 * signature, so forged requests with made-up keys cannot push real wallets' keys out.
 */
export const KEY_CACHE_ENTRIES = 4096;
const importedKeys = new Map<string, KeyObject>();

/** Imported keys held by this thread (tests check the bound). */
export function cachedKeyCount(): number {
  return importedKeys.size;
}

/**
 * Strict ed25519 verification, the one every sign mode goes through (in the worker pool, or inline
 * with WORKER_THREADS=0): a public key or R of small order or not canonically encoded, and S ≥ ℓ,
 * are refused before OpenSSL sees them (strict-ed25519.ts: OpenSSL alone lets anyone sign for the
 * small-order keys), then OpenSSL checks the equation.
 */
export function verifyEd25519(rawPublicKey: Uint8Array, message: Uint8Array | string, signature: Uint8Array): boolean {
  if (rawPublicKey.length !== 32 || signature.length !== 64) return false;
  if (strictEd25519Refusal(rawPublicKey, signature) !== undefined) return false;
  try {
    const data = typeof message === 'string' ? Buffer.from(message, 'utf8') : message;
    const x = Buffer.from(rawPublicKey.buffer, rawPublicKey.byteOffset, rawPublicKey.byteLength).toString('base64url');
    const cached = importedKeys.get(x);
    if (cached !== undefined) return verify(null, data, cached, signature);
    const key = importJwkX(x);
    const valid = verify(null, data, key, signature);
    if (valid) {
      if (importedKeys.size >= KEY_CACHE_ENTRIES) importedKeys.delete(importedKeys.keys().next().value as string);
      importedKeys.set(x, key);
    }
    return valid;
  } catch {
    // OpenSSL rejects some malformed keys at import; that is a failed verification, not an error.
    return false;
  }
}

/** A batch as it crosses to a worker: plain, structured-clonable data (Piscina's rule). */
export interface VerifyBatch {
  /** n × 32 bytes. */
  publicKeys: Uint8Array;
  /** n × 64 bytes. */
  signatures: Uint8Array;
  /** n signed messages: challenge strings (verified as UTF-8) or a sign mode's bytes. */
  messages: (string | Uint8Array)[];
}

/** 1 for a valid signature, 0 otherwise, per entry. */
export function verifyBatch(batch: VerifyBatch): Uint8Array {
  const results = new Uint8Array(batch.messages.length);
  for (let i = 0; i < results.length; i++) {
    const publicKey = batch.publicKeys.subarray(i * 32, i * 32 + 32);
    const signature = batch.signatures.subarray(i * 64, i * 64 + 64);
    results[i] = verifyEd25519(publicKey, batch.messages[i]!, signature) ? 1 : 0;
  }
  return results;
}

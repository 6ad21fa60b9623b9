import { deriveAta, type AtaRequest } from '../src/chain/ata.js';
import { verifyBatch, type VerifyBatch } from '../src/signature/ed25519.js';

/**
 * The Piscina worker module: the gate's CPU-heavy steps, each taking and returning plain data,
 * each called with a batch gathered from many concurrent logins (src/signature/verifier.ts).
 */

/** ed25519 verifications in, one result byte per entry out (1 valid, 0 not). */
export default function verify(batch: VerifyBatch): Uint8Array {
  return verifyBatch(batch);
}

/** Associated token addresses of wallets seen for the first time (~50 µs each), in order. */
export function deriveAtas(requests: AtaRequest[]): string[] {
  return requests.map(deriveAta);
}

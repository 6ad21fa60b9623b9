import { verifyBatch, type VerifyBatch } from '../src/signature/ed25519.js';

/** Piscina worker: one batch of ed25519 verifications in, one result byte per entry out. */
export default function verify(batch: VerifyBatch): Uint8Array {
  return verifyBatch(batch);
}

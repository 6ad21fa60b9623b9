import { randomFillSync } from 'node:crypto';

/**
 * Cryptographically secure random bytes served from a refilled pool: one getrandom() call per
 * 4 KiB instead of one per nonce, which matters at tens of thousands of nonces per second.
 */
const POOL_SIZE = 4096;
const pool = Buffer.allocUnsafe(POOL_SIZE);
let offset = POOL_SIZE;

/** Copies `length` fresh random bytes into `target` at `targetOffset`, without allocating. */
export function fillRandomFromPool(target: Uint8Array, targetOffset: number, length: number): void {
  if (length > POOL_SIZE) throw new RangeError('random request larger than the pool');
  if (offset + length > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  pool.copy(target, targetOffset, offset, offset + length);
  // Bytes handed out are never handed out again.
  pool.fill(0, offset, offset + length);
  offset += length;
}

export function randomBytesFromPool(length: number): Buffer {
  const out = Buffer.allocUnsafe(length);
  fillRandomFromPool(out, 0, length);
  return out;
}

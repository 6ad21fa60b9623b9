import { randomBytes } from 'node:crypto';
import { encodeAddress } from '../src/chain/address.js';

/** Helpers of the microbenchmarks (bench/ata.ts, bench/collection.ts). */

/** `count` random 32-byte addresses in base58 (most are not on the curve, as PDAs and mints often are not). */
export function randomAddresses(count: number): string[] {
  return Array.from({ length: count }, () => encodeAddress(randomBytes(32)));
}

/** Wall-clock µs per call of `run(0 … count-1)`, after a warm-up of up to 200 calls. */
export function microsPerCall(count: number, run: (i: number) => void): number {
  for (let i = 0; i < Math.min(count, 200); i++) run(i);
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i++) run(i);
  return Number(process.hrtime.bigint() - start) / 1000 / count;
}

/**
 * Whether 32 bytes decode to a point of the ed25519 curve, by the strict RFC 8032 §5.1.3 rules that
 * @solana/web3.js (@noble) applies when it searches for a program-derived address. A PDA is the
 * first hash that is NOT a point, so this predicate decides every ATA the gate computes.
 *
 * Decoding succeeds iff
 *   1. y (the bytes little-endian, top bit cleared) is below p = 2^255 − 19,
 *   2. x² = u/v has a root mod p, u = y² − 1, v = d·y² + 1 — equivalently u·v is zero or a
 *      quadratic residue (v is never 0 because −1/d is not a square),
 *   3. and not x = 0 (y = ±1) with the sign bit set.
 * Step 2 is a Legendre symbol (the binary Jacobi algorithm in WebAssembly, legendre.ts: ~3 µs)
 * instead of the square root that costs a ~255-step modular exponentiation. The on-chain runtime
 * (curve25519-dalek) is laxer in 1 and 3 —
 * it reduces y ≥ p and accepts x = 0 with the sign bit — but a SHA-256 output hits one of those
 * ~21 encodings with probability ~2^-250, so both rules give the same addresses in practice.
 */
import { legendre } from './legendre.js';

const P = (1n << 255n) - 19n;
const D = 37095705934669439343138083508754565189542113879843219016388785533085940283555n;
const TOP_BIT_CLEARED = (1n << 63n) - 1n;

export function isOnCurve(bytes: Uint8Array): boolean {
  if (bytes.length !== 32) throw new TypeError('a curve point encoding is 32 bytes');
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, 32);
  const y =
    view.readBigUInt64LE(0) |
    (view.readBigUInt64LE(8) << 64n) |
    (view.readBigUInt64LE(16) << 128n) |
    ((view.readBigUInt64LE(24) & TOP_BIT_CLEARED) << 192n);
  if (y >= P) return false;
  const y2 = (y * y) % P;
  const u = (y2 + P - 1n) % P;
  const v = (D * y2 + 1n) % P;
  const uv = (u * v) % P;
  const signBit = (view[31]! & 0x80) !== 0;
  if (uv === 0n) return !signBit; // x = 0: only the encoding without the sign bit is canonical
  return legendre(uv) === 1;
}

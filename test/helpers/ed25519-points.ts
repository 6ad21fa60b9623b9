import { createHash, createPublicKey, verify } from 'node:crypto';
import * as ed from '@noble/ed25519';

/**
 * Points and encodings for the strict-ed25519 tests, computed here with @noble/ed25519's point
 * arithmetic (never copied from published tables), and node:crypto's verification as the gate had
 * it before the strict check (`bareVerify`), to show that a forgery the gate refuses is real.
 */
ed.hashes.sha512 = (message: Uint8Array) => new Uint8Array(createHash('sha512').update(message).digest());

export const { Point } = ed;
export type EdPoint = InstanceType<typeof Point>;
export const { n: ORDER, p: PRIME } = Point.CURVE();

export const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

export function littleEndian(value: bigint, length = 32): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0, rest = value; i < length; i++, rest >>= 8n) bytes[i] = Number(rest & 0xffn);
  return bytes;
}

export function fromLittleEndian(bytes: Uint8Array): bigint {
  let value = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]!);
  return value;
}

const mod = (value: bigint, modulus: bigint): bigint => ((value % modulus) + modulus) % modulus;

/** [k]P for any k ≥ 0 (noble's multiply wants 0 ≤ k < ℓ; points with torsion need k beyond it). */
export function times(point: EdPoint, k: bigint): EdPoint {
  let result = Point.ZERO;
  for (let addend = point, rest = k; rest > 0n; rest >>= 1n, addend = addend.double()) if (rest & 1n) result = result.add(addend);
  return result;
}

export function orderOfSmall(point: EdPoint): number {
  let k = 1;
  for (let q = point; !q.is0(); q = q.add(point)) k++;
  return k;
}

/** The torsion subgroup: [ℓ]P for points P = decode(i, 0, …) until one has order 8, and its 8 multiples. */
export function torsionSubgroup(): EdPoint[] {
  for (let i = 2; ; i++) {
    let candidate: EdPoint;
    try {
      candidate = Point.fromBytes(littleEndian(BigInt(i)));
    } catch {
      continue;
    }
    const torsion = times(candidate, ORDER);
    if (orderOfSmall(torsion) !== 8) continue;
    return Array.from({ length: 8 }, (_, k) => times(torsion, BigInt(k)));
  }
}

export const TORSION = torsionSubgroup();
export const ORDER_8_POINT = TORSION.find((point) => orderOfSmall(point) === 8)!;

/** Decodes like OpenSSL and ZIP-215 do (y modulo p, any sign bit on x = 0); undefined when no point. */
export function decodeLoose(encoding: Uint8Array): EdPoint | undefined {
  try {
    return Point.fromBytes(encoding, true);
  } catch {
    return undefined;
  }
}

/** Every 32-byte spelling whose last byte's top bit is the sign and whose y is at least p (y = p … 2^255 − 1). */
export function highYSpellings(): Uint8Array[] {
  const spellings: Uint8Array[] = [];
  for (let y = PRIME; y < 2n ** 255n; y++) {
    for (const sign of [0, 0x80]) {
      const bytes = littleEndian(y);
      bytes[31]! |= sign;
      spellings.push(bytes);
    }
  }
  return spellings;
}

/** The 32-byte encodings OpenSSL decodes to a point of small order: the 8 canonical ones and their other spellings. */
export function smallOrderSpellings(): { canonical: Uint8Array[]; nonCanonical: Uint8Array[] } {
  const canonical = TORSION.map((point) => point.toBytes());
  const withSignFlipped = canonical.map((bytes) => Uint8Array.from(bytes, (byte, i) => (i === 31 ? byte ^ 0x80 : byte)));
  const nonCanonical = new Map<string, Uint8Array>();
  for (const bytes of [...withSignFlipped, ...highYSpellings()]) {
    const point = decodeLoose(bytes);
    if (point === undefined || !point.isSmallOrder()) continue;
    if (canonical.some((c) => hex(c) === hex(bytes))) continue;
    nonCanonical.set(hex(bytes), bytes);
  }
  return { canonical, nonCanonical: [...nonCanonical.values()] };
}

/** SHA-512(R ‖ A ‖ M) mod ℓ: the challenge scalar of RFC 8032 §5.1.7, over the bytes as given. */
export function challengeScalar(r: Uint8Array, publicKey: Uint8Array, message: Uint8Array): bigint {
  return mod(fromLittleEndian(new Uint8Array(createHash('sha512').update(r).update(publicKey).update(message).digest())), ORDER);
}

export function signature(r: Uint8Array, s: bigint): Uint8Array {
  const bytes = new Uint8Array(64);
  bytes.set(r);
  bytes.set(littleEndian(s), 32);
  return bytes;
}

/** node:crypto's verification alone, as verifyEd25519 did before the strict check. */
export function bareVerify(publicKey: Uint8Array, message: Uint8Array | string, sig: Uint8Array): boolean {
  try {
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') }, format: 'jwk' });
    return verify(null, typeof message === 'string' ? Buffer.from(message) : message, key, sig);
  } catch {
    return false;
  }
}

/**
 * The keyless forgery: R = one of the small-order points, S = 0, for a public key of small order.
 * Returns the first such signature node:crypto alone accepts for this message, or undefined.
 */
export function forgeWithSmallOrderR(publicKey: Uint8Array, message: Uint8Array | string): Uint8Array | undefined {
  for (const point of TORSION) {
    const sig = signature(point.toBytes(), 0n);
    if (bareVerify(publicKey, message, sig)) return sig;
  }
  return undefined;
}

/** A scalar from bytes, reduced below ℓ and never 0. */
export function scalarFrom(bytes: Uint8Array): bigint {
  return mod(fromLittleEndian(bytes), ORDER - 1n) + 1n;
}

export { mod };

/**
 * Strict ed25519: what a signature check refuses before any curve arithmetic, so that nobody signs
 * for a key without its private key. Browser-safe (no imports): the gate's verify workers, the SDK
 * and the verifier apply the same rules.
 *
 * node:crypto (OpenSSL) verifies by the RFC 8032 equation alone: R = [S]B − [h]A, with h =
 * SHA-512(R ‖ A ‖ M), its R' encoded and compared with R byte for byte. For a public key A of small
 * order (one of the 8 points whose [8]A is the identity) [h]A takes at most 8 values whatever the
 * message, so R = one of the 8 points and S = 0 verifies for most messages by trying R: anyone
 * "signs" as 11111111111111111111111111111111 (32 zero bytes, a point of order 4: the System
 * Program, which holds the tokens people burn to it). OpenSSL also decodes y modulo p and ignores
 * the sign bit of x = 0, so every other spelling of those points is a key anyone signs for too.
 *
 * Strict here is what ed25519-dalek's `verify_strict` does, which Solana uses for transaction
 * signatures, and what "Taming the many EdDSAs" (Chalkias, Garillot, Nikolaenko, 2020) calls
 * strong unforgeability plus strong binding:
 * - A and R are refused when they are points of small order (no private key exists for them);
 * - A and R are refused when not canonically encoded: y ≥ p, or x = 0 with the sign bit set. A
 *   point has one canonical encoding; the non-canonical ones are all spellings of points with
 *   y < 19, among them 6 of the small-order points, and nobody knows a private key for any of them.
 *   (dalek refuses a non-canonical R implicitly, by comparing bytes as OpenSSL does, and decodes a
 *   non-canonical A modulo p; refusing that A too refuses no key anyone can sign with.)
 * - S ≥ ℓ (the group order) is refused, so a signature has one spelling (OpenSSL 3 refuses it
 *   already; the check here does not depend on the library or its version).
 *
 * Mixed-order keys (a prime-order point plus a torsion point, not of small order) are accepted,
 * deliberately. Whoever holds a, and only they, can sign for aB + T: such a key is not a forgery
 * route. Solana (dalek's verify_strict) accepts them, and both it and OpenSSL check the
 * cofactorless equation, so the gate's verdict on them is Solana's: refusing them would refuse an
 * account Solana lets its owner sign for, and detecting them costs a full scalar multiplication
 * ([ℓ]A, about the price of the verification itself). test/unit/strict-ed25519.test.ts rebuilds
 * each case of the paper with @noble/ed25519's point arithmetic and says which are refused and why.
 *
 * Cost: byte comparisons against ℓ, p and a table of 10 encodings, which most inputs leave after
 * their last byte and their first (a 256-entry lookup), rather than decoding points: 18.8 ns of CPU
 * for a real public key and signature, at most ~0.3 µs for inputs built to match the table up to
 * their last byte, against ~120 µs for the verification it guards, whose cost with and without the
 * check is the same within the noise (node dist/bench/strict-ed25519.js; docs/performance.md).
 */

export type WeakPoint = 'small order' | 'non-canonical encoding';

/** Why a (public key, signature) pair is refused before it is verified. */
export interface StrictRefusal {
  /** The public key A, the signature's R (its first 32 bytes) or its S (the last 32). */
  readonly part: 'publicKey' | 'R' | 'S';
  readonly reason: WeakPoint | 'not below the group order';
  /** For an error message: what is refused and why. */
  readonly message: string;
}

/** ℓ = 2^252 + 27742317777372353535851937790883648493, the order of the base point (RFC 8032 §5.1). */
export const GROUP_ORDER = 2n ** 252n + 27742317777372353535851937790883648493n;
/** p = 2^255 − 19, the field prime. */
export const FIELD_PRIME = 2n ** 255n - 19n;

function littleEndian(value: bigint): Uint8Array {
  const bytes = new Uint8Array(32);
  for (let i = 0, rest = value; i < 32; i++, rest >>= 8n) bytes[i] = Number(rest & 0xffn);
  return bytes;
}

const ORDER_BYTES = littleEndian(GROUP_ORDER);
const PRIME_BYTES = littleEndian(FIELD_PRIME);

const hexBytes = (hex: string): Uint8Array => Uint8Array.from(hex.match(/../g)!, (pair) => parseInt(pair, 16));

/**
 * The canonical encodings of the 8 points of small order (the torsion subgroup, cyclic of order 8),
 * computed for this project with @noble/ed25519's point arithmetic ([ℓ]P for a point P with a
 * torsion component generates them); test/unit/strict-ed25519.test.ts recomputes them and checks
 * this list equals them.
 */
export const SMALL_ORDER_ENCODINGS: readonly string[] = [
  '0100000000000000000000000000000000000000000000000000000000000000', // order 1: the identity (0, 1)
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // order 2: (0, −1), y = p − 1
  '0000000000000000000000000000000000000000000000000000000000000000', // order 4: (±√−1, 0), x even — the System Program
  '0000000000000000000000000000000000000000000000000000000000000080', // order 4: x odd
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05', // order 8: d·y⁴ + 2y² − 1 = 0 (doubling gives y = 0) …
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a', // … and their negatives −y
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa',
];

/**
 * x = 0 with the sign bit set: only (0, 1) and (0, −1) have x = 0, so these two are the whole
 * class. (The other non-canonical encodings, y ≥ p, are found by comparing y with p.)
 */
export const SIGNED_ZERO_X_ENCODINGS: readonly string[] = [
  '0100000000000000000000000000000000000000000000000000000000000080', // the identity, spelled −0
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff', // (0, −1), spelled −0
];

const TABLE: readonly { bytes: Uint8Array; reason: WeakPoint }[] = [
  ...SMALL_ORDER_ENCODINGS.map((hex) => ({ bytes: hexBytes(hex), reason: 'small order' as const })),
  ...SIGNED_ZERO_X_ENCODINGS.map((hex) => ({ bytes: hexBytes(hex), reason: 'non-canonical encoding' as const })),
];
/** 1 where some table entry starts with that byte (5 of 256): most encodings leave after one lookup. */
const TABLE_FIRST_BYTES = new Uint8Array(256);
for (const entry of TABLE) TABLE_FIRST_BYTES[entry.bytes[0]!] = 1;

/** Whether the 32 little-endian bytes at `offset`, the top byte masked, are below `bound`. */
function below(bytes: Uint8Array, offset: number, bound: Uint8Array, topByteMask: number): boolean {
  let i = 31;
  let byte = bytes[offset + 31]! & topByteMask;
  for (;;) {
    if (byte !== bound[i]) return byte < bound[i]!;
    if (i === 0) return false;
    i--;
    byte = bytes[offset + i]!;
  }
}

function inTable(bytes: Uint8Array, offset: number): WeakPoint | undefined {
  if (TABLE_FIRST_BYTES[bytes[offset]!] === 0) return undefined;
  next: for (const entry of TABLE) {
    for (let i = 0; i < 32; i++) if (bytes[offset + i] !== entry.bytes[i]) continue next;
    return entry.reason;
  }
  return undefined;
}

/**
 * Whether the 32 bytes at `offset` (a public key, or a signature's R) are a point encoding strict
 * verification refuses, and why; undefined when it is not (which does not say it is on the curve:
 * the verification itself refuses an encoding that decodes to no point).
 */
export function weakPointEncoding(bytes: Uint8Array, offset = 0): WeakPoint | undefined {
  // y is the low 255 bits; y ≥ p is the non-canonical spelling of y − p.
  if (!below(bytes, offset, PRIME_BYTES, 0x7f)) return 'non-canonical encoding';
  return inTable(bytes, offset);
}

/** Whether the 32 little-endian bytes at `offset` (a signature's S) are a scalar below ℓ. */
export function isReducedScalar(bytes: Uint8Array, offset = 0): boolean {
  return below(bytes, offset, ORDER_BYTES, 0xff);
}

const refusal = (part: StrictRefusal['part'], reason: StrictRefusal['reason'], message: string): StrictRefusal => Object.freeze({ part, reason, message });
const REFUSED = {
  publicKey: {
    'small order': refusal('publicKey', 'small order', 'the public key is a point of small order, for which anyone can make a signature that verifies'),
    'non-canonical encoding': refusal('publicKey', 'non-canonical encoding', 'the public key is not canonically encoded (y ≥ p, or x = 0 with the sign bit set)'),
  },
  R: {
    'small order': refusal('R', 'small order', "the signature's R is a point of small order"),
    'non-canonical encoding': refusal('R', 'non-canonical encoding', "the signature's R is not canonically encoded (y ≥ p, or x = 0 with the sign bit set)"),
  },
  S: refusal('S', 'not below the group order', "the signature's S is not below the group order ℓ"),
};

/**
 * Why strict ed25519 verification refuses this public key (32 bytes) and signature (64 bytes, R ‖ S)
 * whatever the message, or undefined when it does not (the signature must then still verify). No
 * allocation: the refusals are constants. Throws RangeError on other lengths. verifyEd25519 applies
 * it; other code that checks a wallet's signature (over a transaction, say) calls it on the bytes,
 * or verifies through verifyEd25519.
 */
export function strictEd25519Refusal(publicKey: Uint8Array, signature: Uint8Array): StrictRefusal | undefined {
  if (publicKey.length !== 32 || signature.length !== 64) throw new RangeError('an ed25519 public key is 32 bytes and a signature 64');
  const key = weakPointEncoding(publicKey, 0);
  if (key !== undefined) return REFUSED.publicKey[key];
  const r = weakPointEncoding(signature, 0);
  if (r !== undefined) return REFUSED.R[r];
  if (!isReducedScalar(signature, 32)) return REFUSED.S;
  return undefined;
}

/**
 * Why a public key (32 bytes) is one no signature under strict verification can come from, or
 * undefined: for code that holds a key before any signature (a wallet's address, a key set).
 */
export function strictEd25519KeyRefusal(publicKey: Uint8Array): StrictRefusal | undefined {
  if (publicKey.length !== 32) throw new RangeError('an ed25519 public key is 32 bytes');
  const key = weakPointEncoding(publicKey, 0);
  return key === undefined ? undefined : REFUSED.publicKey[key];
}

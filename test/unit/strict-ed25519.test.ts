import { randomBytes } from 'node:crypto';
import * as ed from '@noble/ed25519';
import { describe, expect, it } from 'vitest';
import { verifyEd25519 } from '../../src/signature/ed25519.js';
import {
  FIELD_PRIME,
  GROUP_ORDER,
  isReducedScalar,
  SIGNED_ZERO_X_ENCODINGS,
  SMALL_ORDER_ENCODINGS,
  strictEd25519KeyRefusal,
  strictEd25519Refusal,
  weakPointEncoding,
} from '../../src/signature/strict-ed25519.js';
import {
  bareVerify,
  challengeScalar,
  decodeLoose,
  forgeWithSmallOrderR,
  fromLittleEndian,
  hex,
  highYSpellings,
  littleEndian,
  mod,
  ORDER,
  ORDER_8_POINT,
  orderOfSmall,
  Point,
  PRIME,
  scalarFrom,
  signature,
  smallOrderSpellings,
  TORSION,
  type EdPoint,
} from '../helpers/ed25519-points.js';
import { prng, Seeded } from '../helpers/seeded.js';

/**
 * Strict ed25519 (src/signature/strict-ed25519.ts), checked against @noble/ed25519's point
 * arithmetic (a second implementation), and node:crypto alone shown to accept what it refuses, so
 * that these tests and the gate's over HTTP (test/e2e/strict-signature.test.ts) cannot pass vacuously.
 * Reproduce with STRICT_SEED=<seed>.
 */
const SEED = Number(process.env.STRICT_SEED ?? 0x25ed);
const { canonical: SMALL_ORDER, nonCanonical: SMALL_ORDER_SPELLED } = smallOrderSpellings();
const SMALL_ORDER_ALL = [...SMALL_ORDER, ...SMALL_ORDER_SPELLED];
const encoder = new TextEncoder();

function keyPair(g: Seeded): { seed: Uint8Array; publicKey: Uint8Array } {
  const seed = g.bytes(32);
  return { seed, publicKey: ed.getPublicKey(seed) };
}

describe('the table of encodings', () => {
  it('holds exactly the 8 points of small order, as @noble/ed25519 computes them ([ℓ]P generates the torsion subgroup)', () => {
    expect(new Set(TORSION.map((point) => hex(point.toBytes())))).toEqual(new Set(SMALL_ORDER_ENCODINGS));
    expect(TORSION.map(orderOfSmall).sort()).toEqual([1, 2, 4, 4, 8, 8, 8, 8]);
    for (const encoding of SMALL_ORDER_ENCODINGS) {
      const point = Point.fromHex(encoding);
      expect(point.isSmallOrder()).toBe(true);
      expect(point.toHex()).toBe(encoding); // canonical
    }
  });

  it('names the two x = 0 encodings with the sign bit set: (0, 1) and (0, −1), which strict RFC 8032 decoding refuses', () => {
    for (const encoding of SIGNED_ZERO_X_ENCODINGS) {
      const point = decodeLoose(Buffer.from(encoding, 'hex'))!;
      expect(point.x).toBe(0n);
      expect(() => Point.fromHex(encoding, false)).toThrow();
    }
    expect(SIGNED_ZERO_X_ENCODINGS.map((encoding) => decodeLoose(Buffer.from(encoding, 'hex'))!.y)).toEqual([1n, PRIME - 1n]);
  });

  it('uses ℓ and p as @noble/ed25519 defines them', () => {
    expect(GROUP_ORDER).toBe(ORDER);
    expect(FIELD_PRIME).toBe(PRIME);
  });

  it('the issue\'s 14 addresses: 8 canonical small-order encodings and 6 other spellings OpenSSL decodes to them', () => {
    expect(SMALL_ORDER).toHaveLength(8);
    expect(SMALL_ORDER_SPELLED).toHaveLength(6);
    for (const bytes of SMALL_ORDER) expect(weakPointEncoding(bytes)).toBe('small order');
    for (const bytes of SMALL_ORDER_SPELLED) expect(weakPointEncoding(bytes)).toBe('non-canonical encoding');
    // 32 zero bytes: the System Program's address, a point of order 4.
    expect(weakPointEncoding(new Uint8Array(32))).toBe('small order');
  });
});

describe('weakPointEncoding', () => {
  it('refuses every encoding with y ≥ p (38 of them), whether or not it decodes to a point', () => {
    const spellings = highYSpellings();
    expect(spellings).toHaveLength(38);
    for (const bytes of spellings) expect(weakPointEncoding(bytes)).toBe('non-canonical encoding');
  });

  it('agrees with @noble/ed25519 on 10,000 encodings: random bytes, real keys, mixed-order points and every weak one', () => {
    const g = new Seeded(prng(SEED, 1));
    const samples: Uint8Array[] = [...SMALL_ORDER_ALL, ...highYSpellings(), ...SIGNED_ZERO_X_ENCODINGS.map((text) => Uint8Array.from(Buffer.from(text, 'hex')))];
    for (let i = 0; i < 500; i++) samples.push(keyPair(g).publicKey);
    for (let i = 0; i < 300; i++) samples.push(Point.BASE.multiply(scalarFrom(g.bytes(32))).add(g.pick(TORSION)).toBytes());
    while (samples.length < 10_000) {
      const bytes = g.bytes(32);
      if (g.chance(0.1)) bytes.fill(0xff, 1, 31); // near p
      samples.push(bytes);
    }
    let points = 0;
    for (const bytes of samples) {
      const y = fromLittleEndian(bytes) & ((1n << 255n) - 1n);
      const loose = decodeLoose(bytes);
      let expected: ReturnType<typeof weakPointEncoding>;
      if (y >= PRIME) expected = 'non-canonical encoding';
      else if (loose === undefined) expected = undefined; // not a point: the verification refuses it
      else {
        points++;
        let strict: EdPoint | undefined;
        try {
          strict = Point.fromBytes(bytes, false);
        } catch {
          strict = undefined;
        }
        expected = strict === undefined ? 'non-canonical encoding' : strict.isSmallOrder() ? 'small order' : undefined;
      }
      expect(weakPointEncoding(bytes), hex(bytes)).toBe(expected);
    }
    expect(points).toBeGreaterThan(5_000);
  });

  it('reads at an offset (R inside a signature)', () => {
    const buffer = new Uint8Array(96);
    buffer.set(SMALL_ORDER[3]!, 40);
    expect(weakPointEncoding(buffer, 40)).toBe('small order');
    expect(weakPointEncoding(buffer, 0)).toBe('small order'); // 32 zero bytes
    buffer.set(Point.BASE.toBytes(), 0);
    expect(weakPointEncoding(buffer, 0)).toBeUndefined();
  });
});

describe('isReducedScalar (S < ℓ)', () => {
  it.each([
    ['0', 0n, true],
    ['1', 1n, true],
    ['ℓ − 1', ORDER - 1n, true],
    ['2^252', 2n ** 252n, true],
    ['ℓ', ORDER, false],
    ['ℓ + 1', ORDER + 1n, false],
    ['2^253', 2n ** 253n, false],
    ['2^255 − 1', 2n ** 255n - 1n, false],
    ['2^256 − 1', 2n ** 256n - 1n, false],
  ])('S = %s → %s', (_, value, expected) => {
    expect(isReducedScalar(littleEndian(value))).toBe(expected);
  });

  it('agrees with a BigInt comparison on 20,000 values around ℓ and across the range', () => {
    const g = new Seeded(prng(SEED, 2));
    for (let i = 0; i < 20_000; i++) {
      const value = g.chance(0.5) ? ORDER + BigInt(g.int(2 ** 30)) - BigInt(2 ** 29) : fromLittleEndian(g.bytes(32));
      expect(isReducedScalar(littleEndian(value))).toBe(value < ORDER);
    }
  });
});

describe('the keyless forgery node:crypto alone accepts', () => {
  it.each(SMALL_ORDER_ALL.map((bytes) => [hex(bytes), bytes] as const))(
    'public key %s: R = a small-order point, S = 0 verifies for most messages under node:crypto; strict verification refuses every one',
    (_, publicKey) => {
      const g = new Seeded(prng(SEED, 3, publicKey[0]!, publicKey[31]!));
      let forged = 0;
      for (let i = 0; i < 64; i++) {
        const message = `CHALLENGE::${hex(g.bytes(12))}::/x404_auth/blacklist::SERVICE404_BLACKLIST`;
        const sig = forgeWithSmallOrderR(publicKey, message);
        if (sig === undefined) continue;
        forged++;
        expect(verifyEd25519(publicKey, message, sig)).toBe(false);
      }
      // 1 − (1 − 1/n)^n of the messages for a point of order n (n R values to try): ≥ 66 %.
      expect(forged).toBeGreaterThan(32);
      expect(strictEd25519KeyRefusal(publicKey)?.part).toBe('publicKey');
    },
  );

  it('a public key that decodes to the identity verifies R = [r]B, S = r for every message under node:crypto; strict refuses', () => {
    const g = new Seeded(prng(SEED, 4));
    const identities = SMALL_ORDER_ALL.filter((bytes) => decodeLoose(bytes)!.is0());
    expect(identities).toHaveLength(4); // (0, 1), spelled −0, y = p + 1, y = p + 1 and −0
    for (const publicKey of identities) {
      for (let i = 0; i < 16; i++) {
        const r = scalarFrom(g.bytes(32));
        const sig = signature(Point.BASE.multiply(r).toBytes(), r);
        const message = g.bytes(g.int(100));
        expect(bareVerify(publicKey, message, sig)).toBe(true);
        expect(verifyEd25519(publicKey, message, sig)).toBe(false);
      }
    }
  });
});

describe('strict verification refuses weak parts whatever the message', () => {
  const g = new Seeded(prng(SEED, 5));
  const messages = Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? g.bytes(g.int(200)) : `CHALLENGE::${hex(g.bytes(16))}::/x404_auth/tier::SERVICE404_TIER`));
  const weakPoints = [...SMALL_ORDER_ALL, ...highYSpellings()];

  it('small-order and non-canonical public keys, with every small-order or non-canonical R, S = 0 or random', () => {
    let checked = 0;
    for (const publicKey of weakPoints) {
      for (const r of SMALL_ORDER_ALL) {
        for (const s of [0n, scalarFrom(g.bytes(32))]) {
          const sig = signature(r, s);
          for (const message of messages) {
            expect(verifyEd25519(publicKey, message, sig)).toBe(false);
            checked++;
          }
        }
      }
    }
    expect(checked).toBe(weakPoints.length * SMALL_ORDER_ALL.length * 2 * messages.length);
  });

  it('a real key with R of small order or not canonically encoded (S = 0 or random) → refused, naming R', () => {
    for (let i = 0; i < 20; i++) {
      const { publicKey } = keyPair(g);
      for (const r of weakPoints) {
        for (const s of [0n, scalarFrom(g.bytes(32))]) {
          const sig = signature(r, s);
          expect(strictEd25519Refusal(publicKey, sig)?.part).toBe('R');
          for (const message of messages) expect(verifyEd25519(publicKey, message, sig)).toBe(false);
        }
      }
    }
  });

  it('S ≥ ℓ: a valid signature with S + ℓ, and S = ℓ, ℓ + 1, 2^255 and 2^256 − 1 → refused, naming S', () => {
    for (let i = 0; i < 50; i++) {
      const { seed, publicKey } = keyPair(g);
      const message = messages[i % messages.length]!;
      const bytes = typeof message === 'string' ? encoder.encode(message) : message;
      const valid = ed.sign(bytes, seed);
      expect(verifyEd25519(publicKey, message, valid)).toBe(true);
      const s = fromLittleEndian(valid.subarray(32));
      const r = valid.subarray(0, 32);
      for (const high of [s + ORDER, s + 2n * ORDER, ORDER, ORDER + 1n, 2n ** 255n, 2n ** 256n - 1n]) {
        const sig = signature(r, high);
        expect(strictEd25519Refusal(publicKey, sig)?.part).toBe('S');
        expect(verifyEd25519(publicKey, message, sig)).toBe(false);
      }
    }
  });

  it('checks the key first, then R, then S, and throws on wrong lengths', () => {
    const sig = signature(SMALL_ORDER[0]!, ORDER);
    expect(strictEd25519Refusal(SMALL_ORDER[1]!, sig)).toMatchObject({ part: 'publicKey', reason: 'small order' });
    expect(strictEd25519Refusal(Point.BASE.toBytes(), sig)).toMatchObject({ part: 'R', reason: 'small order' });
    expect(strictEd25519Refusal(Point.BASE.toBytes(), signature(Point.BASE.toBytes(), ORDER))).toMatchObject({ part: 'S', reason: 'not below the group order' });
    expect(strictEd25519Refusal(Point.BASE.toBytes(), signature(Point.BASE.toBytes(), ORDER - 1n))).toBeUndefined();
    expect(() => strictEd25519Refusal(new Uint8Array(31), new Uint8Array(64))).toThrow(RangeError);
    expect(() => strictEd25519Refusal(new Uint8Array(32), new Uint8Array(63))).toThrow(RangeError);
    expect(verifyEd25519(new Uint8Array(31), 'x', new Uint8Array(64))).toBe(false);
  });
});

/**
 * The cases of "Taming the many EdDSAs" (Chalkias, Garillot, Nikolaenko, 2020, table 5) that apply
 * to a single-signature verifier, rebuilt here from their description with @noble/ed25519's point
 * arithmetic (the published byte vectors are not copied): each case is searched for over messages
 * until its equation holds the way the case needs. `openssl` is node:crypto alone (cofactorless,
 * R compared as bytes, S < ℓ checked); `strict` the gate's verifyEd25519; `cofactored` noble's
 * default (ZIP-215: [8]-multiplied equation, loose decoding), for contrast.
 */
describe('"Taming the many EdDSAs" cases, rebuilt', () => {
  const g = new Seeded(prng(SEED, 6));
  const a = scalarFrom(g.bytes(32));
  /** A mixed-order key: [a]B plus a point of order 8. Whoever knows a signs for it. */
  const mixedKey = Point.BASE.multiply(a).add(ORDER_8_POINT);
  const mixedKeyBytes = mixedKey.toBytes();

  interface Case {
    publicKey: Uint8Array;
    sig: Uint8Array;
    message: Uint8Array;
  }

  /** Tries messages until `build` returns a case (it returns undefined when the equation does not hold as the case needs). */
  function search(build: (message: Uint8Array) => Case | undefined): Case {
    for (let i = 0; i < 2_000; i++) {
      const found = build(g.bytes(24));
      if (found) return found;
    }
    throw new Error('no message gave the case');
  }
  const negate = (point: EdPoint): EdPoint => point.negate();
  const timesSmall = (point: EdPoint, k: bigint): EdPoint => {
    let result = Point.ZERO;
    for (let i = 0n; i < mod(k, 8n); i++) result = result.add(point);
    return result;
  };
  const verdicts = ({ publicKey, sig, message }: Case) => ({
    openssl: bareVerify(publicKey, message, sig),
    strict: verifyEd25519(publicKey, message, sig),
    cofactored: ed.verify(sig, message, publicKey),
    refused: strictEd25519Refusal(publicKey, sig)?.part,
  });

  it('small-order A, small-order R, S = 0: OpenSSL accepts, strict refuses A', () => {
    const publicKey = ORDER_8_POINT.toBytes();
    const found = search((message) => {
      const sig = forgeWithSmallOrderR(publicKey, message);
      return sig && { publicKey, sig, message };
    });
    expect(verdicts(found)).toEqual({ openssl: true, strict: false, cofactored: true, refused: 'publicKey' });
  });

  it('small-order A, mixed-order R, 0 < S < ℓ: OpenSSL accepts, strict refuses A', () => {
    const publicKey = ORDER_8_POINT.toBytes();
    const found = search((message) => {
      const r = scalarFrom(g.bytes(32));
      const torsion = g.pick(TORSION.slice(1));
      const rBytes = Point.BASE.multiply(r).add(torsion).toBytes();
      const h = challengeScalar(rBytes, publicKey, message);
      // [S]B − [h]A = [r]B − [h]T must equal R = [r]B + T'.
      if (!negate(timesSmall(ORDER_8_POINT, h)).equals(torsion)) return undefined;
      return { publicKey, sig: signature(rBytes, r), message };
    });
    expect(verdicts(found)).toEqual({ openssl: true, strict: false, cofactored: true, refused: 'publicKey' });
  });

  it('mixed-order A, small-order R, 0 < S < ℓ: OpenSSL accepts, strict refuses R', () => {
    const found = search((message) => {
      const torsion = g.pick(TORSION.slice(1));
      const rBytes = torsion.toBytes();
      const h = challengeScalar(rBytes, mixedKeyBytes, message);
      // S = h·a: [S]B − [h]A = −[h]T8, which must be R.
      if (!negate(timesSmall(ORDER_8_POINT, h)).equals(torsion)) return undefined;
      return { publicKey: mixedKeyBytes, sig: signature(rBytes, mod(h * a, ORDER)), message };
    });
    expect(verdicts(found)).toEqual({ openssl: true, strict: false, cofactored: true, refused: 'R' });
  });

  it('mixed-order A, mixed-order R, the cofactorless equation holds: accepted by all three (strict accepts mixed-order keys, as dalek\'s verify_strict and Solana do)', () => {
    const found = search((message) => {
      const r = scalarFrom(g.bytes(32));
      const torsion = g.pick(TORSION.slice(1));
      const rBytes = Point.BASE.multiply(r).add(torsion).toBytes();
      const h = challengeScalar(rBytes, mixedKeyBytes, message);
      if (!negate(timesSmall(ORDER_8_POINT, h)).equals(torsion)) return undefined;
      return { publicKey: mixedKeyBytes, sig: signature(rBytes, mod(r + h * a, ORDER)), message };
    });
    expect(mixedKey.isSmallOrder()).toBe(false);
    expect(mixedKey.isTorsionFree()).toBe(false);
    expect(verdicts(found)).toEqual({ openssl: true, strict: true, cofactored: true, refused: undefined });
  });

  it('mixed-order A, only the cofactored equation holds: OpenSSL and strict refuse (cofactorless, like Solana), ZIP-215 accepts', () => {
    const found = search((message) => {
      const r = scalarFrom(g.bytes(32));
      const rBytes = Point.BASE.multiply(r).toBytes();
      const h = challengeScalar(rBytes, mixedKeyBytes, message);
      if (timesSmall(ORDER_8_POINT, h).is0()) return undefined; // then the cofactorless equation holds too
      return { publicKey: mixedKeyBytes, sig: signature(rBytes, mod(r + h * a, ORDER)), message };
    });
    expect(verdicts(found)).toEqual({ openssl: false, strict: false, cofactored: true, refused: undefined });
  });

  it('S ≥ ℓ (S + ℓ of a valid signature): OpenSSL 3 and strict refuse; strict names S whatever the library does', () => {
    const seed = g.bytes(32);
    const message = g.bytes(24);
    const valid = ed.sign(message, seed);
    const sig = signature(valid.subarray(0, 32), fromLittleEndian(valid.subarray(32)) + ORDER);
    expect(verdicts({ publicKey: ed.getPublicKey(seed), sig, message })).toEqual({ openssl: false, strict: false, cofactored: false, refused: 'S' });
  });

  it('non-canonical R (the identity spelled y = p + 1), mixed-order A: OpenSSL refuses (byte comparison), strict refuses R, ZIP-215 accepts', () => {
    const rBytes = littleEndian(PRIME + 1n);
    expect(decodeLoose(rBytes)!.is0()).toBe(true);
    const found = search((message) => {
      const h = challengeScalar(rBytes, mixedKeyBytes, message);
      // S = h·a: [S]B − [h]A = −[h]T8 = the identity when 8 divides h.
      if (!timesSmall(ORDER_8_POINT, h).is0()) return undefined;
      return { publicKey: mixedKeyBytes, sig: signature(rBytes, mod(h * a, ORDER)), message };
    });
    expect(verdicts(found)).toEqual({ openssl: false, strict: false, cofactored: true, refused: 'R' });
  });

  it('non-canonical A (the identity spelled y = p + 1, and x = 0 with the sign bit), R = [r]B, S = r: OpenSSL accepts, strict refuses A', () => {
    for (const publicKey of [littleEndian(PRIME + 1n), Uint8Array.from(Buffer.from(SIGNED_ZERO_X_ENCODINGS[0]!, 'hex'))]) {
      const r = scalarFrom(g.bytes(32));
      const message = g.bytes(24);
      const sig = signature(Point.BASE.multiply(r).toBytes(), r);
      expect(verdicts({ publicKey, sig, message })).toEqual({ openssl: true, strict: false, cofactored: true, refused: 'publicKey' });
    }
  });

  it('a non-canonical spelling of a point that is not of small order (y = p + k): refused as an encoding; nobody knows its private key', () => {
    const spelled = highYSpellings().filter((bytes) => decodeLoose(bytes) !== undefined && !decodeLoose(bytes)!.isSmallOrder());
    expect(spelled.length).toBeGreaterThan(0);
    const sig = signature(Point.BASE.toBytes(), 1n);
    for (const publicKey of spelled) expect(strictEd25519Refusal(publicKey, sig)).toMatchObject({ part: 'publicKey', reason: 'non-canonical encoding' });
  });

  it('the honest signature of an ordinary key: accepted by all three', () => {
    const seed = randomBytes(32);
    const message = g.bytes(24);
    expect(verdicts({ publicKey: ed.getPublicKey(seed), sig: ed.sign(message, seed), message })).toEqual({ openssl: true, strict: true, cofactored: true, refused: undefined });
  });
});

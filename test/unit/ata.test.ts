import { randomBytes } from 'node:crypto';
import { Point } from '@noble/ed25519';
import { PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { associatedTokenAddress, deriveAssociatedTokenAddress, findProgramAddress } from '../../src/chain/ata.js';
import { isOnCurve } from '../../src/chain/ed25519-on-curve.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../../src/chain/token-programs.js';

const P = (1n << 255n) - 19n;

/** The reference predicate: @noble/ed25519's strict RFC 8032 point decoding. */
function nobleDecodes(bytes: Uint8Array): boolean {
  try {
    Point.fromBytes(bytes);
    return true;
  } catch {
    return false;
  }
}

function encode(y: bigint, signBit: boolean): Uint8Array {
  const bytes = Buffer.alloc(32);
  let rest = y;
  for (let i = 0; i < 32; i++) {
    bytes[i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  if (signBit) bytes[31]! |= 0x80;
  return bytes;
}

describe('ed25519 on-curve predicate', () => {
  it('agrees with @noble/ed25519 on 20,000 random encodings', () => {
    let onCurve = 0;
    for (let i = 0; i < 20_000; i++) {
      const bytes = randomBytes(32);
      const expected = nobleDecodes(bytes);
      if (isOnCurve(bytes) !== expected) throw new Error(`disagrees on ${bytes.toString('hex')}`);
      if (expected) onCurve++;
    }
    // About half of all encodings are points: both outcomes were exercised.
    expect(onCurve).toBeGreaterThan(9_000);
    expect(onCurve).toBeLessThan(11_000);
  });

  it('agrees on the identity, small-order points, x = 0 with the sign bit and every y ≥ p', () => {
    const ys = [0n, 1n, 2n, 3n, P - 1n, P - 2n];
    for (let k = 0n; k < 19n; k++) ys.push(P + k); // the non-canonical encodings, up to 2^255 − 1
    const cases = ys.flatMap((y) => [encode(y, false), encode(y, true)]);
    // The two order-8 points with x > 0 and their negations.
    for (const hex of ['26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05', 'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a']) {
      const bytes = Buffer.from(hex, 'hex');
      expect(Point.fromBytes(bytes).isSmallOrder()).toBe(true);
      cases.push(bytes, Buffer.concat([bytes.subarray(0, 31), Buffer.of(bytes[31]! ^ 0x80)]));
    }
    for (const bytes of cases) expect([Buffer.from(bytes).toString('hex'), isOnCurve(bytes)]).toEqual([Buffer.from(bytes).toString('hex'), nobleDecodes(bytes)]);

    expect(isOnCurve(encode(1n, false))).toBe(true); // identity
    expect(isOnCurve(encode(1n, true))).toBe(false); // x = 0 with the sign bit: rejected by RFC 8032
    expect(isOnCurve(encode(P - 1n, true))).toBe(false);
    expect(isOnCurve(encode(0n, true))).toBe(true); // y = 0: x = ±√−1, both signs exist
    expect(isOnCurve(encode(P + 1n, false))).toBe(false); // y ≥ p is never canonical
  });

  it('accepts real public keys', () => {
    for (let i = 0; i < 50; i++) {
      const scalar = BigInt(`0x${randomBytes(31).toString('hex')}`) + 1n;
      expect(isOnCurve(Point.BASE.multiply(scalar).toBytes())).toBe(true);
    }
  });
});

describe('program-derived addresses', () => {
  const ataProgram = new PublicKey(ASSOCIATED_TOKEN_PROGRAM_ID);

  it('matches web3.js findProgramAddressSync for 3,000 random (owner, mint, program) triples', () => {
    for (let i = 0; i < 3_000; i++) {
      const owner = randomBytes(32);
      const mint = randomBytes(32);
      const program = i % 3 === 0 ? randomBytes(32) : new PublicKey(i % 3 === 1 ? TOKEN_PROGRAM_ID : TOKEN_2022_PROGRAM_ID).toBuffer();
      const [expected] = PublicKey.findProgramAddressSync([owner, program, mint], ataProgram);
      const actual = deriveAssociatedTokenAddress(owner, mint, program);
      if (!actual.equals(expected.toBuffer())) throw new Error(`ATA differs for owner ${owner.toString('hex')}`);
    }
  });

  it('finds the same bump as web3.js for other seeds and programs', () => {
    for (let i = 0; i < 500; i++) {
      const seeds = Array.from({ length: 1 + (i % 4) }, (_, k) => randomBytes(k * 8 + (i % 9)));
      const program = randomBytes(32);
      const [address, bump] = PublicKey.findProgramAddressSync(seeds, new PublicKey(program));
      expect(findProgramAddress(seeds, program)).toEqual({ address: address.toBuffer(), bump });
    }
  });

  it('caches by base58 strings and gives the same answer', () => {
    const owner = new PublicKey(randomBytes(32));
    const mint = new PublicKey(randomBytes(32));
    const [expected] = PublicKey.findProgramAddressSync(
      [owner.toBuffer(), new PublicKey(TOKEN_2022_PROGRAM_ID).toBuffer(), mint.toBuffer()],
      ataProgram,
    );
    expect(associatedTokenAddress(owner.toBase58(), mint.toBase58(), TOKEN_2022_PROGRAM_ID)).toBe(expected.toBase58());
    expect(associatedTokenAddress(owner.toBase58(), mint.toBase58(), TOKEN_2022_PROGRAM_ID)).toBe(expected.toBase58());
    // Same owner and mint under the other program is another address.
    expect(associatedTokenAddress(owner.toBase58(), mint.toBase58(), TOKEN_PROGRAM_ID)).not.toBe(expected.toBase58());
  });

  it('refuses inputs that are not 32-byte addresses', () => {
    expect(() => associatedTokenAddress('not-an-address', TOKEN_PROGRAM_ID, TOKEN_PROGRAM_ID)).toThrow(TypeError);
    expect(() => associatedTokenAddress('1111', TOKEN_PROGRAM_ID, TOKEN_PROGRAM_ID)).toThrow(TypeError);
    expect(() => findProgramAddress([randomBytes(33)], randomBytes(32))).toThrow(TypeError);
  });
});

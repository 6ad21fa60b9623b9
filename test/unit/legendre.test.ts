import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import wabtInit from 'wabt';
import { describe, expect, it } from 'vitest';
import { LEGENDRE_WASM_BASE64, legendre } from '../../src/chain/legendre.js';

/**
 * The WebAssembly Legendre symbol behind the on-curve test (src/chain/legendre.wat → the bytes in
 * src/chain/legendre.ts): the committed bytes are what its source assembles to, and its answers
 * are Euler's criterion's and those of a second implementation, the BigInt Jacobi symbol the gate
 * used before, on random and edge values. (The ATA cross-check with web3.js in ata.test.ts runs
 * through it as well.)
 */
const P = (1n << 255n) - 19n;
const WAT = new URL('../../src/chain/legendre.wat', import.meta.url);
const MODULE = new URL('../../src/chain/legendre.ts', import.meta.url);

function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  base %= modulus;
  for (; exponent > 0n; exponent >>= 1n) {
    if (exponent & 1n) result = (result * base) % modulus;
    base = (base * base) % modulus;
  }
  return result;
}

const euler = (a: bigint): number => (a === 0n ? 0 : modPow(a, (P - 1n) / 2n, P) === 1n ? 1 : -1);

/** Jacobi symbol (a/n) for odd n > 0 by Euclid-like reduction in BigInt: the reference. */
function jacobi(a: bigint, n: bigint): number {
  let sign = 1;
  while (a !== 0n) {
    while ((a & 1n) === 0n) {
      a >>= 1n;
      if ((n & 7n) === 3n || (n & 7n) === 5n) sign = -sign;
    }
    [a, n] = [n, a];
    if ((a & 3n) === 3n && (n & 3n) === 3n) sign = -sign;
    a %= n;
  }
  return n === 1n ? sign : 0;
}

describe('the WebAssembly Legendre symbol modulo 2^255 − 19', () => {
  it('is what src/chain/legendre.wat assembles to', async () => {
    const wabt = await wabtInit();
    const module = wabt.parseWat('legendre.wat', readFileSync(WAT, 'utf8'));
    const assembled = Buffer.from(module.toBinary({}).buffer).toString('base64');
    module.destroy();
    if (process.env.X404_WRITE_WASM === '1' && assembled !== LEGENDRE_WASM_BASE64) {
      const source = readFileSync(MODULE, 'utf8');
      writeFileSync(MODULE, source.replace(/export const LEGENDRE_WASM_BASE64 =\n  '[^']*';/, `export const LEGENDRE_WASM_BASE64 =\n  '${assembled}';`));
    }
    expect(LEGENDRE_WASM_BASE64, 'regenerate with X404_WRITE_WASM=1 npx vitest run test/unit/legendre.test.ts').toBe(assembled);
  });

  it("gives Euler's criterion on 500 random residues and on edge values", () => {
    const edges = [0n, 1n, 2n, 3n, 4n, P - 1n, P - 2n, (P - 1n) / 2n, (1n << 64n) - 1n, 1n << 64n, (1n << 128n) + 1n, 1n << 192n, (1n << 192n) - 1n, 1n << 254n];
    for (const a of edges) expect([a, legendre(a)]).toEqual([a, euler(a)]);
    for (let i = 0; i < 500; i++) {
      const a = BigInt(`0x${randomBytes(32).toString('hex')}`) % P;
      expect(legendre(a)).toBe(euler(a));
    }
  });

  it('agrees with the BigInt Jacobi symbol on 50,000 random residues, including ones with long runs of zero bits', () => {
    let squares = 0;
    for (let i = 0; i < 50_000; i++) {
      const bytes = randomBytes(32);
      // Zeroed stretches exercise the whole-limb and multi-bit shifts.
      if (i % 4 === 0) bytes.fill(0, i % 24, (i % 24) + 8);
      const a = BigInt(`0x${bytes.toString('hex')}`) % P;
      const expected = jacobi(a, P);
      if (legendre(a) !== expected) throw new Error(`disagrees on ${a.toString(16)}`);
      if (expected === 1) squares++;
    }
    expect(squares).toBeGreaterThan(23_000);
    expect(squares).toBeLessThan(27_000);
  });
});

/**
 * Reproducible randomness for the fuzzers (test/e2e/fuzz*.test.ts): a request is built from its own
 * PRNG seeded by (seed, route or mode, index), so it is the same whatever the concurrency, and a
 * failure reproduces from the seed it prints.
 */

/** sfc32: small, fast, good enough to drive a fuzzer, and reproducible from its seeds. */
export function prng(...seeds: number[]): () => number {
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = 1;
  for (const seed of seeds) {
    a ^= seed;
    b = Math.imul(b ^ seed, 0x85ebca6b);
    c = Math.imul(c + seed, 0xc2b2ae35);
  }
  const next = (): number => {
    a |= 0; b |= 0; c |= 0; d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i += 1) next();
  return next;
}

/** The choices every fuzzer makes; each adds its own generators in a subclass. */
export class Seeded {
  constructor(readonly random: () => number) {}
  int(below: number): number {
    return Math.floor(this.random() * below);
  }
  chance(p: number): boolean {
    return this.random() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  bytes(length: number): Uint8Array {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i += 1) out[i] = this.int(256);
    return out;
  }
}

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { addressBytes, encodeAddress } from '../../src/chain/address.js';
import { cachedMintCount, MINT_BYTES_ENTRIES, mintBytesOf } from '../../src/chain/holdings.js';

/** The ATA check compares an account's mint with these bytes: each mint must get its own, always. */
describe('mint bytes cache', () => {
  it('gives every mint its own bytes, the same as decoding it, repeated or not', () => {
    const mints = Array.from({ length: 50 }, () => encodeAddress(randomBytes(32)));
    for (const mint of [...mints, ...mints.reverse(), ...mints]) expect(mintBytesOf(mint).equals(addressBytes(mint))).toBe(true);
    expect(mintBytesOf(mints[0]!).equals(mintBytesOf(mints[1]!))).toBe(false);
  });

  it('refuses what is not an address, and caches nothing for it', () => {
    const before = cachedMintCount();
    expect(() => mintBytesOf('not-a-mint')).toThrow(TypeError);
    expect(cachedMintCount()).toBe(before);
  });

  it('holds at most MINT_BYTES_ENTRIES mints and still answers the ones it dropped', () => {
    const first = encodeAddress(randomBytes(32));
    mintBytesOf(first);
    for (let i = 0; i < MINT_BYTES_ENTRIES + 10; i++) mintBytesOf(encodeAddress(randomBytes(32)));
    expect(cachedMintCount()).toBeLessThanOrEqual(MINT_BYTES_ENTRIES);
    expect(mintBytesOf(first).equals(addressBytes(first))).toBe(true);
  });
});

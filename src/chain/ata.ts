import * as nodeCrypto from 'node:crypto';
import { addressBytes, encodeAddress } from './address.js';
import { isOnCurve } from './ed25519-on-curve.js';
import { LruCache } from './lru.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_PROGRAM_IDS } from './programs.js';

const PDA_MARKER = Buffer.from('ProgramDerivedAddress');
const ATA_PROGRAM = addressBytes(ASSOCIATED_TOKEN_PROGRAM_ID);
const MAX_SEED_BYTES = 32;
const MAX_SEEDS = 16;
/** The token programs' bytes, decoded once (base58 decoding costs ~5 µs). */
const KNOWN_PROGRAMS = new Map<string, Buffer>(TOKEN_PROGRAM_IDS.map((id) => [id, addressBytes(id)]));

/**
 * Solana's find_program_address: the first bump from 255 down for which
 * sha256(seeds… ‖ bump ‖ programId ‖ "ProgramDerivedAddress") is not a curve point (so no private
 * key can sign for it). About half of all hashes are off the curve, so ~2 tries on average. The
 * hash input is assembled once and only its bump byte changes between tries (one-shot SHA-256:
 * ~1 µs a try against ~3 µs for a Hash object fed piece by piece).
 */
export function findProgramAddress(seeds: readonly Uint8Array[], programId: Uint8Array): { address: Buffer; bump: number } {
  if (seeds.length >= MAX_SEEDS || seeds.some((seed) => seed.length > MAX_SEED_BYTES)) {
    throw new TypeError('at most 15 seeds of at most 32 bytes each (the bump is the 16th)');
  }
  const input = Buffer.concat([...seeds, BUMP_PLACEHOLDER, programId, PDA_MARKER]);
  const bumpAt = input.length - 1 - programId.length - PDA_MARKER.length;
  for (let bump = 255; bump >= 0; bump--) {
    input[bumpAt] = bump;
    const address = sha256(input);
    if (!isOnCurve(address)) return { address, bump };
  }
  throw new Error('no bump gives an off-curve address'); // probability 2^-256
}

const BUMP_PLACEHOLDER = Buffer.alloc(1);
/** One-shot SHA-256 (Node ≥ 20.12); a Hash object on older versions. */
const sha256: (data: Buffer) => Buffer =
  typeof nodeCrypto.hash === 'function' ? (data) => nodeCrypto.hash('sha256', data, 'buffer') : (data) => nodeCrypto.createHash('sha256').update(data).digest();

/** Associated token account of (owner, mint) under one token program: seeds [owner, program, mint]. */
export function deriveAssociatedTokenAddress(owner: Uint8Array, mint: Uint8Array, tokenProgram: Uint8Array): Buffer {
  return findProgramAddress([owner, tokenProgram, mint], ATA_PROGRAM).address;
}

/**
 * Bounded LRU of derived ATAs. A login asks for the same few (wallet, mint) pairs again and again
 * (re-authentication, several features, retries). 100k entries hold the ATAs of 25k wallets for
 * two mints under both programs, at ~220 bytes per entry (a ~135-character key, a 44-character
 * value, Map overhead; measured by bench/ata.ts): ~21 MiB when full.
 */
export const ATA_CACHE_CAPACITY = 100_000;
const ataCache = new LruCache<string, string>(ATA_CACHE_CAPACITY);

/** An ATA to derive, all base58: what crosses to the verify workers (src/signature/verify-task.ts). */
export interface AtaSeed {
  owner: string;
  mint: string;
  program: string;
}

// ':' is outside the base58 alphabet, so distinct triples cannot form the same key.
const cacheKey = (owner: string, mint: string, tokenProgram: string): string => `${owner}:${tokenProgram}:${mint}`;

/** Base58 ATA address for base58 inputs, cached. Throws TypeError for an input that is not an address. */
export function associatedTokenAddress(owner: string, mint: string, tokenProgram: string): string {
  const key = cacheKey(owner, mint, tokenProgram);
  let address = ataCache.get(key);
  if (address === undefined) {
    address = deriveAssociatedTokenAddressText({ owner, mint, program: tokenProgram });
    ataCache.set(key, address);
  }
  return address;
}

/** Whether the ATA of (owner, mint, program) is in the cache (without touching its recency). */
export const isAtaCached = (seed: AtaSeed): boolean => ataCache.has(cacheKey(seed.owner, seed.mint, seed.program));

/** Puts an address derived elsewhere (a verify worker) in the cache, as associatedTokenAddress would have. */
export function rememberAssociatedTokenAddress(seed: AtaSeed, address: string): void {
  ataCache.set(cacheKey(seed.owner, seed.mint, seed.program), address);
}

/** The derivation alone, uncached: for the verify workers, which hand their results to the main thread's cache. */
export function deriveAssociatedTokenAddressText({ owner, mint, program }: AtaSeed): string {
  const programBytes = KNOWN_PROGRAMS.get(program) ?? addressBytes(program);
  return encodeAddress(deriveAssociatedTokenAddress(addressBytes(owner), addressBytes(mint), programBytes));
}

/** For benchmarks and tests that need cold derivations. */
export function clearAtaCache(): void {
  ataCache.clear();
}

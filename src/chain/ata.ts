import * as nodeCrypto from 'node:crypto';
import { addressBytes, encodeAddress } from './address.js';
import { isOnCurve } from './ed25519-on-curve.js';
import { LruCache } from '../lib/lru-cache.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_PROGRAM_IDS } from './token-programs.js';

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
 * Bounded LRU of derived ATAs, by wallet. A login asks for the same few (wallet, mint) pairs again
 * and again (re-authentication, several features, retries). Each wallet's entry is a flat list of
 * (program, mint, address) triples, searched by comparing strings: a login's wallet is hashed once
 * (one Map lookup), and the policy's mints and the programs are the same string objects every time,
 * so no key is built or hashed per ATA (a concatenated triple key cost ~1.5 µs a login in lookups).
 * At most ATAS_PER_WALLET per wallet (the oldest goes first), ATA_CACHE_WALLETS wallets; bench/ata.ts
 * measures the memory.
 */
export const ATA_CACHE_WALLETS = 50_000;
export const ATAS_PER_WALLET = 16;
const ataCache = new LruCache<string, string[]>(ATA_CACHE_WALLETS);

/** An ATA to derive, all base58: what crosses to the verify workers (src/signature/verify-task.ts). */
export interface AtaSeed {
  owner: string;
  mint: string;
  program: string;
}

function cachedAta(triples: readonly string[] | undefined, mint: string, program: string): string | undefined {
  if (triples === undefined) return undefined;
  for (let i = 0; i < triples.length; i += 3) {
    if (triples[i + 1] === mint && triples[i] === program) return triples[i + 2];
  }
  return undefined;
}

function remember(owner: string, mint: string, program: string, address: string): void {
  let triples = ataCache.get(owner);
  if (triples === undefined) {
    triples = [];
    ataCache.set(owner, triples);
  } else if (cachedAta(triples, mint, program) !== undefined) {
    return;
  }
  if (triples.length >= ATAS_PER_WALLET * 3) triples.splice(0, 3);
  triples.push(program, mint, address);
}

/** Base58 ATA address for base58 inputs, cached. Throws TypeError for an input that is not an address. */
export function associatedTokenAddress(owner: string, mint: string, tokenProgram: string): string {
  let address = cachedAta(ataCache.get(owner), mint, tokenProgram);
  if (address === undefined) {
    address = deriveAssociatedTokenAddressText({ owner, mint, program: tokenProgram });
    remember(owner, mint, tokenProgram, address);
  }
  return address;
}

/** Whether the ATA of (owner, mint, program) is in the cache (without touching its recency). */
export const isAtaCached = (seed: AtaSeed): boolean => cachedAta(ataCache.peek(seed.owner), seed.mint, seed.program) !== undefined;

/** Puts an address derived elsewhere (a verify worker) in the cache, as associatedTokenAddress would have. */
export function rememberAssociatedTokenAddress(seed: AtaSeed, address: string): void {
  remember(seed.owner, seed.mint, seed.program, address);
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

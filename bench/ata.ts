/**
 * µs per associated-token-address derivation: web3.js findProgramAddressSync against
 * src/chain/ata.ts (cold: cache miss; cached: LRU hit), base58 strings in and out for all three,
 * plus the memory a full ATA cache takes.
 *
 *   npx tsc -p . && node --expose-gc dist/bench/ata.js
 */
import { randomBytes } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import { ATA_CACHE_WALLETS, associatedTokenAddress, clearAtaCache, deriveAssociatedTokenAddress } from '../src/chain/ata.js';
import { isOnCurve } from '../src/chain/ed25519-on-curve.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../src/chain/token-programs.js';
import { microsPerCall, randomAddresses } from './micro.js';

const ATA_PROGRAM = new PublicKey(ASSOCIATED_TOKEN_PROGRAM_ID);
const TOKEN_PROGRAM = new PublicKey(TOKEN_PROGRAM_ID);

const N = 5_000;
const owners = randomAddresses(N);
const mints = randomAddresses(N);

const web3 = microsPerCall(N, (i) => {
  PublicKey.findProgramAddressSync([new PublicKey(owners[i]!).toBuffer(), TOKEN_PROGRAM.toBuffer(), new PublicKey(mints[i]!).toBuffer()], ATA_PROGRAM)[0].toBase58();
});
const cold = microsPerCall(N, (i) => {
  clearAtaCache();
  associatedTokenAddress(owners[i]!, mints[i]!, TOKEN_PROGRAM_ID);
});
const ownerBytes = owners.map((o) => new PublicKey(o).toBuffer());
const mintBytes = mints.map((m) => new PublicKey(m).toBuffer());
const tokenBytes = TOKEN_PROGRAM.toBuffer();
const bytesOnly = microsPerCall(N, (i) => deriveAssociatedTokenAddress(ownerBytes[i]!, mintBytes[i]!, tokenBytes));
const points = Array.from({ length: N }, () => randomBytes(32));
const onCurve = microsPerCall(N, (i) => isOnCurve(points[i]!));

clearAtaCache();
for (let i = 0; i < 1_000; i++) associatedTokenAddress(owners[i]!, mints[i]!, TOKEN_PROGRAM_ID);
const cached = microsPerCall(N * 20, (i) => associatedTokenAddress(owners[i % 1_000]!, mints[i % 1_000]!, TOKEN_PROGRAM_ID));

// Memory of a full cache: fill it with distinct wallets, two mints each (a policy's usual few), and compare heaps.
const gc = (globalThis as { gc?: () => void }).gc;
let perEntry = 'run with --expose-gc to measure';
if (gc) {
  clearAtaCache();
  const fillOwners = randomAddresses(ATA_CACHE_WALLETS);
  const fillMints = randomAddresses(2);
  gc();
  const before = process.memoryUsage().heapUsed;
  for (const owner of fillOwners) for (const mint of fillMints) associatedTokenAddress(owner, mint, TOKEN_PROGRAM_ID);
  gc();
  const bytes = process.memoryUsage().heapUsed - before;
  perEntry = `${Math.round(bytes / ATA_CACHE_WALLETS)} bytes/wallet with two ATAs, ${(bytes / 1024 / 1024).toFixed(1)} MiB for ${ATA_CACHE_WALLETS} wallets`;
}

const fmt = (micros: number): string => `${micros.toFixed(micros < 1 ? 3 : 1)} µs`;
console.log(`ATA derivation, base58 in and out (${N} random owner/mint pairs)`);
console.log(`  web3.js findProgramAddressSync   ${fmt(web3)}`);
console.log(`  ata.ts cold (cache miss)         ${fmt(cold)}   (${(web3 / cold).toFixed(1)}× faster)`);
console.log(`  ata.ts bytes only, no base58     ${fmt(bytesOnly)}`);
console.log(`  ata.ts cached (LRU hit)          ${fmt(cached)}`);
console.log(`  on-curve check alone             ${fmt(onCurve)}`);
console.log(`  cache memory                     ${perEntry}`);

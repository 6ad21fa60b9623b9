/**
 * The collection feature's CPU on the gate's event loop, and what its NFTs add to the local
 * chain's start:
 * - µs per Token Metadata PDA derived (cold: cache cleared before each) and per cached lookup;
 * - µs per NFT examined by countTokenNfts (src/collection/token-nfts.ts): PDA, decoding the mint
 *   and the metadata account, matching — with an in-memory ChainReader, so no I/O is timed;
 * - ms the collection NFTs add to building the local chain's demo state, in fresh processes (the
 *   first build loads litesvm, @solana/kit and the Metaplex serializers).
 *
 *   npx tsc -p . && node dist/bench/collection.js
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PublicKey } from '@solana/web3.js';
import { countTokenNfts } from '../src/collection/token-nfts.js';
import { clearMetadataCache, deriveMetadataAddress, metadataAddress } from '../src/collection/token-metadata.js';
import { TOKEN_PROGRAM_ID } from '../src/chain/token-programs.js';
import type { AccountInfo, ChainReader, OwnedTokenAccount } from '../src/chain/types.js';
import { encodeMint } from 'x404-localnet/layouts.js';
import { metadataAccount, TOKEN_STANDARD } from 'x404-localnet/collections/metaplex.js';
import { microsPerCall, randomAddresses } from './micro.js';

// ---- PDAs
const N = 5_000;
const mints = randomAddresses(N);
const derive = microsPerCall(N, (i) => deriveMetadataAddress(mints[i]!));
clearMetadataCache();
for (const mint of mints.slice(0, 1_000)) metadataAddress(mint);
const cached = microsPerCall(N * 20, (i) => metadataAddress(mints[i % 1_000]!));

// ---- NFTs examined: a wallet of NFTS verified NFTs of one collection, accounts served from memory.
const NFTS = 500;
const collection = randomAddresses(1)[0]!;
const owner = randomAddresses(1)[0]!;
const nftMints = randomAddresses(NFTS);
const accounts = new Map<string, AccountInfo>();
const tokenAccounts: OwnedTokenAccount[] = nftMints.map((mint, i) => {
  accounts.set(mint, { owner: TOKEN_PROGRAM_ID, lamports: 1, executable: false, data: encodeMint({ decimals: 0, supply: 1n, mintAuthority: owner }) });
  const metadata = metadataAccount({ mint, updateAuthority: owner, name: `bench ${i}`, tokenStandard: TOKEN_STANDARD.nonFungible, collection: { key: collection, verified: true } });
  accounts.set(new PublicKey(deriveMetadataAddress(mint)).toBase58(), { owner: metadata.owner, lamports: 1, executable: false, data: metadata.data });
  return { address: randomAddresses(1)[0]!, program: TOKEN_PROGRAM_ID, mint, amount: 1n, frozen: false };
});
const chain = { getMultipleAccounts: async (keys: readonly string[]) => keys.map((key) => accounts.get(key) ?? null) } as unknown as ChainReader;
const match = { collections: new Set([collection]), creators: new Set<string>() };

async function millisPerCheck(cold: boolean, rounds: number): Promise<number> {
  let total = 0n;
  for (let round = 0; round < rounds; round++) {
    if (cold) clearMetadataCache();
    const start = process.hrtime.bigint();
    const counted = await countTokenNfts(chain, tokenAccounts, match, NFTS);
    total += process.hrtime.bigint() - start;
    if (counted.tokenMetadata.size !== NFTS) throw new Error(`counted ${counted.tokenMetadata.size} of ${NFTS}`);
  }
  return Number(total) / 1e6 / rounds;
}
await millisPerCheck(true, 3); // warm-up
const coldCheck = await millisPerCheck(true, 20);
const warmCheck = await millisPerCheck(false, 20);

// ---- local chain start: fresh processes, demo state with and without the collection NFTs.
const fixture = fileURLToPath(new URL('x404-localnet/fixture.js', import.meta.url));
function buildMs(collections: boolean): number {
  const script = `const t = performance.now(); const { buildDemoState } = await import(${JSON.stringify(fixture)}); buildDemoState({ collections: ${collections} }); console.log(performance.now() - t);`;
  const runs = Array.from({ length: 5 }, () => Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim()));
  return runs.sort((a, b) => a - b)[2]!; // median
}
const without = buildMs(false);
const withCollections = buildMs(true);

console.log(`Token Metadata PDA: ${derive.toFixed(2)} µs derived, ${cached.toFixed(3)} µs cached`);
console.log(`countTokenNfts, ${NFTS} verified NFTs: ${coldCheck.toFixed(2)} ms with PDAs derived (${((coldCheck * 1000) / NFTS).toFixed(2)} µs per NFT), ${warmCheck.toFixed(2)} ms cached (${((warmCheck * 1000) / NFTS).toFixed(2)} µs per NFT)`);
console.log(`local chain demo state (fresh process, median of 5): ${without.toFixed(0)} ms without the collection NFTs, ${withCollections.toFixed(0)} ms with (+${(withCollections - without).toFixed(0)} ms)`);

/**
 * Metaplex account bytes made by Metaplex's own serializers (@metaplex-foundation/mpl-token-metadata
 * and @metaplex-foundation/mpl-core, umi serializers, no network): the local chain stores what the
 * official clients would read, so the gate's decoders (src/collection/) are checked against them.
 * PDAs are derived with web3.js, independently of the gate's own derivation.
 *
 * Development dependencies, loaded lazily by the local chain only (npm run dev / localnet / tests).
 */
import { createRequire } from 'node:module';
import { PublicKey } from '@solana/web3.js';
import type { AccountInput } from '../accounts.js';
import { rentExemptLamports } from '../accounts.js';

const require = createRequire(import.meta.url);
type TokenMetadataModule = typeof import('@metaplex-foundation/mpl-token-metadata');
type UmiModule = typeof import('@metaplex-foundation/umi');
type CoreModule = typeof import('@metaplex-foundation/mpl-core');
type CoreAssetModule = typeof import('@metaplex-foundation/mpl-core/dist/src/generated/types/assetV1AccountData.js');
type CoreCollectionModule = typeof import('@metaplex-foundation/mpl-core/dist/src/generated/types/collectionV1AccountData.js');

const tokenMetadata = (): TokenMetadataModule => require('@metaplex-foundation/mpl-token-metadata') as TokenMetadataModule;
const umi = (): UmiModule => require('@metaplex-foundation/umi') as UmiModule;

export const TOKEN_METADATA_PROGRAM = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s';
export const CORE_PROGRAM = 'CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d';
/** Token Metadata allocates every metadata account at its maximum size (MAX_METADATA_LEN) and pads with zeros. */
const METADATA_ACCOUNT_SIZE = 679;
const programKey = new PublicKey(TOKEN_METADATA_PROGRAM);

export function metadataPda(mint: string): string {
  return PublicKey.findProgramAddressSync([Buffer.from('metadata'), programKey.toBuffer(), new PublicKey(mint).toBuffer()], programKey)[0].toBase58();
}

export function editionPda(mint: string): string {
  return PublicKey.findProgramAddressSync([Buffer.from('metadata'), programKey.toBuffer(), new PublicKey(mint).toBuffer(), Buffer.from('edition')], programKey)[0].toBase58();
}

/** TokenStandard numbers (mpl-token-metadata's enum). */
export const TOKEN_STANDARD = { nonFungible: 0, nonFungibleEdition: 3, programmableNonFungible: 4 } as const;

export interface MetadataSpec {
  mint: string;
  updateAuthority: string;
  name: string;
  tokenStandard: number;
  collection?: { key: string; verified: boolean };
  creators?: { address: string; verified: boolean; share: number }[];
}

export function metadataAccount(spec: MetadataSpec): AccountInput {
  const { some, none, publicKey } = umi();
  const serialized = tokenMetadata()
    .getMetadataAccountDataSerializer()
    .serialize({
      updateAuthority: publicKey(spec.updateAuthority),
      mint: publicKey(spec.mint),
      name: spec.name,
      symbol: 'X404',
      uri: `https://example.invalid/${spec.name.toLowerCase().replace(/\W+/g, '-')}.json`,
      sellerFeeBasisPoints: 500,
      creators: spec.creators ? some(spec.creators.map((creator) => ({ ...creator, address: publicKey(creator.address) }))) : none(),
      primarySaleHappened: false,
      isMutable: true,
      editionNonce: some(255),
      tokenStandard: some(spec.tokenStandard),
      collection: spec.collection ? some({ verified: spec.collection.verified, key: publicKey(spec.collection.key) }) : none(),
      uses: none(),
      collectionDetails: none(),
      programmableConfig: spec.tokenStandard === TOKEN_STANDARD.programmableNonFungible ? some({ __kind: 'V1', ruleSet: none() }) : none(),
    });
  const data = Buffer.alloc(Math.max(METADATA_ACCOUNT_SIZE, serialized.length));
  data.set(serialized);
  return { owner: TOKEN_METADATA_PROGRAM, lamports: rentExemptLamports(data.length), data };
}

/** The Edition account of a print (key EditionV1): its master edition and its number. */
export function editionAccount(parentMint: string, edition: bigint): AccountInput {
  const { publicKey } = umi();
  const data = Buffer.from(tokenMetadata().getEditionAccountDataSerializer().serialize({ parent: publicKey(editionPda(parentMint)), edition }));
  return { owner: TOKEN_METADATA_PROGRAM, lamports: rentExemptLamports(data.length), data };
}

/** The MasterEdition account (key MasterEditionV2) of an NFT that may be printed. */
export function masterEditionAccount(maxSupply: bigint): AccountInput {
  const { some } = umi();
  const data = Buffer.from(tokenMetadata().getMasterEditionAccountDataSerializer().serialize({ supply: 1n, maxSupply: some(maxSupply) }));
  return { owner: TOKEN_METADATA_PROGRAM, lamports: rentExemptLamports(data.length), data };
}

/** A Core AssetV1 with update authority Collection(collection), no plugins. */
export function coreAssetAccount(owner: string, collection: string, name: string): AccountInput {
  const { publicKey, none } = umi();
  const core = require('@metaplex-foundation/mpl-core') as CoreModule;
  const asset = require('@metaplex-foundation/mpl-core/dist/src/generated/types/assetV1AccountData.js') as CoreAssetModule;
  const data = Buffer.from(
    asset.getAssetV1AccountDataSerializer().serialize({
      key: core.Key.AssetV1,
      owner: publicKey(owner),
      updateAuthority: core.baseUpdateAuthority('Collection', [publicKey(collection)]),
      name,
      uri: `https://example.invalid/${name.toLowerCase().replace(/\W+/g, '-')}.json`,
      seq: none(),
    }),
  );
  return { owner: CORE_PROGRAM, lamports: rentExemptLamports(data.length), data };
}

/** A Core CollectionV1 without plugins. */
export function coreCollectionAccount(updateAuthority: string, name: string, size: number): AccountInput {
  const { publicKey } = umi();
  const core = require('@metaplex-foundation/mpl-core') as CoreModule;
  const collection = require('@metaplex-foundation/mpl-core/dist/src/generated/types/collectionV1AccountData.js') as CoreCollectionModule;
  const data = Buffer.from(
    collection.getCollectionV1AccountDataSerializer().serialize({
      key: core.Key.CollectionV1,
      updateAuthority: publicKey(updateAuthority),
      name,
      uri: `https://example.invalid/${name.toLowerCase().replace(/\W+/g, '-')}.json`,
      numMinted: size,
      currentSize: size,
    }),
  );
  return { owner: CORE_PROGRAM, lamports: rentExemptLamports(data.length), data };
}

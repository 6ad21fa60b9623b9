/**
 * The collection feature's demo state (catalogue in packages/localnet/src/fixture.ts): NFTs of every
 * standard the gate reads, with bytes from the programs' own code — Token-2022 group and member
 * mints from the real program in LiteSVM (token-2022-group.ts), Token Metadata and Core accounts
 * from Metaplex's serializers (metaplex.ts) — plus compressed NFTs in the local DAS index.
 */
import type { ChainState } from '../state.js';
import { labelAddress } from '../state.js';
import { buildTokenGroup } from './token-2022-group.js';
import { coreAssetAccount, coreCollectionAccount, editionAccount, editionPda, masterEditionAccount, metadataAccount, metadataPda, TOKEN_STANDARD, type MetadataSpec } from './metaplex.js';

/** The addresses a collection policy names, derived from labels (no keys). */
export const DEMO_COLLECTIONS = {
  /** A Token Metadata collection (the collection NFT's mint). */
  a: labelAddress('collection:a'),
  /** Another Token Metadata collection nobody in the catalogue holds. */
  b: labelAddress('collection:b'),
  /** A Token-2022 group mint. */
  g: labelAddress('collection:group-g'),
  /** A Metaplex Core collection. */
  c: labelAddress('collection:core-c'),
  /** A first creator (verified on the creator-holder's NFT). */
  creator: labelAddress('collection:creator-x'),
} as const;

export type CollectionWalletName =
  | 'nft-holder'
  | 'nft-unverified'
  | 'pnft-holder'
  | 'edition-holder'
  | 'creator-holder'
  | 't22-member'
  | 'core-holder'
  | 'cnft-holder'
  | 'nft-zero'
  | 'collector';

/** Mint of a demo NFT (label → address). */
export const demoNft = (label: string): string => labelAddress(`nft:${label}`);

/**
 * Builds the NFTs. `wallet(name)` is the catalogue wallet's address. Returns how long the LiteSVM
 * run took (ms), for the local chain's start-up report.
 */
export function buildCollections(state: ChainState, wallet: (name: CollectionWalletName) => string): { liteSvmMs: number } {
  const authority = labelAddress('collection:update-authority');
  const A = DEMO_COLLECTIONS.a;

  /** A Token Metadata NFT (mint supply 1, decimals 0) held in the owner's ATA. */
  const tokenMetadataNft = (owner: string, label: string, metadata: Omit<MetadataSpec, 'mint' | 'updateAuthority' | 'name'>, holding: { amount?: number; frozen?: boolean } = {}): string => {
    const mint = demoNft(label);
    state.addMint({ address: mint, decimals: 0, supply: 1, program: 'token', mintAuthority: editionPda(mint) });
    state.setAccount(metadataPda(mint), metadataAccount({ ...metadata, mint, updateAuthority: authority, name: `X404 ${label}` }));
    state.addTokenAccount({ owner, mint, amount: holding.amount ?? 1, program: 'token', state: holding.frozen ? 'frozen' : 'initialized' });
    return mint;
  };
  const verifiedA = { collection: { key: A, verified: true } };

  tokenMetadataNft(wallet('nft-holder'), 'nft-holder', { tokenStandard: TOKEN_STANDARD.nonFungible, ...verifiedA });
  tokenMetadataNft(wallet('nft-unverified'), 'nft-unverified', { tokenStandard: TOKEN_STANDARD.nonFungible, collection: { key: A, verified: false } });
  // A programmable NFT's token account is always frozen (Token Metadata thaws it only for its own instructions).
  tokenMetadataNft(wallet('pnft-holder'), 'pnft-holder', { tokenStandard: TOKEN_STANDARD.programmableNonFungible, ...verifiedA }, { frozen: true });
  tokenMetadataNft(wallet('nft-zero'), 'nft-zero', { tokenStandard: TOKEN_STANDARD.nonFungible, ...verifiedA }, { amount: 0 });

  // A print edition of a master edition in collection A.
  const master = demoNft('edition-master');
  state.addMint({ address: master, decimals: 0, supply: 1, program: 'token', mintAuthority: editionPda(master) });
  state.setAccount(metadataPda(master), metadataAccount({ mint: master, updateAuthority: authority, name: 'X404 master', tokenStandard: TOKEN_STANDARD.nonFungible, ...verifiedA }));
  state.setAccount(editionPda(master), masterEditionAccount(100n));
  const print = tokenMetadataNft(wallet('edition-holder'), 'edition-print', { tokenStandard: TOKEN_STANDARD.nonFungibleEdition, ...verifiedA });
  state.setAccount(editionPda(print), editionAccount(master, 1n));

  // Creators: X first and verified counts; X verified but second, or first but unverified, does not.
  const creator = DEMO_COLLECTIONS.creator;
  const other = labelAddress('collection:other-creator');
  tokenMetadataNft(wallet('creator-holder'), 'creator-first', { tokenStandard: TOKEN_STANDARD.nonFungible, creators: [{ address: creator, verified: true, share: 100 }] });
  tokenMetadataNft(wallet('creator-holder'), 'creator-second', {
    tokenStandard: TOKEN_STANDARD.nonFungible,
    creators: [
      { address: other, verified: true, share: 50 },
      { address: creator, verified: true, share: 50 },
    ],
  });
  tokenMetadataNft(wallet('creator-holder'), 'creator-unverified', { tokenStandard: TOKEN_STANDARD.nonFungible, creators: [{ address: creator, verified: false, share: 100 }] });

  // Token-2022 group G and its members, by the Token-2022 program itself.
  const started = performance.now();
  const group = buildTokenGroup({
    group: DEMO_COLLECTIONS.g,
    authority,
    members: [
      { mint: demoNft('t22-member'), holder: wallet('t22-member') },
      { mint: demoNft('collector-t22'), holder: wallet('collector') },
    ],
  });
  const liteSvmMs = performance.now() - started;
  for (const [address, account] of group) state.setAccount(address, account);

  // Core collection C and assets.
  state.setAccount(DEMO_COLLECTIONS.c, coreCollectionAccount(authority, 'X404 Core C', 2));
  state.setAccount(demoNft('core-holder'), coreAssetAccount(wallet('core-holder'), DEMO_COLLECTIONS.c, 'X404 core 1'));
  state.setAccount(demoNft('core-other'), coreAssetAccount(wallet('core-holder'), labelAddress('collection:core-other'), 'X404 core other'));
  state.setAccount(demoNft('collector-core'), coreAssetAccount(wallet('collector'), DEMO_COLLECTIONS.c, 'X404 core 2'));

  // Compressed NFTs exist only in the DAS index: two that count, a burnt one, an unverified one,
  // and the uncompressed NFT DAS also lists (counted from the chain, never twice).
  const cnft = wallet('cnft-holder');
  state.addDasAsset({ id: demoNft('cnft-1'), owner: cnft, compressed: true, burnt: false, collection: { key: A, verified: true } });
  state.addDasAsset({ id: demoNft('cnft-2'), owner: cnft, compressed: true, burnt: false, collection: { key: A, verified: true } });
  state.addDasAsset({ id: demoNft('cnft-burnt'), owner: cnft, compressed: true, burnt: true, collection: { key: A, verified: true } });
  state.addDasAsset({ id: demoNft('cnft-unverified'), owner: cnft, compressed: true, burnt: false, collection: { key: A, verified: false } });
  state.addDasAsset({ id: demoNft('cnft-creator'), owner: cnft, compressed: true, burnt: false, creators: [{ address: creator, verified: true, share: 100 }] });

  // collector: one of each standard.
  const collector = wallet('collector');
  tokenMetadataNft(collector, 'collector-nft', { tokenStandard: TOKEN_STANDARD.nonFungible, ...verifiedA });
  tokenMetadataNft(collector, 'collector-pnft', { tokenStandard: TOKEN_STANDARD.programmableNonFungible, ...verifiedA }, { frozen: true });
  state.addDasAsset({ id: demoNft('collector-nft'), owner: collector, compressed: false, burnt: false, collection: { key: A, verified: true } });
  state.addDasAsset({ id: demoNft('collector-cnft'), owner: collector, compressed: true, burnt: false, collection: { key: A, verified: true } });

  return { liteSvmMs };
}

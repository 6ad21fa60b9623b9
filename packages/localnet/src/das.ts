/**
 * The DAS API's `searchAssets`, as far as the gate uses it, served by the local chain from its DAS
 * index (ChainState.addDasAsset): the wallet's assets filtered by `grouping` (["collection", X]),
 * `creatorAddress` (+ `creatorVerified`) and `burnt`, paged with `page` (from 1) and `limit`
 * (at most 1000). Like the reference implementation (metaplex-foundation/digital-asset-rpc-
 * infrastructure), the grouping filter matches unverified collections too, while an item's
 * `grouping` lists only verified ones: a client has to look at the item, as the gate does.
 * `tokenType` (Helius's DAS: fungible, nonFungible, regularNft, compressedNft, all) narrows the
 * items when given; the index holds NFTs only, so `fungible` finds none. A provider profile can
 * require it (provider-limits.ts).
 */
import { RpcError, RPC_INVALID_PARAMS } from './rpc-error.js';
import type { ChainState, DasAsset } from './state.js';

const MAX_LIMIT = 1000;
const TOKEN_TYPES: Record<string, (asset: DasAsset) => boolean> = {
  fungible: () => false,
  nonFungible: () => true,
  regularNft: (asset) => !asset.compressed,
  compressedNft: (asset) => asset.compressed,
  all: () => true,
};

export function searchAssets(state: ChainState, params: unknown): string {
  if (params === null || typeof params !== 'object' || Array.isArray(params)) {
    throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: searchAssets takes named parameters');
  }
  const { ownerAddress, grouping, creatorAddress, creatorVerified, burnt, tokenType, page = 1, limit = MAX_LIMIT } = params as Record<string, unknown>;
  if (tokenType !== undefined && !(typeof tokenType === 'string' && Object.hasOwn(TOKEN_TYPES, tokenType))) {
    throw new RpcError(RPC_INVALID_PARAMS, `Invalid params: tokenType is one of ${Object.keys(TOKEN_TYPES).join(', ')}`);
  }
  const ofTokenType = tokenType === undefined ? () => true : TOKEN_TYPES[tokenType as string]!;
  if (typeof ownerAddress !== 'string') throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: ownerAddress is required here');
  if (!Number.isInteger(page) || (page as number) < 1) throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: page starts at 1');
  if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_LIMIT) throw new RpcError(RPC_INVALID_PARAMS, `Invalid params: limit is 1..${MAX_LIMIT}`);
  if (grouping !== undefined && !(Array.isArray(grouping) && grouping.length === 2 && grouping.every((part) => typeof part === 'string'))) {
    throw new RpcError(RPC_INVALID_PARAMS, 'Invalid params: grouping is [key, value]');
  }

  const matching = state.dasAssetsOf(ownerAddress).filter((asset) => {
    if (!ofTokenType(asset)) return false;
    if (typeof burnt === 'boolean' && asset.burnt !== burnt) return false;
    if (grouping !== undefined && !(grouping[0] === 'collection' && asset.collection?.key === grouping[1])) return false;
    if (typeof creatorAddress === 'string') {
      const creator = asset.creators?.find((entry) => entry.address === creatorAddress);
      if (!creator || (creatorVerified === true && !creator.verified)) return false;
    }
    return true;
  });
  const start = ((page as number) - 1) * (limit as number);
  const items = matching.slice(start, start + (limit as number)).map(item);
  return JSON.stringify({ total: items.length, limit, page, items });
}

/** The fields of a DAS asset the gate reads, in the API's shape. */
function item(asset: DasAsset): Record<string, unknown> {
  return {
    interface: asset.compressed ? 'V1_NFT' : 'ProgrammableNFT',
    id: asset.id,
    compression: { eligible: false, compressed: asset.compressed, data_hash: '', creator_hash: '', asset_hash: '', tree: '', seq: 0, leaf_id: 0 },
    grouping: asset.collection?.verified ? [{ group_key: 'collection', group_value: asset.collection.key }] : [],
    creators: asset.creators ?? [],
    ownership: { frozen: false, delegated: false, delegate: null, ownership_model: 'single', owner: asset.owner },
    burnt: asset.burnt,
  };
}

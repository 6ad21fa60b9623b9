import { looksLikeAddress } from '../chain/address.js';
import { isObject, malformed } from '../chain/replies.js';
import { RpcClient } from '../chain/rpc.js';
import type { Config } from '../config.js';

/**
 * Compressed NFTs through a DAS API endpoint (DAS_URL): `searchAssets`, which is JSON-RPC with
 * named parameters, sent by the same client as the chain's methods (src/chain/rpc.ts): the same
 * per-attempt timeout, retries, deadline and 503 on failure.
 *
 * What counts (docs/solana-wire-format.md, "Collections"): an item whose `compression.compressed`
 * is true (uncompressed assets were counted from the chain itself), whose `ownership.owner` is the
 * wallet, that is not `burnt`, and whose `grouping` lists the collection. The last check matters:
 * the reference DAS implementation (metaplex-foundation/digital-asset-rpc-infrastructure) matches
 * the `grouping` search parameter whether or not the collection is verified, but lists only
 * verified collections in an item's `grouping` unless asked to show unverified ones (which the gate
 * never asks). For `creators`, the first creator must be the address and verified.
 */
export const DAS_PAGE_LIMIT = 1000;
/**
 * `tokenType` of every search: only compressed NFTs count here (the others were counted from the
 * chain). Some DAS providers require the parameter (Helius and Alchemy document `searchAssets`
 * with `tokenType` one of fungible, nonFungible, regularNft, compressedNft, all; the reference
 * implementation reads the same names); `compressedNft` also keeps pages free of what the gate would
 * skip. Pages are numbered from 1, at most DAS_PAGE_LIMIT (the documented maximum) items each, and
 * at most DAS_MAX_PAGES of them per listed collection or creator.
 */
export const DAS_TOKEN_TYPE = 'compressedNft';

export type DasQuery = { collection: string } | { firstCreator: string };

export interface DasSearch {
  /** Ids of the compressed NFTs that count, across pages. */
  found: Set<string>;
  /** False when DAS_MAX_PAGES full pages were read and more may follow. */
  complete: boolean;
}

const clients = new WeakMap<Config, RpcClient>();

/** One client per configuration (the gate has one): its endpoint state lives as long as the gate. */
function clientFor(config: Config): RpcClient {
  let client = clients.get(config);
  if (client === undefined) {
    if (config.dasUrl === undefined) throw new TypeError('DAS_URL is not set');
    client = new RpcClient({ rpcUrls: [config.dasUrl], rpcConcurrency: config.rpcConcurrency, rpcTimeoutMs: config.rpcTimeoutMs, rpcRetries: config.rpcRetries });
    clients.set(config, client);
  }
  return client;
}

/**
 * Pages of `searchAssets` for the wallet and `query` until a short page, until `enough` ids are
 * found (across this and earlier searches: `found` is shared), or until DAS_MAX_PAGES pages.
 * Rejects with 503 when DAS cannot be read; checks `signal` before every page.
 */
export async function searchCompressed(
  config: Config,
  wallet: string,
  query: DasQuery,
  options: { found: Set<string>; enough: number; deadlineMs: number; signal?: AbortSignal | undefined },
): Promise<DasSearch> {
  const client = clientFor(config);
  const { found, enough, deadlineMs, signal } = options;
  const filter = 'collection' in query ? { grouping: ['collection', query.collection] } : { creatorAddress: query.firstCreator, creatorVerified: true };
  const counts = 'collection' in query ? inCollection(query.collection) : byFirstCreator(query.firstCreator);
  for (let page = 1; page <= config.dasMaxPages; page++) {
    signal?.throwIfAborted();
    const params = { ownerAddress: wallet, tokenType: DAS_TOKEN_TYPE, ...filter, burnt: false, page, limit: DAS_PAGE_LIMIT };
    const items = await client.call('searchAssets', params, parseItems, deadlineMs);
    for (const item of items) {
      if (isCompressedNftOf(item, wallet) && counts(item)) found.add(item.id as string);
    }
    if (found.size >= enough || items.length < DAS_PAGE_LIMIT) return { found, complete: true };
  }
  return { found, complete: false };
}

type Item = Record<string, unknown>;

function parseItems(result: unknown): Item[] {
  if (!isObject(result) || !Array.isArray(result.items)) throw malformed('searchAssets', 'expected an object with items');
  if (result.items.length > DAS_PAGE_LIMIT) throw malformed('searchAssets', `more than ${DAS_PAGE_LIMIT} items in a page`);
  for (const item of result.items) {
    if (!isObject(item) || !looksLikeAddress(item.id)) throw malformed('searchAssets', 'an item without an asset id');
  }
  return result.items as Item[];
}

function isCompressedNftOf(item: Item, wallet: string): boolean {
  const { compression, ownership } = item;
  return item.burnt !== true && isObject(compression) && compression.compressed === true && isObject(ownership) && ownership.owner === wallet;
}

function inCollection(collection: string): (item: Item) => boolean {
  return (item) =>
    Array.isArray(item.grouping) &&
    item.grouping.some((group: unknown) => isObject(group) && group.group_key === 'collection' && group.group_value === collection && group.verified !== false);
}

function byFirstCreator(creator: string): (item: Item) => boolean {
  return (item) => {
    const first: unknown = Array.isArray(item.creators) ? item.creators[0] : undefined;
    return isObject(first) && first.address === creator && first.verified === true;
  };
}

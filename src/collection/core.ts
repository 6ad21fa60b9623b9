import bs58 from 'bs58';
import { addressBytes } from '../chain/address.js';
import type { ChainReader, DataSlice, KeyedAccount, ProgramAccountsFilter } from '../chain/types.js';
import { upstreamUnavailable } from '../errors.js';

/**
 * Metaplex Core assets (docs/solana-wire-format.md, "Collections"). An AssetV1 account starts
 * key u8 = 1 (AssetV1), owner at 1..33, then the update authority, a Borsh enum: 0 None,
 * 1 Address(pubkey), 2 Collection(pubkey) — so a member of collection X has 2 at byte 33 and X at
 * 34..66 (programs/mpl-core/src/state/asset.rs, update_authority.rs). Core sets Collection(X) only
 * when X's update authority (or its delegate) signs the create or the update, so it is verified by
 * construction. A burnt asset is closed to a 1-byte Uninitialized account and no longer matches.
 */
export const CORE_PROGRAM_ID = 'CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d';

const KEY_ASSET_V1 = 1;
const UPDATE_AUTHORITY_COLLECTION = 2;
/** key + owner + update-authority tag + collection. */
export const CORE_HEAD_SIZE = 66;
/**
 * The 66 bytes the filters match come back with each asset (not `{0, 0}`): the gate checks them
 * itself, so a wrong answer from the RPC cannot count someone else's asset (about 90 bytes of
 * base64 per asset).
 */
const HEAD_SLICE: DataSlice = { offset: 0, length: CORE_HEAD_SIZE };

/** Two memcmp filters: [AssetV1, owner] at 0, [Collection, collection] at 33. */
export function coreAssetFilters(owner: string, collection: string): ProgramAccountsFilter[] {
  return [
    { memcmp: { offset: 0, bytes: bs58.encode(Buffer.concat([Buffer.of(KEY_ASSET_V1), addressBytes(owner)])) } },
    { memcmp: { offset: 33, bytes: bs58.encode(Buffer.concat([Buffer.of(UPDATE_AUTHORITY_COLLECTION), addressBytes(collection)])) } },
  ];
}

/** Whether the first 66 bytes of an account are an AssetV1 of `owner` in `collection`. */
export function isCoreAssetOf(head: Buffer, owner: Buffer, collection: Buffer): boolean {
  return (
    head.length >= CORE_HEAD_SIZE &&
    head[0] === KEY_ASSET_V1 &&
    head.subarray(1, 33).equals(owner) &&
    head[33] === UPDATE_AUTHORITY_COLLECTION &&
    head.subarray(34, 66).equals(collection)
  );
}

/**
 * The filters of a scan of every asset of `collection`, whoever owns it: [AssetV1] at 0 and
 * [Collection, collection] at 33. Naming no wallet, its answer serves every login that checks the
 * collection (src/chain/shared-scans.ts).
 */
export function coreCollectionFilters(collection: string): ProgramAccountsFilter[] {
  return [
    { memcmp: { offset: 0, bytes: bs58.encode(Buffer.of(KEY_ASSET_V1)) } },
    { memcmp: { offset: 33, bytes: bs58.encode(Buffer.concat([Buffer.of(UPDATE_AUTHORITY_COLLECTION), addressBytes(collection)])) } },
  ];
}

/**
 * The wallet's Core assets in `collection`: one getProgramAccounts scan. With `shared` (the
 * default while PROGRAM_SCAN_SHARE_MS > 0) the scan lists the whole collection and is shared by
 * every login checking it within the window; the wallet's assets are picked from it here.
 * Without, the scan names the wallet too (coreAssetFilters) and serves this wallet only. Either
 * way every account in the answer must be an AssetV1 of the collection (and, unshared, of the
 * wallet): the reader checks the filters on the 66 bytes in the reply (a malformed reply, asked of
 * the next endpoint, then a 503), and this reads nothing else, never silently skipping one.
 *
 * The trade: an unshared scan answers a few assets but costs a node a scan of every Core account
 * per login; a shared one answers ~310 bytes of JSON per asset of the collection, once per window.
 */
export async function coreAssetsOf(chain: ChainReader, owner: string, collection: string, shared = false): Promise<string[]> {
  const filters = shared ? coreCollectionFilters(collection) : coreAssetFilters(owner, collection);
  const accounts: KeyedAccount[] = await chain.getProgramAccounts(CORE_PROGRAM_ID, { filters, dataSlice: HEAD_SLICE, shared });
  const ownerBytes = addressBytes(owner);
  const collectionBytes = addressBytes(collection);
  const owned: string[] = [];
  for (const { pubkey, account } of accounts) {
    const head = account.data;
    if (!isCoreAssetOf(head, head.subarray(1, 33), collectionBytes)) {
      throw upstreamUnavailable('getProgramAccounts: a Core asset in the answer does not match the filters');
    }
    if (head.subarray(1, 33).equals(ownerBytes)) owned.push(pubkey);
    else if (!shared) throw upstreamUnavailable('getProgramAccounts: a Core asset in the answer does not match the filters');
  }
  return owned;
}

/**
 * Whether to start the shared scans of `collections` before the login knows it needs them
 * (src/features/collection.ts). Not while one of them failed within the last window: behind a
 * provider that refuses or throttles getProgramAccounts, a prefetch would add a refused scan to every
 * login, even the ones Token Metadata already decides. A login that needs the scan still sends it.
 */
export function prefetchCoreScans(collections: readonly string[], windowMs: number, now = performance.now()): boolean {
  for (const collection of collections) {
    const at = failedScans.get(collection);
    if (at !== undefined && now - at <= windowMs) return false;
  }
  return true;
}

/** A prefetched scan of these collections failed (its answer is never kept: shared-scans.ts). */
export function noteCoreScanFailure(collections: readonly string[], now = performance.now()): void {
  if (failedScans.size >= FAILED_SCANS_KEPT) failedScans.clear();
  for (const collection of collections) failedScans.set(collection, now);
}

/** Collections whose prefetch failed lately; a launch lists a handful, so the bound only stops growth. */
const FAILED_SCANS_KEPT = 1024;
const failedScans = new Map<string, number>();

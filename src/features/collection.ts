import { coreAssetsOf, noteCoreScanFailure, prefetchCoreScans } from '../collection/core.js';
import { searchCompressed, type DasQuery } from '../collection/das.js';
import { countTokenNfts } from '../collection/token-nfts.js';
import { MAX_COLLECTIONS, MAX_CREATORS, MAX_MIN_COUNT } from '../contract/features.js';
import { GateError, invalidHeader } from '../errors.js';
import { defineFeature, type FeatureContext, type FeatureResults } from './types.js';

/**
 * collection (docs/collection.md): the wallet holds at least `min_count` NFTs whose collection is
 * verified and listed in `collections` (or whose verified first creator is listed in `creators`),
 * across the NFT standards in use: Token Metadata NFTs, editions and programmable NFTs, Token-2022
 * group members, Metaplex Core assets, and compressed NFTs through a DAS endpoint (DAS_URL).
 *
 * Stages, cheapest first, stopping once `min_count` is reached: (a) the wallet's token accounts
 * (shared with the other checks of the login) and one getMultipleAccounts round; (b) one Core
 * getProgramAccounts scan per listed collection (shared across logins, and then started beside
 * (a): src/collection/core.ts); (c) DAS searchAssets pages. Anything that cannot
 * be read is a 503; a bound that stops the count before an answer is a 500 COLLECTION_LIMIT naming
 * the setting: never a guess.
 */
export interface CollectionParams {
  collections: string[];
  creators: string[];
  minCount: number;
}

export { MAX_COLLECTIONS, MAX_CREATORS, MAX_MIN_COUNT };
export type Standard = 'token-metadata' | 'token-2022' | 'core' | 'das';

export const collectionFeature = defineFeature('collection', {
  cost: 'accounts',
  params(values): CollectionParams {
    const collections = [...new Set(values.collections ?? [])];
    const creators = [...new Set(values.creators ?? [])];
    if (collections.length === 0 && creators.length === 0) {
      throw invalidHeader(values.collections === undefined ? 'creators' : 'collections', 'collections and creators list no address between them; at least one is needed');
    }
    return { collections, creators, minCount: values.min_count };
  },

  readsTokenAccounts: () => true,

  async check(wallet, params, context) {
    return new CollectionCount(wallet, params, context).run();
  },
});

/** One check: what was counted per standard, which standards were read, which bounds cut it short. */
class CollectionCount {
  private readonly byStandard: Partial<Record<Standard, number>> = {};
  private readonly limits: { setting: string; bound: number; what: string }[] = [];
  private found = 0;

  constructor(
    private readonly wallet: string,
    private readonly params: CollectionParams,
    private readonly context: FeatureContext,
  ) {}

  async run(): Promise<FeatureResults> {
    const { chain, holdings, config, signal } = this.context;
    const { collections, creators, minCount } = this.params;

    // Shared Core scans (PROGRAM_SCAN_SHARE_MS > 0) start beside the token accounts: one scan per
    // collection per window serves every login, so starting it early costs nothing per login, and a
    // login that has read nothing yet can take a scan another login sent (src/chain/shared-scans.ts).
    // Not for a window after one failed (prefetchCoreScans); then only a login that needs it scans.
    const shared = config.programScanShareMs > 0;
    const early = shared && collections.length > 0 && prefetchCoreScans(collections, config.programScanShareMs) ? this.coreAssets(true) : undefined;
    early?.catch(() => noteCoreScanFailure(collections));
    const tokens = await countTokenNfts(chain, await holdings.tokenAccounts(), { collections: new Set(collections), creators: new Set(creators) }, config.collectionMaxNfts);
    this.add('token-metadata', tokens.tokenMetadata.size);
    this.add('token-2022', tokens.token2022.size);
    if (tokens.unexamined > 0) {
      this.limits.push({ setting: 'COLLECTION_MAX_NFTS', bound: config.collectionMaxNfts, what: `${tokens.unexamined} more NFTs held than were examined` });
    }
    if (this.found >= minCount) return this.success();

    // Core collections are update authorities; `creators` has no verified-first-creator equivalent there (docs/collection.md).
    if (collections.length > 0) {
      signal?.throwIfAborted();
      const assets = await (early ?? this.coreAssets(shared));
      this.add('core', assets.size);
      if (this.found >= minCount) return this.success();
    }

    if (config.dasUrl !== undefined) {
      signal?.throwIfAborted();
      await this.countCompressed();
      if (this.found >= minCount) return this.success();
    }
    throw this.failure();
  }

  /** The wallet's Core assets over the listed collections (a set: an asset is counted once). */
  private async coreAssets(shared: boolean): Promise<Set<string>> {
    const { chain } = this.context;
    const assets = await Promise.all(this.params.collections.map((collection) => coreAssetsOf(chain, this.wallet, collection, shared)));
    return new Set(assets.flat());
  }

  /** Listed collections first, then creators, sharing one set so an NFT found twice counts once. */
  private async countCompressed(): Promise<void> {
    const { config, signal, deadlineMs } = this.context;
    const queries: DasQuery[] = [...this.params.collections.map((collection) => ({ collection })), ...this.params.creators.map((firstCreator) => ({ firstCreator }))];
    const found = new Set<string>();
    const before = this.found;
    for (const query of queries) {
      const search = await searchCompressed(config, this.wallet, query, { found, enough: this.params.minCount - before, deadlineMs: deadlineMs ?? Infinity, signal });
      if (!search.complete) {
        const what = 'collection' in query ? `collection ${query.collection}` : `creator ${query.firstCreator}`;
        this.limits.push({ setting: 'DAS_MAX_PAGES', bound: config.dasMaxPages, what: `more compressed NFTs of ${what} than ${config.dasMaxPages} pages hold` });
      }
      if (before + found.size >= this.params.minCount) break;
    }
    this.add('das', found.size);
  }

  private add(standard: Standard, count: number): void {
    this.byStandard[standard] = count;
    this.found += count;
  }

  private standardsChecked(): Standard[] {
    return Object.keys(this.byStandard) as Standard[];
  }

  private success(): FeatureResults {
    return { collectionNfts: this.found, standardsChecked: this.standardsChecked() };
  }

  private failure(): GateError {
    const required = this.params.minCount;
    const counts = Object.entries(this.byStandard).map(([standard, count]) => `${standard} ${count}`).join(', ');
    const extra = { required, found: this.found, byStandard: this.byStandard, standardsChecked: this.standardsChecked() };
    const limit = this.limits[0];
    if (limit !== undefined) {
      return new GateError(
        500,
        'COLLECTION_LIMIT',
        `The collection check could not be decided: ${this.found} of ${required} NFTs found, and ${limit.what} (${limit.setting} is ${limit.bound}). ` +
          `No token was issued; the operator can raise ${limit.setting}.`,
        { extra: { ...extra, setting: limit.setting, bound: limit.bound } },
      );
    }
    return new GateError(500, 'MISSING_COLLECTION_NFT', `Wallet holds ${this.found} NFTs of the listed collections or creators, ${required} required (${counts})`, { extra });
  }
}

/**
 * Methods that providers limit together. A batch cap (RPC_BATCH_CAPS, or one an endpoint taught the
 * client by refusing an array) names a class or a single method; the classes follow how providers
 * document their limits: archival reads capped per batch ("10 history calls per batch"), reads
 * served from secondary indexes counted apart, the DAS API served beside the RPC.
 *
 * The local chain keeps a list of its own (packages/localnet/src/provider-profile.ts): it plays the provider,
 * and a provider groups methods as it documents, not as this client assumes — sharing one list would
 * let the tests pass on whatever grouping the client happens to make.
 */
export const METHOD_CLASSES = {
  history: ['getSignaturesForAddress', 'getTransaction', 'getBlock', 'getBlocks', 'getBlocksWithLimit', 'getBlockTime', 'getFirstAvailableBlock'],
  index: ['getProgramAccounts', 'getTokenAccountsByOwner', 'getTokenAccountsByDelegate', 'getTokenLargestAccounts'],
  das: ['searchAssets', 'getAsset', 'getAssetBatch', 'getAssetsByOwner', 'getAssetsByGroup', 'getAssetsByCreator'],
} as const satisfies Record<string, readonly string[]>;

export type MethodClass = keyof typeof METHOD_CLASSES | 'other';
export const CLASS_NAMES: readonly MethodClass[] = ['history', 'index', 'das', 'other'];

const CLASS_OF = new Map<string, MethodClass>();
for (const [name, methods] of Object.entries(METHOD_CLASSES)) for (const method of methods) CLASS_OF.set(method, name as MethodClass);

/** The class `method` is limited with; `other` for everything not listed (getMultipleAccounts among them). */
export function classOf(method: string): MethodClass {
  return CLASS_OF.get(method) ?? 'other';
}

export function isMethodClass(name: string): name is MethodClass {
  return (CLASS_NAMES as readonly string[]).includes(name);
}

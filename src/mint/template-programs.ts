import { decodeBase58 } from '../lib/base58.js';

/**
 * The programs a mint template names, as base58 and as bytes. Browser-safe (the SDK builds the
 * templates' transactions with them). Ids from the programs' own repositories (solana-program/token,
 * token-2022, associated-token-account, compute-budget; metaplex-foundation/mpl-candy-machine and
 * mpl-core-candy-machine), checked against the official npm clients in the tests.
 */
export const PROGRAM_IDS = {
  system: '11111111111111111111111111111111',
  computeBudget: 'ComputeBudget111111111111111111111111111111',
  token: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
  token2022: 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb',
  associatedToken: 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL',
  /** Candy Guard (Candy Machine v3's guard program): mintV2. */
  candyGuard: 'Guard1JwRhJkVH6XZhzoYxeBVQe872VH6QggF4BWmS9g',
  /** Candy Machine Core (v3). */
  candyMachineCore: 'CndyV3LdqHUfDLmE5naZjVN8rBZz4tqhdefbAnjHG3JR',
  /** Core Candy Guard (Metaplex Core's): mintV1. */
  coreCandyGuard: 'CMAGAKJ67e9hRZgfC5SFTbZH8MgEmtqazKXjmkaJjWTJ',
  /** Core Candy Machine. */
  coreCandyMachine: 'CMACYFENjoBMHzapRXyo1JZkVS6EtaDDzkjMrmQLvr4J',
  /** The loaders: an allowed program can never be one of them (allow_programs). */
  bpfLoaderUpgradeable: 'BPFLoaderUpgradeab1e11111111111111111111111',
  bpfLoader: 'BPFLoader2111111111111111111111111111111111',
  loaderV4: 'LoaderV411111111111111111111111111111111111',
} as const;

export function addressToBytes(address: string): Uint8Array {
  const bytes = decodeBase58(address);
  if (bytes?.length !== 32) throw new TypeError(`not an address: ${address.slice(0, 60)}`);
  return bytes;
}

export const PROGRAM_BYTES = Object.fromEntries(Object.entries(PROGRAM_IDS).map(([name, id]) => [name, addressToBytes(id)])) as Record<keyof typeof PROGRAM_IDS, Uint8Array>;

import type { Feature } from '../../../dist/src/sdk/index.js';

/**
 * /watch/demo.json as the page reads it (written by packages/devpage/src/demo.ts demoCatalogue() and
 * packages/devpage/src/routes.ts). Browser-side: type only.
 */
export interface DemoWallet {
  name: string;
  about: string;
  publicKey: string;
  secretKey: number[];
}

export interface Catalogue {
  wallets: DemoWallet[];
  policies: Record<Feature, Record<string, unknown>>;
  tries: Record<Feature, { passes: string; fails: string[] }>;
  /** The demo launch's co-signed mints (POLICIES_FILE "mints" of `npm run dev`) and the wallets to try with their rule. */
  mints: { names: string[]; tries: { passes: string; fails: string[] } };
  labels: Record<string, string>;
  rpcUrl: string;
  recordsChainReads: boolean;
  /** The embedded local chain's JSON-RPC URL, which the page itself calls (a blockhash, statuses); absent for another RPC. */
  chainUrl?: string;
}

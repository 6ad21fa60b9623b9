/**
 * x404-localnet: a Solana JSON-RPC server on this machine, with demo state, providers' limits and
 * faults (docs/local-chain.md). The gate never imports it; its tests, bench and development page
 * do. Subpaths (`x404-localnet/fixture.js`, …) reach the rest.
 */
export { startLocalnet, type LocalnetHandle, type LocalnetOptions } from './server.js';
export { buildDemoState, demoAddress, demoMint, demoWallet, DEMO_MINTS, DEMO_WALLETS, type DemoMintName, type DemoWallet, type DemoWalletName } from './fixture.js';
export { ChainState } from './state.js';
export { CLUSTER_LIKE, DEFAULT_CLUSTER, type ClusterSettings } from './cluster.js';

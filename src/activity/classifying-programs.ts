/**
 * Mainnet program ids that classify a transaction for the activity feature (docs/api.md §5). Each id
 * was checked against public sources (program repositories, SDK constants, explorers' labels) and
 * decodes to 32 bytes (test/unit/features-activity.test.ts checks the decoding).
 *
 * A transaction is a `swap` when any of its instructions (top-level or inner) calls a program in
 * SWAP_PROGRAMS, an `nft` transaction when one calls a program in NFT_PROGRAMS, and a `stake`
 * transaction when one calls the Stake program. Transfers are recognised by instruction, see
 * classify.ts.
 */
export const SYSTEM_PROGRAM = '11111111111111111111111111111111';
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const STAKE_PROGRAM = 'Stake11111111111111111111111111111111111111';

/** DEXes and aggregators: a swap goes through one of these, directly or through an aggregator's CPI. */
export const SWAP_PROGRAMS: ReadonlyMap<string, string> = new Map([
  ['JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4', 'Jupiter Aggregator v6'],
  ['JUP4Fb2cqiRUcaTHdrPC8h2gNsA2ETXiPDD33WcGuJB', 'Jupiter Aggregator v4'],
  ['675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8', 'Raydium AMM v4'],
  ['CAMMCzo5YL8w4VFF8KVHrK22GGUsp5VTaW7grrKgrWqK', 'Raydium CLMM'],
  ['CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C', 'Raydium CPMM'],
  ['routeUGWgWzqBWFcrCfv8tritsqukccJPu3q5GPP3xS', 'Raydium AMM Routing'],
  ['whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc', 'Orca Whirlpool'],
  ['9W959DqEETiGZocYWCQPaJ6sBmUzgfxXfqGeTEdp3aQP', 'Orca Token Swap v2'],
  ['LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo', 'Meteora DLMM'],
  ['Eo7WjKq67rjJQSZxS6z3YkapzY3eMj6Xy8X5EQVn5UaB', 'Meteora Dynamic AMM'],
  ['PhoeNiXZ8ByJGLkxNfZRnkUfjvmuYqLR89jjFHGqdXY', 'Phoenix'],
  ['opnb2LAfJYbRMAHHvqjCwQxanZn7ReEHp1k81EohpZb', 'OpenBook v2'],
  ['srmqPvymJeFKQ4zGQed1GFppgkRHL9kaELCbyksJtPX', 'OpenBook v1 (Serum fork)'],
  ['2wT8Yq49kHgDzXuPxZSaeLaH1qbmGXtEyPy64bL7aD3c', 'Lifinity v2'],
  ['EewxydAPCCVuNEyrVN68PuSYdQ7wKn27V9Gjeoi8dy3S', 'Lifinity v1'],
  ['6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P', 'Pump.fun bonding curve'],
]);

/** Metaplex programs: minting, updating, trading or burning NFTs and compressed NFTs. */
export const NFT_PROGRAMS: ReadonlyMap<string, string> = new Map([
  ['metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s', 'Metaplex Token Metadata'],
  ['BGUMAp9Gq7iTEuizy4pqaxsTyUCBK68MDfK752saRPUY', 'Metaplex Bubblegum (compressed NFTs)'],
  ['CndyV3LdqHUfDLmE5naZjVN8rBZz4tqhdefbAnjHG3JR', 'Metaplex Candy Machine v3 (Core)'],
  ['Guard1JwRhJkVH6XZhzoYxeBVQe872VH6QggF4BWmS9g', 'Metaplex Candy Guard'],
  ['cndy3Z4yapfJBmL3ShUp5exZKqR3z33thTzeNMm2gRZ', 'Metaplex Candy Machine v2'],
  ['CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d', 'Metaplex Core'],
  ['hausS13jsjafwWwGqZTUQRmWyvyxn9EQpqMwV1PBBmk', 'Metaplex Auction House'],
]);

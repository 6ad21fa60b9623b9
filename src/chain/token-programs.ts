/** Program ids the chain layer reads (docs/solana-wire-format.md). */
export const TOKEN_PROGRAM_ID = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM_ID = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const ASSOCIATED_TOKEN_PROGRAM_ID = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
/** Owner of every account no program has taken: a wallet, or lamports sent to an unused address. */
export const SYSTEM_PROGRAM_ID = '11111111111111111111111111111111';

/** Both token programs count toward holdings (docs/api.md §5). */
export const TOKEN_PROGRAM_IDS = [TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID] as const;

import { associatedTokenAddress } from '../../chain/ata.js';
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../../chain/programs.js';
import { TOKEN_ACCOUNT_SIZE } from '../../chain/token-account.js';
import type { ChainReader } from '../../chain/types.js';
import type { Config } from '../../config.js';

/**
 * The token accounts whose balances make up a wallet's holdings of a mint under HOLDINGS_SCOPE:
 * `ata` — its associated token accounts under both token programs (whether they exist now or
 * not: a closed ATA may have held the mint before); `all` — those plus every token account the
 * wallet owns for the mint today, found with getProgramAccounts (mint at 0, owner at 32).
 * Accounts that were closed before today and were not ATAs cannot be found and are not tracked.
 */
export async function holdingAccounts(chain: ChainReader, config: Config, wallet: string, mint: string): Promise<Set<string>> {
  const accounts = new Set([TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID].map((program) => associatedTokenAddress(wallet, mint, program)));
  if (config.holdingsScope === 'all') {
    const byMintAndOwner = [
      { memcmp: { offset: 0, bytes: mint } },
      { memcmp: { offset: 32, bytes: wallet } },
    ];
    const [classic, token2022] = await Promise.all([
      chain.getProgramAccounts(TOKEN_PROGRAM_ID, { filters: [{ dataSize: TOKEN_ACCOUNT_SIZE }, ...byMintAndOwner], dataSlice: { offset: 0, length: 0 } }),
      chain.getProgramAccounts(TOKEN_2022_PROGRAM_ID, { filters: byMintAndOwner, dataSlice: { offset: 0, length: 0 } }),
    ]);
    for (const { pubkey } of [...classic, ...token2022]) accounts.add(pubkey);
  }
  return accounts;
}

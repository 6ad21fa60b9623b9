import type { LocalnetChild } from './processes.js';
import type { BenchWallet } from './wallets.js';

/**
 * The chain state behind the blacklist scenarios: two mints in the policy (one excluded, one
 * capped). Half the wallets hold some of the capped mint (under the cap) and a third hold an empty
 * account of the excluded one, so the gate reads and checks real accounts and every login passes.
 */
export const CAPPED_AMOUNT = '1000000';
const HELD_AMOUNT = '250000';

export async function setUpChain(localnet: LocalnetChild, wallets: BenchWallet[]): Promise<Record<string, string>> {
  const excludedMint = (await localnet.admin('mint', { decimals: 6, program: 'token' })).address as string;
  const cappedMint = (await localnet.admin('mint', { decimals: 9, program: 'token2022' })).address as string;
  const accounts: Record<string, unknown>[] = [];
  wallets.forEach((wallet, i) => {
    if (i % 2 === 0) accounts.push({ owner: wallet.address, mint: cappedMint, amount: HELD_AMOUNT, program: 'token2022' });
    if (i % 3 === 0) accounts.push({ owner: wallet.address, mint: excludedMint, amount: '0', program: 'token' });
  });
  for (let start = 0; start < accounts.length; start += 32) {
    await Promise.all(accounts.slice(start, start + 32).map((account) => localnet.admin('token-account', account)));
  }
  return {
    excluded_mints: JSON.stringify([excludedMint]),
    max_holdings: JSON.stringify({ [cappedMint]: CAPPED_AMOUNT }),
    geo_code: 'false',
    geo_code_locs: '',
  };
}

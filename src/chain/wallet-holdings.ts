import { associatedTokenAddress } from './ata.js';
import { sumBalances } from './holdings.js';
import type { ChainReader, OwnedTokenAccount } from './types.js';

/**
 * One login's view of the wallet's tokens, shared by every check of that login (one feature, or
 * every leaf of a rule): each thing is read once, and what the checks will need is read together.
 *
 * The plan says, before any check runs, which mints' balances will be asked for and whether any
 * check needs the wallet's whole list of token accounts. Then:
 * - without the list, the first balances() call reads the balances of every planned mint in one
 *   ChainReader.getTokenBalances call (the ATA path: one getMultipleAccounts round for the ATAs, one
 *   more for mints whose token program is not known yet), and later calls are answered from it;
 * - with the list (a leaf needs it, e.g. collection), balances come from that same list and no ATA
 *   is read at all. Under HOLDINGS_SCOPE=ata only the wallet's associated token accounts count, as
 *   on the ATA path, so a balance never depends on which other checks ran beside it.
 * A mint outside the plan still works (it is read on its own); the plan only saves round trips.
 */
export interface WalletHoldings {
  /** Summed balance of each mint (base units), as ChainReader.getTokenBalances; 0n when none is held. */
  balances(mints: readonly string[]): Promise<Map<string, bigint>>;
  /** Every token account the wallet owns under both programs (ChainReader.getTokenAccounts), read once. */
  tokenAccounts(): Promise<readonly OwnedTokenAccount[]>;
  /**
   * Starts the planned balances' read now, when it is the ATA path (a few keys in a shared
   * getMultipleAccounts): a login calls it before the signature is verified, so it waits for the
   * longer of the two instead of their sum. Never starts the token-account list (a scan). A
   * failure is kept for the first balances() call; nothing is reported if none comes.
   */
  prefetch(): void;
}

export interface HoldingsPlan {
  /** Every mint whose balance a check of this login may ask for. */
  mints: readonly string[];
  /** Whether a check needs the wallet's whole list of token accounts. */
  tokenAccounts: boolean;
}

export function walletHoldings(chain: ChainReader, wallet: string, plan: HoldingsPlan, scope: 'ata' | 'all'): WalletHoldings {
  let accounts: Promise<OwnedTokenAccount[]> | undefined;
  const tokenAccounts = (): Promise<OwnedTokenAccount[]> => (accounts ??= chain.getTokenAccounts(wallet));
  const fromList = plan.tokenAccounts || scope === 'all';

  let planned: Promise<Map<string, bigint>> | undefined;
  let plannedMints: Set<string> | undefined;
  const allPlanned = (): Promise<Map<string, bigint>> => (planned ??= chain.getTokenBalances(wallet, [...(plannedMints ??= new Set(plan.mints))]));

  return {
    tokenAccounts,
    prefetch() {
      if (!fromList && plan.mints.length > 0) allPlanned().catch(() => {});
    },
    async balances(mints) {
      if (fromList) {
        const owned = await tokenAccounts();
        return scope === 'all' ? sumBalances(owned, mints) : sumBalances(owned, mints, (account) => isAssociated(account, wallet));
      }
      // A feature asking for exactly what it planned (the same list) needs no set to check it.
      const inPlan = mints === plan.mints || mints.every((mint) => (plannedMints ??= new Set(plan.mints)).has(mint));
      if (!inPlan) return chain.getTokenBalances(wallet, mints);
      const all = await allPlanned();
      if (mints.length === all.size) return all;
      return new Map(mints.map((mint) => [mint, all.get(mint) ?? 0n]));
    },
  };
}

/** The account is the wallet's associated token account of its mint under its own program. */
function isAssociated(account: OwnedTokenAccount, wallet: string): boolean {
  return associatedTokenAddress(wallet, account.mint, account.program) === account.address;
}

import { associatedTokenAddress } from './ata.js';
import { sumBalances } from './holdings.js';
import { TOKEN_PROGRAM_IDS } from './token-programs.js';
import type { ChainReader, OwnedTokenAccount } from './types.js';

/**
 * One login's view of the wallet's tokens, shared by every check of that login (one feature, or
 * every leaf of a rule): each thing is read once, what the checks will need is read together, and
 * a mint has ONE balance per login, whichever check asks for it.
 *
 * Where a mint's balance comes from (the plan says, before any check runs):
 * - every token account the wallet owns, when a check that still matters needs that: a deny
 *   condition (blacklist, any holdings leaf under a `not`) under scope `all` — the default, since a
 *   holder can move a banned token into any account it owns — a policy that says `"scope": "all"`,
 *   or a check that reads the wallet's whole list (collection). Read with getTokenAccountsByOwner:
 *   by mint, one call per mint, while there are at most LIST_BY_MINT_UP_TO such mints; by program
 *   (the whole list, two calls) beyond that or when a check needs the list anyway, and then every
 *   mint of the login is counted from it;
 * - otherwise its associated token account (one shared getMultipleAccounts round): positive
 *   conditions (tier, multitoken, timelock's balance), and deny conditions a policy opted out of
 *   with `"scope": "ata"` (HOLDINGS_SCOPE=ata) — bypassable, an operator's explicit choice.
 * Counting more accounts can only raise a balance, so a positive check that meets its figure from
 * the wallet's ATAs meets it from the whole list too; what never happens is two checks of one login
 * seeing two balances of one mint (the spirit of the old rule "a balance never depends on which
 * other checks ran beside it": within a login it does not).
 *
 * A list is never read before the signature verified (prefetch() starts only the ATA read): its
 * reply grows with the wallet, which the caller chose.
 */
export interface WalletHoldings {
  /** Summed balance of each mint (base units), counted as the plan says; 0n when none is held. */
  balances(mints: readonly string[]): Promise<Map<string, bigint>>;
  /** Every token account the wallet owns under both programs (ChainReader.getTokenAccounts), read once. */
  tokenAccounts(): Promise<readonly OwnedTokenAccount[]>;
  /** The wallet's own SOL, in lamports; read with its ATAs when the plan names it (HoldingsPlan.walletAccount). */
  lamports(): Promise<bigint>;
  /**
   * The accounts whose balances make up `mint`'s balance (timelock rewinds their history): the
   * wallet's associated token accounts under both programs — whether they exist now or not, a
   * closed ATA may have held the mint before — plus, when the mint counts every account, each
   * account it owns that holds the mint now, with `amounts` (what each of those holds now; an
   * address not in it holds 0). `amounts` is undefined when the balance came from the ATAs.
   */
  countedAccounts(mint: string): Promise<{ addresses: Set<string>; amounts: Map<string, bigint> | undefined }>;
  /**
   * Starts the planned ATA balances' read now (a few keys in a shared getMultipleAccounts): a
   * login calls it before the signature is verified, so it waits for the longer of the two instead
   * of their sum. Never starts a token-account list. A failure is kept for the first balances()
   * call; nothing is reported if none comes.
   */
  prefetch(): void;
}

export type HoldingsScope = 'all' | 'ata';

export interface HoldingsPlan {
  /** Every mint whose balance a check of this login may ask for. */
  mints: readonly string[];
  /** Of those, the mints whose balance must count every token account the wallet owns. */
  everyAccountMints: readonly string[];
  /** Whether a check needs the wallet's whole list of token accounts. */
  tokenAccounts: boolean;
  /** Whether a check reads the wallet's own account (its SOL): one more key of the ATAs' read. */
  walletAccount?: boolean;
}

/**
 * Up to this many mints that must count every account are read one getTokenAccountsByOwner call
 * per mint; beyond it, the wallet's whole list (two calls, both programs). Measured against the
 * local chain (docs/performance.md, "Holdings: every account or the ATAs"): by mint costs ~100
 * bytes of reply per mint the wallet does not hold and ~420 per account it does; the whole list
 * costs ~420 bytes per account the wallet owns, whatever the policy names — 2 calls and a few KB
 * for a typical wallet, hundreds of KB for a wallet with hundreds of accounts, all of it JSON the
 * event loop parses. Two mints by mint never cost more calls than the list.
 */
export const LIST_BY_MINT_UP_TO = 2;

const NO_MINTS: readonly string[] = [];

/** What a plan means for the reads, worked out once per plan (a feature's plan serves every login of its policy). */
interface Reads {
  /** Every balance comes from the wallet's whole list. */
  wholeList: boolean;
  /** Mints whose every account is read by mint. */
  listedMints: ReadonlySet<string>;
  /** The planned mints counted from their ATAs. */
  ataMints: readonly string[];
  /** blacklist at its own path: every mint it plans is listed, so its balances() needs no split. */
  everyPlannedMintListed: boolean;
}

const readsOfPlan = new WeakMap<HoldingsPlan, Reads>();
function readsOf(plan: HoldingsPlan): Reads {
  let reads = readsOfPlan.get(plan);
  if (reads === undefined) {
    const wholeList = plan.tokenAccounts || plan.everyAccountMints.length > LIST_BY_MINT_UP_TO;
    const listedMints: ReadonlySet<string> = wholeList ? new Set() : new Set(plan.everyAccountMints);
    const ataMints = wholeList ? NO_MINTS : listedMints.size === 0 ? plan.mints : plan.mints.filter((mint) => !listedMints.has(mint));
    reads = { wholeList, listedMints, ataMints, everyPlannedMintListed: !wholeList && ataMints.length === 0 };
    readsOfPlan.set(plan, reads);
  }
  return reads;
}

/**
 * The planned mints whose balances come from their ATAs: the ATAs a login of this plan derives (in
 * the verify task, when its read is not started beside the signature). The others derive none.
 */
export const ataMintsOf = (plan: HoldingsPlan): readonly string[] => readsOf(plan).ataMints;

export function walletHoldings(chain: ChainReader, wallet: string, plan: HoldingsPlan): WalletHoldings {
  const { wholeList, listedMints, ataMints, everyPlannedMintListed } = readsOf(plan);

  let list: Promise<OwnedTokenAccount[]> | undefined;
  const tokenAccounts = (): Promise<OwnedTokenAccount[]> => (list ??= chain.getTokenAccounts(wallet));
  let mintLists: Promise<OwnedTokenAccount[]> | undefined;
  const accountsOfListedMints = (): Promise<OwnedTokenAccount[]> => (mintLists ??= chain.getTokenAccounts(wallet, plan.everyAccountMints));
  /** Where every account of `mint` is read from, if its balance counts them all. */
  const everyAccountSource = (mint: string): (() => Promise<OwnedTokenAccount[]>) | undefined =>
    wholeList ? tokenAccounts : listedMints.has(mint) ? accountsOfListedMints : undefined;

  let planned: Promise<Map<string, bigint>> | undefined;
  let plannedLamports: Promise<bigint> | undefined;
  let plannedAtaMints: Set<string> | undefined;
  const readPlanned = (): void => {
    if (plan.walletAccount !== true) {
      planned = chain.getTokenBalances(wallet, ataMints);
      return;
    }
    const both = chain.getWalletBalances(wallet, ataMints);
    planned = both.then(({ tokens }) => tokens);
    plannedLamports = both.then(({ lamports }) => lamports);
    plannedLamports.catch(() => {});
  };
  const allPlannedAtas = (): Promise<Map<string, bigint>> => {
    if (planned === undefined) readPlanned();
    return planned as Promise<Map<string, bigint>>;
  };
  const ataBalances = async (mints: readonly string[]): Promise<Map<string, bigint>> => {
    // A feature asking for exactly what it planned (the same list) needs no set to check it.
    const inPlan = mints === plan.mints || mints.every((mint) => (plannedAtaMints ??= new Set(ataMints)).has(mint));
    if (!inPlan) return chain.getTokenBalances(wallet, mints);
    const all = await allPlannedAtas();
    if (mints.length === all.size) return all;
    return new Map(mints.map((mint) => [mint, all.get(mint) ?? 0n]));
  };

  return {
    tokenAccounts,
    lamports() {
      if (plan.walletAccount === true) {
        if (planned === undefined) readPlanned();
        return plannedLamports as Promise<bigint>;
      }
      return chain.getWalletBalances(wallet, []).then(({ lamports }) => lamports);
    },
    prefetch() {
      if (ataMints.length > 0 || plan.walletAccount === true) allPlannedAtas().catch(() => {});
    },
    async balances(mints) {
      if (wholeList) return sumBalances(await tokenAccounts(), mints);
      if (listedMints.size === 0) return ataBalances(mints);
      if (mints === plan.mints && everyPlannedMintListed) return sumBalances(await accountsOfListedMints(), mints);
      const listed = mints.filter((mint) => listedMints.has(mint));
      if (listed.length === mints.length) return sumBalances(await accountsOfListedMints(), mints);
      const [fromLists, fromAtas] = await Promise.all([
        listed.length === 0 ? undefined : accountsOfListedMints(),
        ataBalances(mints.filter((mint) => !listedMints.has(mint))),
      ]);
      if (fromLists === undefined) return fromAtas;
      const listedBalances = sumBalances(fromLists, listed);
      return new Map(mints.map((mint) => [mint, listedBalances.get(mint) ?? fromAtas.get(mint) ?? 0n]));
    },
    async countedAccounts(mint) {
      const addresses = new Set(TOKEN_PROGRAM_IDS.map((program) => associatedTokenAddress(wallet, mint, program)));
      const source = everyAccountSource(mint);
      if (source === undefined) return { addresses, amounts: undefined };
      const amounts = new Map<string, bigint>();
      for (const account of await source()) {
        if (account.mint !== mint) continue;
        addresses.add(account.address);
        amounts.set(account.address, account.amount);
      }
      return { addresses, amounts };
    },
  };
}

import { describe, expect, it } from 'vitest';
import { associatedTokenAddress } from '../../src/chain/ata.js';
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../../src/chain/token-programs.js';
import type { ChainReader, OwnedTokenAccount } from '../../src/chain/types.js';
import { ataMintsOf, LIST_BY_MINT_UP_TO, walletHoldings, type HoldingsScope } from '../../src/chain/wallet-holdings.js';
import { blacklistFeature } from '../../src/features/blacklist.js';
import { collectionFeature } from '../../src/features/collection.js';
import { featureHoldingsPlan, holdingsPlan } from '../../src/features/holdings-plan.js';
import { multitokenFeature } from '../../src/features/multitoken.js';
import { tierFeature } from '../../src/features/tier.js';
import type { Feature } from '../../src/features/types.js';

/**
 * Which reads a login makes for its balances, and which accounts each balance counts
 * (src/chain/wallet-holdings.ts, src/features/lib/holdings-plan.ts), against a chain reader that
 * records the calls and answers from a fixed set of accounts: the wallet holds MINT_A in its ATA
 * (10) and in another account (5), MINT_B only in another account (7).
 */
const WALLET = 'GgPpTKg78vmzgDtP1DNn72CHAYjRdKY7AV6zgszoHCSa';
const MINT_A = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const MINT_B = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
const MINT_C = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const MINT_D = 'So11111111111111111111111111111111111111112';
const ataA = associatedTokenAddress(WALLET, MINT_A, TOKEN_PROGRAM_ID);
const OTHER_A = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const OTHER_B = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
const ACCOUNTS: OwnedTokenAccount[] = [
  { address: ataA, program: TOKEN_PROGRAM_ID, mint: MINT_A, amount: 10n, frozen: false },
  { address: OTHER_A, program: TOKEN_PROGRAM_ID, mint: MINT_A, amount: 5n, frozen: false },
  { address: OTHER_B, program: TOKEN_2022_PROGRAM_ID, mint: MINT_B, amount: 7n, frozen: false },
];

function recordingChain() {
  const reads: string[] = [];
  const chain = {
    async getTokenBalances(_wallet: string, mints: readonly string[]) {
      reads.push(`ata ${mints.join(',')}`);
      return new Map(mints.map((mint) => [mint, mint === MINT_A ? 10n : 0n]));
    },
    async getWalletBalances(_wallet: string, mints: readonly string[]) {
      reads.push(`ata+wallet ${mints.join(',')}`);
      return { tokens: new Map(mints.map((mint) => [mint, mint === MINT_A ? 10n : 0n])), lamports: 5_000_000_000n };
    },
    async getTokenAccounts(_wallet: string, mints?: readonly string[]) {
      reads.push(mints === undefined ? 'list' : `by mint ${mints.join(',')}`);
      return mints === undefined ? ACCOUNTS : ACCOUNTS.filter((account) => mints.includes(account.mint));
    },
  } as unknown as ChainReader;
  return { chain, reads };
}

const blacklist = (mints: string[], scope?: HoldingsScope) => blacklistFeature.parse(new Map(Object.entries({ excluded_mints: JSON.stringify(mints), max_holdings: '{}', ...(scope ? { scope } : {}) })));
const tier = (mint: string, scope?: HoldingsScope) => tierFeature.parse(new Map(Object.entries({ tier_config: JSON.stringify({ bronze: { mint, amount: '1' }, gold: { mint, amount: '100' } }), ...(scope ? { scope } : {}) })));
const multitoken = (mints: string[]) => multitokenFeature.parse(new Map([['required_tokens', JSON.stringify(mints.map((mint) => ({ mint, amount: '1' })))]]));
const check = (module: Feature<any>, params: unknown, negated = false) => ({ module, params, negated });

describe('the plan: which mints count every account', () => {
  it('blacklist is a deny condition: every account, by default and with scope all; the ATAs with scope ata (its policy or HOLDINGS_SCOPE)', () => {
    expect(holdingsPlan([check(blacklistFeature, blacklist([MINT_A]))], 'all').everyAccountMints).toEqual([MINT_A]);
    expect(holdingsPlan([check(blacklistFeature, blacklist([MINT_A], 'ata'))], 'all').everyAccountMints).toEqual([]);
    expect(holdingsPlan([check(blacklistFeature, blacklist([MINT_A]))], 'ata').everyAccountMints).toEqual([]);
    expect(holdingsPlan([check(blacklistFeature, blacklist([MINT_A], 'all'))], 'ata').everyAccountMints).toEqual([MINT_A]);
  });

  it('a positive condition counts the ATAs, unless its policy says scope all', () => {
    expect(holdingsPlan([check(tierFeature, tier(MINT_A))], 'all').everyAccountMints).toEqual([]);
    expect(holdingsPlan([check(tierFeature, tier(MINT_A, 'all'))], 'ata').everyAccountMints).toEqual([MINT_A]);
  });

  it('under `not` the roles swap: a negated tier is a deny condition, a negated blacklist a positive one', () => {
    expect(holdingsPlan([check(tierFeature, tier(MINT_A), true)], 'all').everyAccountMints).toEqual([MINT_A]);
    expect(holdingsPlan([check(tierFeature, tier(MINT_A, 'ata'), true)], 'all').everyAccountMints).toEqual([]);
    expect(holdingsPlan([check(blacklistFeature, blacklist([MINT_A]), true)], 'all').everyAccountMints).toEqual([]);
  });

  it('a rule’s leaves are planned together; collection needs the whole list', () => {
    const plan = holdingsPlan([check(blacklistFeature, blacklist([MINT_B])), check(multitokenFeature, multitoken([MINT_A, MINT_B])), check(collectionFeature, collectionFeature.parse(new Map([['collections', JSON.stringify([MINT_C])]])))], 'all');
    expect(plan).toEqual({ mints: [MINT_B, MINT_A], everyAccountMints: [MINT_B], tokenAccounts: true, walletAccount: false });
  });

  it('a feature at its own path: worked out once per parsed policy, each mint once', () => {
    const params = tier(MINT_A, 'all');
    const held = tierFeature.heldMints!(params);
    const plan = featureHoldingsPlan(tierFeature, params, held, 'all');
    expect(plan.everyAccountMints).toEqual([MINT_A]);
    expect(featureHoldingsPlan(tierFeature, params, held, 'all')).toBe(plan);
  });
});

describe('the reads and the balances of one login', () => {
  it(`a deny condition over up to ${LIST_BY_MINT_UP_TO} mints: one read by mint, no ATA; prefetch starts nothing`, async () => {
    const { chain, reads } = recordingChain();
    const holdings = walletHoldings(chain, WALLET, { mints: [MINT_A, MINT_B], everyAccountMints: [MINT_A, MINT_B], tokenAccounts: false });
    holdings.prefetch();
    expect(reads).toEqual([]);
    expect(await holdings.balances([MINT_A, MINT_B])).toEqual(new Map([[MINT_A, 15n], [MINT_B, 7n]]));
    expect(await holdings.balances([MINT_B])).toEqual(new Map([[MINT_B, 7n]]));
    expect(reads).toEqual([`by mint ${MINT_A},${MINT_B}`]);
  });

  it('more deny mints than that: the whole list, and every balance of the login comes from it', async () => {
    const { chain, reads } = recordingChain();
    const deny = [MINT_A, MINT_B, MINT_C];
    const holdings = walletHoldings(chain, WALLET, { mints: [...deny, MINT_D], everyAccountMints: deny, tokenAccounts: false });
    expect(await holdings.balances([MINT_A, MINT_D])).toEqual(new Map([[MINT_A, 15n], [MINT_D, 0n]]));
    expect(await holdings.balances(deny)).toEqual(new Map([[MINT_A, 15n], [MINT_B, 7n], [MINT_C, 0n]]));
    expect(reads).toEqual(['list']);
  });

  it('positive conditions only: the ATAs, started by prefetch (before the signature), read once', async () => {
    const { chain, reads } = recordingChain();
    const plan = { mints: [MINT_A, MINT_B], everyAccountMints: [], tokenAccounts: false };
    const holdings = walletHoldings(chain, WALLET, plan);
    holdings.prefetch();
    expect(reads).toEqual([`ata ${MINT_A},${MINT_B}`]);
    expect(await holdings.balances(plan.mints)).toEqual(new Map([[MINT_A, 10n], [MINT_B, 0n]]));
    expect(reads).toHaveLength(1);
  });

  it('both: one mint has one balance in the login, whichever check asks', async () => {
    const { chain, reads } = recordingChain();
    const plan = { mints: [MINT_A, MINT_D], everyAccountMints: [MINT_A], tokenAccounts: false };
    expect(ataMintsOf(plan)).toEqual([MINT_D]);
    const holdings = walletHoldings(chain, WALLET, plan);
    holdings.prefetch();
    expect(reads).toEqual([`ata ${MINT_D}`]);
    expect(await holdings.balances([MINT_A, MINT_D])).toEqual(new Map([[MINT_A, 15n], [MINT_D, 0n]]));
    expect((await holdings.balances([MINT_A])).get(MINT_A)).toBe(15n);
    expect(reads).toEqual([`ata ${MINT_D}`, `by mint ${MINT_A}`]);
  });

  it('a check that needs the whole list: every balance from it, no ATA', async () => {
    const { chain, reads } = recordingChain();
    const holdings = walletHoldings(chain, WALLET, { mints: [MINT_A], everyAccountMints: [], tokenAccounts: true });
    holdings.prefetch();
    expect(await holdings.balances([MINT_A])).toEqual(new Map([[MINT_A, 15n]]));
    expect(await holdings.tokenAccounts()).toBe(ACCOUNTS);
    expect(reads).toEqual(['list']);
  });

  it('countedAccounts: the ATAs of both programs, plus every account holding the mint when it counts them all', async () => {
    const atas = [associatedTokenAddress(WALLET, MINT_A, TOKEN_PROGRAM_ID), associatedTokenAddress(WALLET, MINT_A, TOKEN_2022_PROGRAM_ID)];
    const positive = walletHoldings(recordingChain().chain, WALLET, { mints: [MINT_A], everyAccountMints: [], tokenAccounts: false });
    const fromAtas = await positive.countedAccounts(MINT_A);
    expect([...fromAtas.addresses].sort()).toEqual([...atas].sort());
    expect(fromAtas.amounts).toBeUndefined();
    const deny = walletHoldings(recordingChain().chain, WALLET, { mints: [MINT_A], everyAccountMints: [MINT_A], tokenAccounts: false });
    const everyAccount = await deny.countedAccounts(MINT_A);
    expect([...everyAccount.addresses].sort()).toEqual([...atas, OTHER_A].sort());
    expect(everyAccount.amounts).toEqual(new Map([[ataA, 10n], [OTHER_A, 5n]]));
  });
});

describe("the wallet's own account (its SOL)", () => {
  const plan = (walletAccount: boolean) => ({ mints: [MINT_A], everyAccountMints: [], tokenAccounts: false, walletAccount });

  it('is read with the planned ATAs, in one read, whichever of lamports() and balances() asks first', async () => {
    const { chain, reads } = recordingChain();
    const holdings = walletHoldings(chain, WALLET, plan(true));
    const [lamports, balances] = await Promise.all([holdings.lamports(), holdings.balances([MINT_A])]);
    expect([lamports, balances.get(MINT_A)]).toEqual([5_000_000_000n, 10n]);
    expect(reads).toEqual([`ata+wallet ${MINT_A}`]);
  });

  it('is read on its own when no check planned it, and prefetch() starts it with the ATAs when one did', async () => {
    const unplanned = recordingChain();
    expect(await walletHoldings(unplanned.chain, WALLET, plan(false)).lamports()).toBe(5_000_000_000n);
    expect(unplanned.reads).toEqual(['ata+wallet ']);
    const planned = recordingChain();
    walletHoldings(planned.chain, WALLET, { mints: [], everyAccountMints: [], tokenAccounts: false, walletAccount: true }).prefetch();
    expect(planned.reads).toEqual(['ata+wallet ']);
  });
});

import bs58 from 'bs58';
import type { AccountInfo, ChainReader, KeyedAccount, ProgramAccountsFilter } from '../chain/types.js';
import { divideRoundingUp } from '../lib/fixed.js';
import { LendingDecodeError } from './bytes.js';
import {
  decodeKaminoObligation,
  KAMINO_LEND_PROGRAM_ID,
  KAMINO_OBLIGATION_DISCRIMINATOR,
  KAMINO_OBLIGATION_SIZE,
  KAMINO_OWNER_OFFSET,
} from './kamino.js';
import {
  decodeMarginfiAccount,
  decodeMarginfiBank,
  hasLiability,
  liabilityAmountX96,
  MARGINFI_ACCOUNT_DISCRIMINATOR,
  MARGINFI_ACCOUNT_SIZE,
  MARGINFI_AUTHORITY_OFFSET,
  MARGINFI_PROGRAM_ID,
  type MarginfiBalance,
  type MarginfiBank,
} from './marginfi.js';
import { decodeSaveObligation, SAVE_OBLIGATION_SIZE, SAVE_OWNER_OFFSET, SAVE_PROGRAM_ID } from './save.js';
import { DOLLAR_STABLECOINS } from './stablecoins.js';
import { usdFromScaledFraction, WAD } from './usd.js';

/**
 * A wallet's debt on each supported lending protocol, read from the protocols' own accounts over
 * RPC: getProgramAccounts filtered by account size and the owner field (plus the account
 * discriminator where there is one). Fail closed: a liability the gate can see but cannot price,
 * and an owned account it cannot decode, are reported as `unpriced` — debt of unknown size that
 * no allowance can cover.
 */
export const LENDING_PROTOCOLS = ['kamino', 'save', 'marginfi'] as const;
export type LendingProtocol = (typeof LENDING_PROTOCOLS)[number];

export interface ProtocolDebt {
  protocol: LendingProtocol;
  /** Obligation / margin accounts of the wallet found on the protocol. */
  accounts: number;
  /** Debt with a USD figure, × 10^18. */
  debtUsdWad: bigint;
  /** Human-readable reasons for debt whose USD value is unknown. */
  unpriced: string[];
}

type DebtReader = (chain: ChainReader, wallet: string) => Promise<ProtocolDebt>;

export const readDebt: Readonly<Record<LendingProtocol, DebtReader>> = {
  save: readSaveDebt,
  kamino: readKaminoDebt,
  marginfi: readMarginfiDebt,
};

function ownedBy(offset: number, wallet: string) {
  return { memcmp: { offset, bytes: wallet } };
}

function discriminatorAt0(discriminator: Buffer) {
  return { memcmp: { offset: 0, bytes: bs58.encode(discriminator) } };
}
const KAMINO_DISCRIMINATOR_FILTER = discriminatorAt0(KAMINO_OBLIGATION_DISCRIMINATOR);
const MARGINFI_DISCRIMINATOR_FILTER = discriminatorAt0(MARGINFI_ACCOUNT_DISCRIMINATOR);

function undecodable(account: KeyedAccount, error: unknown): string {
  const why = error instanceof LendingDecodeError ? error.message : 'unreadable data';
  return `account ${account.pubkey} could not be decoded (${why}); counted as debt of unknown size`;
}

/**
 * The wallet's accounts on one protocol, decoded: each found account counts; one that cannot be
 * decoded is debt of unknown size (fail closed); one whose decoded owner is not the wallet (a
 * lying or confused RPC, or a null decode) is skipped.
 */
async function ownedAccounts<T>(
  chain: ChainReader,
  debt: ProtocolDebt,
  query: { program: string; filters: ProgramAccountsFilter[]; wallet: string },
  decode: (data: Buffer) => T | null,
  ownerOf: (decoded: T) => string,
): Promise<{ pubkey: string; decoded: T }[]> {
  const accounts = await chain.getProgramAccounts(query.program, { filters: query.filters });
  const owned: { pubkey: string; decoded: T }[] = [];
  for (const account of accounts) {
    let decoded: T | null;
    try {
      decoded = decode(account.account.data);
    } catch (error) {
      debt.accounts += 1;
      debt.unpriced.push(undecodable(account, error));
      continue;
    }
    if (decoded === null || ownerOf(decoded) !== query.wallet) continue;
    debt.accounts += 1;
    owned.push({ pubkey: account.pubkey, decoded });
  }
  return owned;
}

/**
 * Save: `unweighted_borrowed_value`, the plain USD value of the borrows as of the obligation's
 * last refresh. That cached figure can be stale or zero while borrows exist (it is only
 * recomputed by refresh_obligation); `borrows_len` is always current, so a non-zero borrow count
 * with a zero value is debt of unknown size.
 */
async function readSaveDebt(chain: ChainReader, wallet: string): Promise<ProtocolDebt> {
  const debt: ProtocolDebt = { protocol: 'save', accounts: 0, debtUsdWad: 0n, unpriced: [] };
  const filters = [{ dataSize: SAVE_OBLIGATION_SIZE }, ownedBy(SAVE_OWNER_OFFSET, wallet)];
  const owned = await ownedAccounts(chain, debt, { program: SAVE_PROGRAM_ID, filters, wallet }, decodeSaveObligation, (o) => o.owner);
  for (const { pubkey, decoded: obligation } of owned) {
    debt.debtUsdWad += obligation.unweightedBorrowedValueWad;
    if (obligation.borrowsLen > 0 && obligation.unweightedBorrowedValueWad === 0n) {
      debt.unpriced.push(`obligation ${pubkey} has ${obligation.borrowsLen} borrow(s) but no refreshed USD value`);
    }
  }
  return debt;
}

/**
 * Kamino: `borrowed_assets_market_value_sf`, the USD value of the borrows at the last refresh
 * (without borrow factors). As with Save, `has_debt` or an occupied borrow slot with a zero cached
 * value is debt of unknown size.
 */
async function readKaminoDebt(chain: ChainReader, wallet: string): Promise<ProtocolDebt> {
  const debt: ProtocolDebt = { protocol: 'kamino', accounts: 0, debtUsdWad: 0n, unpriced: [] };
  const filters = [{ dataSize: KAMINO_OBLIGATION_SIZE }, KAMINO_DISCRIMINATOR_FILTER, ownedBy(KAMINO_OWNER_OFFSET, wallet)];
  const owned = await ownedAccounts(chain, debt, { program: KAMINO_LEND_PROGRAM_ID, filters, wallet }, decodeKaminoObligation, (o) => o.owner);
  for (const { pubkey, decoded: obligation } of owned) {
    const value = usdFromScaledFraction(obligation.borrowedAssetsMarketValueSf);
    debt.debtUsdWad += value;
    const borrowing = obligation.hasDebt || obligation.borrows.some((borrow) => borrow.borrowedAmountSf > 0n);
    if (borrowing && value === 0n) {
      debt.unpriced.push(`obligation ${pubkey} has borrows but no refreshed USD value`);
    }
  }
  return debt;
}

/**
 * MarginFi keeps no USD figure on the account: each balance's liability is shares × the bank's
 * liability share value, in the bank's mint. Liabilities in dollar stablecoins (USDC, USDT, PYUSD)
 * are priced at $1; any other liability would need the bank's oracle, which the gate does not
 * read, so it is debt of unknown size.
 */
async function readMarginfiDebt(chain: ChainReader, wallet: string): Promise<ProtocolDebt> {
  const debt: ProtocolDebt = { protocol: 'marginfi', accounts: 0, debtUsdWad: 0n, unpriced: [] };
  const filters = [{ dataSize: MARGINFI_ACCOUNT_SIZE }, MARGINFI_DISCRIMINATOR_FILTER, ownedBy(MARGINFI_AUTHORITY_OFFSET, wallet)];
  const owned = await ownedAccounts(chain, debt, { program: MARGINFI_PROGRAM_ID, filters, wallet }, decodeMarginfiAccount, (a) => a.authority);
  const liabilities: { account: string; balance: MarginfiBalance }[] = [];
  for (const { pubkey, decoded } of owned) {
    for (const balance of decoded.balances) if (hasLiability(balance)) liabilities.push({ account: pubkey, balance });
  }
  if (liabilities.length === 0) return debt;

  const bankKeys = [...new Set(liabilities.map(({ balance }) => balance.bank))];
  const bankAccounts = await chain.getMultipleAccounts(bankKeys);
  const banks = new Map(bankKeys.map((key, i) => [key, bankFrom(bankAccounts[i] ?? null)]));
  for (const { account, balance } of liabilities) {
    const bank = banks.get(balance.bank);
    const where = `account ${account} borrows from bank ${balance.bank}`;
    if (!bank) {
      debt.unpriced.push(`${where}, which could not be read; counted as debt of unknown size`);
      continue;
    }
    const symbol = DOLLAR_STABLECOINS.get(bank.mint);
    if (symbol === undefined) {
      debt.unpriced.push(`${where} (mint ${bank.mint}) with no price source (only USDC, USDT and PYUSD liabilities are priced)`);
      continue;
    }
    debt.debtUsdWad += stablecoinUsdWad(balance, bank);
  }
  return debt;
}

function bankFrom(account: AccountInfo | null): MarginfiBank | undefined {
  if (account === null || account.owner !== MARGINFI_PROGRAM_ID) return undefined;
  try {
    return decodeMarginfiBank(account.data);
  } catch {
    return undefined;
  }
}

/** shares × share value (× 2^96) in base units → whole tokens → USD at $1, rounded up. */
export function stablecoinUsdWad(balance: MarginfiBalance, bank: MarginfiBank): bigint {
  const amountX96 = liabilityAmountX96(balance, bank);
  if (amountX96 <= 0n) return 0n;
  return divideRoundingUp(amountX96 * WAD, (1n << 96n) * 10n ** BigInt(bank.mintDecimals));
}

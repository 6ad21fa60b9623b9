import bs58 from 'bs58';
import type { AccountInfo, ChainReader, KeyedAccount, ProgramAccountsFilter } from '../chain/types.js';
import { upstreamUnavailable } from '../errors.js';
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
 * discriminator where there is one). Fail closed: a liability the gate can see but cannot price is
 * reported as `unpriced` — debt of unknown size that no allowance can cover. An account the gate
 * cannot read as what it asked for — an obligation of another layout or owner, a bank of another
 * program, layout or group, or no bank where a liability names one — is an answer the gate cannot
 * use: 503, unknown in a rule, so `not` never turns it into a pass.
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

/**
 * The wallet's accounts on one protocol, decoded. Each account of the answer must decode (a layout
 * the filters do not cover: Save's version) and name the wallet as its owner; the reader checks
 * this in the reply (`layout`), so an account that does not is a malformed reply, answered by
 * another endpoint or a 503 — never skipped, which would read as "no debt".
 */
async function ownedAccounts<T>(
  chain: ChainReader,
  debt: ProtocolDebt,
  query: { program: string; filters: ProgramAccountsFilter[]; wallet: string },
  decode: (data: Buffer) => T | null,
  ownerOf: (decoded: T) => string,
): Promise<{ pubkey: string; decoded: T }[]> {
  const readable = (data: Buffer): T | string => {
    try {
      const decoded = decode(data);
      if (decoded === null) return 'is not initialized';
      return ownerOf(decoded) === query.wallet ? decoded : 'names another owner';
    } catch (error) {
      if (error instanceof LendingDecodeError) return `cannot be decoded (${error.message})`;
      throw error;
    }
  };
  // What the check decoded, kept for the answer it checked (a MarginFi account takes tens of µs).
  const checked = new WeakMap<Buffer, T>();
  const layout = ({ account }: KeyedAccount): string | undefined => {
    const decoded = readable(account.data);
    if (typeof decoded === 'string') return decoded;
    checked.set(account.data, decoded);
    return undefined;
  };
  const accounts = await chain.getProgramAccounts(query.program, { filters: query.filters, layout });
  return accounts.map(({ pubkey, account }) => {
    // An answer shared with a scan in flight was checked by its first caller's `layout`: decoded here.
    const decoded = checked.get(account.data) ?? readable(account.data);
    // Only a reader that skipped `layout` gets here with a wrong account.
    if (typeof decoded === 'string') throw upstreamUnavailable(`getProgramAccounts: account ${pubkey} ${decoded}`);
    debt.accounts += 1;
    return { pubkey, decoded };
  });
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
  const liabilities: { account: string; group: string; balance: MarginfiBalance }[] = [];
  for (const { pubkey, decoded } of owned) {
    for (const balance of decoded.balances) if (hasLiability(balance)) liabilities.push({ account: pubkey, group: decoded.group, balance });
  }
  if (liabilities.length === 0) return debt;

  const bankKeys = [...new Set(liabilities.map(({ balance }) => balance.bank))];
  const bankAccounts = await chain.getMultipleAccounts(bankKeys);
  const banks = new Map(bankKeys.map((key, i) => [key, bankAt(key, bankAccounts[i] ?? null)]));
  for (const { account, group, balance } of liabilities) {
    const bank = banks.get(balance.bank)!;
    if (bank.group !== group) throw upstreamUnavailable(`getMultipleAccounts: bank ${balance.bank}, which account ${account} borrows from, is of group ${bank.group}, not the account's ${group}`);
    const symbol = DOLLAR_STABLECOINS.get(bank.mint);
    if (symbol === undefined) {
      debt.unpriced.push(`account ${account} borrows from bank ${balance.bank} (mint ${bank.mint}) with no price source (only USDC, USDT and PYUSD liabilities are priced)`);
      continue;
    }
    debt.debtUsdWad += stablecoinUsdWad(balance, bank);
  }
  return debt;
}

/**
 * The bank a liability names, read by its address: a MarginFi Bank (owner, size, discriminator).
 * Without it the liability has no figure, and debt of unknown size is a refusal that `not` would
 * turn into a pass: no account there, another program's or another layout is unknown (503).
 */
function bankAt(key: string, account: AccountInfo | null): MarginfiBank {
  const fail = (why: string) => upstreamUnavailable(`getMultipleAccounts: the MarginFi bank ${key} ${why}`);
  if (account === null) throw fail('is missing, though a balance borrows from it');
  if (account.owner !== MARGINFI_PROGRAM_ID) throw fail(`is owned by ${account.owner}, not by MarginFi`);
  try {
    return decodeMarginfiBank(account.data);
  } catch (error) {
    if (error instanceof LendingDecodeError) throw fail(`is not a well-formed bank (${error.message})`);
    throw error;
  }
}

/** shares × share value (× 2^96) in base units → whole tokens → USD at $1, rounded up. */
export function stablecoinUsdWad(balance: MarginfiBalance, bank: MarginfiBank): bigint {
  const amountX96 = liabilityAmountX96(balance, bank);
  if (amountX96 <= 0n) return 0n;
  return divideRoundingUp(amountX96 * WAD, (1n << 96n) * 10n ** BigInt(bank.mintDecimals));
}

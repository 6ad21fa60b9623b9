import { expectDiscriminator, expectSize, readAddress, readI128 } from './bytes.js';

/**
 * MarginFi v2 (mrgnlabs/marginfi-v2, programs/marginfi/src/state/marginfi_account.rs and
 * marginfi_group.rs / bank.rs), Anchor zero-copy.
 * MarginfiAccount, 2312 bytes: discriminator @0, group @8, authority @40, 16 balances of 104
 * bytes @72: active u8 @+0, bank_pk @+1, bank_asset_tag @+33, padding, asset_shares I80F48 @+40,
 * liability_shares I80F48 @+56, emissions_outstanding @+72, last_update @+88.
 * Bank, 1864 bytes: discriminator @0, mint @8, mint_decimals u8 @40, group @41, padding,
 * asset_share_value I80F48 @80, liability_share_value I80F48 @96.
 * I80F48 is an i128 holding value × 2^48.
 */
export const MARGINFI_PROGRAM_ID = 'MFv2hWf31Z9kbCa1snEPYctwafyhdvnV7FZnsebVacA';
export const MARGINFI_ACCOUNT_SIZE = 2312;
export const MARGINFI_AUTHORITY_OFFSET = 40;
export const MARGINFI_ACCOUNT_DISCRIMINATOR = Buffer.from('43b2826d7e721c2a', 'hex');
export const MARGINFI_BANK_SIZE = 1864;
export const MARGINFI_BANK_DISCRIMINATOR = Buffer.from('8e31a6f2324261bc', 'hex');

/** I80F48 fraction bits. */
export const I80F48_FRACTION_BITS = 48n;
/**
 * The program's EMPTY_BALANCE_THRESHOLD: shares below 1.0 are rounding dust it treats as an
 * empty balance (it lets such a balance be closed), so they are not debt here either.
 */
const EMPTY_SHARES = 1n << I80F48_FRACTION_BITS;

const BALANCES_OFFSET = 72;
const BALANCE_SIZE = 104;
const MAX_BALANCES = 16;

export interface MarginfiBalance {
  /** Slot index 0..15 (active balances can have gaps between them). */
  index: number;
  bank: string;
  /** I80F48 bits (× 2^48). */
  assetShares: bigint;
  liabilityShares: bigint;
}

export interface MarginfiAccount {
  group: string;
  authority: string;
  /** Active balances only. */
  balances: MarginfiBalance[];
}

export interface MarginfiBank {
  mint: string;
  mintDecimals: number;
  group: string;
  /** I80F48 bits (× 2^48). */
  assetShareValue: bigint;
  liabilityShareValue: bigint;
}

export function decodeMarginfiAccount(data: Buffer): MarginfiAccount {
  expectSize(data, MARGINFI_ACCOUNT_SIZE, 'MarginFi account');
  expectDiscriminator(data, MARGINFI_ACCOUNT_DISCRIMINATOR, 'MarginFi account');
  const balances: MarginfiBalance[] = [];
  for (let index = 0; index < MAX_BALANCES; index++) {
    const at = BALANCES_OFFSET + BALANCE_SIZE * index;
    if (data[at] === 0) continue;
    balances.push({
      index,
      bank: readAddress(data, at + 1),
      assetShares: readI128(data, at + 40),
      liabilityShares: readI128(data, at + 56),
    });
  }
  return { group: readAddress(data, 8), authority: readAddress(data, MARGINFI_AUTHORITY_OFFSET), balances };
}

export function decodeMarginfiBank(data: Buffer): MarginfiBank {
  expectSize(data, MARGINFI_BANK_SIZE, 'MarginFi bank');
  expectDiscriminator(data, MARGINFI_BANK_DISCRIMINATOR, 'MarginFi bank');
  return {
    mint: readAddress(data, 8),
    mintDecimals: data[40]!,
    group: readAddress(data, 41),
    assetShareValue: readI128(data, 80),
    liabilityShareValue: readI128(data, 96),
  };
}

/** Whether a balance owes anything by the program's own measure. */
export function hasLiability(balance: MarginfiBalance): boolean {
  return balance.liabilityShares >= EMPTY_SHARES;
}

/**
 * The liability in the mint's base units × 2^96 (shares × share value, both I80F48), kept exact;
 * divide by 2^96 · 10^decimals for whole tokens.
 */
export function liabilityAmountX96(balance: MarginfiBalance, bank: MarginfiBank): bigint {
  return balance.liabilityShares * bank.liabilityShareValue;
}

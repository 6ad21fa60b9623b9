import { expectDiscriminator, expectSize, isZeroAddress, readAddress, readU128 } from './bytes.js';

/**
 * Kamino Lend Obligation, 3344 bytes, Anchor zero-copy (Kamino-Finance/klend,
 * programs/klend/src/state/obligation.rs): discriminator @0, tag u64 @8, last_update @16,
 * lending_market @32, owner @64, deposits [8 × 136] @96, lowest_reserve_deposit_liquidation_ltv
 * @1184, deposited_value_sf @1192, borrows [5 × 200] @1208, borrow_factor_adjusted_debt_value_sf
 * @2208, borrowed_assets_market_value_sf @2224, allowed_borrow_value_sf @2240,
 * unhealthy_borrow_value_sf @2256, deposits_asset_tiers @2272, borrows_asset_tiers @2280,
 * elevation_group @2285, num_of_obsolete_deposit_reserves @2286, has_debt u8 @2287.
 * A borrow (ObligationLiquidity): borrow_reserve @0, cumulative_borrow_rate_bsf @32 (48 bytes),
 * padding @80, borrowed_amount_sf @88, market_value_sf @104. `_sf` values are × 2^60.
 */
export const KAMINO_LEND_PROGRAM_ID = 'KLend2g3cP87fffoy8q1mQqGKjrxjC8boSyAYavgmjD';
export const KAMINO_OBLIGATION_SIZE = 3344;
export const KAMINO_OWNER_OFFSET = 64;
export const KAMINO_OBLIGATION_DISCRIMINATOR = Buffer.from('a8ce8d6a584caca7', 'hex');

const BORROWS_OFFSET = 1208;
const BORROW_SIZE = 200;
const MAX_BORROWS = 5;

export interface KaminoBorrow {
  reserve: string;
  borrowedAmountSf: bigint;
  marketValueSf: bigint;
}

export interface KaminoObligation {
  owner: string;
  lendingMarket: string;
  depositedValueSf: bigint;
  /** Cached USD value of all borrows (without borrow factors), × 2^60. */
  borrowedAssetsMarketValueSf: bigint;
  hasDebt: boolean;
  /** Occupied borrow slots. */
  borrows: KaminoBorrow[];
}

export function decodeKaminoObligation(data: Buffer): KaminoObligation {
  expectSize(data, KAMINO_OBLIGATION_SIZE, 'Kamino obligation');
  expectDiscriminator(data, KAMINO_OBLIGATION_DISCRIMINATOR, 'Kamino obligation');
  const borrows: KaminoBorrow[] = [];
  for (let i = 0; i < MAX_BORROWS; i++) {
    const at = BORROWS_OFFSET + BORROW_SIZE * i;
    if (isZeroAddress(data, at)) continue;
    borrows.push({ reserve: readAddress(data, at), borrowedAmountSf: readU128(data, at + 88), marketValueSf: readU128(data, at + 104) });
  }
  return {
    owner: readAddress(data, KAMINO_OWNER_OFFSET),
    lendingMarket: readAddress(data, 32),
    depositedValueSf: readU128(data, 1192),
    borrowedAssetsMarketValueSf: readU128(data, 2224),
    hasDebt: data[2287] !== 0,
    borrows,
  };
}

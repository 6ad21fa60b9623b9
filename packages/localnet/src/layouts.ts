/**
 * Account byte layouts, written exactly as the on-chain programs lay them out (see
 * docs/solana-wire-format.md), so that the gate's decoders are exercised against real bytes.
 * Every function returns a fresh Buffer; offsets are named where the gate reads them.
 */
import bs58 from 'bs58';

export const MINT_SIZE = 82;
export const TOKEN_ACCOUNT_SIZE = 165;
/** Token-2022 byte 165: which kind of account follows the base layout. */
export const ACCOUNT_TYPE_MINT = 1;
export const ACCOUNT_TYPE_ACCOUNT = 2;

export const TOKEN_ACCOUNT_STATE = { uninitialized: 0, initialized: 1, frozen: 2 } as const;
export type TokenAccountState = keyof typeof TOKEN_ACCOUNT_STATE;

/** A Token-2022 extension as stored: type u16 LE, length u16 LE, then the value. */
export interface Extension {
  type: number;
  value: Uint8Array;
}

/** Token-2022 extension type numbers (spl_token_2022::extension::ExtensionType). */
export const EXTENSION = {
  transferFeeConfig: 1,
  transferFeeAmount: 2,
  mintCloseAuthority: 3,
  immutableOwner: 7,
  metadataPointer: 18,
} as const;

export function pubkeyBytes(address: string): Uint8Array {
  const bytes = bs58.decode(address);
  if (bytes.length !== 32) throw new Error(`not a 32-byte address: ${address}`);
  return bytes;
}

function writeU128(buf: Buffer, offset: number, value: bigint): void {
  buf.writeBigUInt64LE(value & 0xffff_ffff_ffff_ffffn, offset);
  buf.writeBigUInt64LE((value >> 64n) & 0xffff_ffff_ffff_ffffn, offset + 8);
}

/** Two's-complement i128 (MarginFi's I80F48 values are i128 with 48 fraction bits). */
function writeI128(buf: Buffer, offset: number, value: bigint): void {
  writeU128(buf, offset, BigInt.asUintN(128, value));
}

function writeExtensions(buf: Buffer, start: number, extensions: readonly Extension[]): void {
  let offset = start;
  for (const ext of extensions) {
    buf.writeUInt16LE(ext.type, offset);
    buf.writeUInt16LE(ext.value.length, offset + 2);
    buf.set(ext.value, offset + 4);
    offset += 4 + ext.value.length;
  }
}

function extensionsLength(extensions: readonly Extension[]): number {
  return extensions.reduce((sum, ext) => sum + 4 + ext.value.length, 0);
}

export interface MintLayout {
  decimals: number;
  supply: bigint;
  mintAuthority?: string | null;
  freezeAuthority?: string | null;
  /** Token-2022 only: the mint is padded to 165 bytes, then type byte 1, then these. */
  extensions?: readonly Extension[] | null;
}

/** SPL Token Mint (82 bytes); with `extensions`, the Token-2022 extended form. */
export function encodeMint(mint: MintLayout): Buffer {
  const extensions = mint.extensions ?? null;
  const size = extensions ? TOKEN_ACCOUNT_SIZE + 1 + extensionsLength(extensions) : MINT_SIZE;
  const buf = Buffer.alloc(size);
  if (mint.mintAuthority) {
    buf.writeUInt32LE(1, 0);
    buf.set(pubkeyBytes(mint.mintAuthority), 4);
  }
  buf.writeBigUInt64LE(mint.supply, 36);
  buf.writeUInt8(mint.decimals, 44);
  buf.writeUInt8(1, 45); // is_initialized
  if (mint.freezeAuthority) {
    buf.writeUInt32LE(1, 46);
    buf.set(pubkeyBytes(mint.freezeAuthority), 50);
  }
  if (extensions) {
    buf.writeUInt8(ACCOUNT_TYPE_MINT, TOKEN_ACCOUNT_SIZE);
    writeExtensions(buf, TOKEN_ACCOUNT_SIZE + 1, extensions);
  }
  return buf;
}

export interface TokenAccountLayout {
  mint: string;
  owner: string;
  amount: bigint;
  state?: TokenAccountState;
  delegate?: string | null;
  delegatedAmount?: bigint;
  closeAuthority?: string | null;
  /** Token-2022 only: type byte 2 at 165, then these from 166. */
  extensions?: readonly Extension[] | null;
}

/** SPL Token account (165 bytes); with `extensions`, the Token-2022 extended form. */
export function encodeTokenAccount(account: TokenAccountLayout): Buffer {
  const extensions = account.extensions ?? null;
  const size = extensions ? TOKEN_ACCOUNT_SIZE + 1 + extensionsLength(extensions) : TOKEN_ACCOUNT_SIZE;
  const buf = Buffer.alloc(size);
  buf.set(pubkeyBytes(account.mint), 0);
  buf.set(pubkeyBytes(account.owner), 32);
  buf.writeBigUInt64LE(account.amount, 64);
  if (account.delegate) {
    buf.writeUInt32LE(1, 72);
    buf.set(pubkeyBytes(account.delegate), 76);
  }
  buf.writeUInt8(TOKEN_ACCOUNT_STATE[account.state ?? 'initialized'], 108);
  // is_native COption<u64> at 109 stays None (tag 0).
  buf.writeBigUInt64LE(account.delegatedAmount ?? 0n, 121);
  if (account.closeAuthority) {
    buf.writeUInt32LE(1, 129);
    buf.set(pubkeyBytes(account.closeAuthority), 133);
  }
  if (extensions) {
    buf.writeUInt8(ACCOUNT_TYPE_ACCOUNT, TOKEN_ACCOUNT_SIZE);
    writeExtensions(buf, TOKEN_ACCOUNT_SIZE + 1, extensions);
  }
  return buf;
}

/** What the local chain reads back out of a token account's bytes (bytes are the truth). */
export interface DecodedTokenAccount {
  mint: string;
  owner: string;
  amount: bigint;
  state: number;
  extensions: Extension[];
}

/** Decodes a token account, or null when the bytes are not one (e.g. a mint). */
export function decodeTokenAccount(data: Buffer, token2022: boolean): DecodedTokenAccount | null {
  if (data.length < TOKEN_ACCOUNT_SIZE) return null;
  if (data.length > TOKEN_ACCOUNT_SIZE && !(token2022 && data[TOKEN_ACCOUNT_SIZE] === ACCOUNT_TYPE_ACCOUNT)) return null;
  const state = data[108] ?? 0;
  if (state === TOKEN_ACCOUNT_STATE.uninitialized) return null;
  return {
    mint: bs58.encode(data.subarray(0, 32)),
    owner: bs58.encode(data.subarray(32, 64)),
    amount: data.readBigUInt64LE(64),
    state,
    extensions: readExtensions(data),
  };
}

/** Token-2022 TLV extensions after the account type byte (none for 82/165-byte accounts). */
export function readExtensions(data: Buffer): Extension[] {
  const extensions: Extension[] = [];
  let offset = TOKEN_ACCOUNT_SIZE + 1;
  while (offset + 4 <= data.length) {
    const type = data.readUInt16LE(offset);
    const length = data.readUInt16LE(offset + 2);
    if (type === 0 || offset + 4 + length > data.length) break;
    extensions.push({ type, value: data.subarray(offset + 4, offset + 4 + length) });
    offset += 4 + length;
  }
  return extensions;
}

/** Decimals of a mint account's bytes, or null when the bytes are not an initialized mint. */
export function decodeMintDecimals(data: Buffer, token2022: boolean): number | null {
  if (data.length < MINT_SIZE || data[45] !== 1) return null;
  if (data.length !== MINT_SIZE && !(token2022 && data[TOKEN_ACCOUNT_SIZE] === ACCOUNT_TYPE_MINT)) return null;
  return data[44] ?? null;
}

// ---- Token-2022 extension values ----

/** TransferFeeAmount (type 2): withheld_amount u64. */
export function transferFeeAmountExtension(withheld: bigint): Extension {
  const value = Buffer.alloc(8);
  value.writeBigUInt64LE(withheld, 0);
  return { type: EXTENSION.transferFeeAmount, value };
}

/** ImmutableOwner (type 7): no value. */
export function immutableOwnerExtension(): Extension {
  return { type: EXTENSION.immutableOwner, value: new Uint8Array(0) };
}

/**
 * TransferFeeConfig (type 1, 108 bytes): config authority, withdraw authority, withheld u64, then
 * older and newer TransferFee {epoch u64, maximum_fee u64, basis_points u16}.
 */
export function transferFeeConfigExtension(authority: string, basisPoints: number, maximumFee: bigint): Extension {
  const value = Buffer.alloc(108);
  value.set(pubkeyBytes(authority), 0);
  value.set(pubkeyBytes(authority), 32);
  for (const at of [72, 90]) {
    value.writeBigUInt64LE(maximumFee, at + 8);
    value.writeUInt16LE(basisPoints, at + 16);
  }
  return { type: EXTENSION.transferFeeConfig, value };
}

// ---- Lending protocols (nodebt) ----

const WAD = 10n ** 18n;
const KAMINO_ONE = 1n << 60n;
const I80F48_ONE = 1n << 48n;

/** USD (as a decimal string, e.g. "1234.56") to a fixed-point integer with the given scale. */
export function toFixed(usd: string, scale: bigint): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(usd);
  if (!match) throw new Error(`not a decimal amount: ${usd}`);
  const whole = BigInt(match[1]!);
  const fraction = match[2] ?? '';
  const fractionScaled = fraction ? (BigInt(fraction) * scale) / 10n ** BigInt(fraction.length) : 0n;
  return whole * scale + fractionScaled;
}

export const SAVE_OBLIGATION_SIZE = 1300;
export const SAVE_OWNER_OFFSET = 42;

export interface SaveObligationLayout {
  lendingMarket: string;
  owner: string;
  depositedUsd: string;
  /** Risk-weighted borrowed value (borrowed_value at 90). */
  borrowedUsd: string;
  /** unweighted_borrowed_value at 171. */
  unweightedBorrowedUsd: string;
  deposits: { reserve: string; amount: bigint; marketUsd: string }[];
  borrows: { reserve: string; amountWads: bigint; marketUsd: string }[];
  lastUpdateSlot: bigint;
}

/**
 * Save (Solend) Obligation, 1300 bytes: version 1 at 0, last_update {slot u64, stale u8} at 1,
 * lending_market at 10, owner at 42, then u128 WAD values deposited_value 74, borrowed_value 90,
 * allowed_borrow_value 106, unhealthy_borrow_value 122, borrowed_value_upper_bound 138,
 * borrowing_isolated_asset u8 154, super_unhealthy_borrow_value 155, unweighted_borrowed_value 171,
 * closeable 187, padding, deposits_len 202, borrows_len 203, then data_flat from 204:
 * deposits (88 bytes each) followed by borrows (112 bytes each).
 */
export function encodeSaveObligation(o: SaveObligationLayout): Buffer {
  const buf = Buffer.alloc(SAVE_OBLIGATION_SIZE);
  buf.writeUInt8(1, 0);
  buf.writeBigUInt64LE(o.lastUpdateSlot, 1);
  buf.set(pubkeyBytes(o.lendingMarket), 10);
  buf.set(pubkeyBytes(o.owner), SAVE_OWNER_OFFSET);
  const deposited = toFixed(o.depositedUsd, WAD);
  const borrowed = toFixed(o.borrowedUsd, WAD);
  writeU128(buf, 74, deposited);
  writeU128(buf, 90, borrowed);
  writeU128(buf, 106, (deposited * 3n) / 4n);
  writeU128(buf, 122, (deposited * 4n) / 5n);
  writeU128(buf, 138, borrowed);
  writeU128(buf, 155, (deposited * 9n) / 10n);
  writeU128(buf, 171, toFixed(o.unweightedBorrowedUsd, WAD));
  buf.writeUInt8(o.deposits.length, 202);
  buf.writeUInt8(o.borrows.length, 203);
  let offset = 204;
  for (const d of o.deposits) {
    buf.set(pubkeyBytes(d.reserve), offset);
    buf.writeBigUInt64LE(d.amount, offset + 32);
    writeU128(buf, offset + 40, toFixed(d.marketUsd, WAD));
    offset += 88;
  }
  for (const b of o.borrows) {
    buf.set(pubkeyBytes(b.reserve), offset);
    writeU128(buf, offset + 32, WAD); // cumulative_borrow_rate_wads = 1.0
    writeU128(buf, offset + 48, b.amountWads);
    writeU128(buf, offset + 64, toFixed(b.marketUsd, WAD));
    offset += 112;
  }
  return buf;
}

export const KAMINO_OBLIGATION_SIZE = 3344;
export const KAMINO_OBLIGATION_DISCRIMINATOR = Buffer.from('a8ce8d6a584caca7', 'hex');
export const KAMINO_OWNER_OFFSET = 64;

export interface KaminoObligationLayout {
  lendingMarket: string;
  owner: string;
  depositedUsd: string;
  borrowedUsd: string;
  deposits: { reserve: string; amount: bigint; marketUsd: string }[];
  borrows: { reserve: string; amountSf: bigint; marketUsd: string }[];
  lastUpdateSlot: bigint;
}

/**
 * Kamino Lend Obligation, 3344 bytes: discriminator, tag u64 8, last_update 16, lending_market 32,
 * owner 64, deposits 8×136 from 96, lowest_reserve_deposit_liquidation_ltv 1184,
 * deposited_value_sf 1192, borrows 5×200 from 1208, borrow_factor_adjusted_debt_value_sf 2208,
 * borrowed_assets_market_value_sf 2224, allowed 2240, unhealthy 2256, asset tiers 2272..2285,
 * elevation_group 2285, num_of_obsolete_reserves 2286, has_debt 2287. "_sf" values are u128 / 2^60.
 */
export function encodeKaminoObligation(o: KaminoObligationLayout): Buffer {
  if (o.deposits.length > 8 || o.borrows.length > 5) throw new Error('kamino obligation: too many positions');
  const buf = Buffer.alloc(KAMINO_OBLIGATION_SIZE);
  KAMINO_OBLIGATION_DISCRIMINATOR.copy(buf, 0);
  buf.writeBigUInt64LE(o.lastUpdateSlot, 16);
  buf.set(pubkeyBytes(o.lendingMarket), 32);
  buf.set(pubkeyBytes(o.owner), KAMINO_OWNER_OFFSET);
  o.deposits.forEach((d, i) => {
    const at = 96 + 136 * i;
    buf.set(pubkeyBytes(d.reserve), at);
    buf.writeBigUInt64LE(d.amount, at + 32);
    writeU128(buf, at + 40, toFixed(d.marketUsd, KAMINO_ONE));
  });
  const deposited = toFixed(o.depositedUsd, KAMINO_ONE);
  writeU128(buf, 1192, deposited);
  o.borrows.forEach((b, i) => {
    const at = 1208 + 200 * i;
    buf.set(pubkeyBytes(b.reserve), at);
    writeU128(buf, at + 32, KAMINO_ONE); // cumulative_borrow_rate_bsf = 1.0 (low limb)
    writeU128(buf, at + 88, b.amountSf);
    const market = toFixed(b.marketUsd, KAMINO_ONE);
    writeU128(buf, at + 104, market);
    writeU128(buf, at + 120, market);
  });
  const borrowed = toFixed(o.borrowedUsd, KAMINO_ONE);
  writeU128(buf, 2208, borrowed);
  writeU128(buf, 2224, borrowed);
  writeU128(buf, 2240, (deposited * 3n) / 4n);
  writeU128(buf, 2256, (deposited * 4n) / 5n);
  buf.writeUInt8(o.borrows.length > 0 ? 1 : 0, 2287);
  return buf;
}

export const MARGINFI_ACCOUNT_SIZE = 2312;
export const MARGINFI_ACCOUNT_DISCRIMINATOR = Buffer.from('43b2826d7e721c2a', 'hex');
export const MARGINFI_OWNER_OFFSET = 40;
export const MARGINFI_BANK_SIZE = 1864;
export const MARGINFI_BANK_DISCRIMINATOR = Buffer.from('8e31a6f2324261bc', 'hex');

export interface MarginfiBalanceLayout {
  bank: string;
  /** Decimal share counts, stored as I80F48. */
  assetShares: string;
  liabilityShares: string;
}

/**
 * MarginFi v2 MarginfiAccount, 2312 bytes: discriminator, group 8, authority 40, then 16 balances
 * of 104 bytes from 72: active u8 +0, bank +1, bank_asset_tag +33, asset_shares I80F48 +40,
 * liability_shares +56, emissions_outstanding +72, last_update +88.
 */
export function encodeMarginfiAccount(group: string, authority: string, balances: readonly MarginfiBalanceLayout[]): Buffer {
  if (balances.length > 16) throw new Error('marginfi account: at most 16 balances');
  const buf = Buffer.alloc(MARGINFI_ACCOUNT_SIZE);
  MARGINFI_ACCOUNT_DISCRIMINATOR.copy(buf, 0);
  buf.set(pubkeyBytes(group), 8);
  buf.set(pubkeyBytes(authority), MARGINFI_OWNER_OFFSET);
  balances.forEach((b, i) => {
    const at = 72 + 104 * i;
    buf.writeUInt8(1, at);
    buf.set(pubkeyBytes(b.bank), at + 1);
    writeI128(buf, at + 40, toFixed(b.assetShares, I80F48_ONE));
    writeI128(buf, at + 56, toFixed(b.liabilityShares, I80F48_ONE));
  });
  return buf;
}

/**
 * MarginFi v2 Bank, 1864 bytes: discriminator, mint 8, mint_decimals u8 40, group 41,
 * asset_share_value I80F48 80, liability_share_value I80F48 96.
 */
export function encodeMarginfiBank(
  mint: string,
  decimals: number,
  group: string,
  assetShareValue: string,
  liabilityShareValue: string,
): Buffer {
  const buf = Buffer.alloc(MARGINFI_BANK_SIZE);
  MARGINFI_BANK_DISCRIMINATOR.copy(buf, 0);
  buf.set(pubkeyBytes(mint), 8);
  buf.writeUInt8(decimals, 40);
  buf.set(pubkeyBytes(group), 41);
  writeI128(buf, 80, toFixed(assetShareValue, I80F48_ONE));
  writeI128(buf, 96, toFixed(liabilityShareValue, I80F48_ONE));
  return buf;
}

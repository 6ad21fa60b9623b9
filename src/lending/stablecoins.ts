/**
 * Mints the gate prices at exactly $1 when it converts a MarginFi liability to USD. MarginFi keeps
 * no cached USD figure on the account (its price comes from each bank's oracle at instruction
 * time), and the gate reads no oracles, so only these dollar stablecoins can be priced; any other
 * liability is debt of unknown size (see src/lending/debt.ts). Addresses checked against the real
 * MarginFi bank dumps in shared/fixtures/lending (bank_sample_3 = USDT, pyusd_bank = PYUSD) and
 * Kamino's USDC reserve.
 */
export const DOLLAR_STABLECOINS: ReadonlyMap<string, string> = new Map([
  ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', 'USDC'],
  ['Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', 'USDT'],
  ['2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo', 'PYUSD'],
]);

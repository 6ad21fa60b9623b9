import type { ChainReader } from '../chain/types.js';
import { GateError, upstreamUnavailable } from '../errors.js';
import { readTokenMint } from './authority.js';
import type { MintCounts } from './store.js';
import type { MintConfig } from './types.js';

/**
 * What is left to mint: a wallet's remaining mints, never more than the name's supply left
 * (`remaining` of GET and POST), and the cap on the token mint's supply on-chain across every name
 * (phase) that mints it (`max_onchain_supply`, docs/minting.md "Phases").
 */

/** `per_wallet` minus the wallet's mints, at most the supply left (issued and reserved counted). */
export function remainingFor(mint: MintConfig, counts: MintCounts): number {
  const wallet = Math.max(0, mint.perWallet - counts.wallet);
  if (mint.supply === undefined) return wallet;
  return Math.min(wallet, Math.max(0, mint.supply - counts.issued - counts.reserved));
}

/**
 * The token mint's supply on-chain, read now, against `max_onchain_supply`: 403 SOLD_OUT when this
 * mint's amount — and this name's own pending reservations, which may land any moment — would pass
 * it. Other names' pending mints are not known here: they count once they land.
 */
export async function checkOnchainSupply(mint: MintConfig, chain: ChainReader, reservedOfName: number): Promise<void> {
  if (mint.maxOnchainSupply === undefined || mint.token === undefined || mint.amount === undefined) return;
  let accounts;
  try {
    accounts = await chain.getMultipleAccounts([mint.token.mint]);
  } catch (error) {
    if (error instanceof GateError) throw error;
    throw upstreamUnavailable('the token mint\'s supply could not be read');
  }
  const read = readTokenMint(accounts[0], mint.token.program);
  if (typeof read === 'string') throw new GateError(500, 'MINT_MISCONFIGURED', `Mint ${mint.name}: the token mint ${mint.token.mint}: ${read}; nothing was co-signed`);
  const after = read.supply + mint.amount * BigInt(reservedOfName + 1);
  if (after > mint.maxOnchainSupply) {
    throw new GateError(403, 'SOLD_OUT', `Mint ${mint.name}: the token mint's supply on-chain is ${read.supply} of its cap ${mint.maxOnchainSupply}; another ${mint.amount} would pass it`, {
      extra: { onchainSupply: read.supply.toString(), maxOnchainSupply: mint.maxOnchainSupply.toString() },
    });
  }
}

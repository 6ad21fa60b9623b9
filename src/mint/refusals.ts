import { GateError } from '../errors.js';
import type { MintChain } from './chain.js';
import type { Recounts } from './recount.js';
import type { MintCounts } from './store.js';
import type { MintConfig } from './types.js';

/**
 * A blockhash not valid at `confirmed`: too new (valid at `processed` only) or too old. The gate
 * judges every reservation at `confirmed` (settle.ts), so it accepts only what that bank knows.
 */
export async function refuseBlockhash(chain: MintChain, blockhash: string, deadlineMs: number): Promise<never> {
  if ((await chain.isBlockhashValid(blockhash, 'processed', deadlineMs)).valid) {
    throw new GateError(400, 'BLOCKHASH_NOT_CONFIRMED', 'The transaction\'s blockhash is not yet valid at the confirmed commitment; build it with a blockhash from getLatestBlockhash at "confirmed" (or "finalized")');
  }
  throw new GateError(400, 'BLOCKHASH_EXPIRED', 'The transaction\'s blockhash is no longer valid; build it again with a recent blockhash from getLatestBlockhash at "confirmed"');
}

/** 503 while a mint's counts are rebuilt from the chain; the loss is reported so the rebuild starts. */
export function recounting(mint: string, recounts: Recounts | undefined): GateError {
  recounts?.noteLost(mint);
  const seconds = recounts?.retryAfterSeconds(mint) ?? 5;
  return new GateError(503, 'MINT_RECOUNTING', `Mint ${mint}: its counts are being rebuilt from the chain (after a restart without Redis or a lost Redis store); nothing is co-signed until then. Retry in ${seconds} s.`, {
    headers: { 'Retry-After': String(seconds) },
  });
}

/** The time window, on the gate's clock (403 MINT_NOT_STARTED / MINT_ENDED). */
export function checkWindow(mint: MintConfig, nowMs: number): void {
  if (mint.startMs !== undefined && nowMs < mint.startMs) {
    throw new GateError(403, 'MINT_NOT_STARTED', `Mint ${mint.name} opens at ${new Date(mint.startMs).toISOString()}`, { extra: { start: new Date(mint.startMs).toISOString() } });
  }
  if (mint.endMs !== undefined && nowMs >= mint.endMs) {
    throw new GateError(403, 'MINT_ENDED', `Mint ${mint.name} closed at ${new Date(mint.endMs).toISOString()}`, { extra: { end: new Date(mint.endMs).toISOString() } });
  }
}

/** The counts' pre-check (the reservation decides): 403 SOLD_OUT, MINT_LIMIT_REACHED. */
export function checkCounts(mint: MintConfig, counts: MintCounts): void {
  if (mint.supply !== undefined && counts.issued + counts.reserved >= mint.supply) throw soldOut(mint);
  if (counts.wallet >= mint.perWallet) throw limitReached(mint, counts.wallet);
}

export const soldOut = (mint: MintConfig): GateError => new GateError(403, 'SOLD_OUT', `Mint ${mint.name} has issued or reserved all ${mint.supply} mints`);

export const limitReached = (mint: MintConfig, used: number): GateError =>
  new GateError(403, 'MINT_LIMIT_REACHED', `This wallet has ${used} of its ${mint.perWallet} mint${mint.perWallet === 1 ? '' : 's'} of ${mint.name} issued or reserved`, { extra: { perWallet: mint.perWallet } });

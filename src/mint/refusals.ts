import { GateError } from '../errors.js';
import type { MintChain } from './chain.js';
import type { Recounts } from './recount.js';

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

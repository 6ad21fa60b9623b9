import { decodeBase58 } from '../lib/base58.js';
import { equalBytes } from '../lib/bytes.js';
import type { CompiledInstruction } from '../transaction/message.js';
import { TransactionRejected } from '../transaction/transaction-rejected.js';

/**
 * A paid mint (docs/minting.md, "Paid mints"): the configuration's `"payment"` and the one System
 * Program transfer the template then requires — exactly `lamports`, from the fee payer (account
 * 0) to `destination`. Judged on the message alone, like the rest of the template (check.ts).
 */
export interface MintPayment {
  lamports: bigint;
  /** base58 and bytes of the account paid. */
  destination: string;
  destinationBytes: Uint8Array;
}

/** SystemInstruction::Transfer: a u32 little-endian 2, then the u64 lamports. */
const TRANSFER = 2;
const U64_MAX = (1n << 64n) - 1n;

/** `"payment": {"lamports": "5000000", "destination": "<address>"}`, validated; `signer` may not be paid. */
export function readPayment(value: unknown, signer: Uint8Array, fail: (why: string) => never): MintPayment {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail('field payment: must be {"lamports": "<whole number>", "destination": "<address>"}');
  const { lamports, destination, ...rest } = value as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0) fail(`field payment: unknown key ${extra[0]}; a payment has lamports and destination`);
  const text = typeof lamports === 'number' && Number.isSafeInteger(lamports) ? String(lamports) : lamports;
  if (typeof text !== 'string' || !/^[0-9]{1,20}$/.test(text)) fail('field payment: lamports must be a whole number of lamports, as a string ("5000000")');
  const amount = BigInt(text as string);
  if (amount === 0n || amount > U64_MAX) fail('field payment: lamports must be from 1 to 18446744073709551615');
  const bytes = typeof destination === 'string' ? decodeBase58(destination) : undefined;
  if (bytes?.length !== 32) fail('field payment: destination must be a base58 address (32 bytes)');
  if (equalBytes(bytes!, signer)) fail('field payment: destination cannot be the signer (its key is read-only in the transaction)');
  return { lamports: amount, destination: destination as string, destinationBytes: bytes! };
}

/**
 * One System Program instruction of a paid mint's transaction: it must be the transfer. Returns it;
 * `seen` says whether one was already found (a second is refused: the price is paid once).
 */
export function checkPaymentInstruction(instruction: CompiledInstruction, keys: readonly Uint8Array[], payment: MintPayment, seen: boolean, where: string): CompiledInstruction {
  const { data, accountIndexes } = instruction;
  const reject = (message: string): never => {
    throw new TransactionRejected('payment', `${where}: ${message}; the mint's price is one transfer of ${payment.lamports} lamports from the fee payer to ${payment.destination}`);
  };
  if (seen) reject('a second System Program instruction');
  if (data.length !== 12 || data[0] !== TRANSFER || data[1] !== 0 || data[2] !== 0 || data[3] !== 0) reject('a System Program instruction other than Transfer');
  if (accountIndexes.length !== 2) reject(`Transfer takes 2 accounts, not ${accountIndexes.length}`);
  if (accountIndexes[0] !== 0) reject('the transfer is not from the fee payer');
  if (!equalBytes(keys[accountIndexes[1]!]!, payment.destinationBytes)) reject('the transfer is to another account');
  const lamports = new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(4, true);
  if (lamports !== payment.lamports) reject(`the transfer is of ${lamports} lamports`);
  return instruction;
}

/** After every instruction: a paid mint's transaction without its transfer is refused. */
export function requirePayment(payment: MintPayment | undefined, found: boolean): void {
  if (payment !== undefined && !found) throw new TransactionRejected('payment', `no transfer of the mint's price (${payment.lamports} lamports from the fee payer to ${payment.destination})`);
}

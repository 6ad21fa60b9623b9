import { looksLikeAddress } from './address.js';
import type { AccountInfo, DataSlice, KeyedAccount } from './types.js';

/**
 * Shape checks for RPC replies. Nothing an RPC returns is trusted: every field the gate reads is
 * checked, and anything unexpected throws MalformedReply, which the RPC client retries elsewhere
 * and finally turns into a 503 (the chain could not be read), never a guess.
 * `rentEpoch` is never read: u64::MAX loses precision in JSON.parse.
 */

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export class MalformedReply extends Error {
  override name = 'MalformedReply';
}

export function malformed(method: string, what: string): MalformedReply {
  return new MalformedReply(`malformed ${method} reply: ${what}`);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/** `{context: {slot}, value}` → value (which the caller checks further). */
export function contextValue(result: unknown, method: string): unknown {
  if (!isObject(result) || !isObject(result.context) || !isCount(result.context.slot) || !('value' in result)) {
    throw malformed(method, 'expected {context: {slot}, value}');
  }
  return result.value;
}

/**
 * An account in base64 encoding. With a slice, data may not be longer than the slice. When the
 * reply gives the account's length (`space`, optional in the node's answer), the data must be
 * exactly what that length and the slice make (the node cuts `data[offset..offset+length]`, shorter
 * at the end): a reply whose data was cut short or padded is malformed, not a smaller account.
 */
export function parseAccountInfo(raw: unknown, method: string, slice?: DataSlice): AccountInfo {
  if (!isObject(raw)) throw malformed(method, 'account is not an object');
  const { owner, lamports, executable, data, space } = raw;
  if (!looksLikeAddress(owner)) throw malformed(method, 'account owner is not an address');
  // Lamports above 2^53 arrive rounded (JSON numbers); they are still whole and never negative.
  if (!isCount(lamports)) throw malformed(method, 'lamports is not a whole number');
  if (typeof executable !== 'boolean') throw malformed(method, 'executable is not a boolean');
  if (!Array.isArray(data) || data.length !== 2 || data[1] !== 'base64' || typeof data[0] !== 'string') {
    throw malformed(method, "data is not [string, 'base64']");
  }
  const encoded = data[0];
  if (encoded.length % 4 !== 0 || !BASE64.test(encoded)) throw malformed(method, 'data is not base64');
  const bytes = Buffer.from(encoded, 'base64');
  if (slice !== undefined && bytes.length > slice.length) throw malformed(method, `data is longer than the requested slice`);
  if (space === undefined || space === null) return { owner, lamports, executable, data: bytes };
  if (!isCount(space)) throw malformed(method, 'space is not a whole number');
  const expected = slice === undefined ? space : Math.max(0, Math.min(slice.length, space - slice.offset));
  if (bytes.length !== expected) throw malformed(method, `data is ${bytes.length} bytes where the account's length (space ${space}) gives ${expected}`);
  return { owner, lamports, executable, data: bytes, space };
}

export function parseKeyedAccounts(raw: unknown, method: string, slice?: DataSlice): KeyedAccount[] {
  if (!Array.isArray(raw)) throw malformed(method, 'expected an array of {pubkey, account}');
  return raw.map((item: unknown) => {
    if (!isObject(item) || !looksLikeAddress(item.pubkey)) throw malformed(method, 'item without a pubkey address');
    return { pubkey: item.pubkey, account: parseAccountInfo(item.account, method, slice) };
  });
}

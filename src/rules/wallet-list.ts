import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { ALPHABET, decodeBase58 } from '../lib/base58.js';

/**
 * A wallet list: the operator's file of Solana addresses, one per line, that a rule leaf names
 * (`not` over it makes a deny list). Read once at start-up and again on SIGHUP (then in a worker
 * thread, src/rules/read-lists.ts); a bad list stops the gate (or leaves the previous rules in
 * force) before any login sees it.
 *
 * Format: UTF-8, one base58 address (32 bytes) per line; whitespace around it is trimmed (so `\r\n`
 * and a byte-order mark are fine); blank lines and lines starting with `#` are skipped; an address
 * may appear more than once. Anything else is an error naming the file and the line. A list with
 * no address at all is valid: an empty deny list denies no one, and an empty allow list admits no
 * one — the operator said so, and refusing it would only make "nobody yet" awkward to write.
 *
 * Storage: the distinct keys, sorted, back to back in one buffer (32 bytes each), plus the index of
 * the first key of each bucket — keys sharing their first bits, up to 16 bits: 65,537 × 4 bytes for
 * a million keys, ~15 in each. A lookup jumps to its bucket and binary-searches it: no allocation,
 * no strings. A Set of a million address strings holds ~90 MB of heap; this, 32 MB + 256 KB outside
 * it (bench/wallet-list.ts measures both).
 */
export interface WalletList {
  /** The path it was read from, for logs and errors. */
  readonly source: string;
  /** Distinct addresses. */
  readonly size: number;
  /**
   * base64url SHA-256 of the sorted distinct keys: the same set gives the same digest whatever the
   * order, duplicates or comments of the file, so reordering a list keeps tokens valid and changing
   * it does not.
   */
  readonly digest: string;
  /** Whether these 32 raw bytes are listed (anything not 32 bytes long is not). */
  has(publicKey: Uint8Array): boolean;
  /** Whether this base58 address is listed (text that is not an address is not). */
  hasAddress(address: string): boolean;
}

export const MAX_WALLET_LIST_ADDRESSES = 1_000_000;
/** A million addresses of 44 characters with `\r\n` take 46 MB; beyond 64 MiB it is not a list of addresses. */
export const MAX_WALLET_LIST_BYTES = 64 * 1024 * 1024;

/** The file, the 1-based line (for a problem with one line) and why; the message says all three. */
export class WalletListError extends Error {
  constructor(readonly file: string, readonly line: number | undefined, why: string) {
    super(line === undefined ? `${file}: ${why}` : `${file} line ${line}: ${why}`);
    this.name = 'WalletListError';
  }
}

const KEY_BYTES = 32;
/** Buckets are the first 16 bits of a key at most: 65,537 offsets (256 KB) for a million keys, ~15 keys each. */
const MAX_BUCKET_BITS = 16;
/** Buckets up to this size are sorted by insertion (random keys give ~15 a bucket, rarely over 40); larger ones by Array#sort. */
const INSERTION_SORT_MAX = 48;

export function loadWalletList(path: string): WalletList {
  return walletListFrom(path, readWalletList(path));
}

/**
 * A list file read, checked and sorted, as plain data (buffers a worker thread can hand over):
 * SIGHUP reads lists in a worker (src/rules/read-lists.ts) so a million addresses do not stop the
 * event loop for a second. Throws WalletListError.
 */
export interface WalletListData extends SortedKeys {
  digest: string;
}

export function readWalletList(path: string): WalletListData {
  const { raw, count } = parseAddresses(path, readListFile(path));
  const sorted = sortDistinct(path, raw, count);
  return { ...sorted, digest: createHash('sha256').update(sorted.keys).digest('base64url') };
}

/** The list over data that readWalletList produced (here or in a worker); costs nothing. */
export function walletListFrom(source: string, data: WalletListData): WalletList {
  return new SortedWalletList(source, data);
}

function readListFile(path: string): string {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    // Stat the open file, not the path: what is checked is what is read.
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new WalletListError(path, undefined, 'is not a regular file');
    if (stat.size > MAX_WALLET_LIST_BYTES) throw new WalletListError(path, undefined, `is ${stat.size} bytes; a wallet list may be at most ${MAX_WALLET_LIST_BYTES} (64 MiB)`);
    const bytes = readFileSync(fd);
    // It may have grown between the stat and the read.
    if (bytes.length > MAX_WALLET_LIST_BYTES) throw new WalletListError(path, undefined, `is larger than ${MAX_WALLET_LIST_BYTES} bytes (64 MiB)`);
    return bytes.toString('utf8');
  } catch (error) {
    if (error instanceof WalletListError) throw error;
    throw new WalletListError(path, undefined, `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Every address of the file decoded into `raw` in file order (repeats included); throws at the first bad line. */
function parseAddresses(path: string, text: string): { raw: Buffer; count: number } {
  // The shortest address is 32 characters ('1' × 32) and every line but the last ends in '\n', so a
  // text of n characters holds at most ceil(n / 33) addresses.
  const raw = Buffer.allocUnsafe(Math.ceil(text.length / 33) * KEY_BYTES);
  let count = 0;
  let lineNumber = 0;
  for (let start = 0; start <= text.length; ) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end).trim();
    start = end + 1;
    lineNumber++;
    if (line === '' || line.charCodeAt(0) === 35 /* # */) continue;
    const key = decodeBase58(line);
    if (key?.length !== KEY_BYTES) throw new WalletListError(path, lineNumber, notAnAddress(line, key));
    raw.set(key, count++ * KEY_BYTES);
  }
  return { raw, count };
}

/** Why `line` is not an address, showing it (escaped, cut at 60 characters) so the operator finds it. */
function notAnAddress(line: string, decoded: Uint8Array | undefined): string {
  const shown = JSON.stringify(line.length > 60 ? `${line.slice(0, 60)}…` : line);
  const prefix = `${shown} is not a base58 Solana address (32 bytes)`;
  const stray = [...line].find((character) => !ALPHABET.includes(character));
  if (stray !== undefined) return `${prefix}: ${JSON.stringify(stray)} is not a base58 character`;
  if (decoded === undefined) return `${prefix}: it has ${line.length} characters, an address has 32 to 44`;
  return `${prefix}: it decodes to ${decoded.length} byte${decoded.length === 1 ? '' : 's'}`;
}

/** The distinct keys, sorted, and where each bucket (keys sharing their first `bits` bits) starts. */
interface SortedKeys {
  keys: Uint8Array;
  /** Bucket of a key = its first two bytes >>> shift. */
  shift: number;
  /** Index of the first key of each bucket; the last entry is the number of keys. */
  firstOfBucket: Uint32Array;
}

/**
 * Counting sort on the bucket (one pass, no comparisons), then each bucket — now contiguous, so it
 * sorts in cache — sorted by comparison, then the repeats (adjacent once sorted) squeezed out. About
 * as many buckets as keys, up to 65,536, so a small list does not carry a 256 KB index.
 */
function sortDistinct(path: string, raw: Buffer, count: number): SortedKeys {
  const bits = Math.min(MAX_BUCKET_BITS, Math.ceil(Math.log2(Math.max(1, count))));
  const shift = 16 - bits;
  const buckets = 1 << bits;
  const firstOfBucket = new Uint32Array(buckets + 1);
  for (let i = 0; i < count; i++) firstOfBucket[bucketOf(raw, i * KEY_BYTES, shift) + 1]!++;
  for (let b = 0; b < buckets; b++) firstOfBucket[b + 1]! += firstOfBucket[b]!;

  const keys = Buffer.allocUnsafeSlow(count * KEY_BYTES);
  const next = firstOfBucket.slice(0, buckets);
  for (let i = 0; i < count; i++) copyKey(raw, i * KEY_BYTES, keys, next[bucketOf(raw, i * KEY_BYTES, shift)]!++ * KEY_BYTES);
  for (let b = 0; b < buckets; b++) sortBucket(keys, firstOfBucket[b]!, firstOfBucket[b + 1]!);

  firstOfBucket.fill(0);
  let size = 0;
  for (let i = 0; i < count; i++) {
    if (size > 0 && compareKeys(keys, (size - 1) * KEY_BYTES, keys, i * KEY_BYTES) === 0) continue;
    if (size !== i) copyKey(keys, i * KEY_BYTES, keys, size * KEY_BYTES);
    firstOfBucket[bucketOf(keys, size * KEY_BYTES, shift) + 1]!++;
    size++;
  }
  if (size > MAX_WALLET_LIST_ADDRESSES) {
    throw new WalletListError(path, undefined, `has ${size.toLocaleString('en-US')} distinct addresses; a wallet list may hold at most ${MAX_WALLET_LIST_ADDRESSES.toLocaleString('en-US')}`);
  }
  for (let b = 0; b < buckets; b++) firstOfBucket[b + 1]! += firstOfBucket[b]!;
  // Give back what the repeats took (a copy only when there were any).
  return { keys: size === count ? keys : Buffer.from(keys.subarray(0, size * KEY_BYTES)), shift, firstOfBucket };
}

function bucketOf(bytes: Uint8Array, at: number, shift: number): number {
  return ((bytes[at]! << 8) | bytes[at + 1]!) >>> shift;
}

/** Byte order of the keys at `aAt` in `a` and `bAt` in `b`. */
function compareKeys(a: Uint8Array, aAt: number, b: Uint8Array, bAt: number): number {
  for (let i = 0; i < KEY_BYTES; i++) {
    const difference = a[aAt + i]! - b[bAt + i]!;
    if (difference !== 0) return difference;
  }
  return 0;
}

/** A plain loop: Buffer#copy costs ~80 ns a call, this a few. */
function copyKey(from: Uint8Array, fromAt: number, to: Uint8Array, toAt: number): void {
  for (let k = 0; k < KEY_BYTES; k++) to[toAt + k] = from[fromAt + k]!;
}

/** Scratch for sorting one small bucket: where its keys are, in sorted order, and a copy of them. */
const slots = new Uint32Array(INSERTION_SORT_MAX);
const bucketCopy = new Uint8Array(INSERTION_SORT_MAX * KEY_BYTES);

/**
 * Sorts the keys `from` ≤ i < `to` (one bucket) in place: their positions first (moving 4 bytes,
 * not 32, and comparing keys that sit side by side in memory), then the keys, once.
 */
function sortBucket(keys: Buffer, from: number, to: number): void {
  const length = to - from;
  if (length < 2) return;
  const byKey = (a: number, b: number): number => compareKeys(keys, a * KEY_BYTES, keys, b * KEY_BYTES);
  let order: ArrayLike<number> = slots;
  let copy = bucketCopy;
  if (length > INSERTION_SORT_MAX) {
    // Only lists built to share prefixes get here (vanity addresses, or a hostile file).
    order = Array.from({ length }, (_, k) => from + k).sort(byKey);
    copy = new Uint8Array(length * KEY_BYTES);
  } else {
    let moved = false;
    for (let i = 0; i < length; i++) {
      const item = from + i;
      let j = i - 1;
      for (; j >= 0 && byKey(slots[j]!, item) > 0; j--) slots[j + 1] = slots[j]!;
      slots[j + 1] = item;
      moved ||= j + 1 !== i;
    }
    if (!moved) return;
  }
  copy.set(keys.subarray(from * KEY_BYTES, to * KEY_BYTES));
  for (let k = 0; k < length; k++) copyKey(copy, (order[k]! - from) * KEY_BYTES, keys, (from + k) * KEY_BYTES);
}

class SortedWalletList implements WalletList {
  readonly size: number;
  readonly digest: string;
  readonly #keys: Uint8Array;
  readonly #shift: number;
  readonly #firstOfBucket: Uint32Array;

  constructor(readonly source: string, { keys, shift, firstOfBucket, digest }: WalletListData) {
    this.#keys = keys;
    this.#shift = shift;
    this.#firstOfBucket = firstOfBucket;
    this.size = keys.length / KEY_BYTES;
    this.digest = digest;
  }

  has(publicKey: Uint8Array): boolean {
    if (publicKey.length !== KEY_BYTES) return false;
    const bucket = bucketOf(publicKey, 0, this.#shift);
    let low = this.#firstOfBucket[bucket]!;
    let high = this.#firstOfBucket[bucket + 1]!;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const order = compareKeys(this.#keys, middle * KEY_BYTES, publicKey, 0);
      if (order === 0) return true;
      if (order < 0) low = middle + 1;
      else high = middle;
    }
    return false;
  }

  hasAddress(address: string): boolean {
    const key = decodeBase58(address);
    return key !== undefined && this.has(key);
  }
}

import { addressBytes, encodeAddress } from '../chain/address.js';
import { findProgramAddress } from '../chain/ata.js';
import { LruCache } from '../lib/lru-cache.js';

/**
 * Metaplex Token Metadata (docs/solana-wire-format.md, "Collections"): the metadata account of a
 * mint is the PDA of seeds ["metadata", program id, mint] under the program, so only the program
 * can have written it, and it names its mint again at bytes 33..65.
 */
export const TOKEN_METADATA_PROGRAM_ID = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s';

const PROGRAM = addressBytes(TOKEN_METADATA_PROGRAM_ID);
const METADATA_SEED = Buffer.from('metadata');
/** Key::MetadataV1. */
const KEY_METADATA_V1 = 4;
const MINT_OFFSET = 33;
const DATA_OFFSET = 65;
const CREATOR_SIZE = 34;
/** TokenStandard::ProgrammableNonFungibleEdition is the last variant; UseMethod::Single the last. */
const LAST_TOKEN_STANDARD = 5;
const LAST_USE_METHOD = 2;

/**
 * Metadata PDAs by mint. A wallet's NFTs are checked again at every sign-in, so the same mints come
 * back; 50k entries (~190 bytes each: two 44-character strings and the Map entry) are ~10 MiB.
 */
export const METADATA_CACHE_CAPACITY = 50_000;
const cache = new LruCache<string, string>(METADATA_CACHE_CAPACITY);

/** The metadata account address of `mint` (base58), derived once and cached. */
export function metadataAddress(mint: string): string {
  let address = cache.get(mint);
  if (address === undefined) {
    address = deriveMetadataAddress(mint);
    cache.set(mint, address);
  }
  return address;
}

/** Whether metadataAddress(mint) would be answered from the cache (without touching its recency). */
export const isMetadataAddressCached = (mint: string): boolean => cache.has(mint);

/** The derivation alone, uncached (benchmarks). */
export function deriveMetadataAddress(mint: string): string {
  return encodeAddress(findProgramAddress([METADATA_SEED, PROGRAM, addressBytes(mint)], PROGRAM).address);
}

export function clearMetadataCache(): void {
  cache.clear();
}

/** What the collection check reads of a metadata account. */
export interface MetadataFacts {
  mint: Buffer;
  /** `collection` when the account has one the program would read (see below). */
  collection: { key: string; verified: boolean } | null;
  /** The first entry of `creators`, if any. */
  firstCreator: { address: string; verified: boolean } | null;
  /** TokenStandard number (0 NonFungible … 5 ProgrammableNonFungibleEdition), null when absent. */
  tokenStandard: number | null;
}

/**
 * Reads a MetadataV1 account the way the program's own `meta_deser_unchecked` does: key, update
 * authority, mint, data (name, symbol, uri, seller fee, creators), primary-sale and mutable flags,
 * edition nonce, then token standard, collection and uses. Old accounts carry bytes after the
 * edition nonce that do not parse as those three fields; the program then treats all three as
 * absent, and so does this (a collection read from such bytes would be a guess). Returns null for
 * anything that is not a MetadataV1 account the program could read.
 */
export function readMetadata(data: Buffer): MetadataFacts | null {
  if (data.length < DATA_OFFSET || data[0] !== KEY_METADATA_V1) return null;
  const reader = new BorshReader(data, DATA_OFFSET);
  let firstCreator: MetadataFacts['firstCreator'] = null;
  try {
    reader.skipString(); // name
    reader.skipString(); // symbol
    reader.skipString(); // uri
    reader.skip(2); // seller_fee_basis_points
    if (reader.option()) {
      const count = reader.u32();
      const start = reader.offset;
      reader.skip(count * CREATOR_SIZE);
      if (count > 0) firstCreator = { address: encodeAddress(data.subarray(start, start + 32)), verified: readBool(data, start + 32) };
    }
    reader.bool(); // primary_sale_happened
    reader.bool(); // is_mutable
    if (reader.option()) reader.skip(1); // edition_nonce
  } catch (error) {
    if (error instanceof OutOfRange) return null;
    throw error;
  }
  const mint = data.subarray(MINT_OFFSET, MINT_OFFSET + 32);
  const tail = readVersion12Fields(reader);
  return { mint, firstCreator, ...tail };
}

/** token_standard, collection, uses: all three, or none when any of them does not parse. */
function readVersion12Fields(reader: BorshReader): Pick<MetadataFacts, 'collection' | 'tokenStandard'> {
  try {
    let tokenStandard: number | null = null;
    if (reader.option()) {
      tokenStandard = reader.u8();
      if (tokenStandard > LAST_TOKEN_STANDARD) throw new OutOfRange();
    }
    let collection: MetadataFacts['collection'] = null;
    if (reader.option()) {
      const verified = reader.bool();
      collection = { verified, key: encodeAddress(reader.bytes(32)) };
    }
    if (reader.option()) {
      if (reader.u8() > LAST_USE_METHOD) throw new OutOfRange();
      reader.skip(16); // remaining, total
    }
    return { tokenStandard, collection };
  } catch (error) {
    if (error instanceof OutOfRange) return { tokenStandard: null, collection: null };
    throw error;
  }
}

/** A Borsh field that runs past the data or holds a value Borsh refuses. */
class OutOfRange extends Error {}

function readBool(data: Buffer, at: number): boolean {
  const byte = data[at];
  if (byte !== 0 && byte !== 1) throw new OutOfRange();
  return byte === 1;
}

/** Borsh, as far as this file needs it: bounds-checked, strict about bool and Option tags. */
class BorshReader {
  constructor(
    private readonly data: Buffer,
    public offset: number,
  ) {}

  skip(length: number): void {
    if (this.offset + length > this.data.length) throw new OutOfRange();
    this.offset += length;
  }

  bytes(length: number): Buffer {
    const start = this.offset;
    this.skip(length);
    return this.data.subarray(start, start + length);
  }

  u8(): number {
    this.skip(1);
    return this.data[this.offset - 1]!;
  }

  u32(): number {
    this.skip(4);
    return this.data.readUInt32LE(this.offset - 4);
  }

  bool(): boolean {
    this.skip(1);
    return readBool(this.data, this.offset - 1);
  }

  option(): boolean {
    return this.bool();
  }

  skipString(): void {
    this.skip(this.u32());
  }
}

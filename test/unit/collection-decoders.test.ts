import { createRequire } from 'node:module';
import { PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { CORE_HEAD_SIZE, coreAssetFilters, isCoreAssetOf } from '../../src/collection/core.js';
import { readMint } from '../../src/collection/token-group.js';
import { clearMetadataCache, metadataAddress, readMetadata, TOKEN_METADATA_PROGRAM_ID } from '../../src/collection/token-metadata.js';
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../../src/chain/token-programs.js';
import { buildTokenGroup } from 'x404-localnet/collections/token-2022-group.js';
import { coreAssetAccount, metadataAccount, metadataPda, TOKEN_STANDARD } from 'x404-localnet/collections/metaplex.js';
import { labelAddress } from 'x404-localnet/state.js';

/**
 * The collection decoders (src/collection/) against bytes made by the programs' own code — the
 * Token-2022 program run in LiteSVM, Metaplex's serializers — each cross-checked with the official
 * deserializer. (No mainnet account dumps of these standards are kept: see docs/collection.md.)
 */
const require = createRequire(import.meta.url);
const tokenMetadata = require('@metaplex-foundation/mpl-token-metadata') as typeof import('@metaplex-foundation/mpl-token-metadata');
const core = require('@metaplex-foundation/mpl-core') as typeof import('@metaplex-foundation/mpl-core');

const key = (address: string): Buffer => Buffer.from(bs58.decode(address));

const mint = labelAddress('unit:mint');
const collection = labelAddress('unit:collection');
const creator = labelAddress('unit:creator');

describe('Token Metadata metadata accounts', () => {
  it('reads collection, first creator and token standard from serializer-made bytes', () => {
    const data = metadataAccount({
      mint,
      updateAuthority: creator,
      name: 'unit',
      tokenStandard: TOKEN_STANDARD.programmableNonFungible,
      collection: { key: collection, verified: true },
      creators: [
        { address: creator, verified: true, share: 60 },
        { address: collection, verified: false, share: 40 },
      ],
    }).data;
    const facts = readMetadata(data)!;
    expect(facts.mint.equals(key(mint))).toBe(true);
    expect(facts).toMatchObject({ collection: { key: collection, verified: true }, firstCreator: { address: creator, verified: true }, tokenStandard: 4 });
  });

  it('an unverified or absent collection is reported as such', () => {
    const unverified = readMetadata(metadataAccount({ mint, updateAuthority: creator, name: 'u', tokenStandard: 0, collection: { key: collection, verified: false } }).data)!;
    expect(unverified.collection).toEqual({ key: collection, verified: false });
    const none = readMetadata(metadataAccount({ mint, updateAuthority: creator, name: 'n', tokenStandard: 0 }).data)!;
    expect(none).toMatchObject({ collection: null, firstCreator: null });
  });

  it('fields after the edition nonce that the program cannot parse count as absent (meta_deser_unchecked)', () => {
    const data = metadataAccount({ mint, updateAuthority: creator, name: 'c', tokenStandard: 0, collection: { key: collection, verified: true } }).data;
    // Locate the collection option (token standard Some(0), then tag 1, verified 1, key) and break the uses option after it.
    const at = data.indexOf(key(collection)) + 32;
    const broken = Buffer.from(data);
    broken[at] = 7; // an Option tag Borsh refuses
    expect(readMetadata(broken)).toMatchObject({ collection: null, tokenStandard: null });
    expect(readMetadata(data)?.collection?.verified).toBe(true);
  });

  it('refuses what is not a readable MetadataV1 account', () => {
    const data = metadataAccount({ mint, updateAuthority: creator, name: 'r', tokenStandard: 0 }).data;
    expect(readMetadata(data.subarray(0, 70))).toBeNull();
    const other = Buffer.from(data);
    other[0] = 6; // MasterEditionV2
    expect(readMetadata(other)).toBeNull();
    const bigName = Buffer.from(data);
    bigName.writeUInt32LE(10_000, 65);
    expect(readMetadata(bigName)).toBeNull();
  });
});

describe('mints and Token-2022 group members', () => {
  const group = labelAddress('unit:group');
  const member = labelAddress('unit:member');
  const holder = labelAddress('unit:holder');
  const made = buildTokenGroup({ group, authority: labelAddress('unit:authority'), members: [{ mint: member, holder }] });

  it('a member mint made by the Token-2022 program names its group; the group mint itself is no member', () => {
    const memberAccount = made.get(member)!;
    expect(memberAccount.owner).toBe(TOKEN_2022_PROGRAM_ID);
    expect(readMint(memberAccount.data, TOKEN_2022_PROGRAM_ID, key(member))).toEqual({ supply: 1n, decimals: 0, group });
    expect(readMint(made.get(group)!.data, TOKEN_2022_PROGRAM_ID, key(group))).toEqual({ supply: 0n, decimals: 0, group: null });
  });

  it('a member record that names another mint, or a pointer to another account, does not count', () => {
    const data = made.get(member)!.data;
    expect(readMint(data, TOKEN_2022_PROGRAM_ID, key(labelAddress('unit:someone-else')))?.group).toBeNull();
    const pointed = Buffer.from(data);
    // GroupMemberPointer value: authority 0..32, member address 32..64, after the 4-byte TLV header at 166.
    const pointer = pointed.indexOf(Buffer.from([22, 0, 64, 0]), 166);
    key(labelAddress('unit:elsewhere')).copy(pointed, pointer + 4 + 32);
    expect(readMint(pointed, TOKEN_2022_PROGRAM_ID, key(member))?.group).toBeNull();
  });

  it('refuses extended bytes under the classic Token program, a wrong account type and a truncated extension', () => {
    const data = made.get(member)!.data;
    expect(readMint(data, TOKEN_PROGRAM_ID, key(member))).toBeNull();
    const wrongType = Buffer.from(data);
    wrongType[165] = 2;
    expect(readMint(wrongType, TOKEN_2022_PROGRAM_ID, key(member))).toBeNull();
    expect(readMint(data.subarray(0, data.length - 3), TOKEN_2022_PROGRAM_ID, key(member))).toBeNull();
  });
});

describe('Metaplex Core assets', () => {
  const owner = labelAddress('unit:owner');
  it('the filters match the first 66 bytes of a serializer-made asset of the collection, and nothing else', () => {
    const data = coreAssetAccount(owner, collection, 'unit asset').data;
    expect(isCoreAssetOf(data.subarray(0, CORE_HEAD_SIZE), key(owner), key(collection))).toBe(true);
    expect(isCoreAssetOf(data, key(owner), key(creator))).toBe(false);
    expect(isCoreAssetOf(data, key(creator), key(collection))).toBe(false);
    const [head, tail] = coreAssetFilters(owner, collection).map((filter) => ('memcmp' in filter ? filter.memcmp : undefined)!);
    expect(data.subarray(head!.offset, head!.offset + 33).equals(Buffer.from(bs58.decode(head!.bytes)))).toBe(true);
    expect(data.subarray(tail!.offset, tail!.offset + 33).equals(Buffer.from(bs58.decode(tail!.bytes)))).toBe(true);
  });
});

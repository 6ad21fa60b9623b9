import { addressBytes } from '../chain/address.js';
import { isLamportsOnly } from '../chain/holdings.js';
import type { AccountInfo, ChainReader, OwnedTokenAccount } from '../chain/types.js';
import { upstreamUnavailable } from '../errors.js';
import { isMetadataAddressCached, metadataAddress, readMetadata, TOKEN_METADATA_PROGRAM_ID } from './token-metadata.js';
import { readMint } from './token-group.js';

/** What makes an NFT count: a verified collection in `collections`, or a verified first creator in `creators`. */
export interface CollectionMatch {
  collections: ReadonlySet<string>;
  creators: ReadonlySet<string>;
}

export interface TokenNftCount {
  /** Mints counted through their Token Metadata account (NFTs, editions, programmable NFTs). */
  tokenMetadata: Set<string>;
  /** Token-2022 member mints of a listed group (not already counted above). */
  token2022: Set<string>;
  /** Candidates (distinct mints held with amount 1) beyond COLLECTION_MAX_NFTS, not examined. */
  unexamined: number;
}

/**
 * The wallet's token NFTs that count, from its token accounts (both programs) and ONE
 * getMultipleAccounts round over each candidate's mint and Token Metadata PDA. A candidate is a
 * mint held with amount exactly 1 (a frozen account counts: a programmable NFT's always is); it
 * counts when its mint has decimals 0 and supply 1 under the program of the token account, and
 * then either its metadata account (owned by Token Metadata, naming the mint) has a verified
 * collection or a verified first creator the policy lists, or its Token-2022 TokenGroupMember names
 * a listed group (token-group.ts). Each mint counts once.
 */
export async function countTokenNfts(
  chain: ChainReader,
  accounts: readonly OwnedTokenAccount[],
  match: CollectionMatch,
  maxNfts: number,
): Promise<TokenNftCount> {
  const candidates = new Map<string, string>(); // mint → token program
  for (const account of accounts) {
    if (account.amount === 1n && !candidates.has(account.mint)) candidates.set(account.mint, account.program);
  }
  const examined = [...candidates].slice(0, maxNfts);
  const count: TokenNftCount = { tokenMetadata: new Set(), token2022: new Set(), unexamined: candidates.size - examined.length };
  if (examined.length === 0) return count;

  const keys: string[] = [];
  let derived = 0;
  for (const [mint] of examined) {
    if (!isMetadataAddressCached(mint) && ++derived % DERIVATIONS_PER_TURN === 0) await nextTurn();
    keys.push(mint, metadataAddress(mint));
  }
  const loaded = await chain.getMultipleAccounts(keys);
  for (let i = 0; i < examined.length; i++) {
    if (i > 0 && i % DECODES_PER_TURN === 0) await nextTurn();
    const [mint, program] = examined[i]!;
    const standard = standardOf(mint, program, loaded[2 * i] ?? null, loaded[2 * i + 1] ?? null, match);
    if (standard !== null) count[standard].add(mint);
  }
  return count;
}

/**
 * A wallet may hold hundreds of NFTs (COLLECTION_MAX_NFTS, default 500): the work is cut into
 * slices of about a millisecond (bench/collection.ts: ~25 µs per PDA derived, ~3 µs per NFT
 * decoded), so other logins' requests are served between them.
 */
const DERIVATIONS_PER_TURN = 32;
const DECODES_PER_TURN = 256;
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Which standard counts the NFT, or null when it does not count. Only well-formed data decides
 * (docs/solana-wire-format.md, "Collections"): the mint must exist as an initialized mint of the
 * token program of the account holding it (a token account holding 1 of it proves it does), and
 * the metadata PDA — which only Token Metadata can create — holds nothing (no account, or lamports
 * someone sent there) or a MetadataV1 account naming this mint. Anything else at those addresses
 * is a broken or tampering node: 503, never "no NFT" (which a `not` over collection would turn
 * into a pass).
 */
function standardOf(mint: string, program: string, mintAccount: AccountInfo | null, metadataAccount: AccountInfo | null, match: CollectionMatch): 'tokenMetadata' | 'token2022' | null {
  const fail = (what: string, why: string) => upstreamUnavailable(`getMultipleAccounts: the ${what} of NFT ${mint} ${why}`);
  if (mintAccount === null) throw fail('mint account', 'is missing, though a token account holds it');
  if (mintAccount.owner !== program) throw fail('mint account', `is owned by ${mintAccount.owner}, not by the token program of the account holding it`);
  const mintBytes = addressBytes(mint);
  const facts = readMint(mintAccount.data, program, mintBytes);
  if (facts === null) throw fail('mint account', 'is not a well-formed initialized mint');
  if (facts.decimals !== 0 || facts.supply !== 1n) return null;
  if (metadataAccount !== null && !isLamportsOnly(metadataAccount)) {
    if (metadataAccount.owner !== TOKEN_METADATA_PROGRAM_ID) throw fail('Token Metadata account', `is owned by ${metadataAccount.owner}, not by Token Metadata`);
    const metadata = readMetadata(metadataAccount.data);
    if (metadata === null) throw fail('Token Metadata account', 'is not a well-formed MetadataV1 account');
    if (!metadata.mint.equals(mintBytes)) throw fail('Token Metadata account', 'names another mint');
    const { collection, firstCreator } = metadata;
    if (collection?.verified === true && match.collections.has(collection.key)) return 'tokenMetadata';
    if (firstCreator?.verified === true && match.creators.has(firstCreator.address)) return 'tokenMetadata';
  }
  if (facts.group !== null && match.collections.has(facts.group)) return 'token2022';
  return null;
}

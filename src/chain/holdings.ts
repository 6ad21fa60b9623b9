import type { Config } from '../config.js';
import { GateError, upstreamUnavailable } from '../errors.js';
import { addressBytes, encodeAddress } from './address.js';
import type { AccountBatcher } from './account-batcher.js';
import type { CallCoalescer } from './call-coalescer.js';
import type { MintPrograms } from './mint-programs.js';
import { associatedTokenAddress } from './ata.js';
import { SYSTEM_PROGRAM_ID, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_IDS } from './token-programs.js';
import { contextValue, malformed, parseKeyedAccounts } from './replies.js';
import { readHeldTokenAccount, TOKEN_ACCOUNT_SLICE, TokenAccountError } from './token-account.js';
import type { AccountInfo, OwnedTokenAccount } from './types.js';

/**
 * Token balances per mint, summed as bigint over both token programs (docs/solana-wire-format.md,
 * "Token accounts"). Only well-formed data counts: every account read is owned by the token
 * program it was looked up under, has that program's layout and length (TOKEN_ACCOUNT_SLICE shows
 * both), is initialized or frozen, and names the wallet and the mint it was asked for. Anything
 * else fails the read with a 503 — never a zero balance, which would let a banned holder through a
 * tampering or broken node — except the one thing anyone can put at any address on mainnet:
 * lamports. An associated token address holding a System Program account with no data holds no
 * tokens. A node can still hide an account by leaving it out (as by answering null): absence
 * cannot be proven from an RPC answer.
 */

/**
 * The wallet's associated token account per mint, under the token program that owns the mint (the
 * only program whose accounts can hold it; see mint-programs.ts). Bypassable for a deny condition
 * (a holder can keep a token in any other account it owns): HOLDINGS_SCOPE / `scope` decide where
 * it is enough (src/chain/wallet-holdings.ts).
 *
 * One round trip, even for a mint seen for the first time: the mint's owner is looked up in the
 * same batch as the wallet's ATAs under both token programs (a launch's first wave of sign-ins
 * would otherwise wait two round trips); once the owner is known, the other program's address
 * must be empty. Mints already known cost one ATA each. With `walletAccount`, the wallet's own
 * account is one more key of the same call, and `lamports` its balance.
 */
export async function readAtaBalances(
  batcher: AccountBatcher,
  mintPrograms: MintPrograms,
  wallet: string,
  mints: readonly string[],
  deadlineMs = Infinity,
  walletAccount = false,
): Promise<{ balances: Map<string, bigint>; lamports: bigint | undefined }> {
  // Decoded only when an account comes back to check against it: a wallet that holds none of the
  // mints (a blacklist's usual answer: every ATA null) never needs its bytes (~0.5 µs a login).
  let walletBytes: Buffer | undefined;
  const balances = new Map<string, bigint>();
  for (const mint of mints) balances.set(mint, 0n);
  const unknown: string[] = [];
  const lookups: { mint: string; program: string }[] = [];
  for (const mint of balances.keys()) {
    const program = mintPrograms.knownProgramOf(mint);
    if (program === undefined) {
      unknown.push(mint);
      for (const candidate of TOKEN_PROGRAM_IDS) lookups.push({ mint, program: candidate });
    } else if (program !== null) {
      lookups.push({ mint, program });
    }
  }
  const programs = unknown.length === 0 ? undefined : mintPrograms.programsOf(unknown, deadlineMs);
  if (lookups.length === 0 && !walletAccount) {
    await programs;
    return { balances, lamports: undefined };
  }
  const keys = lookups.map(({ mint, program }) => associatedTokenAddress(wallet, mint, program));
  if (walletAccount) keys.push(wallet);
  const reading = batcher.load(keys, TOKEN_ACCOUNT_SLICE, true, deadlineMs);
  // Either failing fails the read (fail closed); Promise.all handles the later one too.
  const [owners, accounts] = programs === undefined ? [undefined, await reading] : await Promise.all([programs, reading]);
  const lamports = walletAccount ? BigInt(accounts.pop()?.lamports ?? 0) : undefined;
  accounts.forEach((account, i) => {
    if (account === null || isLamportsOnly(account)) return;
    const { mint, program } = lookups[i]!;
    const fail = (why: string) =>
      upstreamUnavailable(`getMultipleAccounts: the account at ${wallet}'s associated token address for ${mint} under ${programName(program)} ${why}`);
    const owner = owners?.get(mint);
    if (owner !== undefined && owner !== program) {
      // The ATA program creates an account here only under the mint's own program.
      throw fail(owner === null ? 'exists, but the mint does not' : `exists, but the mint belongs to ${programName(owner)}`);
    }
    const held = checkedTokenAccount(account, program, fail);
    if (!held.mint.equals(mintBytesOf(mint))) throw fail('names another mint');
    if (!held.owner.equals((walletBytes ??= addressBytes(wallet)))) throw fail('names another owner');
    balances.set(mint, balances.get(mint)! + held.amount);
  });
  return { balances, lamports };
}

/**
 * Lamports sent to an address nobody created an account at: a System Program account with no data
 * (anyone can do it to any address, a program's derived address included, so it is no sign of
 * tampering). It holds no tokens and is no program's account.
 */
export function isLamportsOnly(account: AccountInfo): boolean {
  return account.owner === SYSTEM_PROGRAM_ID && account.data.length === 0 && !account.executable && (account.space === undefined || account.space === 0);
}

/** The account as a token account of `program` (readHeldTokenAccount's checks), or the error `fail` makes. */
function checkedTokenAccount(account: AccountInfo, program: string, fail: (why: string) => Error) {
  if (account.owner !== program) throw fail(`is owned by ${account.owner}, not by the token program`);
  if (account.executable) throw fail('is executable');
  try {
    return readHeldTokenAccount(account.data, program, account.space);
  } catch (error) {
    if (error instanceof TokenAccountError) throw fail(`is not a well-formed token account (${error.message})`);
    throw error;
  }
}

const programName = (program: string): string => (program === TOKEN_2022_PROGRAM_ID ? 'Token-2022' : program === TOKEN_PROGRAM_IDS[0] ? 'Token' : program);

/**
 * Mints' bytes, decoded once: a policy names the same few mints in every login (base58 decoding
 * costs ~1 µs a mint). Bounded at MINT_BYTES_ENTRIES (oldest insert dropped; ~150 bytes each).
 * The bytes are only compared, never written.
 */
export const MINT_BYTES_ENTRIES = 4096;
const mintBytes = new Map<string, Buffer>();
export function mintBytesOf(mint: string): Buffer {
  let bytes = mintBytes.get(mint);
  if (bytes === undefined) {
    bytes = addressBytes(mint);
    if (mintBytes.size >= MINT_BYTES_ENTRIES) mintBytes.delete(mintBytes.keys().next().value as string);
    mintBytes.set(mint, bytes);
  }
  return bytes;
}

/** Mints whose bytes are held (tests check the bound). */
export const cachedMintCount = (): number => mintBytes.size;

/** The summed amount of each mint over `accounts` (0n for a mint none of them holds). */
export function sumBalances(accounts: readonly OwnedTokenAccount[], mints: readonly string[]): Map<string, bigint> {
  const balances = new Map<string, bigint>();
  for (const mint of mints) balances.set(mint, 0n);
  for (const account of accounts) {
    const balance = balances.get(account.mint);
    if (balance !== undefined) balances.set(account.mint, balance + account.amount);
  }
  return balances;
}

const METHOD = 'getTokenAccountsByOwner';

/**
 * Every token account the wallet owns under both token programs: getTokenAccountsByOwner with
 * `{programId}`, one call per program, each a single JSON-RPC call that the coalescer merges with
 * other logins' calls into batches. The reply's size grows with the wallet (~420 bytes an account
 * with TOKEN_ACCOUNT_SLICE): read only after the signature verified. A wallet owning more than
 * `max` accounts (TOKEN_ACCOUNTS_MAX) is refused with 500 HOLDINGS_LIMIT (holdingsLimit below).
 */
export async function readTokenAccounts(calls: CallCoalescer, commitment: Config['rpcCommitment'], wallet: string, deadlineMs = Infinity, max = Infinity): Promise<OwnedTokenAccount[]> {
  const lists = await Promise.all(
    TOKEN_PROGRAM_IDS.map((programId) =>
      calls.call(METHOD, [wallet, { programId }, listOptions(commitment).value], (result) => listedTokenAccounts(result, { wallet, program: programId }, max), deadlineMs),
    ),
  );
  return bounded(distinct(overLimit(lists, wallet, max)), wallet, max);
}

/**
 * The wallet's token accounts of each of `mints`: getTokenAccountsByOwner with `{mint}`, one call
 * per mint, each answering only that mint's accounts (a reply of ~100 bytes when the wallet holds
 * none). The node answers an error for an address that is not a mint, so each mint's program is
 * known first (mint-programs.ts: cached, one shared getMultipleAccounts when not); a mint of
 * neither program is held by nobody. The same bound as readTokenAccounts applies to the sum.
 */
export async function readTokenAccountsOfMints(
  calls: CallCoalescer,
  mintPrograms: MintPrograms,
  commitment: Config['rpcCommitment'],
  wallet: string,
  mints: readonly string[],
  deadlineMs = Infinity,
  max = Infinity,
): Promise<OwnedTokenAccount[]> {
  // A policy's mints are known after its first login: no lookup, no map.
  let unknown = false;
  for (const mint of mints) if (mintPrograms.knownProgramOf(mint) === undefined) unknown = true;
  const programs = unknown ? await mintPrograms.programsOf(mints, deadlineMs) : undefined;
  const reads: Promise<Listed>[] = [];
  // Callers plan each mint once (src/features/lib/holdings-plan.ts); a repeat would be listed twice, a 503.
  for (const mint of mints) {
    const program = programs === undefined ? mintPrograms.knownProgramOf(mint)! : programs.get(mint)!;
    if (program === null) continue;
    const options = listOptions(commitment);
    // Serialized here, the options' JSON cached: a login's calls skip JSON.stringify (~0.9 µs each).
    const paramsJson = `[${JSON.stringify(wallet)},{"mint":${JSON.stringify(mint)}},${options.json}]`;
    const parse = (result: unknown): Listed => listedTokenAccounts(result, { wallet, program, mint }, max);
    reads.push(calls.call(METHOD, [wallet, { mint }, options.value], parse, deadlineMs, 0, false, paramsJson));
  }
  const lists = reads.length === 1 ? [await reads[0]!] : await Promise.all(reads);
  return bounded(distinct(overLimit(lists, wallet, max)), wallet, max);
}

/** A list longer than the bound, left undecoded: only its length is kept for the refusal. */
interface OverLimit {
  over: number;
}
type Listed = OwnedTokenAccount[] | OverLimit;

/**
 * The refusal of a wallet that owns more token accounts than TOKEN_ACCOUNTS_MAX: 500
 * HOLDINGS_LIMIT naming the setting, as the other bounds (HISTORY_LIMIT, COLLECTION_LIMIT) do.
 * Not a 503: retrying cannot change it, and not a failure of the wallet's: the gate could not
 * decide within its bound.
 */
export function holdingsLimit(wallet: string, listed: number, max: number): GateError {
  return new GateError(
    500,
    'HOLDINGS_LIMIT',
    `Wallet ${wallet} owns ${listed} token accounts, more than the ${max} the gate reads for one check (TOKEN_ACCOUNTS_MAX is ${max}). ` +
      'No token was issued; the operator can raise TOKEN_ACCOUNTS_MAX.',
    { extra: { setting: 'TOKEN_ACCOUNTS_MAX', bound: max, found: listed } },
  );
}

function overLimit(lists: Listed[], wallet: string, max: number): OwnedTokenAccount[][] {
  let listed = 0;
  let over = false;
  for (const list of lists) {
    if (Array.isArray(list)) listed += list.length;
    else {
      listed += list.over;
      over = true;
    }
  }
  if (over) throw holdingsLimit(wallet, listed, max);
  return lists as OwnedTokenAccount[][];
}

function bounded(accounts: OwnedTokenAccount[], wallet: string, max: number): OwnedTokenAccount[] {
  if (accounts.length > max) throw holdingsLimit(wallet, accounts.length, max);
  return accounts;
}

/** The same options object for every call of a commitment, and its JSON. */
interface ListOptions {
  value: Readonly<Record<string, unknown>>;
  json: string;
}
const LIST_OPTIONS = new Map<Config['rpcCommitment'], ListOptions>();
function listOptions(commitment: Config['rpcCommitment']): ListOptions {
  let options = LIST_OPTIONS.get(commitment);
  if (options === undefined) {
    const value = Object.freeze({ encoding: 'base64', commitment, dataSlice: TOKEN_ACCOUNT_SLICE });
    LIST_OPTIONS.set(commitment, (options = { value, json: JSON.stringify(value) }));
  }
  return options;
}

/**
 * The accounts of one getTokenAccountsByOwner reply, each checked: owned by `program`, a
 * well-formed token account naming the wallet (and `mint`, when the call filtered by mint), listed
 * once. Any account that is not is a malformed reply (the RPC client tries another endpoint, then
 * answers 503): a list with one bad entry is not a list to count from. A list longer than `max` is
 * only counted (OverLimit).
 */
function listedTokenAccounts(result: unknown, asked: { wallet: string; program: string; mint?: string }, max: number): Listed {
  const value = contextValue(result, METHOD);
  // Over the bound: not decoded (the refusal needs the count only).
  if (Array.isArray(value) && value.length > max) return { over: value.length };
  const listed = parseKeyedAccounts(value, METHOD, TOKEN_ACCOUNT_SLICE);
  if (listed.length === 0) return [];
  const walletBytes = addressBytes(asked.wallet);
  const seen = new Set<string>();
  return listed.map(({ pubkey, account }) => {
    const fail = (why: string) => malformed(METHOD, `account ${pubkey} ${why}`);
    if (seen.has(pubkey)) throw fail('is listed twice');
    seen.add(pubkey);
    const held = checkedTokenAccount(account, asked.program, fail);
    if (!held.owner.equals(walletBytes)) throw fail('names another owner');
    if (asked.mint !== undefined && !held.mint.equals(mintBytesOf(asked.mint))) throw fail('names another mint');
    const mint = asked.mint ?? encodeAddress(held.mint);
    return { address: pubkey, program: asked.program, mint, amount: held.amount, frozen: held.frozen };
  });
}

/** One account listed by two replies (under both programs, or for two mints) would be counted twice. */
function distinct(lists: OwnedTokenAccount[][]): OwnedTokenAccount[] {
  const accounts = lists.flat();
  if (accounts.length < 2) return accounts;
  const addresses = new Set<string>();
  for (const { address } of accounts) {
    if (addresses.has(address)) throw upstreamUnavailable(`${METHOD}: account ${address} is listed twice`);
    addresses.add(address);
  }
  return accounts;
}

import type { Config } from '../config.js';
import { addressBytes, encodeAddress } from './address.js';
import type { AccountBatcher } from './account-batcher.js';
import type { MintPrograms } from './mint-programs.js';
import { associatedTokenAddress } from './ata.js';
import { TOKEN_PROGRAM_IDS } from './programs.js';
import { contextValue, malformed, parseKeyedAccounts } from './replies.js';
import type { RpcClient } from './rpc.js';
import { type RawTokenAccount, TOKEN_ACCOUNT_HEAD_SIZE, TokenAccountError, readTokenAccount, readTokenAccountHead } from './token-account.js';
import type { OwnedTokenAccount } from './types.js';

/**
 * Token balances per mint, summed as bigint over both token programs. An account counts only when
 * it proves itself: owned by the token program it was looked up under, and its own bytes name the
 * wallet and the mint. A lying or buggy RPC can hide a holding (as it could by answering null) but
 * cannot attribute someone else's tokens to the wallet.
 */

/**
 * HOLDINGS_SCOPE=ata: the wallet's associated token account per mint, under the token program that
 * owns the mint (the only program whose accounts can hold it; see mint-programs.ts).
 *
 * One round trip, even for a mint seen for the first time: the mint's owner is looked up in the
 * same batch as the wallet's ATAs under both token programs (a launch's first wave of sign-ins
 * would otherwise wait two round trips); once the owner is known, the other program's ATA is
 * ignored. Mints already known cost one ATA each.
 */
export async function readAtaBalances(
  batcher: AccountBatcher,
  mintPrograms: MintPrograms,
  wallet: string,
  mints: readonly string[],
  deadlineMs = Infinity,
): Promise<Map<string, bigint>> {
  // Decoded only when an account comes back to check against it: a wallet that holds none of the
  // mints (a blacklist's usual answer: every ATA null) never needs its bytes (~0.5 µs a login).
  let walletBytes: Buffer | undefined;
  const balances = new Map<string, bigint>();
  for (const mint of mints) balances.set(mint, 0n);
  const unknown: string[] = [];
  const lookups: { mint: string; mintBytes: Buffer; program: string }[] = [];
  for (const mint of balances.keys()) {
    const program = mintPrograms.knownProgramOf(mint);
    if (program === undefined) {
      unknown.push(mint);
      for (const candidate of TOKEN_PROGRAM_IDS) lookups.push({ mint, mintBytes: mintBytesOf(mint), program: candidate });
    } else if (program !== null) {
      lookups.push({ mint, mintBytes: mintBytesOf(mint), program });
    }
  }
  const programs = unknown.length === 0 ? undefined : mintPrograms.programsOf(unknown, deadlineMs);
  if (lookups.length === 0) {
    await programs;
    return balances;
  }
  const keys = lookups.map(({ mint, program }) => associatedTokenAddress(wallet, mint, program));
  // Mint, owner and amount are the first 72 bytes. The slice hides Token-2022's account-type byte,
  // which is fine here: only the ATA program creates accounts at these addresses.
  const reading = batcher.load(keys, { offset: 0, length: TOKEN_ACCOUNT_HEAD_SIZE }, true, deadlineMs);
  // Either failing fails the read (fail closed); Promise.all handles the later one too.
  const [owners, accounts] = programs === undefined ? [undefined, await reading] : await Promise.all([programs, reading]);
  accounts.forEach((account, i) => {
    const { mint, mintBytes, program } = lookups[i]!;
    if (owners !== undefined && owners.has(mint) && owners.get(mint) !== program) return;
    if (account === null || account.owner !== program || account.data.length !== TOKEN_ACCOUNT_HEAD_SIZE) return;
    const head = readTokenAccountHead(account.data);
    if (head.mint.equals(mintBytes) && head.owner.equals((walletBytes ??= addressBytes(wallet)))) balances.set(mint, balances.get(mint)! + head.amount);
  });
  return balances;
}

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

/** HOLDINGS_SCOPE=all: every token account the wallet owns (readTokenAccounts), summed per mint. */
export async function readAllBalances(
  rpc: RpcClient,
  commitment: Config['rpcCommitment'],
  wallet: string,
  mints: readonly string[],
  deadlineMs = Infinity,
): Promise<Map<string, bigint>> {
  return sumBalances(await readTokenAccounts(rpc, commitment, wallet, deadlineMs), mints);
}

/** The summed amount of each mint over `accounts` (0n for a mint none of them holds). */
export function sumBalances(accounts: readonly OwnedTokenAccount[], mints: readonly string[], counts: (account: OwnedTokenAccount) => boolean = () => true): Map<string, bigint> {
  const balances = new Map<string, bigint>();
  for (const mint of mints) balances.set(mint, 0n);
  for (const account of accounts) {
    const balance = balances.get(account.mint);
    if (balance !== undefined && counts(account)) balances.set(account.mint, balance + account.amount);
  }
  return balances;
}

/**
 * Every token account the wallet owns under both token programs: getTokenAccountsByOwner, one call
 * per program, sent together in one HTTP request. An account counts only when its own bytes name
 * the wallet as owner and it is owned by the program it was listed under; a reply that cannot be
 * decoded fails the read (503), so no caller ever works from a partial list.
 */
export async function readTokenAccounts(rpc: RpcClient, commitment: Config['rpcCommitment'], wallet: string, deadlineMs = Infinity): Promise<OwnedTokenAccount[]> {
  const walletBytes = addressBytes(wallet);
  const outcomes = await rpc.batch(
    TOKEN_PROGRAM_IDS.map((programId) => ({
      method: METHOD,
      params: [wallet, { programId }, { encoding: 'base64', commitment }],
      parse: (result: unknown) => tokenAccountsOf(result, programId),
    })),
    deadlineMs,
  );
  const owned: OwnedTokenAccount[] = [];
  outcomes.forEach((outcome, i) => {
    if (!outcome.ok) throw outcome.error;
    const program = TOKEN_PROGRAM_IDS[i]!;
    for (const { address, token } of outcome.result) {
      if (!token.owner.equals(walletBytes)) continue;
      owned.push({ address, program, mint: encodeAddress(token.mint), amount: token.amount, frozen: token.state === 'frozen' });
    }
  });
  return owned;
}

const METHOD = 'getTokenAccountsByOwner';

/** Decoded token accounts of a getTokenAccountsByOwner reply; accounts of another program are left out. */
function tokenAccountsOf(result: unknown, program: string): { address: string; token: RawTokenAccount }[] {
  const accounts = parseKeyedAccounts(contextValue(result, METHOD), METHOD);
  return accounts
    .filter(({ account }) => account.owner === program)
    .map(({ pubkey, account }) => {
      try {
        return { address: pubkey, token: readTokenAccount(account.data, program) };
      } catch (error) {
        if (error instanceof TokenAccountError) throw malformed(METHOD, error.message);
        throw error;
      }
    });
}

import type { Config } from '../config.js';
import { addressBytes } from './address.js';
import type { AccountBatcher } from './account-batcher.js';
import type { MintPrograms } from './mint-programs.js';
import { associatedTokenAddress } from './ata.js';
import { TOKEN_PROGRAM_IDS } from './programs.js';
import { contextValue, malformed, parseKeyedAccounts } from './replies.js';
import type { RpcClient } from './rpc.js';
import { type RawTokenAccount, TOKEN_ACCOUNT_HEAD_SIZE, TokenAccountError, readTokenAccount, readTokenAccountHead } from './token-account.js';

/**
 * Token balances per mint, summed as bigint over both token programs. An account counts only when
 * it proves itself: owned by the token program it was looked up under, and its own bytes name the
 * wallet and the mint. A lying or buggy RPC can hide a holding (as it could by answering null) but
 * cannot attribute someone else's tokens to the wallet.
 */

/**
 * HOLDINGS_SCOPE=ata: the wallet's associated token account per mint, under the token program that
 * owns the mint (the only program whose accounts can hold it; see mint-programs.ts).
 */
export async function readAtaBalances(
  batcher: AccountBatcher,
  mintPrograms: MintPrograms,
  wallet: string,
  mints: readonly string[],
  deadlineMs = Infinity,
): Promise<Map<string, bigint>> {
  const walletBytes = addressBytes(wallet);
  const balances = new Map<string, bigint>();
  for (const mint of mints) balances.set(mint, 0n);
  const programs = await mintPrograms.programsOf([...balances.keys()], deadlineMs);
  const lookups: { mint: string; mintBytes: Buffer; program: string }[] = [];
  for (const [mint, program] of programs) {
    if (program !== null) lookups.push({ mint, mintBytes: addressBytes(mint), program });
  }
  if (lookups.length === 0) return balances;
  const keys = lookups.map(({ mint, program }) => associatedTokenAddress(wallet, mint, program));
  // Mint, owner and amount are the first 72 bytes. The slice hides Token-2022's account-type byte,
  // which is fine here: only the ATA program creates accounts at these addresses.
  const accounts = await batcher.load(keys, { offset: 0, length: TOKEN_ACCOUNT_HEAD_SIZE }, true, deadlineMs);
  accounts.forEach((account, i) => {
    const { mint, mintBytes, program } = lookups[i]!;
    if (account === null || account.owner !== program || account.data.length !== TOKEN_ACCOUNT_HEAD_SIZE) return;
    const head = readTokenAccountHead(account.data);
    if (head.mint.equals(mintBytes) && head.owner.equals(walletBytes)) balances.set(mint, balances.get(mint)! + head.amount);
  });
  return balances;
}

/** HOLDINGS_SCOPE=all: every token account the wallet owns (getTokenAccountsByOwner, one call per program, one HTTP request). */
export async function readAllBalances(
  rpc: RpcClient,
  commitment: Config['rpcCommitment'],
  wallet: string,
  mints: readonly string[],
  deadlineMs = Infinity,
): Promise<Map<string, bigint>> {
  const walletBytes = addressBytes(wallet);
  const balances = new Map<string, bigint>();
  const mintByHex = new Map<string, string>();
  for (const mint of mints) {
    balances.set(mint, 0n);
    mintByHex.set(addressBytes(mint).toString('hex'), mint);
  }
  const outcomes = await rpc.batch(
    TOKEN_PROGRAM_IDS.map((programId) => ({
      method: METHOD,
      params: [wallet, { programId }, { encoding: 'base64', commitment }],
      parse: (result: unknown) => tokenAccountsOf(result, programId),
    })),
    deadlineMs,
  );
  for (const outcome of outcomes) {
    if (!outcome.ok) throw outcome.error;
    for (const token of outcome.result) {
      const mint = mintByHex.get(token.mint.toString('hex'));
      if (mint !== undefined && token.owner.equals(walletBytes)) balances.set(mint, balances.get(mint)! + token.amount);
    }
  }
  return balances;
}

const METHOD = 'getTokenAccountsByOwner';

/** Decoded token accounts of a getTokenAccountsByOwner reply; accounts of another program are left out. */
function tokenAccountsOf(result: unknown, program: string): RawTokenAccount[] {
  const accounts = parseKeyedAccounts(contextValue(result, METHOD), METHOD);
  return accounts
    .filter(({ account }) => account.owner === program)
    .map(({ account }) => {
      try {
        return readTokenAccount(account.data, program);
      } catch (error) {
        if (error instanceof TokenAccountError) throw malformed(METHOD, error.message);
        throw error;
      }
    });
}

/** Program ids and address derivations the local chain uses, as on mainnet. */
import { PublicKey } from '@solana/web3.js';

export const SYSTEM_PROGRAM = '11111111111111111111111111111111';
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const ASSOCIATED_TOKEN_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
export const BPF_LOADER_UPGRADEABLE = 'BPFLoaderUpgradeab1e11111111111111111111111';
export const BPF_LOADER_2 = 'BPFLoader2111111111111111111111111111111111';
export const NATIVE_LOADER = 'NativeLoader1111111111111111111111111111111';
export const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
export const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
export const STAKE_PROGRAM = 'Stake11111111111111111111111111111111111111';
export const JUPITER_V6_PROGRAM = 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4';
export const METAPLEX_TOKEN_METADATA_PROGRAM = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s';
export const SAVE_PROGRAM = 'So1endDq2YkqhipRh3WViPa8hdiSpxWy6z3Z6tMCpAo';
export const KAMINO_LEND_PROGRAM = 'KLend2g3cP87fffoy8q1mQqGKjrxjC8boSyAYavgmjD';
export const MARGINFI_V2_PROGRAM = 'MFv2hWf31Z9kbCa1snEPYctwafyhdvnV7FZnsebVacA';

export type TokenProgramName = 'token' | 'token2022';

export function tokenProgramId(program: TokenProgramName): string {
  return program === 'token' ? TOKEN_PROGRAM : TOKEN_2022_PROGRAM;
}

export function isTokenProgram(programId: string): boolean {
  return programId === TOKEN_PROGRAM || programId === TOKEN_2022_PROGRAM;
}

const ataCache = new Map<string, string>();
const ataProgramKey = new PublicKey(ASSOCIATED_TOKEN_PROGRAM);

/**
 * The associated token account of (owner, mint) under a token program: the PDA of seeds
 * [owner, token program id, mint] under the ATA program. Derived with web3.js itself (correctness
 * over speed: the gate's own derivation is checked against this), cached because it costs a few
 * hash-and-curve-check rounds.
 */
export function associatedTokenAddress(owner: string, mint: string, program: TokenProgramName): string {
  const cacheKey = `${owner}:${mint}:${program}`;
  const cached = ataCache.get(cacheKey);
  if (cached) return cached;
  const [address] = PublicKey.findProgramAddressSync(
    [new PublicKey(owner).toBuffer(), new PublicKey(tokenProgramId(program)).toBuffer(), new PublicKey(mint).toBuffer()],
    ataProgramKey,
  );
  const result = address.toBase58();
  ataCache.set(cacheKey, result);
  return result;
}

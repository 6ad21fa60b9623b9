import type { AccountInfo, ChainReader } from '../chain/types.js';
import { GateError, upstreamUnavailable } from '../errors.js';
import { encodeBase58 } from '../lib/base58-encode.js';
import { equalBytes } from '../lib/bytes.js';
import { CandyGuardUnreadable, isSignerKey, readSignerSlot, type SignerSlot } from './candy-guard.js';
import { PROGRAM_IDS } from './template-programs.js';
import type { MintConfig } from './types.js';

/**
 * Whether each mint's on-chain role is its signer's, known before any wallet signs (docs/minting.md,
 * "The signer's role on-chain"): the token mint's `mintAuthority` (spl-token / token-2022 mint
 * layout) or the candy guard's `thirdPartySigner`. Checked at start, before a reload is swapped in,
 * and again every pass, so a fixed authority recovers and a removed one is noticed. A mint whose
 * role is not its signer's answers 500 MINT_MISCONFIGURED naming the problem; one never read yet
 * (the chain unreadable) answers 503.
 */
export type AuthorityState = { kind: 'ok' } | { kind: 'wrong'; problem: string } | { kind: 'unknown' };

/** SPL Token's Mint: COption<Pubkey> authority (u32 tag + 32), supply u64, decimals, is_initialized, freeze authority. */
const MINT_LEN = 82;
/** Token-2022 puts the account type after the base account's length (165): 1 = Mint. */
const ACCOUNT_TYPE_OFFSET = 165;
const ACCOUNT_TYPE_MINT = 1;

export interface TokenMintAccount {
  mintAuthority: Uint8Array | null;
  supply: bigint;
}

/** A token mint account of `program`, or a sentence saying why it is not one. */
export function readTokenMint(account: AccountInfo | null | undefined, program: string): TokenMintAccount | string {
  if (account === null || account === undefined) return 'there is no account at that address';
  if (account.owner !== program) return `the account is owned by ${account.owner}, not ${program === PROGRAM_IDS.token2022 ? 'Token-2022' : 'SPL Token'}`;
  const data = account.data;
  const isMint = program === PROGRAM_IDS.token ? data.length === MINT_LEN : data.length === MINT_LEN || (data.length > ACCOUNT_TYPE_OFFSET && data[ACCOUNT_TYPE_OFFSET] === ACCOUNT_TYPE_MINT);
  if (!isMint || data[45] !== 1) return 'the account is not an initialized token mint';
  const tag = data.readUInt32LE(0);
  return { mintAuthority: tag === 1 ? new Uint8Array(data.subarray(4, 36)) : null, supply: data.readBigUInt64LE(36) };
}

/** The problem with a mint's on-chain role, or undefined when its signer holds it. */
export function authorityProblem(mint: MintConfig, account: AccountInfo | null | undefined): string | undefined {
  if (mint.token !== undefined) {
    const read = readTokenMint(account, mint.token.program);
    if (typeof read === 'string') return `the token mint ${mint.token.mint}: ${read}`;
    if (read.mintAuthority === null) return `the token mint ${mint.token.mint} has no mint authority (disabled); nothing can be minted`;
    if (!equalBytes(read.mintAuthority, mint.signer.publicKey)) return `the token mint ${mint.token.mint}'s mint authority is ${encodeBase58(read.mintAuthority)}, not this gate's signer ${mint.signer.address}`;
    return undefined;
  }
  const slot = readGuardSlot(mint, account);
  if (typeof slot === 'string') return slot;
  if (!isSignerKey(slot, mint.signer.publicKey)) return `the candy guard ${encodeBase58(mint.template.candyGuard!)}'s thirdPartySigner is not this gate's signer ${mint.signer.address}`;
  return undefined;
}

/** A candy template's guard set, read from its candy guard account, or a sentence saying why it cannot be. */
export function readGuardSlot(mint: MintConfig, account: AccountInfo | null | undefined): SignerSlot | string {
  const program = mint.program as 'candy-guard' | 'core-candy-guard';
  const guard = encodeBase58(mint.template.candyGuard!);
  const owner = program === 'candy-guard' ? PROGRAM_IDS.candyGuard : PROGRAM_IDS.coreCandyGuard;
  if (account === null || account === undefined || account.owner !== owner) return `the candy guard ${guard} is not a ${program} account on this chain`;
  try {
    return readSignerSlot(account.data, program, mint.template.group);
  } catch (error) {
    if (error instanceof CandyGuardUnreadable) return `the candy guard ${guard} cannot be read (${error.message})`;
    throw error;
  }
}

/** The account holding a mint's on-chain role: the token mint, or the candy guard. */
export const roleAccount = (mint: MintConfig): string => mint.token?.mint ?? encodeBase58(mint.template.candyGuard!);
/** Same key, same answer: a reload that keeps a mint's role keeps what is known of it. */
const roleKey = (mint: MintConfig): string => `${mint.program} ${roleAccount(mint)} ${mint.signer.address} ${mint.template.group ?? ''}`;

export interface AuthorityWatchDependencies {
  chain: ChainReader;
  mints(): Iterable<MintConfig>;
  /** Deadline of one pass's read. */
  readTimeoutMs: number;
  /** Between passes while every role is known; while one is not, a pass every `retryMs`. */
  intervalMs: number;
  retryMs: number;
  onProblem?(mint: string, problem: string | undefined, error?: Error): void;
}

export class MintAuthorityWatch {
  private readonly states = new Map<string, AuthorityState>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private lastPassMs = 0;

  constructor(private readonly deps: AuthorityWatchDependencies) {}

  /** The first pass (resolves once it read the chain or failed), then passes forever. */
  async start(): Promise<void> {
    await this.check(this.deps.mints());
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Reads every mint's role account in one batched read; a failed read leaves what was known. */
  async check(mints: Iterable<MintConfig>): Promise<void> {
    const list = [...mints];
    if (list.length === 0) return;
    this.lastPassMs = performance.now();
    const keys = [...new Set(list.map(roleAccount))];
    let accounts: (AccountInfo | null)[];
    try {
      accounts = await this.deps.chain.withDeadline(performance.now() + this.deps.readTimeoutMs).getMultipleAccounts(keys);
    } catch (error) {
      for (const mint of list) if (!this.states.has(roleKey(mint))) this.deps.onProblem?.(mint.name, undefined, error as Error);
      return;
    }
    const byKey = new Map(keys.map((key, i) => [key, accounts[i]]));
    for (const mint of list) {
      const problem = authorityProblem(mint, byKey.get(roleAccount(mint)));
      const before = this.states.get(roleKey(mint));
      const now: AuthorityState = problem === undefined ? { kind: 'ok' } : { kind: 'wrong', problem };
      if (before?.kind !== now.kind || (before.kind === 'wrong' && now.kind === 'wrong' && before.problem !== now.problem)) this.deps.onProblem?.(mint.name, problem);
      this.states.set(roleKey(mint), now);
    }
  }

  state(mint: MintConfig): AuthorityState {
    return this.states.get(roleKey(mint)) ?? { kind: 'unknown' };
  }

  /** Throws what a request to this mint answers while its role is not its signer's, or not known. */
  assert(mint: MintConfig): void {
    const state = this.state(mint);
    if (state.kind === 'ok') return;
    if (state.kind === 'unknown') throw upstreamUnavailable(`mint ${mint.name}'s on-chain authority is not known yet`);
    throw new GateError(500, 'MINT_MISCONFIGURED', `Mint ${mint.name}: ${state.problem}; nothing is co-signed until it is fixed on-chain (the gate checks again every few seconds)`);
  }

  /** Every `retryMs`: a pass when a mint is not right (or not known), else once every `intervalMs`. */
  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      const current = new Set([...this.deps.mints()].map(roleKey));
      // Mints a reload removed are forgotten.
      for (const key of this.states.keys()) if (!current.has(key)) this.states.delete(key);
      const allRight = [...current].every((key) => this.states.get(key)?.kind === 'ok');
      const due = !allRight || performance.now() - this.lastPassMs >= this.deps.intervalMs;
      void (due ? this.check(this.deps.mints()) : Promise.resolve()).finally(() => this.schedule());
    }, this.deps.retryMs);
    this.timer.unref();
  }
}

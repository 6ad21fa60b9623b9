/**
 * Realistic transactions to put in the local chain's histories: SOL and token transfers, a Jupiter
 * swap (v0, with lookup-table addresses), Metaplex and Stake program calls. Each recipe records the
 * transaction in the state and returns its signature; balances are given explicitly so that
 * history-based checks (timelock, activity) see exactly what the fixture means.
 */
import {
  JUPITER_V6_PROGRAM,
  METAPLEX_TOKEN_METADATA_PROGRAM,
  STAKE_PROGRAM,
  SYSTEM_PROGRAM,
  tokenProgramId,
  type TokenProgramName,
} from './programs.js';
import { labelAddress, type ChainState } from './state.js';

const SECONDS_PER_DAY = 86_400;

/** Unix seconds `daysAgo` before the state's `now`. */
export function blockTimeDaysAgo(state: ChainState, daysAgo: number): number {
  return Math.floor(state.now / 1000 - daysAgo * SECONDS_PER_DAY);
}

/** A failed instruction, as the node reports it. */
export function customError(instruction: number, code: number): unknown {
  return { InstructionError: [instruction, { Custom: code }] };
}

function u64(value: bigint): Buffer {
  const buf = Buffer.alloc(8);
  buf.writeBigUInt64LE(value, 0);
  return buf;
}

/** System Program Transfer: u32 LE 2, then lamports u64 LE. */
export function systemTransferData(lamports: bigint): Buffer {
  const buf = Buffer.alloc(12);
  buf.writeUInt32LE(2, 0);
  buf.writeBigUInt64LE(lamports, 4);
  return buf;
}

/** SPL Token TransferChecked: tag 12, amount u64 LE, decimals u8. */
function transferCheckedData(amount: bigint, decimals: number): Buffer {
  return Buffer.concat([Buffer.from([12]), u64(amount), Buffer.from([decimals])]);
}

export interface SolTransfer {
  from: string;
  to: string;
  lamports: number;
  daysAgo: number;
  /** Balance of `from` before; `to` starts at toBefore. */
  fromBefore: number;
  toBefore?: number;
  err?: unknown;
  memo?: string;
}

export function solTransfer(state: ChainState, t: SolTransfer): string {
  const fee = 5000;
  const failed = t.err !== undefined && t.err !== null;
  const moved = failed ? 0 : t.lamports;
  const toBefore = t.toBefore ?? 1_000_000_000;
  return state.addTransaction({
    blockTime: blockTimeDaysAgo(state, t.daysAgo),
    err: t.err ?? null,
    memo: t.memo ?? null,
    feePayer: t.from,
    fee,
    instructions: [{ programId: SYSTEM_PROGRAM, accounts: [t.from, t.to], data: systemTransferData(BigInt(t.lamports)) }],
    lamportChanges: [
      { address: t.from, pre: t.fromBefore, post: t.fromBefore - fee - moved },
      { address: t.to, pre: toBefore, post: toBefore + moved },
    ],
  });
}

export interface TokenTransfer {
  /** The wallet whose history this is; it signs when it sends. */
  wallet: string;
  walletTokenAccount: string;
  counterparty: string;
  counterpartyTokenAccount: string;
  mint: string;
  decimals: number;
  program?: TokenProgramName;
  /** Wallet's token account balance before/after (null: did not exist / closed). */
  walletBefore: bigint | null;
  walletAfter: bigint | null;
  daysAgo: number;
  err?: unknown;
  /** Old transactions did not record owner and programId in token balances. */
  legacyBalances?: boolean;
  memo?: string;
  version?: 'legacy' | 0;
}

/** A TransferChecked in or out of the wallet's token account (direction from the balances). */
export function tokenTransfer(state: ChainState, t: TokenTransfer): string {
  const program = t.program ?? 'token';
  const before = t.walletBefore ?? 0n;
  const after = t.walletAfter ?? 0n;
  const incoming = after >= before;
  const amount = incoming ? after - before : before - after;
  const counterpartyBefore = 1_000_000_000_000n;
  const counterpartyAfter = incoming ? counterpartyBefore - amount : counterpartyBefore + amount;
  const signer = incoming ? t.counterparty : t.wallet;
  const [source, destination] = incoming
    ? [t.counterpartyTokenAccount, t.walletTokenAccount]
    : [t.walletTokenAccount, t.counterpartyTokenAccount];
  const failed = t.err !== undefined && t.err !== null;
  const balance = (account: string, owner: string, pre: bigint | null, post: bigint | null) => ({
    account,
    mint: t.mint,
    owner: t.legacyBalances ? null : owner,
    programId: t.legacyBalances ? null : tokenProgramId(program),
    decimals: t.decimals,
    pre,
    post: failed ? pre : post,
  });
  return state.addTransaction({
    blockTime: blockTimeDaysAgo(state, t.daysAgo),
    err: t.err ?? null,
    memo: t.memo ?? null,
    version: t.version ?? 'legacy',
    feePayer: signer,
    accountKeys: [t.wallet],
    instructions: [
      {
        programId: tokenProgramId(program),
        accounts: [source, t.mint, destination, signer],
        data: transferCheckedData(amount, t.decimals),
      },
    ],
    tokenBalances: [
      balance(t.walletTokenAccount, t.wallet, t.walletBefore, t.walletAfter),
      balance(t.counterpartyTokenAccount, t.counterparty, counterpartyBefore, counterpartyAfter),
    ],
  });
}

export interface JupiterSwap {
  wallet: string;
  daysAgo: number;
  input: { mint: string; decimals: number; walletAccount: string; before: bigint; after: bigint };
  output: { mint: string; decimals: number; walletAccount: string; before: bigint; after: bigint };
  lamportsBefore: number;
}

/**
 * A Jupiter v6 route as a v0 transaction: the pool vaults come from a lookup table, so their
 * token balances' accountIndex points past the static keys.
 */
export function jupiterSwap(state: ChainState, s: JupiterSwap): string {
  const vaultIn = labelAddress(`jupiter-vault:${s.input.mint}`);
  const vaultOut = labelAddress(`jupiter-vault:${s.output.mint}`);
  const pool = labelAddress('jupiter-pool');
  const ammProgram = labelAddress('amm-program');
  const spent = s.input.before - s.input.after;
  const received = s.output.after - s.output.before;
  const vaultBalance = 50_000_000_000_000n;
  return state.addTransaction({
    blockTime: blockTimeDaysAgo(state, s.daysAgo),
    version: 0,
    feePayer: s.wallet,
    fee: 15_000,
    accountKeys: [s.input.walletAccount, s.output.walletAccount],
    loadedAddresses: { writable: [vaultIn, vaultOut, pool], readonly: [ammProgram] },
    instructions: [
      {
        programId: JUPITER_V6_PROGRAM,
        accounts: [s.wallet, s.input.walletAccount, s.output.walletAccount, pool, vaultIn, vaultOut, ammProgram],
        data: Buffer.concat([Buffer.from('e517cb977ae3ad2a', 'hex'), u64(spent), u64(received)]),
      },
    ],
    innerInstructions: [
      {
        index: 0,
        instructions: [
          {
            programId: tokenProgramId('token'),
            accounts: [s.input.walletAccount, s.input.mint, vaultIn, s.wallet],
            data: transferCheckedData(spent, s.input.decimals),
          },
          {
            programId: tokenProgramId('token'),
            accounts: [vaultOut, s.output.mint, s.output.walletAccount, pool],
            data: transferCheckedData(received, s.output.decimals),
          },
        ],
      },
    ],
    lamportChanges: [{ address: s.wallet, pre: s.lamportsBefore, post: s.lamportsBefore - 15_000 }],
    tokenBalances: [
      { account: s.input.walletAccount, mint: s.input.mint, owner: s.wallet, decimals: s.input.decimals, pre: s.input.before, post: s.input.after },
      { account: s.output.walletAccount, mint: s.output.mint, owner: s.wallet, decimals: s.output.decimals, pre: s.output.before, post: s.output.after },
      { account: vaultIn, mint: s.input.mint, owner: pool, decimals: s.input.decimals, pre: vaultBalance, post: vaultBalance + spent },
      { account: vaultOut, mint: s.output.mint, owner: pool, decimals: s.output.decimals, pre: vaultBalance, post: vaultBalance - received },
    ],
    logMessages: [
      `Program ${JUPITER_V6_PROGRAM} invoke [1]`,
      'Program log: Instruction: Route',
      `Program ${JUPITER_V6_PROGRAM} success`,
    ],
  });
}

/** A Token Metadata call (e.g. updating an NFT's metadata) signed by the wallet. */
export function metaplexCall(state: ChainState, wallet: string, daysAgo: number): string {
  const nftMint = labelAddress(`nft-mint:${wallet}`);
  const metadata = labelAddress(`nft-metadata:${wallet}`);
  return state.addTransaction({
    blockTime: blockTimeDaysAgo(state, daysAgo),
    feePayer: wallet,
    instructions: [{ programId: METAPLEX_TOKEN_METADATA_PROGRAM, accounts: [metadata, nftMint, wallet, wallet], data: Buffer.from([50, 0]) }],
  });
}

/** A Stake Program DelegateStake (tag 2) signed by the wallet as stake authority. */
export function stakeDelegation(state: ChainState, wallet: string, daysAgo: number): string {
  const stakeAccount = labelAddress(`stake-account:${wallet}`);
  const voteAccount = labelAddress('vote-account');
  const data = Buffer.alloc(4);
  data.writeUInt32LE(2, 0);
  return state.addTransaction({
    blockTime: blockTimeDaysAgo(state, daysAgo),
    feePayer: wallet,
    instructions: [
      {
        programId: STAKE_PROGRAM,
        accounts: [
          stakeAccount,
          voteAccount,
          'SysvarC1ock11111111111111111111111111111111',
          'SysvarStakeHistory1111111111111111111111111',
          'StakeConfig11111111111111111111111111111111',
          wallet,
        ],
        data,
      },
    ],
  });
}

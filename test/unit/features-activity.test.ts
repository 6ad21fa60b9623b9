import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { classifyTransaction, walletLamportChange } from '../../src/activity/classify.js';
import { NFT_PROGRAMS, STAKE_PROGRAM, SWAP_PROGRAMS, SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../../src/activity/classifying-programs.js';
import type { ChainInstruction, ChainTransaction, TokenBalance } from '../../src/chain/types.js';

const WALLET = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const OTHER = 'BPFLoaderUpgradeab1e11111111111111111111111';
const WALLET_TOKEN_ACCOUNT = 'So11111111111111111111111111111111111111112';
const OTHER_TOKEN_ACCOUNT = 'SysvarRent111111111111111111111111111111111';
const MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const JUPITER_V6 = 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4';
const TOKEN_METADATA = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s';

function systemTransfer(from: string, to: string): ChainInstruction {
  const data = Buffer.alloc(12);
  data.writeUInt32LE(2, 0);
  data.writeBigUInt64LE(1000n, 4);
  return { programId: SYSTEM_PROGRAM, accounts: [from, to], data };
}

function tokenTransferChecked(source: string, destination: string, authority: string, program = TOKEN_PROGRAM): ChainInstruction {
  return { programId: program, accounts: [source, MINT, destination, authority], data: Buffer.from([12, 1, 0, 0, 0, 0, 0, 0, 0, 6]) };
}

function transaction(instructions: ChainInstruction[], extra: Partial<ChainTransaction> = {}): ChainTransaction {
  const accountKeys = [...new Set([WALLET, ...instructions.flatMap((ix) => [...ix.accounts, ix.programId])])];
  return {
    signature: 'sig',
    slot: 1,
    blockTime: 1,
    err: null,
    accountKeys,
    preBalances: accountKeys.map(() => 10_000n),
    postBalances: accountKeys.map(() => 10_000n),
    preTokenBalances: [],
    postTokenBalances: [],
    instructions,
    ...extra,
  };
}

describe('program lists', () => {
  it('hold only valid 32-byte mainnet addresses', () => {
    for (const id of [...SWAP_PROGRAMS.keys(), ...NFT_PROGRAMS.keys(), STAKE_PROGRAM, SYSTEM_PROGRAM, TOKEN_PROGRAM, TOKEN_2022_PROGRAM]) {
      expect(bs58.decode(id), id).toHaveLength(32);
    }
  });

  it('include the aggregators and DEXes the contract names', () => {
    for (const id of [
      JUPITER_V6,
      '675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8', // Raydium AMM v4
      'whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc', // Orca Whirlpool
      'LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo', // Meteora DLMM
      'PhoeNiXZ8ByJGLkxNfZRnkUfjvmuYqLR89jjFHGqdXY', // Phoenix
      'opnb2LAfJYbRMAHHvqjCwQxanZn7ReEHp1k81EohpZb', // OpenBook v2
    ]) {
      expect(SWAP_PROGRAMS.has(id), id).toBe(true);
    }
    expect(NFT_PROGRAMS.has(TOKEN_METADATA)).toBe(true);
  });
});

describe('classifyTransaction', () => {
  it('counts a SOL transfer sent by the wallet, not one it received', () => {
    expect(classifyTransaction(transaction([systemTransfer(WALLET, OTHER)]), WALLET)).toEqual(new Set(['transfer']));
    expect(classifyTransaction(transaction([systemTransfer(OTHER, WALLET)]), WALLET)).toEqual(new Set());
  });

  it('does not count other System Program instructions (create account) as transfers', () => {
    const create = { programId: SYSTEM_PROGRAM, accounts: [WALLET, OTHER], data: Buffer.alloc(52) }; // tag 0
    expect(classifyTransaction(transaction([create]), WALLET)).toEqual(new Set());
  });

  it('counts TransferWithSeed when the wallet is the base signer', () => {
    const data = Buffer.alloc(4);
    data.writeUInt32LE(11, 0);
    const withSeed = { programId: SYSTEM_PROGRAM, accounts: [OTHER, WALLET, OTHER_TOKEN_ACCOUNT], data };
    expect(classifyTransaction(transaction([withSeed]), WALLET).has('transfer')).toBe(true);
  });

  it('counts SPL transfers the wallet authorises under both token programs', () => {
    expect(classifyTransaction(transaction([tokenTransferChecked(WALLET_TOKEN_ACCOUNT, OTHER_TOKEN_ACCOUNT, WALLET)]), WALLET).has('transfer')).toBe(true);
    expect(classifyTransaction(transaction([tokenTransferChecked(WALLET_TOKEN_ACCOUNT, OTHER_TOKEN_ACCOUNT, WALLET, TOKEN_2022_PROGRAM)]), WALLET).has('transfer')).toBe(true);
    const plain = { programId: TOKEN_PROGRAM, accounts: [WALLET_TOKEN_ACCOUNT, OTHER_TOKEN_ACCOUNT, WALLET], data: Buffer.from([3, 1, 0, 0, 0, 0, 0, 0, 0]) };
    expect(classifyTransaction(transaction([plain]), WALLET).has('transfer')).toBe(true);
  });

  it('counts an SPL transfer from a token account the wallet owns (delegate signing), not one into it', () => {
    const tx = transaction([tokenTransferChecked(WALLET_TOKEN_ACCOUNT, OTHER_TOKEN_ACCOUNT, OTHER)]);
    const owned: TokenBalance = { accountIndex: tx.accountKeys.indexOf(WALLET_TOKEN_ACCOUNT), mint: MINT, owner: WALLET, programId: TOKEN_PROGRAM, amount: 5n, decimals: 6 };
    expect(classifyTransaction({ ...tx, preTokenBalances: [owned] }, WALLET).has('transfer')).toBe(true);
    const incoming = transaction([tokenTransferChecked(OTHER_TOKEN_ACCOUNT, WALLET_TOKEN_ACCOUNT, OTHER)]);
    expect(classifyTransaction(incoming, WALLET).has('transfer')).toBe(false);
  });

  it('sees swaps, NFT and stake instructions, also as inner instructions', () => {
    const jupiter = { programId: JUPITER_V6, accounts: [WALLET], data: Buffer.alloc(8) };
    const swapTx = transaction([jupiter, tokenTransferChecked(WALLET_TOKEN_ACCOUNT, OTHER_TOKEN_ACCOUNT, WALLET)]);
    expect(classifyTransaction(swapTx, WALLET)).toEqual(new Set(['swap', 'transfer']));
    const viaRouter = transaction([{ programId: OTHER, accounts: [], data: Buffer.alloc(0) }, { ...jupiter }]);
    expect(classifyTransaction(viaRouter, WALLET).has('swap')).toBe(true);
    expect(classifyTransaction(transaction([{ programId: TOKEN_METADATA, accounts: [WALLET], data: Buffer.from([50]) }]), WALLET)).toEqual(new Set(['nft']));
    expect(classifyTransaction(transaction([{ programId: STAKE_PROGRAM, accounts: [WALLET], data: Buffer.from([2, 0, 0, 0]) }]), WALLET)).toEqual(new Set(['stake']));
  });

  it('does not take a look-alike id for Jupiter', () => {
    const fake = { programId: 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVaBePg', accounts: [WALLET], data: Buffer.alloc(8) };
    expect(classifyTransaction(transaction([fake]), WALLET).has('swap')).toBe(false);
  });
});

describe('walletLamportChange', () => {
  it('is the absolute change of the wallet’s SOL balance, fees included', () => {
    const tx = transaction([systemTransfer(WALLET, OTHER)]);
    const sent = { ...tx, preBalances: [2_000_000_000n, 0n, 1n], postBalances: [1_499_995_000n, 500_000_000n, 1n] };
    expect(walletLamportChange(sent, WALLET)).toBe(500_005_000n);
    const received = { ...tx, preBalances: [1n, 0n, 1n], postBalances: [700n, 0n, 1n] };
    expect(walletLamportChange(received, WALLET)).toBe(699n);
  });
});

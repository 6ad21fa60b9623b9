import { describe, expect, it } from 'vitest';
import type { ChainTransaction, TokenBalance } from '../../src/chain/types.js';
import { findHoldStart, holdingsChange, type TrackedHoldings } from '../../src/features/lib/holdings-history.js';

/** Pure tests of the holdings rewind; the feature's behaviour is tested end to end (test/e2e). */
const WALLET = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const BUYER = 'BPFLoaderUpgradeab1e11111111111111111111111';
const ATA = 'So11111111111111111111111111111111111111112';
const SECOND_ACCOUNT = 'SysvarRent111111111111111111111111111111111';
const MARKET_ACCOUNT = 'SysvarC1ock11111111111111111111111111111111';
const MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const OTHER_MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';

const tracked: TrackedHoldings = { wallet: WALLET, mint: MINT, accounts: new Set([ATA, SECOND_ACCOUNT]) };
const KEYS = [WALLET, ATA, MARKET_ACCOUNT, SECOND_ACCOUNT];

type Entry = { account: string; pre: bigint | null; post: bigint | null; owner?: string | null; postOwner?: string; mint?: string };

/** A transaction moving tokens; `owner: null` leaves the owner out as old transactions do. */
function tx(name: string, entries: Entry[]): ChainTransaction {
  const balance = (entry: Entry, amount: bigint, owner: string | undefined): TokenBalance => ({
    accountIndex: KEYS.indexOf(entry.account),
    mint: entry.mint ?? MINT,
    owner,
    programId: undefined,
    amount,
    decimals: 6,
  });
  const ownerOf = (entry: Entry) => (entry.owner === null ? undefined : (entry.owner ?? (entry.account === MARKET_ACCOUNT ? BUYER : WALLET)));
  return {
    signature: name,
    slot: 1,
    blockTime: 1,
    err: null,
    accountKeys: KEYS,
    preBalances: [],
    postBalances: [],
    preTokenBalances: entries.filter((e) => e.pre !== null).map((e) => balance(e, e.pre!, ownerOf(e))),
    postTokenBalances: entries.filter((e) => e.post !== null).map((e) => balance(e, e.post!, e.postOwner ?? ownerOf(e))),
    instructions: [],
  };
}

describe('holdingsChange', () => {
  it('is post − pre of the tracked accounts, ignoring the counterparty and other mints', () => {
    const sale = tx('sale', [
      { account: ATA, pre: 1_000n, post: 400n },
      { account: MARKET_ACCOUNT, pre: 0n, post: 600n },
      { account: SECOND_ACCOUNT, pre: 5n, post: 9n, mint: OTHER_MINT },
    ]);
    expect(holdingsChange(sale, tracked)).toBe(-600n);
  });

  it('treats an account missing before (created) or after (closed) as holding 0 there', () => {
    expect(holdingsChange(tx('open', [{ account: ATA, pre: null, post: 1_000n }]), tracked)).toBe(1_000n);
    expect(holdingsChange(tx('close', [{ account: ATA, pre: 250n, post: null }]), tracked)).toBe(-250n);
  });

  it('matches by address when old transactions lack the owner field', () => {
    expect(holdingsChange(tx('legacy', [{ account: ATA, pre: 10n, post: 30n, owner: null }]), tracked)).toBe(20n);
  });

  it('nets out moves between two of the wallet’s own accounts', () => {
    const internal = tx('internal', [
      { account: ATA, pre: 1_000n, post: 0n },
      { account: SECOND_ACCOUNT, pre: 0n, post: 1_000n },
    ]);
    expect(holdingsChange(internal, tracked)).toBe(0n);
  });

  it('counts handing an account to another owner as a drop, though the amount stays', () => {
    const handover = tx('handover', [{ account: ATA, pre: 700n, post: 700n, postOwner: BUYER }]);
    expect(holdingsChange(handover, tracked)).toBe(-700n);
  });
});

describe('findHoldStart', () => {
  const amount = 1_000n;

  it('finds no start while holdings stay at or above the amount', () => {
    const history = [tx('top-up', [{ account: ATA, pre: 1_000n, post: 1_200n }])];
    const state = { holdings: 1_200n };
    expect(findHoldStart(state, amount, history, tracked)).toBeUndefined();
    expect(state.holdings).toBe(1_000n);
  });

  it('a sale and buy-back restarts the clock at the buy-back', () => {
    const history = [
      tx('buy-back', [{ account: ATA, pre: 400n, post: 1_000n }]),
      tx('sale', [{ account: ATA, pre: 1_000n, post: 400n }]),
      tx('first-buy', [{ account: ATA, pre: null, post: 1_000n }]),
    ];
    expect(findHoldStart({ holdings: 1_000n }, amount, history, tracked)?.signature).toBe('buy-back');
  });

  it('the first purchase is the start of a hold that never dipped', () => {
    const history = [
      tx('top-up', [{ account: ATA, pre: 1_000n, post: 1_200n }]),
      tx('first-buy', [{ account: ATA, pre: null, post: 1_000n }]),
    ];
    expect(findHoldStart({ holdings: 1_200n }, amount, history, tracked)?.signature).toBe('first-buy');
  });

  it('continues across batches with the running holdings', () => {
    const state = { holdings: 1_500n };
    expect(findHoldStart(state, amount, [tx('a', [{ account: ATA, pre: 1_100n, post: 1_500n }])], tracked)).toBeUndefined();
    expect(findHoldStart(state, amount, [tx('b', [{ account: ATA, pre: 900n, post: 1_100n }])], tracked)?.signature).toBe('b');
  });
});

import { describe, expect, it } from 'vitest';
import type { ChainTransaction, TokenBalance } from '../../src/chain/types.js';
import { HoldingsRewind, holdingsChange, type TrackedHoldings } from '../../src/history/holdings-rewind.js';

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

describe('the hold start: rewinding newest first until the holdings drop below the amount', () => {
  const amount = 1_000n;
  /** The first transaction (newest first) before which the holdings were below the amount. */
  const holdStart = (rewind: HoldingsRewind, history: ChainTransaction[]): string | undefined => {
    for (const transaction of history) {
      expect(rewind.undo(transaction)).toBeUndefined();
      if (rewind.holdings < amount) return transaction.signature;
    }
    return undefined;
  };

  it('finds no start while holdings stay at or above the amount', () => {
    const rewind = new HoldingsRewind(tracked, 1_200n);
    expect(holdStart(rewind, [tx('top-up', [{ account: ATA, pre: 1_000n, post: 1_200n }])])).toBeUndefined();
    expect(rewind.holdings).toBe(1_000n);
  });

  it('a sale and buy-back restarts the clock at the buy-back', () => {
    const history = [
      tx('buy-back', [{ account: ATA, pre: 400n, post: 1_000n }]),
      tx('sale', [{ account: ATA, pre: 1_000n, post: 400n }]),
      tx('first-buy', [{ account: ATA, pre: null, post: 1_000n }]),
    ];
    expect(holdStart(new HoldingsRewind(tracked, 1_000n), history)).toBe('buy-back');
  });

  it('the first purchase is the start of a hold that never dipped', () => {
    const history = [
      tx('top-up', [{ account: ATA, pre: 1_000n, post: 1_200n }]),
      tx('first-buy', [{ account: ATA, pre: null, post: 1_000n }]),
    ];
    expect(holdStart(new HoldingsRewind(tracked, 1_200n), history)).toBe('first-buy');
  });

  it('continues across batches with the running holdings', () => {
    const rewind = new HoldingsRewind(tracked, 1_500n);
    expect(holdStart(rewind, [tx('a', [{ account: ATA, pre: 1_100n, post: 1_500n }])])).toBeUndefined();
    expect(holdStart(rewind, [tx('b', [{ account: ATA, pre: 900n, post: 1_100n }])])).toBe('b');
  });
});

describe('HoldingsRewind: the rewind must lead to each account’s balance', () => {
  it('follows a history that leads to the balance, account by account', () => {
    const rewind = new HoldingsRewind(tracked, 1_200n);
    expect(rewind.undo(tx('top-up', [{ account: ATA, pre: 1_000n, post: 1_200n }]))).toBeUndefined();
    expect(rewind.holdings).toBe(1_000n);
    expect(rewind.undo(tx('first-buy', [{ account: ATA, pre: null, post: 1_000n }]))).toBeUndefined();
    expect(rewind.holdings).toBe(0n);
  });

  it('names the account whose newest recorded balance is not what it holds now (a later move is missing)', () => {
    // The node lags: it lacks the buy-back that took the account from 400 back to 1,000.
    const lagging = new HoldingsRewind(tracked, 1_000n);
    expect(lagging.undo(tx('sale', [{ account: ATA, pre: 1_000n, post: 400n }]))).toBe(ATA);
  });

  it('names the account when a move between two recorded ones is missing', () => {
    const rewind = new HoldingsRewind(tracked, 1_000n);
    expect(rewind.undo(tx('newest', [{ account: ATA, pre: 900n, post: 1_000n }]))).toBeUndefined();
    expect(rewind.undo(tx('older', [{ account: ATA, pre: 0n, post: 700n }]))).toBe(ATA);
  });

  it('checks every account against its own amount when the amounts are known (HOLDINGS_SCOPE=all)', () => {
    const current = new Map([
      [ATA, 500n],
      [SECOND_ACCOUNT, 1_000n],
    ]);
    const both = () => tx('into-ata', [
      { account: ATA, pre: null, post: 500n },
      { account: SECOND_ACCOUNT, pre: 1_000n, post: 1_000n },
    ]);
    const rewind = new HoldingsRewind(tracked, 1_500n, current);
    expect(rewind.undo(both())).toBeUndefined();
    expect(rewind.holdings).toBe(1_000n);
    const wrong = new HoldingsRewind(tracked, 1_500n, new Map([[ATA, 500n]]));
    expect(wrong.undo(both())).toBe(SECOND_ACCOUNT);
  });

  it('an account handed to another owner holds nothing of the wallet’s after it', () => {
    const rewind = new HoldingsRewind(tracked, 0n, new Map());
    expect(rewind.undo(tx('handover', [{ account: ATA, pre: 700n, post: 700n, postOwner: BUYER }]))).toBeUndefined();
    expect(rewind.holdings).toBe(700n);
  });
});

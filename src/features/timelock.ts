import type { ChainTransaction, SignatureInfo } from '../chain/types.js';
import type { HoldingsScope } from '../chain/wallet-holdings.js';
import { GateError } from '../errors.js';
import { address, baseUnits, requireHeaders } from '../lib/header-values.js';
import { mergedHistory, PageBudget, SignatureStream, TransactionBudget } from './lib/history.js';
import { findHoldStart, type TrackedHoldings } from './lib/holdings-history.js';
import { holdingsScopeHeader, SCOPE_HEADER } from './lib/holdings-scope.js';
import { nonNegativeNumber } from './lib/numbers.js';
import { blockTimeMs, daysBefore, daysSince, isoTime } from './lib/time.js';
import type { Feature, FeatureContext } from './types.js';

/**
 * timelock: the wallet holds ≥ `mint_amount` of `required_mint` now, and its holdings have not
 * dropped below that amount for at least `min_hold_duration_days` (a sale below the amount
 * restarts the clock, whatever was bought back since).
 */
export interface TimelockParams {
  mint: string;
  amount: bigint;
  minDays: number;
  /** The policy's `scope`, when it names one. */
  scope: HoldingsScope | undefined;
}

/** getTransaction reads per batch while rewinding. */
const BATCH = 100;

export const timelockFeature: Feature<TimelockParams> = {
  name: 'timelock',
  policyHeaders: ['required_mint', 'mint_amount', 'min_hold_duration_days', SCOPE_HEADER],
  geoRequired: false,
  cost: 'history',
  failures: [
    { status: 500, code: 'INSUFFICIENT_BALANCE' },
    { status: 500, code: 'INSUFFICIENT_HOLD_DURATION' },
  ],
  limits: [{ status: 500, code: 'HISTORY_LIMIT' }],

  parse(headers) {
    requireHeaders(headers, ['required_mint', 'mint_amount', 'min_hold_duration_days']);
    return {
      mint: address('required_mint', (headers.get('required_mint') as string).trim()),
      amount: baseUnits('mint_amount', (headers.get('mint_amount') as string).trim()),
      minDays: nonNegativeNumber('min_hold_duration_days', headers.get('min_hold_duration_days') as string),
      scope: holdingsScopeHeader(headers),
    };
  },

  heldMints: ({ mint }) => [mint],
  holdingsScope: ({ scope }) => scope,

  /**
   * Starts from the current holdings and rewinds them through the transactions of the token
   * accounts the balance was counted over (WalletHoldings.countedAccounts), newest first, reading each account's own signature
   * list — so transfers into the wallet that it did not sign are seen too. The walk ends at the
   * first signature older than the required duration: the holdings were already ≥ amount then,
   * which proves the hold. `holdDurationDays` is the hold proven that way (at least the
   * requirement on success, not necessarily the whole holding period).
   *
   * Fail closed: a hold is only proven by reaching that old signature. If the history ends first
   * (every balance starts at zero, so that means the node's history is incomplete), only the time
   * since the oldest transaction seen is proven.
   */
  async check(wallet, { mint, amount, minDays }, context) {
    const { holdings } = context;
    const balance = (await holdings.balances([mint])).get(mint) ?? 0n;
    if (balance < amount) {
      throw new GateError(500, 'INSUFFICIENT_BALANCE', `Wallet holds ${balance} of ${mint}; at least ${amount} is required`, {
        extra: { mint, balance: balance.toString(), required: amount.toString() },
      });
    }
    if (minDays === 0 || amount === 0n) return { holdDurationDays: minDays };

    const tracked: TrackedHoldings = { wallet, mint, accounts: (await holdings.countedAccounts(mint)).addresses };
    const outcome = await rewind(tracked, balance, amount, minDays, context);
    if (outcome.proven) return { holdDurationDays: outcome.heldDays };

    const since = outcome.sinceMs === undefined ? 'now' : isoTime(outcome.sinceMs);
    throw new GateError(
      500,
      'INSUFFICIENT_HOLD_DURATION',
      `Wallet has held at least ${amount} of ${mint} for ${outcome.heldDays} days (since ${since}); ${minDays} days are required`,
      {
        extra: {
          mint,
          required: amount.toString(),
          holdDurationDays: outcome.heldDays,
          requiredDays: minDays,
          holdStartedAt: outcome.sinceMs === undefined ? null : isoTime(outcome.sinceMs),
        },
      },
    );
  },
};

type Outcome = { proven: true; heldDays: number } | { proven: false; heldDays: number; sinceMs: number | undefined };

async function rewind(tracked: TrackedHoldings, balance: bigint, amount: bigint, minDays: number, { chain, config, now }: FeatureContext): Promise<Outcome> {
  const nowMs = now();
  const thresholdMs = daysBefore(nowMs, minDays);
  const pages = new PageBudget(config.historyMaxPages, 'timelock');
  const reads = new TransactionBudget(config.historyMaxTransactions, 'timelock');
  const streams = [...tracked.accounts].map((account) => new SignatureStream(chain, account, pages));
  const state = { holdings: balance };
  // The newest block time seen so far: the latest a transaction without one can have happened.
  let latestKnownMs = nowMs;
  let oldestSeenMs: number | undefined;
  const pending: SignatureInfo[] = [];

  const undoPending = async (): Promise<ChainTransaction | undefined> => {
    const batch = pending.splice(0);
    if (batch.length === 0) return undefined;
    const transactions = await reads.read(chain, batch.map((info) => info.signature));
    for (const [index, transaction] of transactions.entries()) {
      const time = transaction.blockTime ?? batch[index]!.blockTime;
      if (time !== null) latestKnownMs = blockTimeMs(time);
      if (findHoldStart(state, amount, [transaction], tracked)) return transaction;
    }
    return undefined;
  };
  const brokenAt = (transaction: ChainTransaction): Outcome => {
    const sinceMs = transaction.blockTime === null ? latestKnownMs : blockTimeMs(transaction.blockTime);
    return { proven: false, heldDays: daysSince(nowMs, sinceMs), sinceMs };
  };

  for await (const info of mergedHistory(streams)) {
    if (info.blockTime !== null) {
      const timeMs = blockTimeMs(info.blockTime);
      if (timeMs <= thresholdMs) {
        const broken = await undoPending();
        return broken ? brokenAt(broken) : { proven: true, heldDays: daysSince(nowMs, timeMs) };
      }
      oldestSeenMs = timeMs;
    }
    // A failed transaction changes no token balance, so it is not read.
    if (info.err !== null) continue;
    if (pending.length >= Math.min(BATCH, reads.remaining())) {
      const broken = await undoPending();
      if (broken) return brokenAt(broken);
      if (reads.remaining() === 0) throw reads.exceeded('rewinding the holdings over the required duration');
    }
    pending.push(info);
  }
  const broken = await undoPending();
  if (broken) return brokenAt(broken);
  return { proven: false, heldDays: oldestSeenMs === undefined ? 0 : daysSince(nowMs, oldestSeenMs), sinceMs: oldestSeenMs };
}

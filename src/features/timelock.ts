import type { SignatureInfo } from '../chain/types.js';
import type { HoldingsScope } from '../chain/wallet-holdings.js';
import { GateError } from '../errors.js';
import { incompleteHistory, mergedHistory, PageBudget, SignatureStream, TransactionBudget } from '../history/walk.js';
import { HoldingsRewind, type TrackedHoldings } from '../history/holdings-rewind.js';
import { blockTimeMs, daysBefore, daysSince, isoTime } from '../history/days.js';
import { defineFeature, type FeatureContext } from './types.js';

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

export const timelockFeature = defineFeature('timelock', {
  cost: 'history',
  params: (values): TimelockParams => ({ mint: values.required_mint, amount: values.mint_amount, minDays: values.min_hold_duration_days, scope: values.scope }),

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
   * Fail closed both ways. A hold is only proven by reaching that old signature. A hold is only
   * refuted by the transaction before which the holdings were below the amount, and only when its
   * time is known or bounded (an older dated entry newer than the requirement): a break without a
   * block time that nothing bounds is unknown (503). If the history ends first while the holdings
   * are still at the amount, it does not say where the tokens came from — every account starts at
   * zero, so the node's history is incomplete (pruned, or behind): unknown too, never "not held".
   * The history pages are read at least as new as the balance (the login's view of the chain,
   * src/chain/reader.ts), so a node behind the balance read cannot hide a sale and a buy-back.
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

    // The accounts the balance was counted over, and each one's amount now when they came from a list.
    const counted = await holdings.countedAccounts(mint);
    const tracked: TrackedHoldings = { wallet, mint, accounts: counted.addresses };
    const outcome = await rewind(new HoldingsRewind(tracked, balance, counted.amounts), tracked, amount, minDays, context);
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
});

type Outcome = { proven: true; heldDays: number } | { proven: false; heldDays: number; sinceMs: number | undefined };

/** The transaction before which the holdings were below the amount: the current hold began with it. */
interface HoldStart {
  /** Its block time, when known. */
  timeMs: number | undefined;
  /** Without one: the newest block time seen before it (it happened no later), and an older dated entry's (no earlier). */
  noLaterThanMs: number;
  noEarlierThanMs: number | undefined;
}

async function rewind(state: HoldingsRewind, tracked: TrackedHoldings, amount: bigint, minDays: number, { chain, config, now }: FeatureContext): Promise<Outcome> {
  const nowMs = now();
  const thresholdMs = daysBefore(nowMs, minDays);
  const pages = new PageBudget(config.historyMaxPages, 'timelock');
  const reads = new TransactionBudget(config.historyMaxTransactions, 'timelock');
  const streams = [...tracked.accounts].map((account) => new SignatureStream(chain, account, pages));
  // The newest block time seen so far: the latest a transaction without one can have happened.
  let latestKnownMs = nowMs;
  const pending: SignatureInfo[] = [];

  /** Undoes the pending transactions, newest first; `olderMs`: the time of the dated signature after them, if any. */
  const undoPending = async (olderMs?: number): Promise<HoldStart | undefined> => {
    const batch = pending.splice(0);
    if (batch.length === 0) return undefined;
    const transactions = await reads.read(chain, batch.map((info) => info.signature));
    const timeOf = (index: number): number | null => transactions[index]!.blockTime ?? batch[index]!.blockTime;
    for (const [index, transaction] of transactions.entries()) {
      const time = timeOf(index);
      if (time !== null) latestKnownMs = blockTimeMs(time);
      const mismatch = state.undo(transaction);
      if (mismatch !== undefined) {
        throw incompleteHistory(
          'timelock',
          `the history of token account ${mismatch} does not lead to its balance (a transaction is missing: the RPC node's history is behind the balance read, or has a gap)`,
        );
      }
      if (state.holdings >= amount) continue;
      if (time !== null) return { timeMs: blockTimeMs(time), noLaterThanMs: blockTimeMs(time), noEarlierThanMs: blockTimeMs(time) };
      // Block times grow with the slot: an undated transaction lies between its dated neighbours.
      const older = transactions.findIndex((_, later) => later > index && timeOf(later) !== null);
      return { timeMs: undefined, noLaterThanMs: latestKnownMs, noEarlierThanMs: older >= 0 ? blockTimeMs(timeOf(older)!) : olderMs };
    }
    return undefined;
  };
  const brokenAt = (start: HoldStart): Outcome => {
    // Not held long enough only when the hold provably began after the threshold.
    if (start.timeMs === undefined && !(start.noEarlierThanMs !== undefined && start.noEarlierThanMs > thresholdMs)) {
      throw incompleteHistory('timelock', 'the transaction that began the current holding has no block time, so how long it has been held is unknown');
    }
    const sinceMs = start.timeMs ?? start.noLaterThanMs;
    return { proven: false, heldDays: daysSince(nowMs, sinceMs), sinceMs };
  };

  for await (const info of mergedHistory(streams)) {
    if (info.blockTime !== null) {
      const timeMs = blockTimeMs(info.blockTime);
      if (timeMs <= thresholdMs) {
        const broken = await undoPending();
        return broken ? brokenAt(broken) : { proven: true, heldDays: daysSince(nowMs, timeMs) };
      }
    }
    // A failed transaction changes no token balance, so it is not read.
    if (info.err !== null) continue;
    if (pending.length >= Math.min(BATCH, reads.remaining())) {
      const broken = await undoPending(info.blockTime === null ? undefined : blockTimeMs(info.blockTime));
      if (broken) return brokenAt(broken);
      if (reads.remaining() === 0) throw reads.exceeded('rewinding the holdings over the required duration');
    }
    pending.push(info);
  }
  const broken = await undoPending();
  if (broken) return brokenAt(broken);
  throw incompleteHistory(
    'timelock',
    "the history of the wallet's token accounts ends while they still hold the amount — it does not show the tokens arriving, so it is incomplete (pruned or behind)",
  );
}

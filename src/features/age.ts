import { GateError } from '../errors.js';
import { incompleteHistory, PageBudget, SignatureStream } from '../history/walk.js';
import { blockTimeMs, daysBefore, daysSince, isoTime } from '../history/days.js';
import { defineFeature } from './types.js';

/**
 * age: the wallet's oldest transaction is at least N days old (docs/api.md §5). Both headers are
 * thresholds on that same transaction, so the stricter one applies; at least one must be sent and
 * an absent one counts as 0.
 */
export interface AgeParams {
  minDays: number;
}

export const ageFeature = defineFeature('age', {
  cost: 'history',
  params: (values): AgeParams => ({ minDays: Math.max(values.min_wallet_age_days ?? 0, values.min_first_transaction_days ?? 0) }),

  /**
   * Pages the wallet's signatures newest → oldest and stops at the first one at least `minDays`
   * old: that transaction alone proves the age, so a busy wallet's history is not read to its
   * beginning. `walletAgeDays` is therefore the age of the oldest transaction the check had to
   * read: on success at least the requirement, not necessarily the wallet's full age. Signatures
   * without a block time (some very old blocks) prove nothing and are skipped. A transaction
   * time the chain reader remembers from an earlier check (knownTransactionAt) proves the age
   * without reading: a wallet proven old stays old.
   *
   * "Too new" must be proven too: it is answered only when the list has ended, the node that
   * listed it keeps the ledger from genesis (first available block 0: nothing older was pruned),
   * and every entry older than the oldest dated one has a block time. Otherwise an older
   * transaction may exist that the node did not list or date, and the answer is unknown (503).
   */
  async check(wallet, { minDays }, { chain, config, now }) {
    const nowMs = now();
    if (minDays === 0) return { walletAgeDays: 0 };
    const thresholdMs = daysBefore(nowMs, minDays);
    const known = chain.knownTransactionAt(wallet);
    if (known !== undefined && known <= thresholdMs) return { walletAgeDays: daysSince(nowMs, known) };
    const stream = new SignatureStream(chain, wallet, new PageBudget(config.historyMaxPages, 'age'));

    let oldestMs: number | undefined;
    // Undated signatures older than every dated one seen: they could be older than the threshold.
    let undatedAtEnd = 0;
    for (let info = await stream.peek(); info; stream.take(), info = await stream.peek()) {
      if (info.blockTime === null) {
        undatedAtEnd += 1;
        continue;
      }
      // A dated signature newer than the threshold bounds every undated one before it (newer still).
      undatedAtEnd = 0;
      const timeMs = blockTimeMs(info.blockTime);
      oldestMs = oldestMs === undefined ? timeMs : Math.min(oldestMs, timeMs);
      if (timeMs <= thresholdMs) {
        chain.rememberTransactionAt(wallet, timeMs);
        return { walletAgeDays: daysSince(nowMs, timeMs) };
      }
    }
    if (oldestMs !== undefined) chain.rememberTransactionAt(wallet, oldestMs);
    if (undatedAtEnd > 0) {
      throw incompleteHistory('age', `the wallet's ${undatedAtEnd === 1 ? 'oldest transaction has' : `${undatedAtEnd} oldest transactions have`} no block time, so its age is unknown`);
    }
    if (await stream.mayLackOlder()) {
      throw incompleteHistory('age', 'the RPC node keeps history only from a recent block (getFirstAvailableBlock), so older transactions of the wallet would not be listed');
    }

    const walletAgeDays = oldestMs === undefined ? 0 : daysSince(nowMs, oldestMs);
    const found = oldestMs === undefined ? 'has no transactions with a block time' : `first transacted ${isoTime(oldestMs)} (${walletAgeDays} days ago)`;
    throw new GateError(500, 'WALLET_TOO_NEW', `Wallet ${found}; at least ${minDays} days of age are required`, {
      extra: { walletAgeDays, requiredDays: minDays, firstTransactionAt: oldestMs === undefined ? null : isoTime(oldestMs) },
    });
  },
});

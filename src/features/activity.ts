import type { ChainReader, ChainTransaction } from '../chain/types.js';
import { ACTIVITY_TYPES, classifyTransaction, walletLamportChange, type ActivityType } from '../activity/classify.js';
import { GateError } from '../errors.js';
import { formatFixed } from '../lib/fixed.js';
import { incompleteHistory, PageBudget, SignatureStream, TransactionBudget } from '../history/walk.js';
import { blockTimeMs, daysBefore } from '../history/days.js';
import { defineFeature } from './types.js';

/**
 * activity: within the last `time_period_days`, the wallet has at least `min_transactions`
 * successful transactions (of `transaction_types`, when given) whose summed absolute SOL balance
 * change is at least `min_volume` SOL.
 */
export interface ActivityParams {
  minTransactions: number;
  periodDays: number;
  minVolumeLamports: bigint;
  /** Empty: any successful transaction counts. */
  types: ActivityType[];
}

const SOL_DECIMALS = 9;
/** getTransaction reads per batch: the first is sized to the requirement, later ones are full. */
const MIN_FIRST_BATCH = 20;
const MAX_BATCH = 100;

export const activityFeature = defineFeature('activity', {
  cost: 'history',
  params: (values): ActivityParams => ({
    minTransactions: values.min_transactions,
    periodDays: values.time_period_days,
    minVolumeLamports: values.min_volume,
    types: values.transaction_types,
  }),

  /**
   * Walks the wallet's signatures newest → oldest until the period's start. Transactions are read
   * (getTransaction, in batches) only when a type filter or a volume requires their contents, and
   * the walk stops as soon as the requirement is met, so `transactionCount` (and `volume`, SOL)
   * are what the check established: on success at least the requirement. `volume` is reported
   * only when transactions were read.
   *
   * "Not enough" must be proven too: when the list ended before the period's start, the node that
   * listed it must keep every block of the period (its first available block is genesis, or older
   * than the period); and a successful transaction without a block time that cannot be placed
   * inside or outside the period leaves the count unknown. Either way the answer is 503, not
   * INSUFFICIENT_ACTIVITY.
   */
  async check(wallet, params, { chain, config, now }) {
    const windowStartMs = daysBefore(now(), params.periodDays);
    const stream = new SignatureStream(chain, wallet, new PageBudget(config.historyMaxPages, 'activity'));
    const readsTransactions = params.types.length > 0 || params.minVolumeLamports > 0n;
    const tally = { count: 0, volumeLamports: 0n };
    const met = () => tally.count >= params.minTransactions && tally.volumeLamports >= params.minVolumeLamports;

    // Nothing required (min 0, volume 0): the answer is known without reading the chain.
    const walked = !met();
    let walk: WalkEnd = { listEnded: false, unplaced: 0 };
    if (walked && readsTransactions) {
      walk = await tallyTransactions(chain, wallet, stream, windowStartMs, params, tally, met, new TransactionBudget(config.historyMaxTransactions, 'activity'));
    } else if (walked) {
      walk = await tallySignatures(stream, windowStartMs, tally, met);
    }

    const volume = formatFixed(tally.volumeLamports, SOL_DECIMALS);
    const measured = walked && readsTransactions ? { volume } : {};
    if (met()) return { transactionCount: tally.count, ...measured };
    if (walk.unplaced > 0) {
      throw incompleteHistory('activity', `${walk.unplaced} successful transaction${walk.unplaced === 1 ? ' has' : 's have'} no block time and may fall in the period`);
    }
    if (walk.listEnded && (await stream.mayLackOlder(windowStartMs))) {
      throw incompleteHistory('activity', 'the RPC node keeps history only from a block inside the period (getFirstAvailableBlock), so earlier transactions of the period would not be listed');
    }

    const kinds = params.types.length > 0 ? ` of type ${params.types.join('/')}` : '';
    const needVolume = params.minVolumeLamports > 0n ? `, moving ${volume} SOL of the ${formatFixed(params.minVolumeLamports, SOL_DECIMALS)} SOL required` : '';
    throw new GateError(
      500,
      'INSUFFICIENT_ACTIVITY',
      `Wallet has ${tally.count} successful transactions${kinds} in the last ${params.periodDays} days; ${params.minTransactions} required${needVolume}`,
      {
        extra: {
          transactionCount: tally.count,
          requiredTransactions: params.minTransactions,
          ...measured,
          requiredVolume: formatFixed(params.minVolumeLamports, SOL_DECIMALS),
          timePeriodDays: params.periodDays,
          transactionTypes: params.types,
        },
      },
    );
  },
});

interface Tally {
  count: number;
  volumeLamports: bigint;
}

/** How a walk that did not meet the requirement ended. */
interface WalkEnd {
  /** The list ended before a signature older than the period was seen. */
  listEnded: boolean;
  /** Successful signatures without a block time that no dated signature placed inside the period. */
  unplaced: number;
}

/** Whether a signature is older than the period (signatures come newest first: all after it are too). */
function beforeWindow(blockTime: number | null, windowStartMs: number): boolean {
  return blockTime !== null && blockTimeMs(blockTime) < windowStartMs;
}

/**
 * Counting needs only the signatures (`err` says whether it succeeded). Once the requirement is
 * met, the rest of the page already in hand is still counted, but no further page is fetched.
 * A signature without a block time is placed in the period by a dated one inside it that is older
 * (block times grow with the slot); until then it is not counted.
 */
async function tallySignatures(stream: SignatureStream, windowStartMs: number, tally: Tally, met: () => boolean): Promise<WalkEnd> {
  let undated = 0;
  for (;;) {
    const info = await stream.peek();
    if (!info) return { listEnded: true, unplaced: undated };
    if (beforeWindow(info.blockTime, windowStartMs)) return { listEnded: false, unplaced: undated };
    stream.take();
    if (info.blockTime === null) {
      if (info.err === null) undated += 1;
      continue;
    }
    tally.count += undated;
    undated = 0;
    if (info.err === null) tally.count += 1;
    if (met() && !stream.hasBuffered()) return { listEnded: false, unplaced: 0 };
  }
}

async function tallyTransactions(
  chain: ChainReader,
  wallet: string,
  stream: SignatureStream,
  windowStartMs: number,
  params: ActivityParams,
  tally: Tally,
  met: () => boolean,
  budget: TransactionBudget,
): Promise<WalkEnd> {
  const wanted = new Set(params.types);
  const count = (transaction: ChainTransaction) => {
    if (transaction.err !== null) return;
    if (wanted.size > 0 && ![...classifyTransaction(transaction, wallet)].some((type) => wanted.has(type))) return;
    tally.count += 1;
    tally.volumeLamports += walletLamportChange(transaction, wallet);
  };
  let batchSize = Math.min(MAX_BATCH, Math.max(MIN_FIRST_BATCH, params.minTransactions * 2));
  const pending: string[] = [];
  const flush = async () => {
    if (pending.length === 0) return;
    for (const transaction of await budget.read(chain, pending.splice(0))) count(transaction);
    batchSize = MAX_BATCH;
  };

  // Successful undated signatures, read once a dated one inside the period (older) places them there.
  const undated: string[] = [];
  let listEnded = false;
  for (;;) {
    const info = await stream.peek();
    if (!info) {
      listEnded = true;
      break;
    }
    if (beforeWindow(info.blockTime, windowStartMs)) break;
    stream.take();
    // Failed transactions never count.
    if (info.err !== null) continue;
    if (info.blockTime === null) {
      undated.push(info.signature);
      continue;
    }
    for (const signature of [...undated.splice(0), info.signature]) {
      if (pending.length >= Math.min(batchSize, budget.remaining())) {
        await flush();
        if (met()) return { listEnded: false, unplaced: 0 };
        if (budget.remaining() === 0) throw budget.exceeded('reading the transactions in the period');
      }
      pending.push(signature);
    }
  }
  await flush();
  return { listEnded, unplaced: undated.length };
}

import type { ChainReader, ChainTransaction, HistoryPage, SignatureInfo } from '../chain/types.js';
import { GateError, upstreamUnavailable } from '../errors.js';

/**
 * Walking a wallet's history newest → oldest with getSignaturesForAddress (1000 per page, `before`
 * the last signature seen) and getTransactions, within the bounds of HISTORY_MAX_PAGES and
 * HISTORY_MAX_TRANSACTIONS. Callers stop as soon as they know their answer; a walk that would need
 * more than the bounds allow ends in a clear 500 HISTORY_LIMIT, never in a guess.
 *
 * The end of a list is not the end of a history: a node keeps blocks only from its first available
 * block on (SignatureStream.mayLackOlder), and old blocks may have no block time. A check that
 * would decide "not old enough" or "not enough" from such an end answers incompleteHistory (503:
 * unknown, which a rule's `not` never turns into a pass), never a refusal it cannot prove.
 */

export const SIGNATURE_PAGE_SIZE = 1000;

export function historyLimit(feature: string, what: string, setting: 'HISTORY_MAX_PAGES' | 'HISTORY_MAX_TRANSACTIONS', bound: number): GateError {
  return new GateError(
    500,
    'HISTORY_LIMIT',
    `The ${feature} check could not be decided: ${what} goes past the configured bound of ${bound} ` +
      `(${setting}). No token was issued; the operator can raise ${setting} to check longer histories.`,
    { extra: { setting, bound } },
  );
}

/**
 * The answer when the history a check depends on may be incomplete: 503 UPSTREAM_UNAVAILABLE (the
 * chain could not be read in full), with `history: "incomplete"` in the body. Not a failure of the
 * wallet's: a rule reads it as unknown (src/rules/evaluate.ts).
 */
export function incompleteHistory(feature: string, why: string): GateError {
  return new GateError(503, 'UPSTREAM_UNAVAILABLE', `The ${feature} check could not be decided: ${why}; no token was issued.`, {
    headers: { 'Retry-After': '2' },
    extra: { history: 'incomplete' },
  });
}

/** Counts signature pages across every stream of one check. */
export class PageBudget {
  private used = 0;
  constructor(
    private readonly maxPages: number,
    private readonly feature: string,
  ) {}

  take(): void {
    if (this.used >= this.maxPages) {
      throw historyLimit(this.feature, `the wallet's history (${this.used} pages of ${SIGNATURE_PAGE_SIZE} signatures)`, 'HISTORY_MAX_PAGES', this.maxPages);
    }
    this.used += 1;
  }

  get pages(): number {
    return this.used;
  }
}

/** One address's signatures, newest first, fetched a page at a time only when the caller gets there. */
export class SignatureStream {
  private page: SignatureInfo[] = [];
  private position = 0;
  private before: string | undefined;
  private exhausted = false;
  /** The page that ended the list, once read: its node's horizon says whether the end is the start of the history. */
  private lastPage: HistoryPage | undefined;

  constructor(
    private readonly chain: ChainReader,
    readonly address: string,
    private readonly budget: PageBudget,
  ) {}

  /** The next signature without consuming it; undefined once the history is exhausted. */
  async peek(): Promise<SignatureInfo | undefined> {
    while (this.position >= this.page.length && !this.exhausted) await this.fetchPage();
    return this.page[this.position];
  }

  take(): void {
    this.position += 1;
  }

  /** True while the next signature is already in hand, i.e. reading it costs no RPC call. */
  hasBuffered(): boolean {
    return this.position < this.page.length || this.exhausted;
  }

  /**
   * Once the list has ended (peek() gave undefined): whether the history may go on before its
   * oldest entry, i.e. the node that answered the last page has pruned blocks (its first available
   * block is not 0) — older entries would not be listed. With `afterMs`, only pruning that could
   * reach after that time counts: a node whose first available block is older than `afterMs` lacks
   * nothing since then. Rejects with 503 when the node's horizon cannot be read.
   */
  async mayLackOlder(afterMs?: number): Promise<boolean> {
    if (this.lastPage === undefined) throw new TypeError('the list has not ended');
    const { firstSlot, blockTime } = await this.lastPage.horizon();
    if (firstSlot === 0) return false;
    return afterMs === undefined || blockTime === null || blockTime * 1000 >= afterMs;
  }

  private async fetchPage(): Promise<void> {
    this.budget.take();
    const answer = await this.chain.getSignaturesForAddress(this.address, { limit: SIGNATURE_PAGE_SIZE, before: this.before });
    const page = answer.signatures;
    this.page = page;
    this.position = 0;
    const last = page[page.length - 1];
    if (last) this.before = last.signature;
    // A short page is the last one; an empty page means there was nothing before `before`.
    if (page.length < SIGNATURE_PAGE_SIZE) {
      this.exhausted = true;
      this.lastPage = answer;
    }
  }
}

/**
 * Several addresses' histories merged into one newest-first sequence without duplicates (a
 * transaction touching two of them appears once). Order is by slot; within one slot each stream
 * keeps its own order and earlier streams go first, the only order the signatures alone give.
 */
export async function* mergedHistory(streams: readonly SignatureStream[]): AsyncGenerator<SignatureInfo> {
  const seen = new Set<string>();
  for (;;) {
    let newest: { stream: SignatureStream; info: SignatureInfo } | undefined;
    for (const stream of streams) {
      const info = await stream.peek();
      if (info && (!newest || info.slot > newest.info.slot)) newest = { stream, info };
    }
    if (!newest) return;
    newest.stream.take();
    if (seen.has(newest.info.signature)) continue;
    seen.add(newest.info.signature);
    yield newest.info;
  }
}

/** Counts getTransaction reads of one check against HISTORY_MAX_TRANSACTIONS. */
export class TransactionBudget {
  private used = 0;
  constructor(
    private readonly maxTransactions: number,
    private readonly feature: string,
  ) {}

  remaining(): number {
    return this.maxTransactions - this.used;
  }

  /** The error for a walk that needs more reads than the bound allows. */
  exceeded(what: string): GateError {
    return historyLimit(this.feature, `${what} (more than ${this.maxTransactions} transactions)`, 'HISTORY_MAX_TRANSACTIONS', this.maxTransactions);
  }

  /**
   * Reads the transactions, newest first as given. A signature the node listed but cannot return
   * (pruned from long-term storage) makes the history unreadable: 503, as for any chain failure.
   */
  async read(chain: ChainReader, signatures: readonly string[]): Promise<ChainTransaction[]> {
    if (signatures.length > this.remaining()) throw this.exceeded('reading the transactions it needs');
    this.used += signatures.length;
    const transactions = await chain.getTransactions(signatures);
    return transactions.map((transaction, index) => {
      if (!transaction) throw upstreamUnavailable(`transaction ${signatures[index]} is listed but not available from the node`);
      return transaction;
    });
  }
}

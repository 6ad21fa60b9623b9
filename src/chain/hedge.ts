import type { Exchange } from './exchange.js';
import type { AttemptResult } from './reply-verdict.js';
import type { ChainObserver } from './types.js';

/**
 * Hedging (RPC_HEDGE_MS > 0, two or more endpoints): when an attempt's endpoint has not answered
 * within RPC_HEDGE_MS of being sent, the same body also goes to the next endpoint that is not
 * cooling down. The first clean answer (every call answered, or failed for good) wins and the other
 * request is aborted; a failed or unclean answer waits for the other one. The hedge does not wait
 * for a concurrency slot — the slots may all be held by requests to the stalled provider, which is
 * exactly when a hedge is needed — so at most RPC_CONCURRENCY hedges join the RPC_CONCURRENCY
 * requests in flight.
 */

export interface HedgedAttempt {
  /** RPC_HEDGE_MS. */
  hedgeMs: number;
  /** performance.now() ms: no hedge is sent after it. */
  deadline: number;
  /** Sends the body to the attempt's endpoint; `onSent` when it is on its way (the hedge clock starts then, not while it waits for a slot). */
  sendPrimary(onSent: () => void): Exchange;
  /** Sends the same body to the next endpoint, without waiting for a slot (undefined: no endpoint to send it to). */
  sendHedge(): Exchange | undefined;
  /** Called for every exchange that finished, used or not: what it says about its endpoint counts either way. */
  finished(exchange: Exchange, result: AttemptResult): void;
  observer: ChainObserver;
}

/** One attempt, hedged: resolves with the result the caller acts on. */
export function hedge({ hedgeMs, deadline, sendPrimary, sendHedge, finished, observer }: HedgedAttempt): Promise<AttemptResult> {
  return new Promise<AttemptResult>((resolve) => {
    let hedgeExchange: Exchange | undefined;
    let hedgeTimer: NodeJS.Timeout | undefined;
    let inFlight = 1;
    let settled = false;
    /** The better of the results that were not clean, for when no exchange answers cleanly. */
    let fallback: AttemptResult | undefined;

    const settle = (result: AttemptResult, winner: Exchange | undefined): void => {
      settled = true;
      clearTimeout(hedgeTimer);
      if (hedgeExchange !== undefined) {
        if (winner === hedgeExchange) primary.abort();
        else if (winner !== undefined) hedgeExchange.abort();
        observer.rpcHedge?.(winner === undefined ? 'failed' : winner === hedgeExchange ? 'won' : 'lost');
      }
      resolve(result);
    };
    const onFinished = (exchange: Exchange, result: AttemptResult): void => {
      inFlight--;
      finished(exchange, result);
      if (settled) return;
      if (isClean(result)) return settle(result, exchange);
      fallback = preferred(fallback, result);
      // Otherwise wait for the other request; with none in flight, the hedge is not needed any more.
      if (inFlight === 0) settle(fallback, undefined);
    };
    const startHedge = (): void => {
      hedgeTimer = undefined;
      if (settled || deadline - performance.now() <= 0) return;
      const sent = sendHedge();
      if (sent === undefined) return;
      hedgeExchange = sent;
      inFlight++;
      void sent.done.then((result) => onFinished(sent, result));
    };
    const primary = sendPrimary(() => {
      hedgeTimer = setTimeout(startHedge, hedgeMs);
    });
    void primary.done.then((result) => onFinished(primary, result));
  });
}

/** Every call answered, or failed in a way no endpoint would answer differently. */
function isClean(result: AttemptResult): boolean {
  return result.kind === 'answered' && result.verdicts.every((verdict) => verdict.ok || verdict.permanent);
}

/** Of two unclean results, the one that tells the caller more: an answer beats a failure, a failure of the endpoint beats a lost or unsent request. */
function preferred(earlier: AttemptResult | undefined, later: AttemptResult): AttemptResult {
  if (earlier === undefined) return later;
  const rank = (result: AttemptResult): number => (result.kind === 'answered' ? 2 : result.blame === 'endpoint' ? 1 : 0);
  return rank(later) >= rank(earlier) ? later : earlier;
}

/**
 * What the provider profile did, for the benchmark and tests: calls (batch members counted singly)
 * against HTTP requests, the calls it refused, by reason and by method, and both per second since
 * the counters were reset (how a client's rate converges on a budget). Reported under `provider`
 * in GET /__localnet/stats, reset with the other counters.
 */
import type { RefusalReason } from './provider-limits.js';

export interface ProviderCounterSnapshot {
  /** JSON-RPC calls received, batch members counted singly (what a per-call budget counts). */
  calls: number;
  /** JSON-RPC HTTP requests received (what a per-request limit counts). */
  httpRequests: number;
  /** Calls the profile refused (each member of a refused array counts). */
  refusedCalls: number;
  /** HTTP requests answered whole with a refusal (400, 410, 429, or one error object for an array). */
  refusedRequests: number;
  refusedByReason: Partial<Record<RefusalReason, number>>;
  /** Refused calls per method, by reason. */
  refusedByMethod: Record<string, Partial<Record<RefusalReason, number>>>;
  /** Answers sent gzip-encoded (the client asked, the profile allows it, the body was large enough). */
  gzipped: number;
  /**
   * Calls received and refused in each second since the counters were reset: entry i covers
   * [startedAt + i s, startedAt + (i + 1) s), startedAt on the wall clock (ms since the epoch).
   * Every second up to the last call's is present (zeros included).
   */
  perSecond: { startedAt: number; seconds: SecondCounts[] };
}

export interface SecondCounts {
  calls: number;
  refused: number;
}

/** At most this many seconds are kept (an hour); later calls are counted in the totals only. */
const MAX_SECONDS = 3600;

export class ProviderCounters {
  private calls = 0;
  private httpRequests = 0;
  private refusedCalls = 0;
  private refusedRequests = 0;
  private refusedByReason: Partial<Record<RefusalReason, number>> = {};
  private refusedByMethod: Record<string, Partial<Record<RefusalReason, number>>> = {};
  gzipped = 0;
  private startedAt: number;
  private seconds: SecondCounts[] = [];

  constructor(private readonly clock: () => number = () => Date.now()) {
    this.startedAt = clock();
  }

  /** One JSON-RPC HTTP request carrying `calls` calls. */
  countRequest(calls: number): void {
    this.httpRequests += 1;
    this.calls += calls;
    const second = this.second();
    if (second) second.calls += calls;
  }

  countRefusedRequest(): void {
    this.refusedRequests += 1;
  }

  countRefusedCall(method: string, reason: RefusalReason): void {
    this.refusedCalls += 1;
    const second = this.second();
    if (second) second.refused += 1;
    this.refusedByReason[reason] = (this.refusedByReason[reason] ?? 0) + 1;
    const perMethod = (this.refusedByMethod[method] ??= {});
    perMethod[reason] = (perMethod[reason] ?? 0) + 1;
  }

  snapshot(): ProviderCounterSnapshot {
    return {
      calls: this.calls,
      httpRequests: this.httpRequests,
      refusedCalls: this.refusedCalls,
      refusedRequests: this.refusedRequests,
      refusedByReason: { ...this.refusedByReason },
      refusedByMethod: Object.fromEntries(Object.entries(this.refusedByMethod).map(([method, reasons]) => [method, { ...reasons }])),
      gzipped: this.gzipped,
      perSecond: { startedAt: this.startedAt, seconds: this.seconds.map((second) => ({ ...second })) },
    };
  }

  reset(): void {
    this.calls = 0;
    this.httpRequests = 0;
    this.refusedCalls = 0;
    this.refusedRequests = 0;
    this.refusedByReason = {};
    this.refusedByMethod = {};
    this.gzipped = 0;
    this.startedAt = this.clock();
    this.seconds = [];
  }

  /** The entry of the second now (undefined past MAX_SECONDS), the seconds before it filled in. */
  private second(): SecondCounts | undefined {
    const index = Math.floor((this.clock() - this.startedAt) / 1000);
    if (index < 0 || index >= MAX_SECONDS) return undefined;
    while (this.seconds.length <= index) this.seconds.push({ calls: 0, refused: 0 });
    return this.seconds[index];
  }
}

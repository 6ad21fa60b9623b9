/**
 * What the provider profile did, for the benchmark and tests: calls (batch members counted singly)
 * against HTTP requests, and the calls it refused, by reason and by method. Reported under
 * `provider` in GET /__localnet/stats, reset with the other counters.
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
}

export class ProviderCounters {
  private calls = 0;
  private httpRequests = 0;
  private refusedCalls = 0;
  private refusedRequests = 0;
  private refusedByReason: Partial<Record<RefusalReason, number>> = {};
  private refusedByMethod: Record<string, Partial<Record<RefusalReason, number>>> = {};
  gzipped = 0;

  /** One JSON-RPC HTTP request carrying `calls` calls. */
  countRequest(calls: number): void {
    this.httpRequests += 1;
    this.calls += calls;
  }

  countRefusedRequest(): void {
    this.refusedRequests += 1;
  }

  countRefusedCall(method: string, reason: RefusalReason): void {
    this.refusedCalls += 1;
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
  }
}

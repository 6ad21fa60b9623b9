/** Request counters: what the benchmark and tests read to see how many RPC calls the gate made. */
export interface CounterSnapshot {
  httpRequests: number;
  /** JSON-RPC calls per method, batch members counted singly. */
  calls: Record<string, number>;
  /** HTTP requests carrying at least one call of the method: its round trips (e.g. getMultipleAccounts rounds). */
  requestsWith: Record<string, number>;
  /** HTTP requests answered 429 by the provider simulation's rate limit (provider.ts). */
  rateLimited: number;
  /** TCP connections accepted (a client with keep-alive opens few). */
  connections: number;
}

export class Counters {
  httpRequests = 0;
  calls: Record<string, number> = {};
  requestsWith: Record<string, number> = {};
  rateLimited = 0;
  connections = 0;

  /** The methods of one HTTP request's calls (the request itself is counted when it arrives). */
  countCalls(methods: readonly string[]): void {
    for (const method of methods) this.calls[method] = (this.calls[method] ?? 0) + 1;
    for (const method of new Set(methods)) this.requestsWith[method] = (this.requestsWith[method] ?? 0) + 1;
  }

  snapshot(): CounterSnapshot {
    return { httpRequests: this.httpRequests, calls: { ...this.calls }, requestsWith: { ...this.requestsWith }, rateLimited: this.rateLimited, connections: this.connections };
  }

  reset(): void {
    this.httpRequests = 0;
    this.calls = {};
    this.requestsWith = {};
    this.rateLimited = 0;
    this.connections = 0;
  }
}

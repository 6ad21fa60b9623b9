/** Request counters: what the benchmark and tests read to see how many RPC calls the gate made. */
export class Counters {
  httpRequests = 0;
  calls: Record<string, number> = {};

  count(method: string): void {
    this.calls[method] = (this.calls[method] ?? 0) + 1;
  }

  snapshot(): { httpRequests: number; calls: Record<string, number> } {
    return { httpRequests: this.httpRequests, calls: { ...this.calls } };
  }

  reset(): void {
    this.httpRequests = 0;
    this.calls = {};
  }
}

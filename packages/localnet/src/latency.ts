/**
 * Per-method latency: milliseconds added before answering a request that calls the method (a
 * batch waits for the slowest of its methods), on top of the provider's latency (provider.ts) —
 * e.g. a node slow to answer getSignatureStatuses. Set in-process (`handle.latency.set`) and over
 * HTTP (`POST /__localnet/latency` `{"getSignatureStatuses": 150}`); each set replaces the whole
 * table, `{}` clears it.
 */
const MAX_LATENCY_MS = 60_000;

export class MethodLatency {
  private table = new Map<string, number>();

  /** Validates and replaces the table; throws on a bad value, changing nothing. */
  set(table: Record<string, unknown>): Record<string, number> {
    if (!table || typeof table !== 'object' || Array.isArray(table)) throw new Error('latency must be an object of method → milliseconds');
    const next = new Map<string, number>();
    for (const [method, ms] of Object.entries(table)) {
      if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0 || ms > MAX_LATENCY_MS) throw new Error(`latency of ${method} must be an integer 0..${MAX_LATENCY_MS} ms`);
      if (ms > 0) next.set(method, ms);
    }
    this.table = next;
    return this.get();
  }

  get(): Record<string, number> {
    return Object.fromEntries(this.table);
  }

  clear(): void {
    this.table = new Map();
  }

  /** The delay for a request calling `methods`: the largest of theirs, 0 when none is listed. */
  delayFor(methods: readonly string[]): number {
    if (this.table.size === 0) return 0;
    let delay = 0;
    for (const method of methods) delay = Math.max(delay, this.table.get(method) ?? 0);
    return delay;
  }
}

import autocannon from 'autocannon';

/**
 * One timed autocannon run (programmatic API). Latencies are taken from every response at
 * microsecond precision (autocannon's own histogram is in whole milliseconds and counts only 2xx).
 */
export interface LoadSpec {
  url: string;
  connections: number;
  durationSec: number;
  /** Stop after this many requests, or at `durationSec`, whichever comes first. */
  amount?: number;
  headers?: Record<string, string>;
  requests?: autocannon.Request[];
  /** Send at most this many requests per second across all connections (default: as fast as answered). */
  overallRate?: number;
}

export interface LoadResult {
  connections: number;
  responses: number;
  durationSec: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  non2xx: number;
  /** Socket errors and timeouts (no HTTP response at all). */
  errors: number;
  statusCounts: Record<string, number>;
  /** CPU time of this process (the load generator) during the run, in ms. */
  loadGeneratorCpuMs: number;
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const latencies = new LatencyLog();
  const statusCounts: Record<string, number> = {};
  const cpuBefore = process.cpuUsage();
  const startedAt = process.hrtime.bigint();
  // The run is timed from its first request (the first response less its latency) to its last
  // response, not to autocannon's callback: with `amount`, autocannon notices it is done only at
  // its next sample tick (up to a second later), idle time that would count against the rate.
  let firstRequestAt = startedAt;
  let lastResponseAt = startedAt;

  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        connections: spec.connections,
        pipelining: 1,
        timeout: 10,
        ...(spec.amount === undefined ? { duration: spec.durationSec } : { amount: spec.amount }),
        ...(spec.headers ? { headers: spec.headers } : {}),
        ...(spec.requests ? { requests: spec.requests } : {}),
        ...(spec.overallRate ? { overallRate: spec.overallRate } : {}),
      },
      (error, finished) => {
        clearTimeout(deadline);
        if (error) reject(error);
        else resolve(finished);
      },
    );
    // With `amount`, autocannon ignores the duration: enforce it here.
    const deadline = setTimeout(() => instance.stop(), spec.durationSec * 1000 + 50);
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTimeMs: number) => {
      lastResponseAt = process.hrtime.bigint();
      if (latencies.count === 0) firstRequestAt = lastResponseAt - BigInt(Math.round(responseTimeMs * 1e6));
      latencies.add(responseTimeMs);
      statusCounts[statusCode] = (statusCounts[statusCode] ?? 0) + 1;
    });
  });

  const durationSec = latencies.count > 0 ? Number(lastResponseAt - firstRequestAt) / 1e9 : Number(process.hrtime.bigint() - startedAt) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  const responses = latencies.count;
  const non2xx = Object.entries(statusCounts).reduce((sum, [status, count]) => (status.startsWith('2') ? sum : sum + count), 0);
  return {
    connections: spec.connections,
    responses,
    durationSec,
    rps: responses / durationSec,
    p50Ms: latencies.percentile(50),
    p99Ms: latencies.percentile(99),
    maxMs: latencies.percentile(100),
    non2xx,
    errors: result.errors + result.timeouts,
    statusCounts,
    loadGeneratorCpuMs: (cpu.user + cpu.system) / 1000,
  };
}

class LatencyLog {
  private values = new Float64Array(1 << 16);
  count = 0;

  add(ms: number): void {
    if (this.count === this.values.length) {
      const bigger = new Float64Array(this.values.length * 2);
      bigger.set(this.values);
      this.values = bigger;
    }
    this.values[this.count++] = ms;
  }

  percentile(p: number): number {
    if (this.count === 0) return NaN;
    const sorted = this.values.subarray(0, this.count).sort();
    const index = Math.min(this.count - 1, Math.ceil((p / 100) * this.count) - 1);
    return sorted[Math.max(0, index)]!;
  }
}

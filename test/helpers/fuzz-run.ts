import { readFileSync } from 'node:fs';

/** What a fuzz run reports besides its own tallies: how far it got, and the gate's RSS over it. */
export interface FuzzRun {
  /** Schedule entries taken (≥ schedule length when the run finished within its budget). */
  sent: number;
  elapsedMs: number;
  /** RSS once a tenth of the schedule was sent (after warm-up), at the end, and the peak, in kB. */
  warmRssKb: number;
  finalRssKb: number;
  peakRssKb: number;
}

export function rssKb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? NaN);
}

/**
 * Sends a fuzz schedule over `concurrency` lanes until it is done or `budgetMs` has passed, while
 * sampling the gate's RSS every 250 ms. `each` does one entry and records what it needs; it must not
 * throw (a fuzzer records its own failures).
 */
export async function runSchedule<T>(
  schedule: readonly T[],
  options: { pid: number; concurrency: number; budgetMs: number; each: (entry: T) => Promise<void> },
): Promise<FuzzRun> {
  const { pid, concurrency, budgetMs, each } = options;
  let sent = 0;
  let warmRssKb = 0;
  let peakRssKb = 0;
  const sampler = setInterval(() => {
    peakRssKb = Math.max(peakRssKb, rssKb(pid));
  }, 250);
  const startedAt = Date.now();
  const deadline = startedAt + budgetMs;

  async function lane(): Promise<void> {
    for (let next = sent++; next < schedule.length && Date.now() < deadline; next = sent++) {
      await each(schedule[next]!);
      if (next === Math.floor(schedule.length / 10)) warmRssKb = rssKb(pid);
    }
  }

  try {
    await Promise.all(Array.from({ length: concurrency }, lane));
  } finally {
    clearInterval(sampler);
  }
  const elapsedMs = Date.now() - startedAt;
  const finalRssKb = rssKb(pid);
  return { sent, elapsedMs, warmRssKb, finalRssKb, peakRssKb: Math.max(peakRssKb, finalRssKb) };
}

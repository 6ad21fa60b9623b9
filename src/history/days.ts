/** Day arithmetic shared by the history features (age, timelock, activity). */

export const DAY_MS = 86_400_000;

/** The instant (ms) `days` before `nowMs`. */
export function daysBefore(nowMs: number, days: number): number {
  return nowMs - days * DAY_MS;
}

/**
 * Whole days and hundredths between an instant and now, rounded down: results report a duration
 * that has certainly elapsed (12.999 days is reported as 12.99, never 13).
 */
export function daysSince(nowMs: number, sinceMs: number): number {
  const elapsed = Math.max(0, nowMs - sinceMs);
  return Math.floor((elapsed / DAY_MS) * 100) / 100;
}

/** A block time (unix seconds) as ms. */
export const blockTimeMs = (blockTime: number): number => blockTime * 1000;

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * Memory over 1,000,000 signed logins (issue 16): the gate's RSS after a warm-up of one chunk of
 * logins (50,000: the heap grows to its working size under sustained load, ~60 MB over a
 * 1,000-login warm-up), then after every chunk of logins of the 1,000 warm wallets, each with its own nonce (so the consumed-nonce
 * store holds every one of them for NONCE_TTL_SECONDS, the default 300 s: most of the run). Logins
 * are prepared a chunk at a time (nonces from the gate, signed on every core) so that the load
 * generator never holds a million signed requests. Part of `npm run bench -- --memory`.
 */
import { sampleProcess } from './processes.js';
import { type BenchContext, loginScenario, prepareLogins } from './scenarios.js';

export interface LoginMemoryResult {
  logins: number;
  non2xx: number;
  /** Seconds of timed login load (preparing the chunks not counted). */
  durationSec: number;
  rssBeforeMb: number;
  rssAfterMb: number;
  /** After 3 s idle. */
  rssSettledMb: number;
  growthMb: number;
  trace: { logins: number; rssMb: number }[];
}

const CONNECTIONS = 64;

export async function loginMemoryRun(ctx: BenchContext, count = 1_000_000, chunk = 50_000, log: (message: string) => void = () => {}): Promise<LoginMemoryResult> {
  const warmUp = await loginChunk(ctx, chunk);
  if (warmUp.ok === 0) throw new Error('memory run: no login of the warm-up succeeded');
  const rssBeforeMb = sampleProcess(ctx.gate.pid).rssMb;
  const trace = [{ logins: 0, rssMb: rssBeforeMb }];
  let logins = 0;
  let non2xx = 0;
  let durationSec = 0;
  while (logins < count) {
    const { ok, load } = await loginChunk(ctx, Math.min(chunk, count - logins));
    logins += ok;
    non2xx += load.responses - ok;
    durationSec += load.durationSec;
    const rssMb = sampleProcess(ctx.gate.pid).rssMb;
    trace.push({ logins, rssMb });
    log(`memory: ${logins.toLocaleString('en-US')} logins, RSS ${rssMb.toFixed(1)} MB (${load.rps.toFixed(0)}/s)`);
    if (load.responses === 0) throw new Error('memory run: the gate answered nothing');
  }
  const rssAfterMb = sampleProcess(ctx.gate.pid).rssMb;
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const rssSettledMb = sampleProcess(ctx.gate.pid).rssMb;
  return { logins, non2xx, durationSec, rssBeforeMb, rssAfterMb, rssSettledMb, growthMb: rssAfterMb - rssBeforeMb, trace };
}

/** `amount` signed logins, prepared (nonces from the gate, signed on every core), then sent (loginScenario). */
async function loginChunk(ctx: BenchContext, amount: number) {
  const prepared = await prepareLogins(ctx, amount + 2 * CONNECTIONS);
  const result = await loginScenario(ctx, { connections: CONNECTIONS, durationSec: 600, workerThreads: 'default' }, prepared, 'memory');
  return { ok: result.authentications, load: result.load };
}

/** The section of RESULTS.md. */
export function renderLoginMemory(result: LoginMemoryResult, targetMb = 64): string {
  const met = result.growthMb <= targetMb ? 'met' : '**not met**';
  return [
    '## Memory over 1,000,000 signed logins',
    '',
    `${result.logins.toLocaleString('en-US')} signed logins of the 1,000 warm wallets (each with its own nonce, held by the consumed-nonce store for NONCE_TTL_SECONDS = 300 s), 64 connections, after a warm-up of 50,000 logins; ${(result.logins / result.durationSec).toFixed(0)} logins/s over ${result.durationSec.toFixed(0)} s of load, ${result.non2xx} non-2xx.`,
    '',
    '| target | measured | |',
    '| --- | --- | --- |',
    `| gate RSS after 1,000,000 logins ≤ warm-up + ${targetMb} MB | ${result.rssBeforeMb.toFixed(1)} → ${result.rssAfterMb.toFixed(1)} MB (+${result.growthMb.toFixed(1)} MB; ${result.rssSettledMb.toFixed(1)} MB after 3 s idle) | ${met} |`,
    '',
    `RSS every 50,000 logins (MB): ${result.trace.map((point) => point.rssMb.toFixed(0)).join(', ')}.`,
    '',
  ].join('\n');
}

import type autocannon from 'autocannon';
import { runLoad, type LoadResult } from './load.js';
import { type Child, type LocalnetChild, sampleProcess } from './processes.js';
import type { BenchContext } from './scenarios.js';
import { AUTH_PATH, signedLoginHeaders } from './wallets.js';

/**
 * The soak (`npm run bench -- --soak`, not part of `npm test`): mixed traffic — every connection
 * loops nonce → signed login → re-authentication with the token it just got — first as fast as the
 * gate answers (a short probe: the capacity), then at SOAK_LOAD of that rate for the soak's length,
 * sampling the gate every SAMPLE_SEC: RSS from /proc, event-loop lag from its own /metrics
 * (prom-client's monitorEventLoopDelay window, reset at each scrape), CPU, throughput and errors.
 *
 * The verdict: after the warm-up (WARM_UP_SEC, or half of a shorter soak) every RSS sample stays
 * within ±RSS_BAND_MB of the first sample after it.
 *
 * The gate runs with NONCE_TTL_SECONDS=SOAK_NONCE_TTL_SECONDS. The consumed-nonce store keeps every
 * spent nonce until it would have expired, so it grows for one TTL and then holds rate × TTL
 * entries; with the default 300 s that growth (tens of MB at a few thousand logins/s) would
 * take half of a 10-minute soak and hide what the soak is for — memory that keeps growing.
 */
export const SOAK_LOAD = 0.7;
export const SAMPLE_SEC = 10;
export const RSS_BAND_MB = 30;
export const WARM_UP_SEC = 120;
export const SOAK_NONCE_TTL_SECONDS = 60;
const CONNECTIONS = 64;

export interface SoakSample {
  /** Seconds since the soak started (end of the window). */
  atSec: number;
  rssMb: number;
  /** Event-loop delay over the window (ms). */
  lagP50Ms: number;
  lagP99Ms: number;
  lagMaxMs: number;
  /** Gate CPU over the window, in % of one core. */
  gateCpuPercent: number;
  /** Responses per second over the window. */
  rps: number;
  non2xx: number;
}

export interface SoakResult {
  startedAt: Date;
  finishedAt: Date;
  command: string;
  durationSec: number;
  warmUpSec: number;
  probeSec: number;
  connections: number;
  wallets: number;
  /** Mixed requests per second the gate answered unthrottled (the probe). */
  capacityRps: number;
  targetRps: number;
  probe: LoadResult;
  load: LoadResult;
  logins: number;
  samples: SoakSample[];
  /** RSS of the first sample after the warm-up, and the extremes after it. */
  baselineRssMb: number;
  minRssMb: number;
  maxRssMb: number;
  /** Least-squares slope of RSS after the warm-up, MB per minute. */
  rssTrendMbPerMin: number;
  flat: boolean;
}

/** One mixed loop per connection: nonce, signed login (signed here, wallets in rotation), re-authentication. */
function mixedRequests(ctx: BenchContext, onStatus: (status: number, login: boolean) => void): autocannon.Request[] {
  let nextWallet = 0;
  interface Loop {
    nonce?: string;
    token?: string;
  }
  return [
    {
      method: 'GET',
      path: AUTH_PATH,
      setupRequest: (request, context) => {
        const loop = context as Loop;
        loop.nonce = undefined;
        loop.token = undefined;
        return { ...request, headers: {} };
      },
      onResponse: (status, body, context) => {
        onStatus(status, false);
        if (status === 200) (context as Loop).nonce = (JSON.parse(body) as { nonce: string }).nonce;
      },
    },
    {
      method: 'GET',
      path: AUTH_PATH,
      setupRequest: (request, context) => {
        const { nonce } = context as Loop;
        if (nonce === undefined) return { ...request, headers: {} };
        const wallet = ctx.wallets[nextWallet++ % ctx.wallets.length]!;
        return { ...request, headers: signedLoginHeaders(wallet, nonce, ctx.policy) };
      },
      onResponse: (status, body, context) => {
        onStatus(status, true);
        if (status === 200) (context as Loop).token = (JSON.parse(body) as { token?: string }).token;
      },
    },
    {
      method: 'GET',
      path: AUTH_PATH,
      setupRequest: (request, context) => {
        const { token } = context as Loop;
        return { ...request, headers: token === undefined ? {} : { 'x-jwt': token, ...ctx.policy } };
      },
      onResponse: (status) => onStatus(status, false),
    },
  ];
}

/**
 * prom-client samples the loop with a timer of this period (its default, which the gate keeps);
 * each sample is the time between two ticks, so an idle loop reads this much.
 */
export const LAG_SAMPLING_MS = 10;

/** The gate's event-loop delay over the last window, from its /metrics, beyond the sampling period (ms). */
async function eventLoopLag(gate: Child): Promise<{ p50: number; p99: number; max: number }> {
  const text = await (await fetch(`${gate.url}/metrics`)).text();
  const delayMs = (name: string): number => {
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    const seconds = line === undefined ? NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
    return Math.max(0, seconds * 1000 - LAG_SAMPLING_MS);
  };
  return {
    p50: delayMs('x404_nodejs_eventloop_lag_p50_seconds'),
    p99: delayMs('x404_nodejs_eventloop_lag_p99_seconds'),
    max: delayMs('x404_nodejs_eventloop_lag_max_seconds'),
  };
}

export async function soak(
  ctx: BenchContext & { localnet: LocalnetChild },
  options: { durationSec: number; probeSec: number; command: string; log: (message: string) => void },
): Promise<SoakResult> {
  const { gate } = ctx;
  const url = gate.url + AUTH_PATH;
  const { log } = options;

  log(`soak: probing capacity with the mixed loop, ${CONNECTIONS} connections, ${options.probeSec} s`);
  const probe = await runLoad({ url, connections: CONNECTIONS, durationSec: options.probeSec, requests: mixedRequests(ctx, () => {}) });
  const capacityRps = probe.rps;
  const targetRps = Math.max(1, Math.round(capacityRps * SOAK_LOAD));
  log(`soak: capacity ${capacityRps.toFixed(0)} req/s (${probe.non2xx} non-2xx); soaking at ${targetRps} req/s for ${options.durationSec} s`);

  const warmUpSec = Math.min(WARM_UP_SEC, options.durationSec / 2);
  const samples: SoakSample[] = [];
  let windowResponses = 0;
  let windowNon2xx = 0;
  let logins = 0;
  const startedAt = new Date();
  const started = performance.now();
  let windowStarted = started;
  let cpuBefore = sampleProcess(gate.pid).cpuMs;
  await eventLoopLag(gate); // starts a fresh lag window

  const sample = async (): Promise<void> => {
    const at = performance.now();
    const gateNow = sampleProcess(gate.pid);
    const lag = await eventLoopLag(gate);
    const windowSec = (at - windowStarted) / 1000;
    samples.push({
      atSec: Math.round((at - started) / 1000),
      rssMb: gateNow.rssMb,
      lagP50Ms: lag.p50,
      lagP99Ms: lag.p99,
      lagMaxMs: lag.max,
      gateCpuPercent: ((gateNow.cpuMs - cpuBefore) / (at - windowStarted)) * 100,
      rps: windowResponses / windowSec,
      non2xx: windowNon2xx,
    });
    const last = samples.at(-1)!;
    log(
      `soak ${String(last.atSec).padStart(4)} s: RSS ${last.rssMb.toFixed(1)} MB, lag p99 ${last.lagP99Ms.toFixed(1)} ms (max ${last.lagMaxMs.toFixed(1)}), ` +
        `${last.rps.toFixed(0)} req/s, ${last.non2xx} non-2xx, gate CPU ${last.gateCpuPercent.toFixed(0)} %`,
    );
    windowStarted = at;
    cpuBefore = gateNow.cpuMs;
    windowResponses = 0;
    windowNon2xx = 0;
  };
  let sampling = Promise.resolve();
  const timer = setInterval(() => {
    sampling = sampling.then(sample, sample);
  }, SAMPLE_SEC * 1000);
  let load: LoadResult;
  try {
    load = await runLoad({
      url,
      connections: CONNECTIONS,
      durationSec: options.durationSec,
      overallRate: targetRps,
      requests: mixedRequests(ctx, (status, login) => {
        windowResponses++;
        if (status < 200 || status > 299) windowNon2xx++;
        else if (login) logins++;
      }),
    });
  } finally {
    clearInterval(timer);
  }
  await sampling;

  const afterWarmUp = samples.filter((s) => s.atSec > warmUpSec);
  const baselineRssMb = afterWarmUp[0]?.rssMb ?? NaN;
  const rss = afterWarmUp.map((s) => s.rssMb);
  const minRssMb = Math.min(...rss);
  const maxRssMb = Math.max(...rss);
  const rssTrendMbPerMin = slope(afterWarmUp.map((s) => [s.atSec / 60, s.rssMb]));
  return {
    startedAt,
    finishedAt: new Date(),
    command: options.command,
    durationSec: options.durationSec,
    warmUpSec,
    probeSec: options.probeSec,
    connections: CONNECTIONS,
    wallets: ctx.wallets.length,
    capacityRps,
    targetRps,
    probe,
    load,
    logins,
    samples,
    baselineRssMb,
    minRssMb,
    maxRssMb,
    rssTrendMbPerMin,
    flat: afterWarmUp.length > 0 && maxRssMb - baselineRssMb <= RSS_BAND_MB && baselineRssMb - minRssMb <= RSS_BAND_MB,
  };
}

/** Least-squares slope of y over x; NaN with fewer than two points. */
function slope(points: [number, number][]): number {
  if (points.length < 2) return NaN;
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / points.length;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / points.length;
  const covariance = points.reduce((sum, [x, y]) => sum + (x - meanX) * (y - meanY), 0);
  const variance = points.reduce((sum, [x]) => sum + (x - meanX) ** 2, 0);
  return covariance / variance;
}

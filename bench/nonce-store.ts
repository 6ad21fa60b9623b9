/**
 * The in-process consumed-nonce store (src/nonce/memory-store.ts) under a sustained launch, in
 * simulated time: `rate` logins a second for one nonce lifetime (the store fills to rate × TTL
 * entries), then one more minute in steady state (each sweep forgets ten seconds' worth). Prints
 * the heap the entries hold, the longest sweep — it runs on the event loop, so its pause lands in the
 * p99 of every request waiting behind it — and the mean cost of consume() (with its share of GC).
 *
 *   npm run build && node --expose-gc dist/bench/nonce-store.js [rate] [ttlSeconds]   (default 4000 300)
 */
import { randomBytes } from 'node:crypto';
import { MemoryNonceStore } from '../src/nonce/memory-store.js';

const rate = Number(process.argv[2] ?? 4000);
const ttlMs = Number(process.argv[3] ?? 300) * 1000;
const SWEEP_MS = 10_000;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

let now = 1_000_000;
const store = new MemoryNonceStore(SWEEP_MS, () => now);
let worstSweepMs = 0;
let consumeMs = 0;
let consumed = 0;

/** `seconds` of simulated logins; a sweep every SWEEP_MS of simulated time, as the store's timer would. */
async function run(seconds: number): Promise<void> {
  for (let second = 0; second < seconds; second++) {
    now += 1000;
    const ids = Array.from({ length: rate }, () => randomBytes(16).toString('base64url'));
    const started = performance.now();
    for (const id of ids) await store.consume({ id, issuedAtMs: now, expiresAtMs: now + ttlMs, epoch: '', legacy: false });
    consumeMs += performance.now() - started;
    consumed += rate;
    if (now % SWEEP_MS < 1000) {
      const started = performance.now();
      store.sweep();
      worstSweepMs = Math.max(worstSweepMs, performance.now() - started);
    }
  }
}

gc();
const heapBefore = process.memoryUsage().heapUsed;
await run(ttlMs / 1000);
gc();
const heapFull = process.memoryUsage().heapUsed - heapBefore;
const entries = store.size;
const fillingSweepMs = worstSweepMs;
worstSweepMs = 0;
await run(60);
console.log(`${rate} logins/s, NONCE_TTL_SECONDS=${ttlMs / 1000}: ${entries.toLocaleString('en-US')} consumed nonces held`);
console.log(`  heap: ${(heapFull / 1e6).toFixed(1)} MB (${(heapFull / entries).toFixed(0)} bytes an entry)`);
console.log(`  longest sweep while filling: ${fillingSweepMs.toFixed(2)} ms; in steady state: ${worstSweepMs.toFixed(2)} ms`);
console.log(`  consume(): ${((consumeMs * 1000) / consumed).toFixed(2)} µs each on average, GC included`);
await store.close();

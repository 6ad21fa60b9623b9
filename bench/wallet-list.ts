/**
 * A wallet list of `count` random addresses (src/rules/wallet-list.ts): how long loading it takes
 * (start-up, and a SIGHUP while the gate serves), what it keeps in memory per address once loaded
 * (after GC: the load's temporaries are gone), and what one `has` costs for listed and unlisted
 * keys. Appends a dated section to bench/WALLET-LIST.md.
 *
 *   npm run build && node --expose-gc dist/bench/wallet-list.js [count]   (default 1000000)
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeAddress } from '../src/chain/address.js';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { readListsOffThread } from '../src/rules/read-lists.js';
import { loadWalletList, type WalletList } from '../src/rules/wallet-list.js';

const count = Number(process.argv[2] ?? 1_000_000);
const LOADS = 3;
const LOOKUPS = 1_000_000;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const directory = mkdtempSync(join(os.tmpdir(), 'x404-wallet-list-bench-'));
const path = join(directory, 'wallets.txt');
const keys = randomBytes(count * 32);
const fileBytes = writeList();

/** The list file; in a function so that none of its strings outlives it (GC would count them). */
function writeList(): number {
  const lines = Array.from({ length: count }, (_, i) => encodeAddress(keys.subarray(i * 32, i * 32 + 32)));
  writeFileSync(path, lines.join('\n') + '\n');
  return statSync(path).size;
}

interface Memory {
  heap: number;
  external: number;
  rss: number;
}
function memory(): Memory {
  gc!();
  gc!();
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed, external: usage.external, rss: usage.rss };
}

let list: WalletList | undefined;
/** Loads the list in place of the last one (as SIGHUP does); wall and CPU ms, as the machine is shared. */
function timedLoad(): { wallMs: number; cpuMs: number } {
  const cpu = process.cpuUsage();
  const started = performance.now();
  list = loadWalletList(path);
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

// The first load also gives the memory figure: all it keeps is the list.
const before = memory();
const loads = [timedLoad()];
const after = memory();
for (let i = 1; i < LOADS; i++) loads.push(timedLoad());
if (list?.size !== count) throw new Error(`loaded ${list?.size} addresses, wrote ${count}`);

/** The longest the event loop stood still while `load` ran (what logins being served would wait). */
async function longestStallMs(load: () => unknown): Promise<number> {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const ticker = setInterval(() => {}, 5);
  await new Promise((resolve) => setTimeout(resolve, 20));
  await load();
  await new Promise((resolve) => setTimeout(resolve, 20));
  clearInterval(ticker);
  delay.disable();
  return delay.max / 1e6;
}
const policiesFile = join(directory, 'policies.json');
writeFileSync(policiesFile, JSON.stringify({ rules: { launch: { wallets: 'wallets.txt' } } }));
const stallOnLoop = await longestStallMs(() => loadWalletList(path));
const stallInWorker = await longestStallMs(async () => {
  if ((await readListsOffThread(policiesFile)).get(path)?.size !== count) throw new Error('the worker did not read the list');
});

/** For comparison: what the obvious Set of the address strings holds. */
function setBytes(): number {
  const before = memory();
  const set = new Set(Array.from({ length: count }, (_, i) => encodeAddress(keys.subarray(i * 32, i * 32 + 32))));
  const after = memory();
  if (set.size !== count) throw new Error('the set lost addresses');
  return after.heap + after.external - before.heap - before.external;
}
const setPer = setBytes() / count;
rmSync(directory, { recursive: true, force: true });

/** Mean ns per `has` over LOOKUPS queries drawn from `queries` (32-byte records), checking every answer. */
function lookupNs(queries: Uint8Array, expected: boolean): number {
  const views = Array.from({ length: queries.length / 32 }, (_, i) => queries.subarray(i * 32, i * 32 + 32));
  let found = 0;
  for (let i = 0; i < 100_000; i++) found += list!.has(views[i % views.length]!) ? 1 : 0; // warm-up
  found = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < LOOKUPS; i++) found += list!.has(views[i % views.length]!) ? 1 : 0;
  const ns = Number(process.hrtime.bigint() - started) / LOOKUPS;
  if (found !== (expected ? LOOKUPS : 0)) throw new Error(`has() answered ${found} of ${LOOKUPS} ${expected ? 'hits' : 'misses'}`);
  return ns;
}
const hitNs = lookupNs(keys.subarray(0, 100_000 * 32), true);
// Random 32-byte keys are unlisted with overwhelming probability; half of them share a listed key's first 31 bytes.
const misses = randomBytes(100_000 * 32);
for (let i = 0; i < 50_000; i++) {
  keys.copy(misses, i * 32, i * 32, i * 32 + 31);
  misses[i * 32 + 31] = keys[i * 32 + 31]! ^ 1;
}
const missNs = lookupNs(misses, false);

const heapPer = (after.heap - before.heap) / count;
const externalPer = (after.external - before.external) / count;
const rssPer = (after.rss - before.rss) / count;
const loadText = loads.map((load) => `${load.wallMs.toFixed(0)} ms (CPU ${load.cpuMs.toFixed(0)} ms)`).join(', ');

let cpuModel = os.cpus()[0]?.model ?? 'unknown';
try {
  cpuModel = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpuModel;
} catch {
  // not Linux: keep os.cpus()'s answer
}
const section = [
  `## ${new Date().toISOString()}`,
  '',
  `${cpuModel}, ${os.availableParallelism()} cores, Node ${process.version}, load average ${os.loadavg().map((load) => load.toFixed(2)).join(' / ')} (machine shared).`,
  `${count.toLocaleString('en-US')} random addresses, ${(fileBytes / 1e6).toFixed(1)} MB file.`,
  '',
  '| measure | value |',
  '| --- | --- |',
  `| load (read, decode, sort, digest), ${LOADS} runs, wall (CPU) | ${loadText} |`,
  `| longest event-loop stall while a SIGHUP reads it: on the event loop / in a worker (what the gate does) | ${stallOnLoop.toFixed(0)} ms / ${stallInWorker.toFixed(0)} ms |`,
  `| kept after load, per address: heap + external | ${(heapPer + externalPer).toFixed(1)} bytes (heap ${heapPer.toFixed(1)}, external ${externalPer.toFixed(1)}) |`,
  `| RSS growth after load, per address | ${rssPer.toFixed(1)} bytes |`,
  `| for comparison, a Set of the address strings, per address | ${setPer.toFixed(1)} bytes |`,
  `| \`has\`, listed key | ${hitNs.toFixed(0)} ns |`,
  `| \`has\`, unlisted key (half share 31 bytes with a listed one) | ${missNs.toFixed(0)} ns |`,
  '',
].join('\n');
const out = fileURLToPath(new URL('../../bench/WALLET-LIST.md', import.meta.url));
if (!existsSync(out)) writeFileSync(out, '# Wallet list: load time, memory, lookups\n\nProduced by `node --expose-gc dist/bench/wallet-list.js` (bench/wallet-list.ts); one section a run.\n\n');
appendFileSync(out, section + '\n');
console.log(section);

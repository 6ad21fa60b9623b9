/**
 * Memory run: the gate's RSS before and after 1,000,000 nonce issuances. Issuing a nonce stores
 * nothing (it is self-describing and authenticated), so RSS should plateau once the heap has grown
 * to its working size. Bounded in time: stops at `timeBoundSec` even if fewer were issued.
 *
 *   npm run bench -- --memory          (as part of the full run, into RESULTS.md)
 *   node dist/bench/memory.js          (alone: starts its own local chain and gate)
 */
import { fileURLToPath } from 'node:url';
import { runLoad } from './load.js';
import { type Child, sampleProcess, startGateProcess, startLocalnetProcess } from './processes.js';
import { AUTH_PATH } from './wallets.js';

export interface MemoryResult {
  issued: number;
  durationSec: number;
  rps: number;
  non2xx: number;
  /** After a 20,000-request warm-up. */
  rssBeforeMb: number;
  rssAfterMb: number;
  /** After 3 s idle (what a GC between bursts gives back). */
  rssSettledMb: number;
  growthMb: number;
  /** RSS every 100,000 issuances. */
  trace: { issued: number; rssMb: number }[];
}

export async function memoryRun(gate: Child, count = 1_000_000, timeBoundSec = 120): Promise<MemoryResult> {
  const url = gate.url + AUTH_PATH;
  await runLoad({ url, connections: 64, durationSec: 30, amount: 20_000 });
  const rssBeforeMb = sampleProcess(gate.pid).rssMb;
  const trace: { issued: number; rssMb: number }[] = [{ issued: 0, rssMb: rssBeforeMb }];
  const chunk = 100_000;
  const startedAt = Date.now();
  let issued = 0;
  let non2xx = 0;
  let elapsedSec = 0;
  while (issued < count) {
    const remainingSec = timeBoundSec - (Date.now() - startedAt) / 1000;
    if (remainingSec <= 0) break;
    const load = await runLoad({ url, connections: 64, durationSec: remainingSec, amount: Math.min(chunk, count - issued) });
    issued += load.responses;
    non2xx += load.non2xx;
    elapsedSec += load.durationSec;
    trace.push({ issued, rssMb: sampleProcess(gate.pid).rssMb });
  }
  const rssAfterMb = sampleProcess(gate.pid).rssMb;
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const rssSettledMb = sampleProcess(gate.pid).rssMb;
  return { issued, durationSec: elapsedSec, rps: issued / elapsedSec, non2xx, rssBeforeMb, rssAfterMb, rssSettledMb, growthMb: rssAfterMb - rssBeforeMb, trace };
}

async function main(): Promise<void> {
  const localnet = await startLocalnetProcess();
  const gate = await startGateProcess({ rpcUrl: localnet.url, jwtSecret: 'x404-bench-memory-secret-0123456789abcdef' });
  try {
    const result = await memoryRun(gate);
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await gate.stop();
    await localnet.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();

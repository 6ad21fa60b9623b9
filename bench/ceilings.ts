import { createPublicKey, sign, verify } from 'node:crypto';
import os from 'node:os';
import { challengeText, type BenchWallet } from './wallets.js';

/**
 * What the machine allows, measured in the same run: node:crypto ed25519 verifications per second
 * on one core (the work each login cannot avoid), times the cores.
 */
export interface VerifyCeiling {
  /** verify() with the public key already imported as a KeyObject. */
  perCorePerSecond: number;
  /**
   * The same rate measured again during the run (bench/run.ts: before each pool-check round), so
   * the floor follows the machine when its speed drifts; the floor uses the median of all of them.
   */
  laterPerCorePerSecond?: number[];
  /** createPublicKey(raw key) + verify(): a wallet seen for the first time. */
  perCoreWithImportPerSecond: number;
  cores: number;
  /** perCorePerSecond × cores. */
  ceilingPerSecond: number;
}

const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export function measureVerifyCeiling(wallets: BenchWallet[], durationMs: number): VerifyCeiling {
  const samples = wallets.slice(0, 256).map((wallet, i) => {
    const message = Buffer.from(challengeText(`bench-ceiling-${i}`.padEnd(51, 'x')), 'utf8');
    const publicKey = createPublicKey(wallet.privateKey);
    const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
    return { message, publicKey, raw, signature: sign(null, message, wallet.privateKey) };
  });
  const rate = (work: (i: number) => boolean): number => {
    for (let i = 0; i < 500; i++) work(i % samples.length); // warm-up
    let count = 0;
    const start = process.hrtime.bigint();
    const stopAt = start + BigInt(durationMs) * 1_000_000n;
    let now = start;
    while (now < stopAt) {
      for (let k = 0; k < 100; k++, count++) if (!work(count % samples.length)) throw new Error('ceiling: a valid signature failed');
      now = process.hrtime.bigint();
    }
    return count / (Number(now - start) / 1e9);
  };
  const perCorePerSecond = rate((i) => {
    const s = samples[i]!;
    return verify(null, s.message, s.publicKey, s.signature);
  });
  const perCoreWithImportPerSecond = rate((i) => {
    const s = samples[i]!;
    const key = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, s.raw]), format: 'der', type: 'spki' });
    return verify(null, s.message, key, s.signature);
  });
  const cores = os.availableParallelism();
  return { perCorePerSecond, perCoreWithImportPerSecond, cores, ceilingPerSecond: perCorePerSecond * cores };
}

/**
 * One verify's CPU time on this thread, in µs (process CPU time, not wall time: on a machine shared
 * with other jobs the wall clock counts the time they took the core). Median of 5 rounds.
 */
export function verifyCpuMicros(wallets: BenchWallet[], count = 2000): number {
  const samples = wallets.slice(0, 64).map((wallet, i) => {
    const message = Buffer.from(challengeText(`bench-floor-${i}`.padEnd(51, 'x')), 'utf8');
    return { message, publicKey: createPublicKey(wallet.privateKey), signature: sign(null, message, wallet.privateKey) };
  });
  return cpuMicrosPer(count, (i) => {
    const s = samples[i % samples.length]!;
    if (!verify(null, s.message, s.publicKey, s.signature)) throw new Error('floor: a valid signature failed');
  });
}

/** µs of this process's CPU time per call of `run`, median of 5 rounds (after a warm-up round). */
export function cpuMicrosPer(count: number, run: (i: number) => void): number {
  const rounds: number[] = [];
  for (let round = 0; round < 6; round++) {
    const before = process.cpuUsage();
    for (let i = 0; i < count; i++) run(i);
    const used = process.cpuUsage(before);
    if (round > 0) rounds.push((used.user + used.system) / count);
  }
  return rounds.sort((a, b) => a - b)[2]!;
}

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

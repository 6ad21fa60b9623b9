import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { AtaSeed } from '../chain/ata.js';
import { runVerifyTask, type VerifyTask, type VerifyTaskResult } from './verify-task.js';

/**
 * Verifies signatures either inline or in a Piscina pool. Concurrent requests are gathered and
 * sent as one task per worker (see PooledVerifier), so the cost of crossing threads (structured
 * clone, wake-up) is paid once per batch instead of once per login.
 */
export interface SignatureVerifier {
  /**
   * `message`: a challenge string (signed as UTF-8) or the bytes of a sign mode's message. `ataSeeds`:
   * associated token accounts to derive in the same task when the signature is valid (see
   * verify-task.ts); their base58 addresses come back in `atas`, in order.
   */
  verify(publicKey: Uint8Array, message: string | Uint8Array, signature: Uint8Array, ataSeeds?: readonly AtaSeed[]): Promise<Verified>;
  /** Tasks waiting for a worker (metrics). */
  queueDepth(): number;
  /** The pool's threads as they are now (a test seam: see RunningGate.verifyWorkers); absent when inline. */
  workers?(): readonly Worker[];
  close(): Promise<void>;
}

export interface Verified {
  valid: boolean;
  /** The derived ATAs (empty when the signature is invalid or none were asked for). */
  atas: readonly string[];
}

const NO_SEEDS: readonly AtaSeed[] = [];
const NO_ATAS: readonly string[] = [];

/**
 * `inlineUpTo`: with the pool, a batch of at most this many signatures that finds a worker idle is
 * verified on the event loop instead (0, the default here: never). A pool task costs ~50 µs of CPU
 * beyond its verifies (a thread woken and put back to sleep, the clone, Piscina's bookkeeping):
 * more than a verify saves the event loop when a batch holds one or two, as when co-signs or
 * logins arrive a few at a time. Under load batches grow past it and go to the pool.
 */
export function createSignatureVerifier(options: { threads: number; maxBatch: number; inlineUpTo?: number; workerFile?: string }): SignatureVerifier {
  if (options.threads === 0) return inlineVerifier();
  return new PooledVerifier(options.threads, options.maxBatch, options.inlineUpTo ?? 0, options.workerFile ?? workerFilename());
}

function inlineVerifier(): SignatureVerifier {
  return {
    async verify(publicKey, message, signature, ataSeeds = NO_SEEDS) {
      const result = runVerifyTask({ publicKeys: publicKey, signatures: signature, messages: [message], ataSeeds: ataSeeds.length > 0 ? [ataSeeds] : undefined });
      return { valid: result.valid[0] === 1, atas: result.atas?.[0] ?? NO_ATAS };
    },
    queueDepth: () => 0,
    async close() {},
  };
}

interface Pending {
  publicKey: Uint8Array;
  message: string | Uint8Array;
  signature: Uint8Array;
  ataSeeds: readonly AtaSeed[];
  resolve(verified: Verified): void;
  reject(error: unknown): void;
}

export function workerFilename(): string {
  // From dist/src/signature/ the compiled worker is dist/workers/verify.js. Under vitest the
  // source runs as .ts, so point at the build (npm test builds first).
  const here = import.meta.url;
  const relative = here.endsWith('.ts') ? '../../dist/workers/verify.js' : '../../workers/verify.js';
  return fileURLToPath(new URL(relative, here));
}

/**
 * At most one task per worker is in flight. Requests that arrive while every worker is busy wait
 * here and leave together, in one task, as soon as a worker is free: under load batches grow to
 * what a worker can verify in the meantime (fewer thread crossings and wake-ups, and results that
 * come back together, so the chain reads that follow merge into fewer RPC requests); when idle, a
 * request waits only for the end of the current event-loop turn.
 */
class PooledVerifier implements SignatureVerifier {
  private readonly pool: Piscina;
  private pending: Pending[] = [];
  private tasksInFlight = 0;
  private flushScheduled = false;
  private readonly scheduledFlush = (): void => {
    this.flushScheduled = false;
    this.dispatch();
  };

  constructor(
    private readonly threads: number,
    private readonly maxBatch: number,
    private readonly inlineUpTo: number,
    workerFile: string,
  ) {
    // A worker that dies is replaced by Piscina; the tasks it held reject, and their logins answer 500.
    this.pool = new Piscina({ filename: workerFile, minThreads: threads, maxThreads: threads, idleTimeout: 60_000 });
  }

  verify(publicKey: Uint8Array, message: string | Uint8Array, signature: Uint8Array, ataSeeds = NO_SEEDS): Promise<Verified> {
    return new Promise<Verified>((resolve, reject) => {
      this.pending.push({ publicKey, message, signature, ataSeeds, resolve, reject });
      if (this.tasksInFlight < this.threads && !this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(this.scheduledFlush);
      }
    });
  }

  queueDepth(): number {
    return this.pool.queueSize + this.pending.length;
  }

  workers(): readonly Worker[] {
    return this.pool.threads;
  }

  async close(): Promise<void> {
    while (this.pending.length > 0) this.runTask(this.pending.splice(0, this.maxBatch));
    await this.pool.close();
  }

  /** Shares what is waiting among the idle workers, at most maxBatch per task. */
  private dispatch(): void {
    const idle = this.threads - this.tasksInFlight;
    if (idle <= 0 || this.pending.length === 0) return;
    if (this.pending.length <= this.inlineUpTo) {
      this.runInline(this.pending.splice(0));
      return;
    }
    const perTask = Math.min(this.maxBatch, Math.ceil(this.pending.length / idle));
    while (this.tasksInFlight < this.threads && this.pending.length > 0) {
      this.runTask(this.pending.splice(0, perTask));
    }
  }

  /** A small batch on the event loop: cheaper than a pool task (see createSignatureVerifier). */
  private runInline(entries: Pending[]): void {
    for (const entry of entries) {
      // A task's entries are 32 and 64 bytes by position: anything else is not a valid signature.
      if (entry.publicKey.length !== 32 || entry.signature.length !== 64) {
        entry.resolve({ valid: false, atas: NO_ATAS });
        continue;
      }
      try {
        const result = runVerifyTask({ publicKeys: entry.publicKey, signatures: entry.signature, messages: [entry.message], ataSeeds: entry.ataSeeds.length > 0 ? [entry.ataSeeds] : undefined });
        entry.resolve({ valid: result.valid[0] === 1, atas: result.atas?.[0] ?? NO_ATAS });
      } catch (error) {
        entry.reject(error);
      }
    }
  }

  private runTask(entries: Pending[]): void {
    const batch: VerifyTask = {
      publicKeys: new Uint8Array(entries.length * 32),
      signatures: new Uint8Array(entries.length * 64),
      messages: new Array<string | Uint8Array>(entries.length),
    };
    let anySeeds = false;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      batch.publicKeys.set(entry.publicKey, i * 32);
      batch.signatures.set(entry.signature, i * 64);
      batch.messages[i] = ownBuffer(entry.message);
      if (entry.ataSeeds.length > 0) anySeeds = true;
    }
    // A known wallet's ATAs are cached: such a batch sends no per-entry seed lists at all.
    if (anySeeds) batch.ataSeeds = entries.map((entry) => entry.ataSeeds);
    this.tasksInFlight++;
    const settle = (): void => {
      this.tasksInFlight--;
      this.dispatch();
    };
    this.pool.run(batch, { transferList: [batch.publicKeys.buffer as ArrayBuffer, batch.signatures.buffer as ArrayBuffer] }).then(
      (results: VerifyTaskResult) => {
        settle();
        entries.forEach((entry, i) => entry.resolve({ valid: results.valid[i] === 1, atas: results.atas?.[i] ?? NO_ATAS }));
      },
      (error: unknown) => {
        settle();
        entries.forEach((entry) => entry.reject(error));
      },
    );
  }
}

/** Structured clone copies a view's whole ArrayBuffer (a pooled Buffer's is 8 KiB): send only the bytes. */
function ownBuffer(message: string | Uint8Array): string | Uint8Array {
  return typeof message === 'string' || message.byteLength === message.buffer.byteLength ? message : new Uint8Array(message); // a copy (Buffer#slice would be a view)
}

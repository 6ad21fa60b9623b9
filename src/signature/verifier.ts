import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { verifyEd25519, type VerifyBatch } from './ed25519.js';

/**
 * Verifies signatures either inline or in a Piscina pool. Concurrent requests are gathered and
 * sent as one task per worker (see PooledVerifier), so the cost of crossing threads (structured
 * clone, wake-up) is paid once per batch instead of once per login.
 */
export interface SignatureVerifier {
  verify(publicKey: Uint8Array, message: string, signature: Uint8Array): Promise<boolean>;
  /** Tasks waiting for a worker (metrics). */
  queueDepth(): number;
  /** The pool's threads as they are now (a test seam: see RunningGate.verifyWorkers); absent when inline. */
  workers?(): readonly Worker[];
  close(): Promise<void>;
}

export function createSignatureVerifier(options: { threads: number; maxBatch: number; workerFile?: string }): SignatureVerifier {
  if (options.threads === 0) return inlineVerifier();
  return new PooledVerifier(options.threads, options.maxBatch, options.workerFile ?? workerFilename());
}

function inlineVerifier(): SignatureVerifier {
  return {
    async verify(publicKey, message, signature) {
      return verifyEd25519(publicKey, message, signature);
    },
    queueDepth: () => 0,
    async close() {},
  };
}

interface Pending {
  publicKey: Uint8Array;
  message: string;
  signature: Uint8Array;
  resolve(valid: boolean): void;
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
    workerFile: string,
  ) {
    // A worker that dies is replaced by Piscina; the tasks it held reject, and their logins answer 500.
    this.pool = new Piscina({ filename: workerFile, minThreads: threads, maxThreads: threads, idleTimeout: 60_000 });
  }

  verify(publicKey: Uint8Array, message: string, signature: Uint8Array): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.pending.push({ publicKey, message, signature, resolve, reject });
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
    const perTask = Math.min(this.maxBatch, Math.ceil(this.pending.length / idle));
    while (this.tasksInFlight < this.threads && this.pending.length > 0) {
      this.runTask(this.pending.splice(0, perTask));
    }
  }

  private runTask(entries: Pending[]): void {
    const batch: VerifyBatch = {
      publicKeys: new Uint8Array(entries.length * 32),
      signatures: new Uint8Array(entries.length * 64),
      messages: new Array<string>(entries.length),
    };
    entries.forEach((entry, i) => {
      batch.publicKeys.set(entry.publicKey, i * 32);
      batch.signatures.set(entry.signature, i * 64);
      batch.messages[i] = entry.message;
    });
    this.tasksInFlight++;
    const settle = (): void => {
      this.tasksInFlight--;
      this.dispatch();
    };
    this.pool.run(batch, { transferList: [batch.publicKeys.buffer as ArrayBuffer, batch.signatures.buffer as ArrayBuffer] }).then(
      (results: Uint8Array) => {
        settle();
        entries.forEach((entry, i) => entry.resolve(results[i] === 1));
      },
      (error: unknown) => {
        settle();
        entries.forEach((entry) => entry.reject(error));
      },
    );
  }
}

import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { verifyEd25519, type VerifyBatch } from './ed25519.js';

/**
 * Verifies signatures either inline or in a Piscina pool. Concurrent requests are gathered for
 * one turn of the event loop and sent as one task per worker, so the cost of crossing threads
 * (structured clone, wake-up) is paid once per batch instead of once per login.
 */
export interface SignatureVerifier {
  verify(publicKey: Uint8Array, message: string, signature: Uint8Array): Promise<boolean>;
  /** Tasks waiting for a worker (metrics). */
  queueDepth(): number;
  close(): Promise<void>;
}

export function createSignatureVerifier(options: { threads: number; maxBatch: number }): SignatureVerifier {
  if (options.threads === 0) return inlineVerifier();
  return new PooledVerifier(options.threads, options.maxBatch);
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

class PooledVerifier implements SignatureVerifier {
  private readonly pool: Piscina;
  private pending: Pending[] = [];
  private flushScheduled = false;

  constructor(
    private readonly threads: number,
    private readonly maxBatch: number,
  ) {
    this.pool = new Piscina({ filename: workerFilename(), minThreads: threads, maxThreads: threads, idleTimeout: 60_000 });
  }

  verify(publicKey: Uint8Array, message: string, signature: Uint8Array): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.pending.push({ publicKey, message, signature, resolve, reject });
      if (this.pending.length >= this.maxBatch * this.threads) {
        this.flush();
      } else if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  queueDepth(): number {
    return this.pool.queueSize + this.pending.length;
  }

  async close(): Promise<void> {
    this.flush();
    await this.pool.close();
  }

  private flush(): void {
    this.flushScheduled = false;
    const all = this.pending;
    if (all.length === 0) return;
    this.pending = [];
    // Spread the batch over the workers so they all work on it at once.
    const perTask = Math.min(this.maxBatch, Math.ceil(all.length / this.threads));
    for (let start = 0; start < all.length; start += perTask) {
      this.runTask(all.slice(start, start + perTask));
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
    this.pool.run(batch).then(
      (results: Uint8Array) => entries.forEach((entry, i) => entry.resolve(results[i] === 1)),
      (error: unknown) => entries.forEach((entry) => entry.reject(error)),
    );
  }
}

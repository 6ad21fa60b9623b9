import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { SignReply, SignRequest } from './sign-worker.js';
import { FEATURE, type BenchSignMode } from './wallets.js';

/**
 * Signs login challenges on every core (bench/sign-worker.ts): ~90 µs per signature here, and a
 * 10-second login run needs ~50,000 of them, prepared before the timed phase.
 */
export interface SignedLogin {
  address: string;
  nonce: string;
  signature: string;
  /** X-404-Message (base64) of the sign modes that send one. */
  message?: string;
}

const CHUNK = 2000;

export async function signLogins(items: { seed: Uint8Array; nonce: string }[], mode: BenchSignMode = 'challenge', target = FEATURE): Promise<SignedLogin[]> {
  const threads = Math.max(1, Math.min(os.availableParallelism(), Math.ceil(items.length / CHUNK)));
  const workers = Array.from({ length: threads }, () => new Worker(new URL('./sign-worker.js', import.meta.url)));
  const out: SignedLogin[] = new Array(items.length);
  let next = 0;
  try {
    await Promise.all(
      workers.map(async (worker) => {
        while (next < items.length) {
          const start = next;
          next += CHUNK;
          const slice = items.slice(start, start + CHUNK);
          const reply = await new Promise<SignReply>((resolve, reject) => {
            worker.once('message', resolve);
            worker.once('error', reject);
            worker.postMessage({ id: start, seeds: slice.map((item) => item.seed), nonces: slice.map((item) => item.nonce), mode, target } satisfies SignRequest);
          });
          worker.removeAllListeners('error');
          slice.forEach((item, i) => {
            const message = reply.messages[i];
            out[start + i] = { address: reply.addresses[i]!, nonce: item.nonce, signature: reply.signatures[i]!, ...(message === undefined ? {} : { message }) };
          });
        }
      }),
    );
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
  return out;
}

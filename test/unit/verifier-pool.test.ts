import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import * as ed from '@noble/ed25519';
import { afterEach, describe, expect, it } from 'vitest';
import { createSignatureVerifier, type SignatureVerifier } from '../../src/signature/verifier.js';

ed.hashes.sha512 = (message: Uint8Array) => new Uint8Array(createHash('sha512').update(message).digest());

const CRASHING_WORKER = fileURLToPath(new URL('../fixtures/crashing-verify-worker.mjs', import.meta.url));
let verifier: SignatureVerifier | undefined;
afterEach(async () => {
  await verifier?.close();
  verifier = undefined;
});

function signed(message: string): { publicKey: Uint8Array; signature: Uint8Array } {
  const secret = randomBytes(32);
  return { publicKey: ed.getPublicKey(secret), signature: ed.sign(new TextEncoder().encode(message), secret) };
}

describe('signature verifier', () => {
  it.each([0, 1, 2])('with %i worker threads, answers each of many concurrent verifications correctly', async (threads) => {
    verifier = createSignatureVerifier({ threads, maxBatch: 8 });
    const cases = Array.from({ length: 100 }, (_, i) => {
      const message = `CHALLENGE::${i}`;
      const { publicKey, signature } = signed(message);
      const valid = i % 3 !== 0;
      return { publicKey, signature, message: valid ? message : `${message}!`, valid };
    });
    const results = await Promise.all(cases.map((c) => verifier!.verify(c.publicKey, c.message, c.signature)));
    expect(results).toEqual(cases.map((c) => c.valid));
  });

  it('a crashed worker rejects only the requests it held, never hangs them, and is replaced', async () => {
    verifier = createSignatureVerifier({ threads: 1, maxBatch: 1, workerFile: CRASHING_WORKER });
    const key = new Uint8Array(32);
    const signature = new Uint8Array(64);
    await expect(verifier.verify(key, 'crash', signature)).rejects.toThrow();
    // The pool has a new worker: later requests are answered.
    await expect(verifier.verify(key, 'fine', signature)).resolves.toBe(true);
    await expect(Promise.all([verifier.verify(key, 'a', signature), verifier.verify(key, 'b', signature)])).resolves.toEqual([true, true]);
  });
});

describe('ATA derivation in the pool', () => {
  it('derives the same addresses as the main thread, for concurrent callers, in order', async () => {
    const { deriveAta } = await import('../../src/chain/ata.js');
    const { TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID } = await import('../../src/chain/programs.js');
    const bs58 = (await import('bs58')).default;
    verifier = createSignatureVerifier({ threads: 2, maxBatch: 8 });
    const requests = Array.from({ length: 40 }, (_, i) => ({
      owner: bs58.encode(randomBytes(32)),
      mint: bs58.encode(randomBytes(32)),
      tokenProgram: i % 2 ? TOKEN_PROGRAM_ID : TOKEN_2022_PROGRAM_ID,
    }));
    const perCaller = await Promise.all([0, 10, 20, 30].map((start) => verifier!.deriveAtas!(requests.slice(start, start + 10))));
    expect(perCaller.flat()).toEqual(requests.map(deriveAta));
  });
});

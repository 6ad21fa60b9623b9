import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import * as ed from '@noble/ed25519';
import { afterEach, describe, expect, it } from 'vitest';
import { PublicKey } from '@solana/web3.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../../src/chain/token-programs.js';
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
    expect(results.map((result) => result.valid)).toEqual(cases.map((c) => c.valid));
  });

  it.each([0, 1, 2])('with %i worker threads, derives the ATAs asked for beside a valid signature (as web3.js does), none beside an invalid one', async (threads) => {
    verifier = createSignatureVerifier({ threads, maxBatch: 8 });
    const cases = Array.from({ length: 24 }, (_, i) => {
      const { publicKey, signature } = signed('CHALLENGE::ata');
      const owner = new PublicKey(publicKey);
      const seeds = [TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID].map((program) => ({ owner: owner.toBase58(), mint: new PublicKey(randomBytes(32)).toBase58(), program }));
      return { publicKey, signature, seeds, valid: i % 4 !== 0 };
    });
    const results = await Promise.all(cases.map((c) => verifier!.verify(c.publicKey, c.valid ? 'CHALLENGE::ata' : 'CHALLENGE::other', c.signature, c.seeds)));
    results.forEach((result, i) => {
      const { valid, seeds } = cases[i]!;
      expect(result.valid).toBe(valid);
      const expected = seeds.map(({ owner, mint, program }) =>
        PublicKey.findProgramAddressSync([new PublicKey(owner).toBuffer(), new PublicKey(program).toBuffer(), new PublicKey(mint).toBuffer()], new PublicKey(ASSOCIATED_TOKEN_PROGRAM_ID))[0].toBase58(),
      );
      expect(result.atas).toEqual(valid ? expected : []);
    });
  });

  it('a crashed worker rejects only the requests it held, never hangs them, and is replaced', async () => {
    verifier = createSignatureVerifier({ threads: 1, maxBatch: 1, workerFile: CRASHING_WORKER });
    const key = new Uint8Array(32);
    const signature = new Uint8Array(64);
    await expect(verifier.verify(key, 'crash', signature)).rejects.toThrow();
    // The pool has a new worker: later requests are answered.
    await expect(verifier.verify(key, 'fine', signature)).resolves.toMatchObject({ valid: true });
    await expect(Promise.all([verifier.verify(key, 'a', signature), verifier.verify(key, 'b', signature)])).resolves.toMatchObject([{ valid: true }, { valid: true }]);
  });

  it('with inlineUpTo, verifies a batch that small on the event loop (right answers, ATAs, malformed lengths refused) and larger ones in the pool', async () => {
    // The fixture worker answers "valid" to everything: a wrong answer shows the pool was used.
    verifier = createSignatureVerifier({ threads: 1, maxBatch: 64, inlineUpTo: 2, workerFile: fileURLToPath(new URL('../fixtures/crashing-verify-worker.mjs', import.meta.url)) });
    const good = signed('CHALLENGE::inline');
    const owner = new PublicKey(good.publicKey);
    const seed = { owner: owner.toBase58(), mint: new PublicKey(randomBytes(32)).toBase58(), program: TOKEN_PROGRAM_ID };
    const expected = PublicKey.findProgramAddressSync([owner.toBuffer(), new PublicKey(TOKEN_PROGRAM_ID).toBuffer(), new PublicKey(seed.mint).toBuffer()], new PublicKey(ASSOCIATED_TOKEN_PROGRAM_ID))[0].toBase58();
    await expect(verifier.verify(good.publicKey, 'CHALLENGE::inline', good.signature, [seed])).resolves.toEqual({ valid: true, atas: [expected] });
    await expect(verifier.verify(good.publicKey, 'CHALLENGE::other', good.signature, [seed])).resolves.toEqual({ valid: false, atas: [] });
    const twoKeys = new Uint8Array(64);
    twoKeys.set(good.publicKey);
    await expect(Promise.all([verifier.verify(twoKeys, 'CHALLENGE::inline', good.signature), verifier.verify(good.publicKey, 'CHALLENGE::inline', good.signature.subarray(0, 63))])).resolves.toMatchObject([{ valid: false }, { valid: false }]);
    // Three at once leave as one pool task: the fixture calls them all valid.
    const forged = await Promise.all([1, 2, 3].map(() => verifier!.verify(good.publicKey, 'CHALLENGE::other', good.signature)));
    expect(forged.map((result) => result.valid)).toEqual([true, true, true]);
  });
});

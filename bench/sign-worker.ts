/**
 * Worker of bench/sign-pool.ts: signs login challenges for the bench, so that preparing tens of
 * thousands of logins uses every core. Plain data in and out.
 */
import { parentPort } from 'node:worker_threads';
import { keyFromSeed, signProof, type BenchSignMode } from './wallets.js';

export interface SignRequest {
  id: number;
  seeds: Uint8Array[];
  nonces: string[];
  mode: BenchSignMode;
  /** The feature or rule signed in to (its path and constant are in the challenge). */
  target: string;
}

export interface SignReply {
  id: number;
  addresses: string[];
  signatures: string[];
  /** X-404-Message per login (base64), for the modes that send one. */
  messages: (string | undefined)[];
}

/** Keys by seed, for wallets that sign again and again; bounded (fresh wallets sign once). */
const keys = new Map<string, ReturnType<typeof keyFromSeed>>();

parentPort!.on('message', ({ id, seeds, nonces, mode, target }: SignRequest) => {
  const reply: SignReply = { id, addresses: [], signatures: [], messages: [] };
  seeds.forEach((seed, i) => {
    const cacheKey = Buffer.from(seed).toString('hex');
    let key = keys.get(cacheKey);
    if (key === undefined) {
      key = keyFromSeed(Buffer.from(seed));
      if (keys.size < 5000) keys.set(cacheKey, key);
    }
    const proof = signProof(key.privateKey, key.address, nonces[i]!, mode, target);
    reply.addresses.push(key.address);
    reply.signatures.push(proof.signature);
    reply.messages.push(proof.message);
  });
  parentPort!.postMessage(reply);
});

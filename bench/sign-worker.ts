/**
 * Worker of bench/sign-pool.ts: signs login challenges for the bench, so that preparing tens of
 * thousands of logins uses every core. Plain data in and out.
 */
import { parentPort } from 'node:worker_threads';
import { keyFromSeed, signChallenge } from './wallets.js';

export interface SignRequest {
  id: number;
  seeds: Uint8Array[];
  nonces: string[];
}

export interface SignReply {
  id: number;
  addresses: string[];
  signatures: string[];
}

/** Keys by seed, for wallets that sign again and again; bounded (fresh wallets sign once). */
const keys = new Map<string, ReturnType<typeof keyFromSeed>>();

parentPort!.on('message', ({ id, seeds, nonces }: SignRequest) => {
  const reply: SignReply = { id, addresses: [], signatures: [] };
  seeds.forEach((seed, i) => {
    const cacheKey = Buffer.from(seed).toString('hex');
    let key = keys.get(cacheKey);
    if (key === undefined) {
      key = keyFromSeed(Buffer.from(seed));
      if (keys.size < 5000) keys.set(cacheKey, key);
    }
    reply.addresses.push(key.address);
    reply.signatures.push(signChallenge(key.privateKey, nonces[i]!));
  });
  parentPort!.postMessage(reply);
});

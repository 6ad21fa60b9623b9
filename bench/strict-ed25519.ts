/**
 * What the strict ed25519 rules (src/signature/strict-ed25519.ts) cost the verify workers: CPU ns
 * per check of a (public key, signature) pair, on real pairs (what every login pays) and on inputs
 * built to take the longest path through the comparisons; then one verification with and without
 * the check, A/B in alternation on the same imported keys (the key cache's path), so that load from
 * other processes falls on both sides alike. CPU time of this process (process.cpuUsage), one
 * thread, no I/O.
 *
 *   npm run build && node dist/bench/strict-ed25519.js [rounds]     (default 7)
 */
import { generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { strictEd25519Refusal } from '../src/signature/strict-ed25519.js';

const rounds = Number(process.argv[2] ?? 7);
const PAIRS = 1024;
const CHECKS_PER_ROUND = 2_000_000;
const VERIFIES_PER_ROUND = 4_000;

interface Pair {
  key: KeyObject;
  publicKey: Uint8Array;
  message: Buffer;
  signature: Uint8Array;
}

const pairs: Pair[] = Array.from({ length: PAIRS }, (_, i) => {
  const { privateKey, publicKey: key } = generateKeyPairSync('ed25519');
  const message = Buffer.from(`CHALLENGE::${i.toString(36).padStart(26, 'n')}::/x404_auth/blacklist::SERVICE404_BLACKLIST`);
  const publicKey = new Uint8Array(key.export({ format: 'der', type: 'spki' }).subarray(12));
  return { key, publicKey, message, signature: new Uint8Array(sign(null, message, privateKey)) };
});

/**
 * The longest path: a key and an R whose first byte is in the table and which match an entry up
 * to its last byte, and an S equal to ℓ but in its last byte (every byte of the order compared).
 * Not points anyone would send; they bound the cost from above.
 */
const slowKey = Uint8Array.from(Buffer.from('c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac0300', 'hex'));
const slowSignature = new Uint8Array(64);
slowSignature.set(Buffer.from('26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc00', 'hex'), 0);
slowSignature.set(Buffer.from('ecd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010', 'hex'), 32);
if (strictEd25519Refusal(slowKey, slowSignature) !== undefined) throw new Error('the slow-path input must pass the check');

function cpuMicros(run: () => void): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

let sink = 0;

function checkRealPairs(): number {
  return (
    (cpuMicros(() => {
      for (let i = 0; i < CHECKS_PER_ROUND; i++) {
        const pair = pairs[i & (PAIRS - 1)]!;
        if (strictEd25519Refusal(pair.publicKey, pair.signature) === undefined) sink++;
      }
    }) *
      1000) /
    CHECKS_PER_ROUND
  );
}

function checkSlowPath(): number {
  return (
    (cpuMicros(() => {
      for (let i = 0; i < CHECKS_PER_ROUND; i++) if (strictEd25519Refusal(slowKey, slowSignature) === undefined) sink++;
    }) *
      1000) /
    CHECKS_PER_ROUND
  );
}

function verifyLoop(strict: boolean): number {
  return (
    cpuMicros(() => {
      for (let i = 0; i < VERIFIES_PER_ROUND; i++) {
        const pair = pairs[i & (PAIRS - 1)]!;
        if (strict && strictEd25519Refusal(pair.publicKey, pair.signature) !== undefined) continue;
        if (verify(null, pair.message, pair.key, pair.signature)) sink++;
      }
    }) / VERIFIES_PER_ROUND
  );
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

// Warm-up: compile both loops before timing.
checkRealPairs();
checkSlowPath();
verifyLoop(true);
verifyLoop(false);

const real: number[] = [];
const slow: number[] = [];
const withCheck: number[] = [];
const withoutCheck: number[] = [];
for (let round = 0; round < rounds; round++) {
  real.push(checkRealPairs());
  slow.push(checkSlowPath());
  // Alternate which side goes first, so a drift in machine load does not favour one.
  if (round % 2 === 0) {
    withCheck.push(verifyLoop(true));
    withoutCheck.push(verifyLoop(false));
  } else {
    withoutCheck.push(verifyLoop(false));
    withCheck.push(verifyLoop(true));
  }
}

const range = (values: number[], digits: number): string => `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;
process.stdout.write(`strict ed25519 check, CPU per (public key, signature), median (min–max) of ${rounds} rounds of ${CHECKS_PER_ROUND.toLocaleString('en')}:\n`);
process.stdout.write(`  real pairs            ${range(real, 1)} ns\n`);
process.stdout.write(`  longest path          ${range(slow, 1)} ns\n`);
process.stdout.write(`verification (node:crypto, key imported), CPU per signature, ${rounds} rounds of ${VERIFIES_PER_ROUND.toLocaleString('en')} in alternation:\n`);
process.stdout.write(`  with the check        ${range(withCheck, 2)} µs\n`);
process.stdout.write(`  without               ${range(withoutCheck, 2)} µs\n`);
const ratio = withCheck.map((value, i) => value / withoutCheck[i]! - 1);
process.stdout.write(`  difference per round  median ${(median(ratio) * 100).toFixed(2)} % (${(Math.min(...ratio) * 100).toFixed(2)} … ${(Math.max(...ratio) * 100).toFixed(2)} %)\n`);
if (sink === 0) process.stdout.write('(no signature verified: the bench is broken)\n');

/**
 * What reading a login's proof costs on the event loop, by sign mode: src/sign-modes/read-proof.ts
 * (base58 signature; for siws, offchain and memo-tx also base64, and the SIWS grammar and checks /
 * the off-chain header / the transaction decode and checks) and, beside it, one ed25519 verification
 * of the bytes each mode signs (what the worker pool then does). CPU time of this process over many
 * iterations after a warm-up; one thread, no I/O.
 *
 *   npm run build && node dist/bench/proofs.js [iterations]     (default 20,000)
 */
import { verify } from 'node:crypto';
import type { Config } from '../src/config.js';
import type { AcceptedNonce } from '../src/nonce/codec.js';
import { NonceCodec } from '../src/nonce/codec.js';
import { readProof } from '../src/sign-modes/read-proof.js';
import { ed25519PublicKey } from '../src/signature/ed25519.js';
import { BENCH_SIWS_DOMAIN, benchWallets, loginHeadersFor, SIGN_MODES } from './wallets.js';

const iterations = Number(process.argv[2] ?? 20_000);
const config = { mechanism: 'SERVICE404', siwsDomains: [BENCH_SIWS_DOMAIN], siwsChainId: 'mainnet', signModes: SIGN_MODES } as unknown as Config;
const [wallet] = benchWallets(1);
const nonces = new NonceCodec('x404-bench-secret-not-for-production-0123456789', 300);

function cpuMicros(run: () => void): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

function perOp(count: number, op: () => unknown): number {
  for (let i = 0; i < Math.min(count, 1000); i++) op();
  return cpuMicros(() => {
    for (let i = 0; i < count; i++) op();
  }) / count;
}

process.stdout.write(`${'sign mode'.padEnd(12)} ${'read + check'.padStart(14)} ${'verify'.padStart(10)}   (µs per login, ${iterations} iterations)\n`);
for (const mode of SIGN_MODES) {
  const { nonce } = nonces.issue('blacklist');
  // The process epoch: accept() answers synchronously.
  const accepted = nonces.accept(nonce, 'blacklist') as AcceptedNonce;
  const headers = new Map(Object.entries(loginHeadersFor(wallet!, nonce, mode, {})).map(([name, value]) => [name.toLowerCase(), value]));
  const context = { feature: 'blacklist', path: '/x404_auth/blacklist', headers, wallet: { address: wallet!.address, publicKey: wallet!.publicKey }, nonce, accepted, config, nowMs: Date.now() };
  const read = perOp(iterations, () => readProof(mode, context));
  const proof = readProof(mode, context);
  const key = ed25519PublicKey(wallet!.publicKey);
  const signed = typeof proof.signed === 'string' ? Buffer.from(proof.signed) : proof.signed;
  const check = perOp(Math.ceil(iterations / 10), () => verify(null, signed, key, proof.signature));
  process.stdout.write(`${mode.padEnd(12)} ${read.toFixed(2).padStart(14)} ${check.toFixed(1).padStart(10)}\n`);
}

/**
 * What a token costs the gate, by algorithm: the gate's own token service (src/token/jwt.ts) signing
 * and verifying, against the alternatives that were measured before choosing it. CPU time of this
 * process (process.cpuUsage) over many iterations, after a warm-up; one thread, no I/O.
 *
 *   npm run build && node dist/bench/tokens.js [iterations]     (default 20,000)
 *
 * Prints µs per operation. "login" = sign one token + verify it once uncached (what a sign-in adds
 * for the token); "re-auth" = verify a token seen before (fast-jwt's cache: what re-authentication
 * and forward auth cost for a returning token); "first check" = verify a token never seen.
 */
import { generateKeyPairSync, sign as cryptoSign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSigner } from 'fast-jwt';
import { createLocalJWKSet, exportJWK, importPKCS8, jwtVerify, SignJWT } from 'jose';
import { createTokenService, type TokenService } from '../src/token/jwt.js';
import { loadTokenKeys } from '../src/token/keys.js';

const iterations = Number(process.argv[2] ?? 20_000);
const CLAIMS = { sub: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin', feature: 'blacklist', pol: 'Hr5f2QnZ0w8mVj3c5mYb4n3p0wQeJfZ2v8bT1yXo9sA' };

function cpuMicros(run: () => void): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

function perOp(label: string, count: number, op: (i: number) => unknown): number {
  for (let i = 0; i < Math.min(count, 1000); i++) op(i);
  const us = cpuMicros(() => {
    for (let i = 0; i < count; i++) op(i);
  });
  const each = us / count;
  process.stdout.write(`${label.padEnd(58)} ${each.toFixed(1).padStart(7)} µs\n`);
  return each;
}

async function perOpAsync(label: string, count: number, op: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(count, 200); i++) await op(i);
  const start = process.cpuUsage();
  for (let i = 0; i < count; i++) await op(i);
  const used = process.cpuUsage(start);
  const each = (used.user + used.system) / count;
  process.stdout.write(`${label.padEnd(58)} ${each.toFixed(1).padStart(7)} µs\n`);
  return each;
}

async function service(alg: 'HS256' | 'EdDSA' | 'ES256', dir: string): Promise<TokenService> {
  if (alg === 'HS256') return createTokenService({ alg, secret: 'x404-bench-secret-not-for-production-0123456789', expirySeconds: 3600 });
  const pair = alg === 'EdDSA' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const path = join(dir, `${alg}.pem`);
  writeFileSync(path, pair.privateKey.export({ format: 'pem', type: 'pkcs8' }));
  return createTokenService({ alg, secret: 'unused-for-tokens-here-0123456789abcdef', keys: await loadTokenKeys(path, alg), issuer: 'https://bench.example', expirySeconds: 3600 });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'x404-token-bench-'));
  process.stdout.write(`x404 token costs, ${iterations} iterations each, Node ${process.version}\n\n`);
  const summary: string[] = [];
  try {
    for (const alg of ['HS256', 'EdDSA', 'ES256'] as const) {
      const tokens = await service(alg, dir);
      const signed: string[] = [];
      const sign = perOp(`gate (fast-jwt) ${alg}: sign`, iterations, (i) => (signed[i] = tokens.sign({ ...CLAIMS, jti: String(i) })));
      const first = perOp(`gate (fast-jwt) ${alg}: first check of a token (uncached)`, iterations, (i) => tokens.verify(signed[i]!));
      // Cached: the same 256 tokens over and over, as re-authentication of returning wallets.
      const again = perOp(`gate (fast-jwt) ${alg}: re-auth of a known token (cached)`, iterations, (i) => tokens.verify(signed[i % 256]!));
      summary.push(`${alg}: login token (sign + first verify) ${(sign + first).toFixed(1)} µs, re-auth (cached) ${again.toFixed(1)} µs`);
    }

    process.stdout.write('\nAlternatives for EdDSA\n');
    const ed = generateKeyPairSync('ed25519');
    const pem = ed.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    const fastJwt = createSigner({ key: pem, algorithm: 'EdDSA', kid: 'k' });
    perOp('fast-jwt createSigner EdDSA: sign', iterations, (i) => fastJwt({ ...CLAIMS, jti: String(i) }));
    const header = Buffer.from(JSON.stringify({ alg: 'EdDSA', typ: 'JWT', kid: 'k' })).toString('base64url');
    perOp('node:crypto sign (hand-built JWT, for reference)', iterations, (i) => {
      const input = `${header}.${Buffer.from(JSON.stringify({ ...CLAIMS, jti: String(i) })).toString('base64url')}`;
      return `${input}.${cryptoSign(null, Buffer.from(input), ed.privateKey).toString('base64url')}`;
    });
    const joseKey = await importPKCS8(pem, 'EdDSA');
    const few = Math.max(1000, Math.floor(iterations / 5));
    const joseTokens: string[] = [];
    await perOpAsync('jose SignJWT EdDSA: sign', few, async (i) => (joseTokens[i] = await new SignJWT({ ...CLAIMS, jti: String(i) }).setProtectedHeader({ alg: 'EdDSA', kid: 'k' }).sign(joseKey)));
    const jwks = createLocalJWKSet({ keys: [{ ...(await exportJWK(ed.publicKey)), kid: 'k', alg: 'EdDSA' }] });
    await perOpAsync('jose jwtVerify EdDSA with a key set (the relying party)', few, (i) => jwtVerify(joseTokens[i % joseTokens.length]!, jwks, { algorithms: ['EdDSA'] }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(`\n${summary.join('\n')}\n`);
}

await main();

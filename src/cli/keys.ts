import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { EXIT, expandHome, printProgress, printResult, UsageError } from './io.js';
import { walletCommand, WALLET_HELP } from './launch.js';

export const KEYS_HELP = `${WALLET_HELP}

Usage: x404 keys generate --out <file> [--alg EdDSA|ES256] [--force]

Writes a new private key for JWT_PRIVATE_KEYS_FILE (PKCS#8 PEM, file mode 0600) and prints its
kid (the RFC 7638 thumbprint the gate puts in tokens) and its public JWK. To rotate, publish the
new key first: put it after the current one (cat old.pem new.pem > keys.pem), reload, wait at
least 5 minutes (the JWKS max-age), then put it first; drop the old key once its tokens expired.

  --out <file>     where to write the key (refuses to overwrite without --force)
  --alg <alg>      EdDSA (Ed25519, default) or ES256 (P-256)
  --force          replace an existing file`;

export async function keysCommand(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action === '--help' || action === '-h' || action === 'help') {
    printResult(KEYS_HELP);
    return EXIT.ok;
  }
  if (action === 'solana') return walletCommand(rest);
  if (action !== 'generate') throw new UsageError(action === undefined ? 'x404 keys needs an action: generate or solana' : `unknown keys action "${action}"; use generate or solana`);
  const { values } = parseArgs({
    args: rest,
    options: {
      out: { type: 'string' },
      alg: { type: 'string', default: 'EdDSA' },
      force: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    printResult(KEYS_HELP);
    return EXIT.ok;
  }
  if (values.out === undefined) throw new UsageError('missing --out <file>');
  const alg = values.alg === 'EdDSA' || values.alg?.toLowerCase() === 'eddsa' ? 'EdDSA' : values.alg?.toUpperCase() === 'ES256' ? 'ES256' : undefined;
  if (alg === undefined) throw new UsageError(`--alg must be EdDSA or ES256, got "${values.alg}"`);

  const { privateKey, publicKey } = alg === 'EdDSA' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  const path = expandHome(values.out);
  try {
    // 0600: only the gate's user may read the private key. 'wx' refuses to replace a key by accident.
    writeFileSync(path, pem, { mode: 0o600, flag: values.force ? 'w' : 'wx' });
    chmodSync(path, 0o600); // an existing file replaced with --force keeps its old mode otherwise
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new UsageError(`${values.out} exists; pass --force to replace it (its tokens would stop verifying)`);
    throw new UsageError(`cannot write ${values.out}: ${code ?? (error as Error).message}`);
  }
  const jwk = publicKey.export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint(jwk, 'sha256');
  printProgress(`✓ Wrote a new ${alg} private key to ${values.out} (mode 0600); kid ${kid}`);
  printResult(JSON.stringify({ kid, alg, publicJwk: { ...jwk, kid, alg, use: 'sig' } }));
  return EXIT.ok;
}

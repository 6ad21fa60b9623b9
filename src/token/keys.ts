import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { calculateJwkThumbprint } from 'jose';
import { ConfigError, type JwtAlg } from '../config.js';
import { strictEd25519KeyRefusal } from '../signature/strict-ed25519.js';

/**
 * The gate's token keys for JWT_ALG=EdDSA or ES256 (JWT_PRIVATE_KEYS_FILE): PEM blocks or a JWK
 * set, in order. The first key signs and must be private and of JWT_ALG's type; every key verifies,
 * so a new key can sign while tokens of the old one stay valid. Later keys may be public only
 * (a retired key whose private half is gone). Each key's `kid` is its RFC 7638 thumbprint unless
 * the JWK set names one, and its algorithm follows from its type (Ed25519 → EdDSA, P-256 → ES256),
 * never from a token.
 */
export type AsymmetricAlg = Exclude<JwtAlg, 'HS256'>;

export interface TokenKey {
  kid: string;
  alg: AsymmetricAlg;
  /** Undefined for a verify-only key. */
  privateKey: KeyObject | undefined;
  publicKey: KeyObject;
  /** The public JWK as published at /.well-known/jwks.json. */
  publicJwk: JsonWebKey & { kid: string; alg: AsymmetricAlg; use: 'sig' };
}

const MAX_KEY_FILE_BYTES = 1024 * 1024;
const KID_PATTERN = /^[A-Za-z0-9._~-]{1,128}$/;

export async function loadTokenKeys(path: string, alg: AsymmetricAlg): Promise<TokenKey[]> {
  const fail = (why: string): never => {
    throw new ConfigError('JWT_PRIVATE_KEYS_FILE', `${path}: ${why}`);
  };
  let text: string;
  try {
    if (statSync(path).size > MAX_KEY_FILE_BYTES) fail('is larger than 1 MiB');
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    return fail(`cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const entries = text.trimStart().startsWith('{') ? jwkSetEntries(text, fail) : pemEntries(text, fail);
  if (entries.length === 0) fail('contains no key (expected PEM blocks or a JWK set {"keys":[…]})');

  const keys: TokenKey[] = [];
  for (const [index, entry] of entries.entries()) {
    const where = `key ${index + 1}`;
    const publicKey = entry.privateKey ? createPublicKey(entry.privateKey) : entry.publicKey!;
    const keyAlg = algorithmOf(publicKey);
    if (keyAlg === undefined) fail(`${where} is a ${describeKey(publicKey)} key; only Ed25519 (EdDSA) and P-256 (ES256) keys are supported`);
    if (index === 0) {
      if (!entry.privateKey) fail(`${where} signs, so it must be a private key (later keys may be public only)`);
      if (keyAlg !== alg) fail(`${where} signs, so it must be a ${alg === 'EdDSA' ? 'Ed25519' : 'P-256'} key for JWT_ALG=${alg}, but it is ${describeKey(publicKey)}`);
    }
    const jwk = publicKey.export({ format: 'jwk' });
    // A retired key is public only and could be any 32 bytes: one of small order would let anyone
    // make tokens that verify (src/signature/strict-ed25519.ts). A private key's never is.
    const weak = keyAlg === 'EdDSA' ? strictEd25519KeyRefusal(Buffer.from(jwk.x as string, 'base64url')) : undefined;
    if (weak) fail(`${where} is refused: ${weak.message}, so tokens under it would prove nothing`);
    const kid = entry.kid ?? (await calculateJwkThumbprint(jwk as Parameters<typeof calculateJwkThumbprint>[0], 'sha256'));
    if (!KID_PATTERN.test(kid)) fail(`${where} has kid ${JSON.stringify(kid.slice(0, 40))}; a kid is 1–128 of A-Z a-z 0-9 . _ ~ -`);
    if (keys.some((key) => key.kid === kid)) fail(`${where} repeats kid ${kid}`);
    keys.push({ kid, alg: keyAlg!, privateKey: entry.privateKey, publicKey, publicJwk: { ...jwk, kid, alg: keyAlg!, use: 'sig' } });
  }
  return keys;
}

interface KeyEntry {
  privateKey?: KeyObject;
  publicKey?: KeyObject;
  kid?: string;
}

function pemEntries(text: string, fail: (why: string) => never): KeyEntry[] {
  const blocks = text.match(/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g) ?? [];
  return blocks.map((block, index) => {
    const label = /-----BEGIN ([A-Z0-9 ]+)-----/.exec(block)![1]!;
    try {
      if (label === 'PUBLIC KEY') return { publicKey: createPublicKey(block) };
      if (label === 'PRIVATE KEY' || label === 'EC PRIVATE KEY') return { privateKey: createPrivateKey(block) };
    } catch (error) {
      fail(`PEM block ${index + 1} (${label}) cannot be read: ${(error as Error).message}`);
    }
    return fail(`PEM block ${index + 1} is a "${label}"; expected PRIVATE KEY, EC PRIVATE KEY or PUBLIC KEY (unencrypted)`);
  });
}

function jwkSetEntries(text: string, fail: (why: string) => never): KeyEntry[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    fail(`is not valid JSON (${(error as Error).message})`);
  }
  const keys = (parsed as { keys?: unknown })?.keys;
  if (!Array.isArray(keys)) fail('is JSON but not a JWK set: expected {"keys":[…]}');
  return (keys as unknown[]).map((jwk, index) => {
    if (jwk === null || typeof jwk !== 'object' || Array.isArray(jwk)) fail(`JWK ${index + 1} is not an object`);
    const { kid, ...material } = jwk as JsonWebKey & { kid?: unknown };
    if (kid !== undefined && typeof kid !== 'string') fail(`JWK ${index + 1} has a kid that is not a string`);
    try {
      const key = material.d === undefined ? { publicKey: createPublicKey({ key: material, format: 'jwk' }) } : { privateKey: createPrivateKey({ key: material, format: 'jwk' }) };
      return kid === undefined ? key : { ...key, kid: kid as string };
    } catch (error) {
      return fail(`JWK ${index + 1} cannot be read: ${(error as Error).message}`);
    }
  });
}

function algorithmOf(key: KeyObject): AsymmetricAlg | undefined {
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  return undefined;
}

function describeKey(key: KeyObject): string {
  const curve = key.asymmetricKeyDetails?.namedCurve;
  return curve ? `${key.asymmetricKeyType} (${curve})` : String(key.asymmetricKeyType);
}

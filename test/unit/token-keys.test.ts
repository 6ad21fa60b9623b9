import { createHash, createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { loadTokenKeys } from '../../src/token/keys.js';

/** JWT_PRIVATE_KEYS_FILE: PEM or JWK set, first key signs, every key verifies, kid per key. */
const dir = mkdtempSync(join(tmpdir(), 'x404-keys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const file = (text: string): string => {
  const path = join(dir, `keys-${files++}`);
  writeFileSync(path, text);
  return path;
};

const ed = () => generateKeyPairSync('ed25519');
const p256 = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });
const pkcs8 = (key: ReturnType<typeof ed>['privateKey']): string => key.export({ format: 'pem', type: 'pkcs8' }) as string;
const spki = (key: ReturnType<typeof ed>['publicKey']): string => key.export({ format: 'pem', type: 'spki' }) as string;

async function refusal(path: string, alg: 'EdDSA' | 'ES256' = 'EdDSA'): Promise<string> {
  try {
    await loadTokenKeys(path, alg);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe('JWT_PRIVATE_KEYS_FILE');
    return (error as Error).message;
  }
  throw new Error('the key file was accepted');
}

describe('token key files', () => {
  it('names each key by its RFC 7638 thumbprint (RFC 8037 A.3 vector)', async () => {
    // RFC 8037 Appendix A.1 (private key) and A.3 (its JWK thumbprint).
    const jwk = { kty: 'OKP', crv: 'Ed25519', d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' };
    const [key] = await loadTokenKeys(file(JSON.stringify({ keys: [jwk] })), 'EdDSA');
    expect(key!.kid).toBe('kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k');
    expect(key!.publicJwk).toEqual({ kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid: key!.kid, alg: 'EdDSA', use: 'sig' });
    // The same key as PEM gets the same kid.
    const [fromPem] = await loadTokenKeys(file(pkcs8(createPrivateKey({ key: jwk, format: 'jwk' }))), 'EdDSA');
    expect(fromPem!.kid).toBe(key!.kid);
  });

  it('reads several PEM keys in order: the first signs, later ones may be public only, P-256 beside Ed25519', async () => {
    const [a, b, c] = [ed(), p256(), ed()];
    const keys = await loadTokenKeys(file(`${pkcs8(a.privateKey)}\n${pkcs8(b.privateKey)}\n${spki(c.publicKey)}`), 'EdDSA');
    expect(keys.map((key) => [key.alg, key.privateKey !== undefined])).toEqual([
      ['EdDSA', true],
      ['ES256', true],
      ['EdDSA', false],
    ]);
    // The P-256 kid, computed independently: SHA-256 of the required members in lexicographic order.
    const jwk = b.publicKey.export({ format: 'jwk' });
    const expected = createHash('sha256').update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y })).digest('base64url');
    expect(keys[1]!.kid).toBe(expected);
    expect(new Set(keys.map((key) => key.kid)).size).toBe(3);
    for (const key of keys) expect(key.publicJwk).not.toHaveProperty('d');
  });

  it('reads SEC1 "EC PRIVATE KEY" PEM for ES256, and a kid a JWK set names', async () => {
    const pair = p256();
    const sec1 = pair.privateKey.export({ format: 'pem', type: 'sec1' }) as string;
    expect((await loadTokenKeys(file(sec1), 'ES256'))[0]!.alg).toBe('ES256');
    const jwk = { ...pair.privateKey.export({ format: 'jwk' }), kid: 'launch-2026-01' };
    expect((await loadTokenKeys(file(JSON.stringify({ keys: [jwk] })), 'ES256'))[0]!.kid).toBe('launch-2026-01');
  });

  it.each([
    ['no key at all', () => 'nothing here\n', /contains no key/],
    ['a public signing key', () => spki(ed().publicKey), /key 1 signs, so it must be a private key/],
    ['a signing key of another type than JWT_ALG', () => pkcs8(p256().privateKey), /must be a Ed25519 key for JWT_ALG=EdDSA/],
    ['an RSA key', () => pkcs8(generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey), /only Ed25519 \(EdDSA\) and P-256 \(ES256\)/],
    ['a P-384 key', () => pkcs8(generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey), /only Ed25519/],
    ['a certificate', () => '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', /CERTIFICATE/],
    ['a broken PEM body', () => '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n', /PEM block 1 \(PRIVATE KEY\) cannot be read/],
    ['broken JSON', () => '{"keys": [', /not valid JSON/],
    ['JSON that is not a key set', () => '{"kty":"OKP"}', /not a JWK set/],
    ['the same key twice', () => {
      const key = pkcs8(ed().privateKey);
      return key + key;
    }, /repeats kid/],
    ['a kid with spaces', () => JSON.stringify({ keys: [{ ...ed().privateKey.export({ format: 'jwk' }), kid: 'has space' }] }), /kid/],
  ])('refuses %s, naming the file', async (_label, text, message) => {
    const path = file(text());
    const why = await refusal(path);
    expect(why).toContain(path);
    expect(why).toMatch(message);
  });

  it('refuses a missing file and one over 1 MiB', async () => {
    expect(await refusal(join(dir, 'absent.pem'))).toMatch(/cannot be read \(ENOENT\)/);
    expect(await refusal(file(`${pkcs8(ed().privateKey)}${' '.repeat(1024 * 1024)}`))).toMatch(/larger than 1 MiB/);
  });
});

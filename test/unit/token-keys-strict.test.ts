import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { loadTokenKeys } from '../../src/token/keys.js';
import { smallOrderSpellings } from '../helpers/ed25519-points.js';

/**
 * JWT_PRIVATE_KEYS_FILE may list retired keys as public keys only, which verify the gate's own
 * tokens (fast-jwt, over node:crypto). An Ed25519 public key of small order or not canonically
 * encoded is one anyone can make signatures for, so the file is refused at start-up, naming it.
 */
const dir = mkdtempSync(join(tmpdir(), 'x404-keys-strict-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const { canonical, nonCanonical } = smallOrderSpellings();
const signing = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;

describe('a retired Ed25519 key of small order or not canonically encoded', () => {
  it.each([...canonical, ...nonCanonical].map((key) => [Buffer.from(key).toString('hex'), key] as const))('public key %s in the key file → start-up refused naming key 2', async (hex, key) => {
    const asPem = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(key).toString('base64url') }, format: 'jwk' }).export({ format: 'pem', type: 'spki' }) as string;
    for (const text of [`${signing}${asPem}`, JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' }, { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(key).toString('base64url') }] })]) {
      const path = join(dir, `${hex}-${text.startsWith('{') ? 'jwk' : 'pem'}`);
      writeFileSync(path, text);
      const error = await loadTokenKeys(path, 'EdDSA').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(/key 2 is refused: the public key (is a point of small order|is not canonically encoded)/);
    }
  });

  it('an ordinary retired key is still accepted beside the signing key', async () => {
    const retired = generateKeyPairSync('ed25519').publicKey.export({ format: 'pem', type: 'spki' }) as string;
    const path = join(dir, 'ordinary');
    writeFileSync(path, `${signing}${retired}`);
    expect(await loadTokenKeys(path, 'EdDSA')).toHaveLength(2);
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoMint, demoWallet } from 'x404-localnet/fixture.js';
import { x404 } from '../helpers/cli.js';
import { startStack, type Stack } from '../helpers/gate.js';

// The `x404` bin as a person runs it (test/helpers/cli.ts), against the real gate.

let stack: Stack;
let dir: string;
const keypairFile = (name: string): string => {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify([...demoWallet(name).secretKey]));
  return path;
};
const POLICY = JSON.stringify({ excluded_mints: [demoMint('banned')], max_holdings: { [demoMint('usdc')]: '1000000000000' } });

beforeAll(async () => {
  stack = await startStack();
  dir = mkdtempSync(join(tmpdir(), 'x404-cli-'));
});
afterAll(async () => {
  await stack?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('x404 login', () => {
  it('prints the token, then its claims; progress goes to stderr', async () => {
    const run = await x404(['login', '--url', stack.gateUrl, '--feature', 'blacklist', '--keypair', keypairFile('clean'), '--policy', POLICY]);
    expect(run.stderr).toContain('Requesting a nonce');
    expect(run.stderr).toContain(`Signed in as ${demoWallet('clean').publicKey}`);
    expect(run.code).toBe(0);
    const [token, ...rest] = run.stdout.trimEnd().split('\n');
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(JSON.parse(rest.join('\n'))).toMatchObject({ sub: demoWallet('clean').publicKey, feature: 'blacklist' });
  });

  it('reads the policy from @file and prints one JSON object with --json', async () => {
    const policyFile = join(dir, 'policy.json');
    writeFileSync(policyFile, POLICY);
    const run = await x404(['login', '--url', stack.gateUrl, '--feature', 'blacklist', '--keypair', keypairFile('clean'), '--policy', `@${policyFile}`, '--json', '-q']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toMatchObject({ publicKey: demoWallet('clean').publicKey, claims: { feature: 'blacklist' }, body: { success: true } });
  });

  it('explains a refusal on stderr and exits 1', async () => {
    const run = await x404(['login', '--url', stack.gateUrl, '--feature', 'blacklist', '--keypair', keypairFile('banned-holder'), '--policy', POLICY]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/Sign-in failed: HOLDS_BANNED_TOKEN \(HTTP 500\): .*banned token/);
  });

  it('exits 3 when the gate cannot be reached', async () => {
    const run = await x404(['login', '--url', 'http://127.0.0.1:9', '--feature', 'blacklist', '--keypair', keypairFile('clean'), '--policy', POLICY]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('NONCE_ERROR');
  });

  it('exits 2 with a hint on usage mistakes', async () => {
    const missing = await x404(['login', '--url', stack.gateUrl]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing --feature, --keypair');

    const badKeypair = join(dir, 'bad.json');
    writeFileSync(badKeypair, '[1,2,3]');
    const bad = await x404(['login', '--url', stack.gateUrl, '--feature', 'blacklist', '--keypair', badKeypair]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('64 numbers');

    const unknown = await x404(['login', '--nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--help');
  });
});

describe('x404 verify', () => {
  it('checks a token from login against the secret, feature and policy', async () => {
    const login = await x404(['login', '--url', stack.gateUrl, '--feature', 'blacklist', '--keypair', keypairFile('clean'), '--policy', POLICY, '-q']);
    const token = login.stdout.split('\n')[0] as string;

    const ok = await x404(['verify', token, '--secret', stack.jwtSecret, '--feature', 'blacklist', '--policy', POLICY]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ sub: demoWallet('clean').publicKey });
    expect(ok.stderr).toContain('Valid blacklist token');

    const fromStdinAndEnv = await x404(['verify', '-'], { stdin: `${token}\n`, env: { JWT_SECRET: stack.jwtSecret } });
    expect(fromStdinAndEnv.code).toBe(0);

    const otherPolicy = await x404(['verify', token, '--secret', stack.jwtSecret, '--policy', '{"excluded_mints":[],"max_holdings":{}}']);
    expect(otherPolicy.code).toBe(1);
    expect(otherPolicy.stderr).toContain('POLICY_MISMATCH');

    const secretFile = join(dir, 'secret');
    writeFileSync(secretFile, 'not-the-gate-secret\n');
    const wrongSecret = await x404(['verify', token, '--secret-file', secretFile]);
    expect(wrongSecret.code).toBe(1);
    expect(wrongSecret.stderr).toContain('INVALID_TOKEN');
    expect(wrongSecret.stdout).toBe('');
  });

  it('exits 2 without a secret', async () => {
    const run = await x404(['verify', 'a.b.c']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('JWT_SECRET');
  });
});

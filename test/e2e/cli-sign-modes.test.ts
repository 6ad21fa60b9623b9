import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoMint, demoWallet } from 'x404-localnet/fixture.js';
import { x404 } from '../helpers/cli.js';
import { startGate, startStack, type GateProcess, type Stack } from '../helpers/gate.js';

// `x404 login --sign-mode` as a person runs it, against a gate with SIWS_DOMAINS and one without.

let stack: Stack;
let noSiws: GateProcess;
let dir: string;
let keypair: string;
const WALLET = demoWallet('clean');
const POLICY = JSON.stringify({ excluded_mints: [demoMint('banned')], max_holdings: { [demoMint('usdc')]: '1000000000000' } });

beforeAll(async () => {
  stack = await startStack({ env: { SIWS_DOMAINS: 'app.example.com' } });
  noSiws = await startGate({ rpcUrl: stack.localnet.url });
  dir = mkdtempSync(join(tmpdir(), 'x404-cli-sign-modes-'));
  keypair = join(dir, 'clean.json');
  writeFileSync(keypair, JSON.stringify([...WALLET.secretKey]));
});
afterAll(async () => {
  await noSiws?.stop('SIGKILL');
  await stack?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const login = (url: string, ...extra: string[]) => x404(['login', '--url', url, '--feature', 'blacklist', '--keypair', keypair, '--policy', POLICY, ...extra]);

describe('x404 login --sign-mode', () => {
  it.each(['siws', 'offchain', 'memo-tx'])('%s: signs in, prints the token and claims with sgm, and names the mode on stderr', async (mode) => {
    const run = await login(stack.gateUrl, '--sign-mode', mode);
    expect(run.stderr).not.toMatch(/failed/i);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`Signed in as ${WALLET.publicKey} for blacklist (${mode})`);
    const [token, ...rest] = run.stdout.trimEnd().split('\n');
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(JSON.parse(rest.join('\n'))).toMatchObject({ sub: WALLET.publicKey, feature: 'blacklist', sgm: mode });
    const claims = JSON.parse(Buffer.from(token!.split('.')[1]!, 'base64url').toString('utf8'));
    expect(claims.sgm).toBe(mode);
  });

  it('no --sign-mode (and --sign-mode challenge) sign the challenge even where siws is offered: no sgm', async () => {
    for (const extra of [[], ['--sign-mode', 'challenge']]) {
      const run = await login(stack.gateUrl, '--json', '-q', ...extra);
      expect(run.code).toBe(0);
      const printed = JSON.parse(run.stdout);
      expect(printed.claims).toMatchObject({ sub: WALLET.publicKey });
      expect(printed.claims).not.toHaveProperty('sgm');
    }
  });

  it('--sign-mode auto with a keypair picks siws on a gate that offers it, challenge on one that does not', async () => {
    const offered = await login(stack.gateUrl, '--sign-mode', 'auto', '--json', '-q');
    expect(offered.code).toBe(0);
    expect(JSON.parse(offered.stdout).claims.sgm).toBe('siws');
    const notOffered = await login(noSiws.url, '--sign-mode', 'auto', '--json', '-q');
    expect(notOffered.code).toBe(0);
    expect(JSON.parse(notOffered.stdout).claims).not.toHaveProperty('sgm');
  });

  it('--sign-mode siws on a gate without SIWS_DOMAINS: refused before any login, SIGNING_ERROR, exit 1', async () => {
    const run = await login(noSiws.url, '--sign-mode', 'siws');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/Sign-in failed: SIGNING_ERROR: .*siws/);
  });

  it('an unknown --sign-mode is a usage error: exit 2 listing the modes, nothing contacted', async () => {
    const run = await login('http://127.0.0.1:9', '--sign-mode', 'telepathy');
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('--sign-mode must be one of challenge, siws, offchain, memo-tx, auto; got "telepathy"');
    expect(run.stderr).toContain('--help');
  });

  it('--sign-mode without a value is a usage error too (exit 2)', async () => {
    const run = await x404(['login', '--url', stack.gateUrl, '--feature', 'blacklist', '--keypair', keypair, '--sign-mode']);
    expect(run.code).toBe(2);
  });

  it('--help documents --sign-mode', async () => {
    const run = await x404(['login', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/--sign-mode <mode>.*challenge \(default\), siws/s);
  });
});

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoWallet } from 'x404-localnet/fixture.js';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';
import { fencedBlocks } from '../helpers/docs.js';
import { testSecret } from '../helpers/gate.js';

/**
 * What an operator does on a new machine, as the README and docs/deploying.md say it: clone,
 * `npm ci`, `npm start`, and `npx x404` from the checkout — on a fresh clone of this repository's
 * HEAD, so a build step that only `npm test` or `npm run dev` performs would show here. And the
 * systemd unit docs/deploying.md documents, checked by `systemd-analyze verify` with its paths
 * pointed at this checkout.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The environment of an operator's shell: this process's, without the npm_* variables `npm test`
 * set for it — npm_config_local_prefix among them, which would make the clone's npm commands act
 * on this checkout instead.
 */
const SHELL_ENV: Record<string, string> = Object.fromEntries(Object.entries(process.env).filter(([name, value]) => !/^npm_/i.test(name) && value !== undefined) as [string, string][]);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], options: { cwd: string; env?: Record<string, string>; timeoutMs?: number }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: { ...SHELL_ENV, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('a fresh clone', () => {
  let clone: string;
  let localnet: LocalnetHandle;
  let installed: Run;

  beforeAll(async () => {
    clone = mkdtempSync(join(tmpdir(), 'x404-clone-'));
    const cloned = spawnSync('git', ['clone', '--quiet', ROOT, clone], { encoding: 'utf8' });
    if (cloned.status !== 0) throw new Error(`git clone failed: ${cloned.stderr}`);
    localnet = await startLocalnet({ port: 0 });
    // The packages are in npm's cache from the install of this checkout.
    installed = await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: clone, timeoutMs: 240_000 });
  }, 300_000);

  afterAll(async () => {
    await localnet?.close();
    if (clone) rmSync(clone, { recursive: true, force: true });
  });

  it('npm ci builds the gate (no separate build step)', () => {
    expect(installed.code, installed.stderr).toBe(0);
    expect(() => readFileSync(join(clone, 'dist/src/main.js'))).not.toThrow();
  });

  it('npm start serves the gate from the environment', async () => {
    const child = spawn('npm', ['start'], {
      cwd: clone,
      env: { ...SHELL_ENV, PORT: '0', HOST: '127.0.0.1', JWT_SECRET: testSecret(), SOLANA_RPC_URL: localnet.url, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const port = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`npm start did not listen in time:\n${output}`)), 120_000);
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const match = /"port":(\d+)[^\n]*"msg":"listening"/.exec(output);
          if (match) {
            clearTimeout(timer);
            resolve(Number(match[1]));
          }
        });
        child.on('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${output}`)));
      });
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok', service: 'x404-gate' });

      // The CLI from the same checkout signs a wallet in to that gate.
      const keypair = join(clone, 'id.json');
      writeFileSync(keypair, JSON.stringify([...demoWallet('clean').secretKey]));
      const login = await run('npx', ['x404', 'login', '--url', `http://127.0.0.1:${port}`, '--feature', 'blacklist', '--keypair', keypair, '--policy', '{"excluded_mints":[],"max_holdings":{}}'], { cwd: clone });
      expect(login.code, login.stderr).toBe(0);
      expect(login.stdout.split('\n')[0]).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    } finally {
      // npm start runs node under a shell: stop the whole process group.
      if (child.pid && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
    }
    // npm start and npx x404 each start npm; npx's first run in a new checkout installs the checkout
    // into its cache and runs its prepare (an incremental build): minutes on a loaded machine.
  }, 300_000);
});

describe('the systemd unit of docs/deploying.md', () => {
  it('passes systemd-analyze verify', () => {
    const unit = fencedBlocks().find((block) => block.lang === 'ini' && block.tag === 'x404-systemd')?.code;
    expect(unit, 'the docs have an ```ini x404-systemd block').toBeDefined();
    expect(spawnSync('systemd-analyze', ['--version']).status, 'systemd-analyze is installed').toBe(0);
    const dir = mkdtempSync(join(tmpdir(), 'x404-unit-'));
    try {
      // The unit as documented, with its paths pointed at this checkout and this Node, which exist here.
      const file = join(dir, 'x404-gate.service');
      writeFileSync(file, (unit as string).replaceAll('/opt/x404-gate', ROOT.replace(/\/$/, '')).replaceAll('/usr/bin/node', process.execPath));
      const verified = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
      expect(verified.stderr).toBe('');
      expect(verified.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

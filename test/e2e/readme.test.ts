import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { demoWallet } from 'x404-localnet/fixture.js';
import { associatedTokenAddress, authenticate, resolveSigner } from '../../src/sdk/index.js';
import { anchorsOf, docFiles, relativeLinks, ROOT, runnableBlocks, type FencedBlock } from '../helpers/docs.js';
import { startStack, type Stack } from '../helpers/gate.js';
import { eventually } from '../helpers/launch.js';
import { waitForCounts } from '../helpers/mint-gate.js';
import { freePort, startNginx } from '../helpers/nginx.js';
import { bundleSdkForBrowser, launchBrowser, servePages, type Browser, type PageServer } from './browser-harness.js';

/**
 * The examples of README.md and docs/*.md, run as written against a real gate, wherever they
 * live. Blocks fenced as
 * ```ts x404-example browser  → a page module: a #sign-in button, a #status line, and a test wallet
 *                               at window.phantom.solana (demo wallet "clean");
 * ```ts x404-example backend  → a module whose default export's fetch(Request) gets real tokens;
 * ```ts x404-example node     → a Node script (x404-gate/sdk from dist/) signing in as demo wallet "clean";
 * ```sh x404-example          → bash, with `x404` on PATH and ~/.config/solana/id.json the demo wallet;
 * ```sh x404-example tour     → bash, with `npx x404` working and /tmp/x404-demo-clean.json the demo
 *                               wallet, as after `npm run dev`.
 * Placeholder gate URLs (https://gate.example.com, http://localhost:3000) become the test gate's.
 * "Launch your own mint" (docs/minting.md): ```sh x404-example mint-setup, mint-gate (in the background),
 * mint-try, with the local chain's URL for 127.0.0.1:8899 and the gate's for localhost:3002.
 * "Running a launch" (docs/launch-operations.md): ```sh x404-example launch-setup, launch-gate (run in
 * the background; `npm start` starts the built gate, mainnet's URL becomes the local chain's),
 * ```nginx x404-example launch-nginx (run by Debian's nginx on a free port, in front of a small mint
 * API on another) and ```sh x404-example launch-try (localhost:8080 becomes that nginx).
 * Every block fenced x404-example must be of a kind run here, and every relative link and anchor of
 * those pages must resolve.
 */
const DIST = (path: string): string => pathToFileURL(join(ROOT, 'dist/src', path)).href;
const RUN_KINDS = ['browser', 'backend', 'node', '', 'tour', 'launch-setup', 'launch-gate', 'launch-nginx', 'launch-try', 'rules-setup', 'rules-gate', 'rules-try', 'mint-setup', 'mint-gate', 'mint-try'];
/** Where `npm run dev` writes the demo wallet's keypair, as the docs say. */
const DEV_KEYPAIR = '/tmp/x404-demo-clean.json';
const CLEAN = demoWallet('clean').publicKey;

type Example = FencedBlock;

/** bash running `code` in `cwd`; resolves its exit code and output. */
function runBash(code: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', code], { cwd, env });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (exit) => resolve({ code: exit, output }));
  });
}

function runNode(file: string, cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { cwd, env: { PATH: process.env.PATH ?? '' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (exit) => resolve({ code: exit, output }));
  });
}

const examples = (): Example[] => runnableBlocks();

/** A directory with `x404` (and `npx x404`) on PATH, running the built CLI. */
/** `npm start` in a checkout is `node dist/src/main.js`; a test folder is not a checkout. */
function npmStartShim(bin: string): void {
  writeFileSync(join(bin, 'npm'), `#!/bin/sh\n[ "$1" = start ] && exec "${process.execPath}" "${join(ROOT, 'dist/src/main.js')}"\necho "npm shim: only npm start" >&2; exit 2\n`);
  chmodSync(join(bin, 'npm'), 0o755);
}

/** Runs a documented gate block in the background (detached: killed with its group); resolves once /health answers. */
async function startDocumentedGate(script: string, cwd: string, env: Record<string, string>, port: number): Promise<{ output(): string; stop(): void }> {
  const gate = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd, env, detached: true });
  let output = '';
  gate.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  gate.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = (): void => {
    if (gate.pid !== undefined && gate.exitCode === null) process.kill(-gate.pid, 'SIGKILL');
  };
  try {
    await eventually('the documented gate to answer /health', async () => {
      if (gate.exitCode !== null) throw new Error(`the documented gate exited:\n${output}`);
      return fetch(`http://127.0.0.1:${port}/health`).then((response) => response.ok, () => false);
    }, 20_000);
  } catch (error) {
    stop();
    throw error;
  }
  return { output: () => output, stop };
}

/** The one block of the docs fenced `x404-example <kind>`. */
function block(kind: string): string {
  const found = examples().find((example) => example.kind === kind);
  expect(found, `the docs have a x404-example ${kind} block`).toBeDefined();
  return found!.code;
}

function cliBin(dir: string): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'x404'), `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'dist/src/cli/x404.js')}" "$@"\n`);
  writeFileSync(join(bin, 'npx'), `#!/bin/sh\n[ "$1" = x404 ] && shift && exec "${join(bin, 'x404')}" "$@"\necho "npx shim: only npx x404" >&2; exit 2\n`);
  chmodSync(join(bin, 'x404'), 0o755);
  chmodSync(join(bin, 'npx'), 0o755);
  return bin;
}

let stack: Stack;
let work: string;
const withGate = (code: string): string => code.replaceAll('https://gate.example.com', stack.gateUrl).replaceAll('http://localhost:3000', stack.gateUrl);
const toJs = (code: string): string => ts.transpileModule(code, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;

beforeAll(async () => {
  stack = await startStack();
  work = mkdtempSync(join(tmpdir(), 'x404-readme-'));
});
afterAll(async () => {
  await stack?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the examples of README.md and docs/', () => {
  const all = examples();

  it('has an example for each audience, and the README its five-minute tour', () => {
    expect(all.map((example) => `${example.lang} ${example.kind}`.trim()).sort()).toEqual(expect.arrayContaining(['sh', 'ts backend', 'ts browser', 'ts node']));
    const readme = all.filter((example) => example.file === 'README.md').map((example) => `${example.lang} ${example.kind}`);
    expect(readme).toEqual(expect.arrayContaining(['sh tour', 'ts node']));
  });

  it('runs every block fenced x404-example: each is of a kind a test here runs', () => {
    const unknown = all.filter((example) => !RUN_KINDS.includes(example.kind)).map((example) => `${example.file}: \`\`\`${example.lang} x404-example ${example.kind}`);
    expect(unknown).toEqual([]);
  });

  describe('web page and backend', () => {
    let pages: PageServer;
    let browser: Browser;
    let page: Page;
    const pageErrors: string[] = [];

    beforeAll(async () => {
      const browserExample = all.find((example) => example.kind === 'browser');
      if (!browserExample) return;
      const html = `<!doctype html><html><head><meta charset="utf-8">
<script type="importmap">{"imports":{"x404-gate/sdk":"/sdk.js"}}</script></head>
<body><button id="sign-in">Sign in</button><p id="status"></p>
<script type="module" src="/example.js"></script></body></html>`;
      pages = await servePages({
        '/': ['text/html; charset=utf-8', html],
        '/sdk.js': ['text/javascript', await bundleSdkForBrowser()],
        '/example.js': ['text/javascript', toJs(withGate(browserExample.code))],
      });
      browser = await launchBrowser();
      page = await browser.context.newPage();
      // The test wallet: Phantom's provider shape, signing with the demo wallet in Node.
      const wallet = await resolveSigner({ secretKey: demoWallet('clean').secretKey });
      await page.exposeFunction('__x404DemoSign', async (message: number[]) => [...(await wallet.sign!(Uint8Array.from(message)))]);
      await page.addInitScript((address: string) => {
        const publicKey = { toBase58: () => address, toString: () => address };
        (window as any).phantom = {
          solana: {
            isPhantom: true,
            publicKey: null as unknown,
            async connect() {
              this.publicKey = publicKey;
              return { publicKey };
            },
            async signMessage(message: Uint8Array) {
              const signature = await (window as any).__x404DemoSign([...message]);
              return { signature: new Uint8Array(signature), publicKey };
            },
          },
        };
      }, wallet.address);
      page.on('pageerror', (error) => pageErrors.push(error.message));
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await pages?.close();
    });

    it('the page example signs a wallet in, and the backend example accepts its token', async () => {
      const backendExample = all.find((example) => example.kind === 'backend');
      expect(page, 'the docs have a ```ts x404-example browser block').toBeDefined();
      expect(backendExample, 'the docs have a ```ts x404-example backend block').toBeDefined();

      await page.goto(pages.url);
      await page.click('#sign-in');
      const wallet = demoWallet('clean').publicKey;
      const signedIn = `Signed in as ${wallet}`;
      await page.waitForFunction((expected) => document.querySelector('#status')?.textContent === expected, signedIn, { timeout: 15_000 }).catch(async () => {
        const status = await page.textContent('#status');
        throw new Error(`the page example did not sign in: #status is ${JSON.stringify(status)}; page errors: ${pageErrors.join('; ') || 'none'}`);
      });
      const token = await page.evaluate(() => Object.entries(localStorage).find(([key]) => key.startsWith('x404:'))?.[1]);
      expect(token).toBeTruthy();

      const modulePath = join(work, 'backend.mjs');
      writeFileSync(modulePath, toJs(backendExample!.code).replaceAll("'x404-gate/verifier'", `'${DIST('verifier/index.js')}'`));
      process.env.JWT_SECRET = stack.jwtSecret;
      const handler = (await import(pathToFileURL(modulePath).href)).default as { fetch(request: Request): Promise<Response> };

      const accepted = await handler.fetch(new Request('http://app/members', { headers: { authorization: `Bearer ${token}` } }));
      expect(accepted.status).toBe(200);
      expect(await accepted.json()).toMatchObject({ member: wallet });

      // A token the same wallet got under a laxer policy must not pass the backend's check.
      const lax = await authenticate({ baseUrl: stack.gateUrl, feature: 'blacklist', policy: { excluded_mints: [], max_holdings: {} }, signer: { secretKey: demoWallet('clean').secretKey }, storage: false });
      const refused = await handler.fetch(new Request('http://app/members', { headers: { authorization: `Bearer ${lax.token}` } }));
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({ error: 'POLICY_MISMATCH' });
    });
  });

  it('the operator example runs with the x404 command', async () => {
    const shellExamples = all.filter((example) => example.lang === 'sh' && example.kind === '');
    expect(shellExamples.length).toBeGreaterThan(0);
    const home = join(work, 'home');
    mkdirSync(join(home, '.config/solana'), { recursive: true });
    writeFileSync(join(home, '.config/solana/id.json'), JSON.stringify([...demoWallet('clean').secretKey]));
    writeFileSync(join(work, 'jwt-secret'), `${stack.jwtSecret}\n`);
    const bin = cliBin(work);

    for (const example of shellExamples) {
      const run = await runBash(withGate(example.code), work, { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: home });
      expect(run.code, `${example.file}\n${run.output}`).toBe(0);
      expect(run.output).toContain(`Valid blacklist token for ${CLEAN}`);
    }
  });

  it('the tour of the README runs as written after npm run dev: a nonce with curl, a sign-in with the SDK and with npx x404', async () => {
    const dir = join(work, 'tour');
    mkdirSync(dir, { recursive: true });
    const keypair = join(dir, 'x404-demo-clean.json');
    writeFileSync(keypair, JSON.stringify([...demoWallet('clean').secretKey]));
    const bin = cliBin(dir);
    const asAfterDev = (code: string): string => withGate(code).replaceAll(DEV_KEYPAIR, keypair);

    const tour = all.filter((example) => example.kind === 'tour');
    expect(tour.length).toBeGreaterThan(0);
    let output = '';
    for (const example of tour) {
      const run = await runBash(asAfterDev(example.code), dir, { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: dir });
      expect(run.code, `${example.file}\n${run.output}`).toBe(0);
      output += run.output;
    }
    expect(output).toMatch(/^x-404-nonce: [a-z0-9]{64}\r?$/im);
    expect(output).toContain('"status":"nonce_ready"');
    expect(output).toMatch(new RegExp(`"sub": "${CLEAN}"`));

    const scripts = all.filter((example) => example.kind === 'node');
    expect(scripts.length).toBeGreaterThan(0);
    for (const [index, example] of scripts.entries()) {
      const file = join(dir, `script-${index}.mjs`);
      writeFileSync(file, toJs(asAfterDev(example.code)).replaceAll("'x404-gate/sdk'", `'${DIST('sdk/index.js')}'`));
      const run = await runNode(file, dir);
      expect(run.code, `${example.file}\n${run.output}`).toBe(0);
      expect(run.output).toMatch(new RegExp(`^${CLEAN} signed in: [\\w-]+\\.[\\w-]+\\.[\\w-]+$`, 'm'));
    }
  });
});

describe('links of README.md and docs/', () => {
  it('every relative link names a file of the repository, and every #anchor a heading of its page', () => {
    const broken: string[] = [];
    for (const file of docFiles()) {
      const text = readFileSync(file, 'utf8');
      for (const link of relativeLinks(text)) {
        const [path = '', anchor] = link.split('#');
        const target = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
        const where = `${relative(ROOT, file)} → ${link}`;
        if (relative(ROOT, target).startsWith('..')) broken.push(`${where}: outside the repository`);
        else if (!existsSync(target)) broken.push(`${where}: no such file`);
        else if (anchor !== undefined && !(target.endsWith('.md') && anchorsOf(readFileSync(target, 'utf8')).has(anchor))) broken.push(`${where}: no such heading`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('the README is a front page (at most 200 lines) that links every page of docs/', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
    const linked = new Set(relativeLinks(readme).map((link) => link.split('#')[0]));
    const pages = docFiles().slice(1).map((file) => relative(ROOT, file));
    expect(pages.filter((page) => !linked.has(page))).toEqual([]);
  });
});

describe('Running a launch (docs/launch-operations.md)', () => {
  it('the setup, gate, nginx and try-it blocks run as written: only the signed-in wallet reaches the mint API', async () => {
    const dir = join(work, 'launch');
    const home = join(dir, 'home');
    mkdirSync(join(home, '.config/solana'), { recursive: true });
    mkdirSync(join(dir, 'nginx'), { recursive: true });
    writeFileSync(join(home, '.config/solana/id.json'), JSON.stringify([...demoWallet('clean').secretKey]));
    const bin = cliBin(dir);
    npmStartShim(bin);
    const env = { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: home };

    const setup = await runBash(block('launch-setup'), dir, env);
    expect(setup.code, setup.output).toBe(0);
    expect(statSync(join(dir, 'jwt-keys.pem')).mode & 0o777).toBe(0o600);

    let mintCalls = 0;
    const mintApi = createServer((request, response) => {
      mintCalls++;
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ minted: true, wallet: request.headers['x-wallet'] ?? null }));
    });
    await new Promise<void>((resolve) => mintApi.listen(0, '127.0.0.1', resolve));
    const gatePort = await freePort();
    let gate: Awaited<ReturnType<typeof startDocumentedGate>> | undefined;
    let nginx: Awaited<ReturnType<typeof startNginx>> | undefined;
    try {
      const gateScript = block('launch-gate').replaceAll('https://api.mainnet-beta.solana.com', stack.localnet.url);
      gate = await startDocumentedGate(gateScript, dir, { ...env, PORT: String(gatePort), HOST: '127.0.0.1' }, gatePort);

      const mintPort = (mintApi.address() as { port: number }).port;
      nginx = await startNginx(join(dir, 'nginx'), (port) =>
        block('launch-nginx').replace('listen 8080;', `listen 127.0.0.1:${port};`).replaceAll('127.0.0.1:3000', `127.0.0.1:${gatePort}`).replaceAll('127.0.0.1:4000', `127.0.0.1:${mintPort}`),
      );

      const tryIt = await runBash(block('launch-try').replaceAll('http://localhost:8080', nginx.url), dir, env);
      expect(tryIt.code, `${tryIt.output}\n--- gate ---\n${gate.output()}\n--- nginx ---\n${nginx.log()}`).toBe(0);
      expect(tryIt.output).toContain(`{"minted":true,"wallet":"${demoWallet('clean').publicKey}"}`);
      expect(tryIt.output).toContain(`Valid blacklist token for ${demoWallet('clean').publicKey}`);
      expect(mintCalls).toBe(1); // the refused request never reached it
      expect(gate.output()).toContain('"policyMode":"pinned"');
    } finally {
      await nginx?.stop();
      gate?.stop();
      await new Promise((resolve) => mintApi.close(resolve));
    }
  });
});

describe('Rules (docs/rules.md)', () => {
  it('the setup, gate and try-it blocks run as written: a snapshot wallet signs in to the rule, x404 check says why another is refused', async () => {
    const dir = join(work, 'rules');
    const home = join(dir, 'home');
    mkdirSync(join(home, '.config/solana'), { recursive: true });
    writeFileSync(join(home, '.config/solana/id.json'), JSON.stringify([...demoWallet('old').secretKey]));
    const bin = cliBin(dir);
    npmStartShim(bin);
    const env = { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: home };
    const chain = (code: string): string => code.replaceAll('http://127.0.0.1:8899', stack.localnet.url);

    const setup = await runBash(block('rules-setup'), dir, env);
    expect(setup.code, setup.output).toBe(0);
    const port = await freePort();
    const gate = await startDocumentedGate(chain(block('rules-gate')).replace('PORT=3001', `PORT=${port} HOST=127.0.0.1`), dir, env, port);
    try {
      const tryIt = await runBash(chain(block('rules-try')).replaceAll('http://localhost:3001', `http://127.0.0.1:${port}`), dir, env);
      expect(tryIt.code, `${tryIt.output}\n--- gate ---\n${gate.output()}`).toBe(0);
      expect(tryIt.output).toContain(`Valid rule launch token for ${demoWallet('old').publicKey}`);
      expect(tryIt.output).toMatch(/✗ rule launch .* refused with 403 WALLET_DENIED/);
      expect(tryIt.output).toContain('refused (exit 1)');
    } finally {
      gate.stop();
    }
  });
});

describe('Launch your own mint (docs/minting.md)', () => {
  it('the setup, gate and try blocks run as written: a new token mint, its entry pasted, a mint landed', async () => {
    const dir = join(work, 'own-mint');
    mkdirSync(dir, { recursive: true });
    const bin = cliBin(dir);
    npmStartShim(bin);
    const env = { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: dir };
    const chain = (code: string): string => code.replaceAll('http://127.0.0.1:8899', stack.localnet.url);

    const setup = await runBash(chain(block('mint-setup')), dir, env);
    expect(setup.code, setup.output).toBe(0);
    const entry = JSON.parse(readFileSync(join(dir, 'entry.json'), 'utf8')) as { genesis: { mint: string; signer: string } };
    expect(entry.genesis.signer).toBe('keys/signer.json');
    const port = await freePort();
    const gate = await startDocumentedGate(chain(block('mint-gate')).replace('PORT=3002', `PORT=${port} HOST=127.0.0.1`), dir, env, port);
    try {
      // The block waits while the new gate rebuilds its counts; the chain's blocks are produced
      // meanwhile rather than waited for (a minute of them).
      const [tryIt] = await Promise.all([
        runBash(chain(block('mint-try')).replaceAll('http://localhost:3002', `http://127.0.0.1:${port}`), dir, env),
        waitForCounts(`http://127.0.0.1:${port}`, stack.localnet.url, ['genesis']),
      ]);
      expect(tryIt.code, `${tryIt.output}\n--- gate ---\n${gate.output()}`).toBe(0);
      expect(tryIt.output).toContain('"eligible":true');
      expect(tryIt.output).toMatch(/Confirmed \((confirmed|finalized)\) in slot \d+/);
      // Landed: the new wallet's token account of the new mint holds one token.
      const minter = (await resolveSigner({ secretKey: Uint8Array.from(JSON.parse(readFileSync(join(dir, 'wallet.json'), 'utf8')) as number[]) })).address;
      const ata = await associatedTokenAddress(minter, entry.genesis.mint, 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
      const reply = (await (await fetch(stack.localnet.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getAccountInfo', params: [ata, { encoding: 'base64', commitment: 'confirmed' }] }) })).json()) as any;
      expect(Buffer.from(reply.result.value.data[0] as string, 'base64').readBigUInt64LE(64)).toBe(1n);
    } finally {
      gate.stop();
    }
  });
});

import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { demoWallet } from '../../src/localnet/fixture.js';
import { authenticate, resolveSigner } from '../../src/sdk/index.js';
import { startStack, type Stack } from '../helpers/gate.js';
import { bundleSdkForBrowser, launchBrowser, servePages, type Browser, type PageServer } from './browser-harness.js';

/**
 * The README's examples, run as written against a real gate. Blocks fenced as
 * ```ts x404-example browser  → a page module: a #sign-in button, a #status line, and a test wallet
 *                               at window.phantom.solana (demo wallet "clean");
 * ```ts x404-example backend  → a module whose default export's fetch(Request) gets real tokens;
 * ```sh x404-example          → bash, with `x404` on PATH and ~/.config/solana/id.json the demo wallet.
 * Placeholder gate URLs (https://gate.example.com, http://localhost:3000) become the test gate's.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = process.env.X404_README_PATH ?? join(ROOT, 'README.md');
const DIST = (path: string): string => pathToFileURL(join(ROOT, 'dist/src', path)).href;

interface Example {
  lang: string;
  kind: string;
  code: string;
}

function examples(): Example[] {
  const found: Example[] = [];
  for (const match of readFileSync(README, 'utf8').matchAll(/^```(\w+) x404-example ?(\w*)\n([\s\S]*?)^```$/gm)) {
    found.push({ lang: match[1] as string, kind: match[2] as string, code: match[3] as string });
  }
  return found;
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

describe('README examples', () => {
  const all = examples();

  it('has an example for each audience', () => {
    expect(all.map((example) => `${example.lang} ${example.kind}`.trim()).sort()).toEqual(expect.arrayContaining(['sh', 'ts backend', 'ts browser']));
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
      await page.exposeFunction('__x404DemoSign', async (message: number[]) => [...(await wallet.sign(Uint8Array.from(message)))]);
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
      expect(page, 'README has a ```ts x404-example browser block').toBeDefined();
      expect(backendExample, 'README has a ```ts x404-example backend block').toBeDefined();

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
    const shellExamples = all.filter((example) => example.lang === 'sh');
    expect(shellExamples.length).toBeGreaterThan(0);
    const home = join(work, 'home');
    const bin = join(work, 'bin');
    mkdirSync(join(home, '.config/solana'), { recursive: true });
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(home, '.config/solana/id.json'), JSON.stringify([...demoWallet('clean').secretKey]));
    writeFileSync(join(work, 'jwt-secret'), `${stack.jwtSecret}\n`);
    writeFileSync(join(bin, 'x404'), `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'dist/src/cli/x404.js')}" "$@"\n`);
    chmodSync(join(bin, 'x404'), 0o755);

    for (const example of shellExamples) {
      const run = await new Promise<{ code: number | null; output: string }>((resolve) => {
        const child = spawn('bash', ['-euo', 'pipefail', '-c', withGate(example.code)], {
          cwd: work,
          env: { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: home },
        });
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.on('exit', (code) => resolve({ code, output }));
      });
      expect(run.code, run.output).toBe(0);
      expect(run.output).toContain(`Valid blacklist token for ${demoWallet('clean').publicKey}`);
    }
  });
});

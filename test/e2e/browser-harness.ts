import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { rolldown } from 'rolldown';

/**
 * Shared by the browser and README tests: the SDK bundled for browsers, a page server on its own
 * origin, and Debian's chromium driven by playwright-core.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * src/sdk bundled as one browser ES module, the way a web app's bundler would see it. platform
 * 'browser' makes any Node-only import a build failure, so this also proves the SDK is browser-safe.
 */
export async function bundleSdkForBrowser(): Promise<string> {
  const bundle = await rolldown({
    input: join(ROOT, 'src/sdk/index.ts'),
    cwd: ROOT,
    platform: 'browser',
    resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
    logLevel: 'warn',
  });
  try {
    const { output } = await bundle.generate({ format: 'esm' });
    const [chunk] = output;
    if (!chunk || chunk.type !== 'chunk' || output.length !== 1) throw new Error('expected one chunk');
    if (/\bfrom\s*["']node:|require\(["']node:/.test(chunk.code)) throw new Error('the SDK bundle imports a Node builtin');
    // Node's globals are not there either (a module that touches Buffer at load time breaks the page).
    if (/\b(?:Buffer|process)\.\w/.test(chunk.code)) throw new Error('the SDK bundle uses a Node global (Buffer or process)');
    return chunk.code;
  } finally {
    await bundle.close();
  }
}

export interface PageServer {
  url: string;
  close(): Promise<void>;
}

/** Serves fixed files (path → [content type, body]) on localhost: an origin other than the gate's 127.0.0.1. */
export async function servePages(files: Record<string, [string, string]>): Promise<PageServer> {
  const server: Server = createServer((req, res) => {
    const file = files[new URL(req.url ?? '/', 'http://localhost').pathname];
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': file[0], 'cache-control': 'no-store' }).end(file[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://localhost:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless chromium with a fresh profile and no background traffic. */
export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'x404-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export const SDK_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>x404 test page</title></head>
<body>
<script type="module">
  import * as x404 from '/sdk.js';
  window.x404 = x404;
</script>
</body></html>`;

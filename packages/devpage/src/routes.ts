import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExtraRoute } from '../../../dist/src/embed.js';
import type { RecordedCall } from 'x404-localnet/call-log.js';
import { browserModules } from './browser-modules.js';
import { demoCatalogue } from './demo.js';

/**
 * The watch page of `npm run dev` (docs/architecture.md): GET routes for dev.ts to hand to the
 * gate. `/` is src/page.html with an import map; the page's module (dist/page.js),
 * the compiled SDK and the packages it imports are served as they are under /watch/files/; the
 * demo wallets (with their public test keys) and policies at /watch/demo.json; the JSON-RPC calls
 * the embedded local chain answered at /watch/chain-reads?since=<seq>.
 */
export interface WatchSources {
  /** The embedded local chain's call log; undefined when the gate reads another RPC (SOLANA_RPC_URL). */
  chainCalls?: (since: number) => { last: number; calls: RecordedCall[] };
  /** Where the gate reads the chain, for the page to say. */
  rpcUrl: string;
  /** The embedded local chain's URL, which the page calls itself (a blockhash, statuses, balances) for the co-signed mint. */
  chainUrl?: string;
}

const JS = 'text/javascript; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
const NO_STORE = { 'Cache-Control': 'no-store' };
const IMPORT_MAP_MARK = '<!-- import map -->';

export function watchRoutes(sources: WatchSources): Record<string, ExtraRoute> {
  const root = workspaceRoot();
  const modules = browserModules(root, [join(PACKAGE_DIR, 'dist/page.js')], '/watch/files');
  const template = readFileSync(join(PACKAGE_DIR, 'src/page.html'), 'utf8');
  if (!template.includes(IMPORT_MAP_MARK)) throw new Error(`packages/devpage/src/page.html has no "${IMPORT_MAP_MARK}" line`);
  const html = template
    .replace(IMPORT_MAP_MARK, `<script type="importmap">${JSON.stringify(modules.importMap)}</script>`)
    .replace('/watch/page.js', modules.entries[0] as string);
  const demoJson = JSON.stringify({ ...demoCatalogue(), rpcUrl: sources.rpcUrl, recordsChainReads: sources.chainCalls !== undefined, chainUrl: sources.chainUrl });

  const routes: Record<string, ExtraRoute> = {
    '/': async () => ({ body: html, contentType: 'text/html; charset=utf-8', headers: NO_STORE }),
    '/watch/demo.json': async () => ({ body: demoJson, contentType: JSON_TYPE, headers: NO_STORE }),
    '/watch/chain-reads': async ({ query }) => {
      const since = Number(new URLSearchParams(query).get('since') ?? 0);
      const answer = sources.chainCalls?.(Number.isSafeInteger(since) && since > 0 ? since : 0) ?? { last: 0, calls: [] };
      return { body: JSON.stringify(answer), contentType: JSON_TYPE, headers: NO_STORE };
    },
  };
  for (const [url, text] of modules.files) routes[url] = async () => ({ body: text, contentType: JS, headers: NO_STORE });
  return routes;
}

/** This package's folder (packages/devpage), whether the module runs from src/ or dist/. */
const PACKAGE_DIR = dirname(dirname(fileURLToPath(import.meta.url)));

/**
 * The checkout this package is a workspace of: the first folder above it whose package.json names
 * workspaces. Every file the page serves (this package's modules, the gate's SDK, node_modules)
 * is under it, and its URL mirrors its path there.
 */
function workspaceRoot(): string {
  for (let dir = dirname(PACKAGE_DIR); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { workspaces?: unknown }).workspaces !== undefined) return dir;
  }
  throw new Error('the watch page needs the repository checkout (no workspace root above packages/devpage)');
}

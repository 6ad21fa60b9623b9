import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExtraRoute } from '../http/server.js';
import type { RecordedCall } from '../localnet/call-log.js';
import { browserModules } from './browser-modules.js';
import { demoCatalogue } from './demo.js';

/**
 * The watch page of `npm run dev` (docs/architecture.md): GET routes for src/dev.ts to hand to the
 * gate. `/` is src/watch/page.html with an import map; the page's module (dist/src/watch/page.js),
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
  const root = repositoryRoot();
  const modules = browserModules(root, [join(root, 'dist/src/watch/page.js')], '/watch/files');
  const template = readFileSync(join(root, 'src/watch/page.html'), 'utf8');
  if (!template.includes(IMPORT_MAP_MARK)) throw new Error(`src/watch/page.html has no "${IMPORT_MAP_MARK}" line`);
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

/** The checkout this module runs from (src/ in tests, dist/src/ otherwise): the first folder up with a package.json. */
function repositoryRoot(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
  }
  throw new Error('the watch page needs the repository checkout (no package.json above this module)');
}

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ListRead } from '../../workers/wallet-lists.js';
import { walletListFrom, type WalletList } from './wallet-list.js';

/**
 * The wallet lists a policies file's rules name, read in a worker thread: what SIGHUP does before it
 * loads the file (src/app.ts), so that reading and sorting a million addresses (~0.85 s of CPU,
 * bench/WALLET-LIST.md) does not stop the event loop while the gate serves a launch. The loader then
 * takes these instead of reading the files itself (loadPolicyFile's `preloaded`).
 *
 * Best effort: a list that could not be read here (bad line, missing file), or any trouble with the
 * file or the worker, is simply left out, and the loader reads it on the event loop as at start-up,
 * where it fails with the usual message naming the rule, the file and the line.
 */
export async function readListsOffThread(policiesFile: string): Promise<Map<string, WalletList>> {
  const paths = listPaths(policiesFile);
  if (paths.length === 0) return new Map();
  try {
    const reads = await new Promise<ListRead[]>((resolvePromise, reject) => {
      const worker = new Worker(workerFilename(), { workerData: paths });
      worker.once('message', (message: ListRead[]) => {
        resolvePromise(message);
        void worker.terminate();
      });
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`wallet list worker exited with code ${code}`)));
    });
    return new Map(reads.flatMap(({ path, data }) => (data ? [[path, walletListFrom(path, data)] as const] : [])));
  } catch {
    return new Map();
  }
}

/** Absolute paths of the `"wallets"` files of every rule (as the loader resolves them); none when the file does not parse. */
export function listPaths(policiesFile: string): string[] {
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(policiesFile, 'utf8'));
  } catch {
    return [];
  }
  const found = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node !== null && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'wallets' && typeof value === 'string' && value.trim() !== '') found.add(resolve(dirname(resolve(policiesFile)), value));
        else visit(value);
      }
    }
  };
  visit((document as { rules?: unknown } | null)?.rules);
  return [...found];
}

function workerFilename(): string {
  // From dist/src/rules/ the compiled worker is dist/workers/wallet-lists.js; under vitest the
  // source runs as .ts, so point at the build (npm test builds first).
  const here = import.meta.url;
  return fileURLToPath(new URL(here.endsWith('.ts') ? '../../dist/workers/wallet-lists.js' : '../../workers/wallet-lists.js', here));
}

import { parentPort, workerData } from 'node:worker_threads';
import { readWalletList, type WalletListData } from '../src/rules/wallet-list.js';

/**
 * One-off worker (src/rules/read-lists.ts): reads the wallet lists named in `workerData` (paths)
 * and posts back each one's sorted keys, or the reason it could not be read.
 */
export interface ListRead {
  path: string;
  data?: WalletListData;
  error?: string;
}

const reads: ListRead[] = (workerData as string[]).map((path) => {
  try {
    return { path, data: readWalletList(path) };
  } catch (error) {
    return { path, error: (error as Error).message };
  }
});
// Hand the buffers over instead of copying them — only those that own their whole memory (a small
// Buffer can be a view into Node's shared pool, which must not be detached).
const owned = (view: Uint8Array | Uint32Array): ArrayBuffer[] => (view.byteOffset === 0 && view.byteLength === view.buffer.byteLength ? [view.buffer as ArrayBuffer] : []);
parentPort!.postMessage(reads, reads.flatMap(({ data }) => (data ? [...owned(data.keys), ...owned(data.firstOfBucket)] : [])));

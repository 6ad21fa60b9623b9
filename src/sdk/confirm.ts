import { X404Error } from './errors.js';
import type { Fetch } from './http.js';

/**
 * Waiting for a sent transaction over plain JSON-RPC HTTP (no websockets: not every node serves
 * them, the local chain none): `getSignatureStatuses` every `intervalMs` until the transaction is
 * confirmed (resolves), failed (TRANSACTION_FAILED with the chain's `err`), or the chain's block
 * height passed `lastValidBlockHeight` without it (TRANSACTION_EXPIRED: it can never land; build it
 * again). Documented methods only, so it works against any RPC provider.
 */
export interface ConfirmOptions {
  rpcUrl: string;
  signature: string;
  /** No block above this height can include the transaction. */
  lastValidBlockHeight: number;
  /** Default 'confirmed'. */
  commitment?: 'confirmed' | 'finalized';
  /** Between polls; default 500 ms. */
  intervalMs?: number;
  fetch?: Fetch;
  signal?: AbortSignal;
}

export interface Confirmation {
  signature: string;
  slot: number;
  confirmationStatus: 'confirmed' | 'finalized';
}

interface SignatureStatus {
  slot: number;
  err: unknown;
  confirmationStatus?: 'processed' | 'confirmed' | 'finalized' | null;
}

export async function confirmTransaction(options: ConfirmOptions): Promise<Confirmation> {
  const fetchImpl: Fetch = options.fetch ?? ((input, init) => fetch(input, init));
  const wanted = options.commitment ?? 'confirmed';
  const call = (method: string, params: unknown[]): Promise<unknown> => rpc(fetchImpl, options.rpcUrl, method, params, options.signal);
  for (;;) {
    // The height first: a status read after it that is still empty means the transaction cannot land any more.
    const height = Number(await call('getBlockHeight', [{ commitment: wanted }]));
    const reply = (await call('getSignatureStatuses', [[options.signature], { searchTransactionHistory: false }])) as { value?: (SignatureStatus | null)[] } | undefined;
    const status = reply?.value?.[0] ?? null;
    if (status !== null) {
      if (status.err !== null && status.err !== undefined) {
        throw new X404Error('TRANSACTION_FAILED', `The transaction landed and failed: ${JSON.stringify(status.err)}`, 0, { err: status.err as never, signature: options.signature });
      }
      if (status.confirmationStatus === 'finalized' || (wanted === 'confirmed' && status.confirmationStatus === 'confirmed')) {
        return { signature: options.signature, slot: status.slot, confirmationStatus: status.confirmationStatus };
      }
    } else if (Number.isFinite(height) && height > options.lastValidBlockHeight) {
      throw new X404Error('TRANSACTION_EXPIRED', `The transaction did not land before its blockhash expired (block height ${height} > ${options.lastValidBlockHeight}); it never will: mint again`, 0, { signature: options.signature });
    }
    await sleep(options.intervalMs ?? 500, options.signal);
  }
}

async function rpc(fetchImpl: Fetch, url: string, method: string, params: unknown[], signal: AbortSignal | undefined): Promise<unknown> {
  let body: { result?: unknown; error?: { message?: string } };
  try {
    const response = await fetchImpl(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), ...(signal ? { signal } : {}) });
    body = (await response.json()) as typeof body;
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new X404Error('NETWORK_ERROR', `The RPC node could not be read (${method}): ${(error as Error).message}`, 0, undefined, { cause: error });
  }
  if (body.error !== undefined || !('result' in body)) throw new X404Error('NETWORK_ERROR', `The RPC node refused ${method}: ${body.error?.message ?? 'no result'}`);
  return body.result;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}

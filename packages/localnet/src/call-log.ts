/**
 * The JSON-RPC calls the local chain answered, newest last, each with a sequence number: what the
 * watch page of `npm run dev` shows as "the chain reads the gate made" for one sign-in. Off unless
 * the local chain is started with `recordCalls` (benchmarks and tests do not pay for it).
 */
export interface RecordedCall {
  /** 1, 2, 3, … in the order the calls were answered. */
  seq: number;
  atMs: number;
  /** The HTTP request that carried the call: calls of one JSON-RPC batch share it. */
  httpRequest: number;
  method: string;
  params: unknown;
  /** What the answer said, in a few words (`2 of 3 accounts exist`, `error -32602: …`). */
  answer: string;
}

export class CallLog {
  private readonly calls: RecordedCall[] = [];
  private last = 0;

  constructor(private readonly capacity: number) {}

  record(httpRequest: number, method: string, params: unknown, answer: string): void {
    this.last += 1;
    this.calls.push({ seq: this.last, atMs: Date.now(), httpRequest, method, params, answer });
    if (this.calls.length > this.capacity) this.calls.shift();
  }

  /** The calls after `seq` (all kept ones for 0), and the last sequence number given out. */
  since(seq: number): { last: number; calls: RecordedCall[] } {
    return { last: this.last, calls: this.calls.filter((call) => call.seq > seq) };
  }
}

/** A few words about one JSON-RPC reply member (the JSON text the local chain sent). */
export function summarizeAnswer(method: string, replyJson: string): string {
  let reply: { result?: unknown; error?: { code?: unknown; message?: unknown } };
  try {
    reply = JSON.parse(replyJson) as typeof reply;
  } catch {
    return 'a malformed reply (fault)';
  }
  if (reply.error) return `error ${String(reply.error.code)}: ${String(reply.error.message)}`;
  const result = reply.result;
  const transaction = summarizeTransactionAnswer(method, result);
  if (transaction !== null) return transaction;
  const value = result !== null && typeof result === 'object' && 'value' in result ? (result as { value: unknown }).value : result;
  if (Array.isArray(value)) {
    if (method === 'getMultipleAccounts') return `${value.filter((entry) => entry !== null).length} of ${value.length} accounts exist`;
    return `${value.length} ${value.length === 1 ? 'entry' : 'entries'}`;
  }
  if (value === null || value === undefined) return method === 'getAccountInfo' || method === 'getTransaction' ? 'not found' : 'no value';
  return typeof value === 'object' ? 'found' : String(value);
}

/** The transaction methods, in the words a watcher of a co-signed mint needs. */
function summarizeTransactionAnswer(method: string, result: unknown): string | null {
  const value = result !== null && typeof result === 'object' && 'value' in result ? (result as { value: unknown }).value : undefined;
  switch (method) {
    case 'sendTransaction':
      return typeof result === 'string' ? `sent: ${result}` : null;
    case 'requestAirdrop':
      return typeof result === 'string' ? `airdrop: ${result}` : null;
    case 'simulateTransaction': {
      const simulation = value as { err?: unknown; unitsConsumed?: number } | undefined;
      if (!simulation) return null;
      return simulation.err === null ? `simulated: success, ${simulation.unitsConsumed ?? 0} compute units` : `simulated: failed, ${JSON.stringify(simulation.err)}`;
    }
    case 'getLatestBlockhash': {
      const latest = value as { blockhash?: string; lastValidBlockHeight?: number } | undefined;
      return latest?.blockhash ? `${latest.blockhash}, valid through block ${latest.lastValidBlockHeight}` : null;
    }
    case 'getSignatureStatuses': {
      if (!Array.isArray(value)) return null;
      return value
        .map((status: { confirmationStatus?: string; err?: unknown } | null) =>
          status === null ? 'unknown' : status.err === null || status.err === undefined ? String(status.confirmationStatus) : `${status.confirmationStatus}, failed ${JSON.stringify(status.err)}`,
        )
        .join('; ');
    }
    case 'getBlockHeight':
      return typeof result === 'number' ? `block ${result}` : null;
    default:
      return null;
  }
}

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
  const value = result !== null && typeof result === 'object' && 'value' in result ? (result as { value: unknown }).value : result;
  if (Array.isArray(value)) {
    if (method === 'getMultipleAccounts') return `${value.filter((entry) => entry !== null).length} of ${value.length} accounts exist`;
    return `${value.length} ${value.length === 1 ? 'entry' : 'entries'}`;
  }
  if (value === null || value === undefined) return method === 'getAccountInfo' || method === 'getTransaction' ? 'not found' : 'no value';
  return typeof value === 'object' ? 'found' : String(value);
}

/** Request counters: what the benchmark and tests read to see how many RPC calls the gate made. */
export interface CounterSnapshot {
  httpRequests: number;
  /** JSON-RPC calls per method, batch members counted singly. */
  calls: Record<string, number>;
  /** HTTP requests carrying at least one call of the method: its round trips (e.g. getMultipleAccounts rounds). */
  requestsWith: Record<string, number>;
  /** HTTP requests answered 429 by the provider simulation's rate limit (provider.ts). */
  rateLimited: number;
  /** TCP connections accepted (a client with keep-alive opens few). */
  connections: number;
  /** Bytes of the JSON-RPC request bodies read, and of the 200 answers written (what a provider meters as bandwidth). */
  requestBytes: number;
  responseBytes: number;
  /** Bytes of each call's answer (`{"jsonrpc":…,"result":…}`) per method, batch members counted singly. */
  answerBytes: Record<string, number>;
}

export class Counters {
  httpRequests = 0;
  calls: Record<string, number> = {};
  requestsWith: Record<string, number> = {};
  rateLimited = 0;
  connections = 0;
  requestBytes = 0;
  responseBytes = 0;
  answerBytes: Record<string, number> = {};

  /** The methods of one HTTP request's calls (the request itself is counted when it arrives). */
  countCalls(methods: readonly string[]): void {
    for (const method of methods) this.calls[method] = (this.calls[method] ?? 0) + 1;
    for (const method of new Set(methods)) this.requestsWith[method] = (this.requestsWith[method] ?? 0) + 1;
  }

  /** Each call's answer (JSON text), by the method it answered (undefined: a member that was not a call). */
  countAnswers(methods: readonly (string | undefined)[], answers: readonly string[]): void {
    methods.forEach((method, i) => {
      if (method !== undefined) this.answerBytes[method] = (this.answerBytes[method] ?? 0) + Buffer.byteLength(answers[i]!);
    });
  }

  snapshot(): CounterSnapshot {
    return {
      httpRequests: this.httpRequests,
      calls: { ...this.calls },
      requestsWith: { ...this.requestsWith },
      rateLimited: this.rateLimited,
      connections: this.connections,
      requestBytes: this.requestBytes,
      responseBytes: this.responseBytes,
      answerBytes: { ...this.answerBytes },
    };
  }

  reset(): void {
    this.httpRequests = 0;
    this.calls = {};
    this.requestsWith = {};
    this.rateLimited = 0;
    this.connections = 0;
    this.requestBytes = 0;
    this.responseBytes = 0;
    this.answerBytes = {};
  }
}

import { connect, type Socket } from 'node:net';

/**
 * A bare HTTP/1.1 client over node:net for tests that must send what fetch refuses: duplicated
 * headers, non-ASCII (UTF-8) header values, any method, exact bytes. Keep-alive, one request at a
 * time per connection; a pool of connections gives concurrency.
 */
export interface RawResponse {
  status: number;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Map<string, string>;
  body: Buffer;
}

export interface RawRequest {
  method: string;
  /** Sent as-is: may contain any bytes except CR, LF and space. */
  target: Buffer | string;
  /** Name/value pairs in order; duplicates allowed. Strings are sent as UTF-8. */
  headers: Array<[string, string | Buffer]>;
  body?: Buffer;
}

const CRLF = Buffer.from('\r\n');

export function encodeRequest(request: RawRequest, host: string, close: boolean): Buffer {
  const parts: Buffer[] = [Buffer.from(`${request.method} `), Buffer.from(request.target), Buffer.from(' HTTP/1.1\r\nHost: '), Buffer.from(host), CRLF];
  for (const [name, value] of request.headers) parts.push(Buffer.from(`${name}: `), Buffer.from(value), CRLF);
  if (request.body) parts.push(Buffer.from(`Content-Length: ${request.body.length}\r\n`));
  if (close) parts.push(Buffer.from('Connection: close\r\n'));
  parts.push(CRLF);
  if (request.body) parts.push(request.body);
  return Buffer.concat(parts);
}

class Connection {
  private socket: Socket | undefined;
  private buffer: Buffer = Buffer.alloc(0);
  private waiting: { resolve(response: RawResponse): void; reject(error: Error): void } | undefined;
  private head: { status: number; headers: Map<string, string>; bodyStart: number; length: number | undefined } | undefined;

  constructor(
    private readonly port: number,
    private readonly host: string,
  ) {}

  send(bytes: Buffer, timeoutMs: number): Promise<RawResponse> {
    if (this.socket === undefined || this.socket.destroyed) this.open();
    this.buffer = Buffer.alloc(0);
    this.head = undefined;
    return new Promise<RawResponse>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.socket?.destroy();
        this.settle(new Error(`no response within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting = {
        resolve: (response) => {
          clearTimeout(timer);
          resolve(response);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.socket!.write(bytes);
    });
  }

  close(): void {
    this.socket?.destroy();
  }

  private open(): void {
    const socket = connect(this.port, this.host);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      if (this.socket !== socket) return;
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      this.parse(false);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      this.parse(true);
      this.settle(new Error('connection closed before a complete response'));
    });
    this.socket = socket;
  }

  private parse(closed: boolean): void {
    if (this.waiting === undefined) return;
    if (this.head === undefined) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const lines = this.buffer.subarray(0, end).toString('latin1').split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1]);
      const headers = new Map<string, string>();
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        const earlier = headers.get(name);
        headers.set(name, earlier === undefined ? value : `${earlier}, ${value}`);
      }
      const lengthHeader = headers.get('content-length');
      this.head = { status, headers, bodyStart: end + 4, length: lengthHeader === undefined ? undefined : Number(lengthHeader) };
    }
    const { status, headers, bodyStart, length } = this.head;
    const available = this.buffer.length - bodyStart;
    if (length !== undefined ? available >= length : closed) {
      const body = Buffer.from(this.buffer.subarray(bodyStart, length === undefined ? undefined : bodyStart + length));
      if (headers.get('connection')?.toLowerCase() === 'close') this.socket?.destroy();
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting.resolve({ status, headers, body });
    }
  }

  private settle(error: Error): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(error);
  }
}

/** `size` keep-alive connections; `send` waits for a free one. */
export class RawPool {
  private readonly idle: Connection[] = [];
  private readonly queue: Array<(connection: Connection) => void> = [];
  private readonly all: Connection[] = [];

  constructor(
    private readonly port: number,
    size: number,
    private readonly host = '127.0.0.1',
  ) {
    for (let i = 0; i < size; i += 1) {
      const connection = new Connection(port, host);
      this.all.push(connection);
      this.idle.push(connection);
    }
  }

  async send(request: RawRequest, options: { close?: boolean; timeoutMs?: number } = {}): Promise<RawResponse> {
    const connection = this.idle.pop() ?? (await new Promise<Connection>((resolve) => this.queue.push(resolve)));
    try {
      const bytes = encodeRequest(request, `${this.host}:${this.port}`, options.close ?? false);
      try {
        return await connection.send(bytes, options.timeoutMs ?? 15_000);
      } catch (error) {
        // The server may close an idle keep-alive connection just as a request goes out: retry once
        // on a fresh connection (every request here is idempotent).
        if (!(error instanceof Error) || !error.message.startsWith('connection closed')) throw error;
        connection.close();
        return await connection.send(bytes, options.timeoutMs ?? 15_000);
      }
    } finally {
      const next = this.queue.shift();
      if (next) next(connection);
      else this.idle.push(connection);
    }
  }

  close(): void {
    for (const connection of this.all) connection.close();
  }
}

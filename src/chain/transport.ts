import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';

/**
 * The RPC client's HTTP transport: what the client needs of HTTP (FetchLike, HttpReply), and POSTs
 * over node:http(s) with a keep-alive agent, so a batch rides a connection already open instead of
 * paying a TCP (and TLS) handshake — at a provider 80 ms away that is a round trip or two per
 * request. Sockets per provider are capped at `maxSockets` (the concurrency limit's maximum, plus
 * room for hedges); idle ones are closed after IDLE_SOCKET_MS, below the keep-alive timeout servers
 * commonly use (5 s), so the gate rarely writes to a socket the provider is closing. When it does
 * (ECONNRESET or EPIPE on a reused socket before any answer), the request is sent once more on a
 * new one — Node's documented pattern (`request.reusedSocket`); the provider never saw it.
 *
 * Answers may come gzip-encoded (exchange.ts asks with Accept-Encoding: gzip; lists of token
 * accounts shrink several times) and are decoded here. Whatever the encoding, an answer larger than
 * `maxResponseBytes` (RPC_MAX_RESPONSE_BYTES), on the wire or once inflated, is not read further:
 * the request is destroyed and fails with code ERESPONSETOOLARGE, a failed attempt — a provider
 * cannot make the gate hold gigabytes.
 *
 * The answer is the little the client reads (status, headers, body text), not a fetch Response:
 * building those loads undici on the first answer (~10 ms of a fresh gate's first sign-ins) and
 * costs more per request.
 */
const IDLE_SOCKET_MS = 4_000;

/** What the client reads of an HTTP answer: a fetch Response is one; keepAliveFetch makes lighter ones. */
export interface HttpReply {
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}

/** How the client POSTs: the global fetch, keepAliveFetch, or a test's stand-in. */
export type FetchLike = (url: string, init: RequestInit) => Promise<HttpReply>;

/** The error code of an answer over RPC_MAX_RESPONSE_BYTES. */
export const RESPONSE_TOO_LARGE = 'ERESPONSETOOLARGE';
/** RPC_MAX_RESPONSE_BYTES's default: far above any answer the gate asks for, far below a machine's memory. */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

interface Transport {
  agents: { http: http.Agent; https: https.Agent };
  maxResponseBytes: number;
}

export function keepAliveFetch(maxSockets: number, maxResponseBytes = MAX_RESPONSE_BYTES): FetchLike {
  const options = { keepAlive: true, maxSockets, maxFreeSockets: maxSockets, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' as const };
  const transport = { agents: { http: new http.Agent(options), https: new https.Agent(options) }, maxResponseBytes };
  return (url, init) => post(new URL(url), init, transport, true);
}

function tooLarge(limit: number): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`RPC answer over ${limit} bytes (RPC_MAX_RESPONSE_BYTES)`);
  error.code = RESPONSE_TOO_LARGE;
  return error;
}

function post(url: URL, init: RequestInit, transport: Transport, mayResend: boolean): Promise<HttpReply> {
  const { agents, maxResponseBytes } = transport;
  const secure = url.protocol === 'https:';
  const body = typeof init.body === 'string' ? init.body : '';
  const signal = init.signal ?? undefined;
  return new Promise<HttpReply>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const headers: Record<string, string> = { ...(init.headers as Record<string, string> | undefined), 'content-length': String(Buffer.byteLength(body)) };
    const request = (secure ? https : http).request(url, { method: init.method ?? 'POST', headers, agent: secure ? agents.https : agents.http });
    const onAbort = (): void => {
      request.destroy();
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = (): void => signal?.removeEventListener('abort', onAbort);
    let answered = false;
    request.on('response', (response) => {
      answered = true;
      const encoding = String(response.headers['content-encoding'] ?? '').trim().toLowerCase();
      const gzipped = encoding === 'gzip' || encoding === 'x-gzip';
      // The decoded bytes are what count; a gunzip stream stops at the bound, not after inflating it all.
      const source = gzipped ? response.pipe(zlib.createGunzip()) : response;
      const chunks: Buffer[] = [];
      let bytes = 0;
      let failed = false;
      const fail = (error: Error): void => {
        if (failed) return;
        failed = true;
        done();
        request.destroy();
        reject(error);
      };
      source.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > maxResponseBytes) {
          if (source !== response) (source as zlib.Gunzip).destroy();
          fail(tooLarge(maxResponseBytes));
          return;
        }
        chunks.push(chunk);
      });
      if (source !== response) source.on('error', (error) => fail(error));
      source.on('end', () => {
        if (failed) return;
        done();
        const text = Buffer.concat(chunks).toString('utf8');
        const headers = response.headers;
        resolve({
          status: response.statusCode ?? 0,
          headers: {
            get(name) {
              const value = headers[name.toLowerCase()];
              return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
            },
          },
          text: () => Promise.resolve(text),
        });
      });
      response.on('error', (error) => fail(error));
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      done();
      if (signal?.aborted) return; // rejected by onAbort
      const stale = !answered && request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
      if (stale && mayResend) resolve(post(url, init, transport, false));
      else reject(error);
    });
    request.end(body);
  });
}

import http from 'node:http';
import https from 'node:https';
import type { FetchLike, HttpReply } from './rpc.js';

/**
 * The RPC client's HTTP transport: POSTs over node:http(s) with a keep-alive agent, so a batch
 * rides a connection already open instead of paying a TCP (and TLS) handshake — at a provider
 * 80 ms away that is a round trip or two per request. Sockets per provider are capped at
 * `maxSockets` (the concurrency limit's maximum, plus room for hedges); idle ones are closed after
 * IDLE_SOCKET_MS, below the keep-alive timeout servers commonly use (5 s), so the gate rarely
 * writes to a socket the provider is closing. When it does (ECONNRESET or EPIPE on a reused socket
 * before any answer), the request is sent once more on a new one — Node's documented pattern
 * (`request.reusedSocket`); the provider never saw it.
 *
 * The answer is the little rpc.ts reads (status, headers, body text), not a fetch Response: building
 * those loads undici on the first answer (~10 ms of a fresh gate's first sign-ins) and costs more
 * per request.
 */
const IDLE_SOCKET_MS = 4_000;

export function keepAliveFetch(maxSockets: number): FetchLike {
  const options = { keepAlive: true, maxSockets, maxFreeSockets: maxSockets, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' as const };
  const agents = { http: new http.Agent(options), https: new https.Agent(options) };
  return (url, init) => post(new URL(url), init, agents, true);
}

function post(url: URL, init: RequestInit, agents: { http: http.Agent; https: https.Agent }, mayResend: boolean): Promise<HttpReply> {
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
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
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
      response.on('error', (error) => {
        done();
        reject(error);
      });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      done();
      if (signal?.aborted) return; // rejected by onAbort
      const stale = !answered && request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
      if (stale && mayResend) resolve(post(url, init, agents, false));
      else reject(error);
    });
    request.end(body);
  });
}

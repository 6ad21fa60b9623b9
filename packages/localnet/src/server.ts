/**
 * The local chain's HTTP server: Solana JSON-RPC on POST / (single calls and batches), the
 * node's GET /health, and admin routes under /__localnet/ (admin.ts).
 *
 * node:http with keep-alive: benchmarks hit it with thousands of getMultipleAccounts per second,
 * and every reply is assembled from precomputed account JSON.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzip } from 'node:zlib';
import { handleAdmin, ADMIN_PREFIX } from './admin.js';
import { BlockClock, DEFAULT_BLOCK_MS } from './blocks.js';
import { CallLog, summarizeAnswer, type RecordedCall } from './call-log.js';
import { ClusterModel, type ClusterSettings } from './cluster.js';
import { FaultInjector, type FaultSpec } from './faults.js';
import { MethodLatency } from './latency.js';
import { NodeLedger, type LedgerSettings } from './ledger.js';
import { ProviderSimulation, type ProviderSettings } from './provider.js';
import { ProviderLimits, type Admission } from './provider-limits.js';
import { applyProfileChange, GZIP_MIN_BYTES, presetSettings, type ProfileChange } from './provider-profile.js';
import { ProviderCounters, type ProviderCounterSnapshot } from './provider-stats.js';
import { buildDemoState } from './fixture.js';
import { callMethod } from './rpc.js';
import { RpcError, RPC_INVALID_REQUEST, RPC_NODE_UNHEALTHY, RPC_PARSE_ERROR } from './rpc-error.js';
import type { ChainState } from './state.js';
import { Counters, type CounterSnapshot } from './stats.js';
import { TransactionExecutor } from './executor.js';
import { TransactionRpc } from './transaction-rpc.js';
import { AccountTamper } from './tamper.js';

export interface LocalnetHandle {
  url: string; // http://127.0.0.1:PORT
  port: number;
  state: ChainState;
  faults: FaultInjector;
  /** The tampered-accounts fault (tamper.ts): chosen accounts answered cut short or rewritten. */
  tamper: AccountTamper;
  /** Simulated provider latency and request-rate limit (provider.ts). */
  provider: ProviderSimulation;
  /** The provider profile in force: batches, budgets, refused methods, gzip (provider-profile.ts, provider-limits.ts). */
  profile: ProviderLimits;
  /** Block height, slot and recent blockhashes, advancing on a clock (blocks.ts). */
  blocks: BlockClock;
  /** sendTransaction, simulateTransaction and the other transaction methods (transaction-rpc.ts). */
  transactions: TransactionRpc;
  /** What part of the ledger this node serves: lag, first available block, history, block times (ledger.ts). */
  ledger: NodeLedger;
  /** How far apart the commitments are and when sent transactions land (cluster.ts): `set(partial)`, `get()`. */
  cluster: ClusterModel;
  /** Milliseconds added before answering a request calling a method (latency.ts): `set({method: ms})`, `{}` clears. */
  latency: MethodLatency;
  /** Calls counted per method, batch members counted individually; `provider`: what the profile refused. Admin routes are not counted. */
  stats(): CounterSnapshot & { provider: ProviderCounterSnapshot };
  resetStats(): void;
  /** The calls answered after `seq` (call-log.ts); none are kept unless started with `recordCalls`. */
  calls(since?: number): { last: number; calls: RecordedCall[] };
  close(): Promise<void>;
}

export interface LocalnetOptions {
  port?: number;
  host?: string;
  /** Defaults to the demo fixture (fixture.ts) built at `now`. */
  state?: ChainState;
  /** Reference time (ms) for the default fixture's blockTimes; defaults to Date.now(). */
  now?: number;
  /** Keep the last this many calls with their params (the watch page of `npm run dev`); default 0, none. */
  recordCalls?: number;
  /** Latency and rate limit of a hosted provider (provider.ts); default none. */
  provider?: Partial<ProviderSettings>;
  /** How a hosted provider limits callers: a preset name or settings (provider-profile.ts); default `none`. */
  profile?: ProfileChange;
  /** One block every this many milliseconds (blocks.ts); default 400, 0 stops the clock. */
  blockMs?: number;
  /** What part of the ledger it serves (ledger.ts); default all of it, at the chain's slot. */
  ledger?: Partial<LedgerSettings>;
  /** How far apart the commitments are and when sent transactions land (cluster.ts); default all-zero lags, finality at 32 blocks. */
  cluster?: Partial<ClusterSettings>;
  /** Per-method latency in ms (latency.ts); default none. */
  latency?: Record<string, number>;
}

/** The validator's JSON-RPC body limit. */
export const MAX_BODY_BYTES = 51_200;
/** How far behind the `unhealthy` fault claims the node is. */
const UNHEALTHY_SLOTS_BEHIND = 150;

interface RpcRequest {
  id: unknown;
  method: string;
  params: unknown;
}

function sendNow(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** Sends `body` gzip-encoded when it is worth it (GZIP_MIN_BYTES); `onGzipped` counts it. */
function sendGzipped(res: ServerResponse, status: number, body: string, headers: Record<string, string>, onGzipped: () => void): void {
  if (Buffer.byteLength(body) < GZIP_MIN_BYTES) {
    sendNow(res, status, body, { vary: 'accept-encoding', ...headers });
    return;
  }
  gzip(body, (error, compressed) => {
    if (res.destroyed) return;
    if (error) {
      sendNow(res, status, body, headers);
      return;
    }
    onGzipped();
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-encoding': 'gzip', vary: 'accept-encoding', 'content-length': compressed.length, ...headers });
    res.end(compressed);
  });
}

/** Whether an Accept-Encoding header admits gzip (a `q=0` refuses it). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!value) return false;
  return value.split(',').some((part) => {
    const [coding, ...parameters] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== 'x-gzip' && coding !== '*') return false;
    const q = parameters.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * Pages of any origin may call the node, as a validator's RPC lets them (agave rpc_service.rs:
 * `cors(AccessControlAllowOrigin::Any)`, `cors_max_age(86400)`): a wallet page reads a blockhash
 * and confirms its transaction from the browser. Admin routes stay same-origin.
 */
function answerPreflight(req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, {
    'access-control-allow-methods': 'POST, OPTIONS',
    'access-control-allow-headers': req.headers['access-control-request-headers'] ?? 'content-type',
    'access-control-max-age': '86400',
    'content-length': '0',
  });
  res.end();
}

function errorJson(id: unknown, error: object): string {
  return `{"jsonrpc":"2.0","error":${JSON.stringify(error)},"id":${JSON.stringify(id ?? null)}}`;
}

/** Reads the body; null (after answering 413) when it is over the limit. */
function readBody(req: IncomingMessage, res: ServerResponse): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (declared > MAX_BODY_BYTES) {
      tooLarge(req, res);
      resolve(null);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        tooLarge(req, res);
        resolve(null);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function tooLarge(req: IncomingMessage, res: ServerResponse): void {
  if (res.headersSent) return;
  // The rest of the body is not read: close the connection rather than drain it.
  res.writeHead(413, { 'content-type': 'text/plain', connection: 'close' });
  res.end('Payload Too Large');
  req.resume();
}

function parseRequest(raw: unknown): RpcRequest | RpcError {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return new RpcError(RPC_INVALID_REQUEST, 'Invalid request');
  const request = raw as Record<string, unknown>;
  if (request.jsonrpc !== '2.0' || typeof request.method !== 'string') return new RpcError(RPC_INVALID_REQUEST, 'Invalid request');
  return { id: request.id ?? null, method: request.method, params: request.params };
}

/** Runs one parsed member of a request, applying a per-call fault (rpc-error, unhealthy, transaction faults) if it hits. */
function answer(
  state: ChainState,
  transactions: TransactionRpc,
  request: RpcRequest | RpcError,
  fault: FaultSpec | null,
  ledger: NodeLedger,
  tamper: AccountTamper,
  cluster: ClusterModel,
): string {
  if (request instanceof RpcError) return errorJson(null, request.toJson());
  if (fault && FaultInjector.hits(fault, request.method)) {
    if (fault.mode === 'rpc-error') {
      return errorJson(request.id, { code: RPC_NODE_UNHEALTHY, message: 'Node is unhealthy', data: {} });
    }
    if (fault.mode === 'unhealthy') {
      return errorJson(request.id, {
        code: RPC_NODE_UNHEALTHY,
        message: `Node is behind by ${UNHEALTHY_SLOTS_BEHIND} slots`,
        data: { numSlotsBehind: UNHEALTHY_SLOTS_BEHIND },
      });
    }
  }
  try {
    // Reads never reach the transaction methods (nor load LiteSVM).
    const result = transactions.handles(request.method)
      ? transactions.call(request.method, request.params, fault && FaultInjector.hits(fault, request.method) ? fault : null)
      : callMethod(state, request.method, request.params, ledger, tamper, cluster);
    if (fault?.mode === 'malformed' && fault.variant === 'no-value') return withoutValue(request.id, result);
    return `{"jsonrpc":"2.0","result":${result},"id":${JSON.stringify(request.id)}}`;
  } catch (error) {
    if (error instanceof RpcError) return errorJson(request.id, error.toJson());
    throw error;
  }
}

/** A well-formed JSON-RPC reply that breaks the shape: `value` missing, or no result at all. */
function withoutValue(id: unknown, resultJson: string): string {
  const result = JSON.parse(resultJson) as unknown;
  if (result && typeof result === 'object' && !Array.isArray(result) && 'context' in result) {
    return `{"jsonrpc":"2.0","result":${JSON.stringify({ context: (result as { context: unknown }).context })},"id":${JSON.stringify(id)}}`;
  }
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

export async function startLocalnet(options: LocalnetOptions = {}): Promise<LocalnetHandle> {
  const state = options.state ?? buildDemoState(options.now === undefined ? {} : { now: options.now });
  const cluster = new ClusterModel(options.cluster);
  const latency = new MethodLatency();
  if (options.latency) latency.set(options.latency);
  const tamper = new AccountTamper();
  const counters = new Counters();
  const provider = new ProviderSimulation(options.provider);
  const profile = new ProviderLimits(state, options.profile === undefined ? presetSettings('none') : applyProfileChange(presetSettings('none'), options.profile));
  const providerCounters = new ProviderCounters();
  const ledger = new NodeLedger();
  if (options.ledger) ledger.set(options.ledger);
  const callLog = options.recordCalls ? new CallLog(options.recordCalls) : undefined;
  const blocks = new BlockClock(state, options.blockMs ?? DEFAULT_BLOCK_MS);
  const faults = new FaultInjector(() => blocks.blockHeight);
  const transactions = new TransactionRpc(state, blocks, new TransactionExecutor(state, () => blocks.blockTime()), cluster);
  /** Responses held open by the `timeout` fault, ended on close. */
  const held = new Set<ServerResponse>();

  async function handleRpc(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req, res);
    if (body === null) return;
    counters.httpRequests += 1;
    counters.requestBytes += Buffer.byteLength(body);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      provider.answer(() => sendNow(res, 200, errorJson(null, { code: RPC_PARSE_ERROR, message: 'Parse error' })));
      return;
    }
    const isBatch = Array.isArray(parsed);
    const members = (isBatch ? (parsed as unknown[]) : [parsed]).map(parseRequest);
    if (isBatch && members.length === 0) {
      provider.answer(() => sendNow(res, 200, errorJson(null, { code: RPC_INVALID_REQUEST, message: 'Invalid request' })));
      return;
    }
    const methods = members.filter((m): m is RpcRequest => !(m instanceof RpcError)).map((m) => m.method);
    counters.countCalls(methods);
    providerCounters.countRequest(methods.length);
    // Every answer below comes after the provider's latency (and an unindexed scan's time); requests over its rate get 429.
    const gzipAsked = profile.current().gzip && acceptsGzip(req.headers['accept-encoding']);
    let extraDelayMs = latency.delayFor(methods);
    const send = (res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void =>
      provider.answer(() => {
        if (res.destroyed) return;
        if (gzipAsked) sendGzipped(res, status, text, headers, () => (providerCounters.gzipped += 1));
        else sendNow(res, status, text, headers);
      }, extraDelayMs);
    const retryAfterSeconds = provider.admit();
    if (retryAfterSeconds > 0) {
      counters.rateLimited += 1;
      send(res, 429, errorJson(null, { code: 429, message: 'Too many requests for a specific RPC call' }), { 'retry-after': String(retryAfterSeconds) });
      return;
    }

    const httpRequest = counters.httpRequests;
    const record = (answerOf: (member: RpcRequest, index: number) => string): void => {
      if (!callLog) return;
      members.forEach((member, index) => {
        if (!(member instanceof RpcError)) callLog.record(httpRequest, member.method, member.params, answerOf(member, index));
      });
    };
    // The provider profile (provider-limits.ts): a whole request refused, or some calls answered with its error.
    const admission: Admission | null = profile.inactive ? null : profile.admit(isBatch, members.map((m) => (m instanceof RpcError ? null : m)));
    if (admission?.kind === 'refuse-request') {
      providerCounters.countRefusedRequest();
      for (const method of methods) providerCounters.countRefusedCall(method, admission.reason);
      record(() => `refused by the provider profile: ${admission.reason} (HTTP ${admission.status})`);
      send(res, admission.status, admission.body, admission.headers);
      return;
    }
    const refusals = admission?.refusals;
    if (refusals) {
      extraDelayMs += admission.delayMs;
      members.forEach((member, index) => {
        const refusal = refusals[index];
        if (refusal && !(member instanceof RpcError)) providerCounters.countRefusedCall(member.method, refusal.reason);
      });
    }

    const fault = faults.take(methods);
    if (fault?.mode === 'http500' || fault?.mode === 'http429' || fault?.mode === 'timeout') record(() => `no answer: ${fault.mode} (fault)`);
    switch (fault?.mode) {
      case 'http500':
        send(res, 500, 'Internal Server Error', { 'content-type': 'text/plain' });
        return;
      case 'http429':
        send(res, 429, errorJson(null, { code: 429, message: 'Too many requests for a specific RPC call' }), { 'retry-after': '1' });
        return;
      case 'timeout':
        held.add(res);
        res.on('close', () => held.delete(res));
        return;
    }
    const answers = members.map((member, index) => {
      const refusal = refusals?.[index];
      return refusal && !(member instanceof RpcError) ? errorJson(member.id, refusal.error) : answer(state, transactions, member, fault, ledger, tamper, cluster);
    });
    counters.countAnswers(members.map((member) => (member instanceof RpcError ? undefined : member.method)), answers);
    record((member, index) => (fault?.mode === 'malformed' ? 'a malformed reply (fault)' : summarizeAnswer(member.method, answers[index]!)));
    let reply = isBatch ? `[${answers.join(',')}]` : answers[0]!;
    if (fault?.mode === 'malformed' && fault.variant !== 'no-value') reply = reply.slice(0, Math.max(1, Math.floor(reply.length / 2)));
    counters.responseBytes += Buffer.byteLength(reply);
    send(res, 200, reply);
  }

  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const isAdmin = url.startsWith(ADMIN_PREFIX);
    if (!isAdmin && req.headers.origin !== undefined) res.setHeader('access-control-allow-origin', '*');
    const work = isAdmin
      ? handleAdmin(req, res, { state, faults, tamper, counters, provider, profile, providerCounters, blocks, transactions, ledger, cluster, latency })
      : req.method === 'OPTIONS'
        ? Promise.resolve(answerPreflight(req, res))
        : req.method === 'GET' && url === '/health'
        ? Promise.resolve(res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'))
        : req.method === 'POST'
          ? handleRpc(req, res)
          : Promise.resolve(sendNow(res, 405, errorJson(null, { code: RPC_INVALID_REQUEST, message: 'Used HTTP Method is not allowed. POST or OPTIONS is required' })));
    work.catch((error: unknown) => {
      if (!res.headersSent) sendNow(res, 500, JSON.stringify({ error: String(error) }));
      else res.destroy();
    });
  });
  // Benchmarks keep connections open between bursts.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    counters.connections += 1;
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  const urlHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}`,
    port,
    state,
    faults,
    tamper,
    provider,
    profile,
    blocks,
    transactions,
    ledger,
    cluster,
    latency,
    stats: () => ({ ...counters.snapshot(), provider: providerCounters.snapshot() }),
    resetStats: () => {
      counters.reset();
      providerCounters.reset();
    },
    calls: (since = 0) => callLog?.since(since) ?? { last: 0, calls: [] },
    close: () =>
      new Promise<void>((resolve, reject) => {
        blocks.stop();
        for (const res of held) res.destroy();
        held.clear();
        server.close((error) => (error ? reject(error) : resolve()));
        for (const socket of sockets) socket.destroy();
      }),
  };
}

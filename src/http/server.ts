import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { GateError, internalError } from '../errors.js';
import { FORWARD_AUTH_PATH, handleForwardAuth, isForwardAuthPath } from '../gate/forward-auth.js';
import { handleAuthRequest, type GateDependencies, type GateResponse } from '../gate/pipeline.js';
import { FEATURE_NAMES, isFeatureName } from '../contract/features.js';
import type { RateLimiter } from '../ratelimit/limiter.js';
import { rateLimitedError, rateLimitHeaders } from '../ratelimit/create.js';
import { clientAddress, proxyTrustWarnings, rateLimitKey } from './client-address.js';
import { readBody } from './body.js';
import { createCors, type Cors } from './cors.js';
import { writeResponse } from './respond.js';

/**
 * The uWebSockets.js front end: reads each request synchronously (the request object dies when the
 * handler returns), registers onAborted before going async, and writes every response in one cork.
 * Routing and error shaping live here; what a login does lives in src/gate/pipeline.ts.
 */
export interface ServerHooks {
  /** Called once per answered request (metrics). */
  onResponse?(route: string, status: number, startedAtNs: bigint): void;
  /** Extra GET routes answered as-is (e.g. /metrics, /openapi.json), by exact path. */
  routes?: Record<string, ExtraRoute>;
  health?(): Promise<Record<string, unknown>>;
  /** GET and POST /x404_mint/<name> (src/mint); absent: the gate has no mints and answers 404. */
  mint?: MintRoutes;
}

/** What the mint routes do; the HTTP layer only reads the request (headers, then the body) and writes the answer. */
export interface MintRoutes {
  /** Largest POST body accepted (413 beyond). */
  maxBodyBytes: number;
  /** `wallet`: ?wallet=, that wallet's eligibility (absent: not asked). */
  describe(name: string, wallet: string | undefined): Promise<GateResponse>;
  cosign(name: string, body: Uint8Array, headers: ReadonlyMap<string, string>): Promise<GateResponse>;
}

export interface GateServer {
  port: number;
  /** Stop accepting, let in-flight requests finish (bounded), then close every connection. */
  shutdown(timeoutMs: number): Promise<void>;
}

export const SERVICE_NAME = 'x404-gate';
export interface RawBody {
  body: string;
  contentType: string;
  headers?: Record<string, string>;
}
/** An extra GET route: gets the request's query string (without `?`), answers 200 with the body. */
export type ExtraRoute = (request: { query: string }) => Promise<RawBody>;
/** A pipeline response, or a body written as it is (metrics, documents) under `raw`. */
type Answer = GateResponse & { raw?: RawBody };
const JSON_TYPE = 'application/json; charset=utf-8';
const AUTH_PREFIX = '/x404_auth/';
const MINT_PREFIX = '/x404_mint/';
const POLICIES_PATH = '/x404_policies';
const JWKS_PATH = '/.well-known/jwks.json';
/**
 * Relying parties and proxies may cache the key set this long. A new key is published (added
 * second in JWT_PRIVATE_KEYS_FILE) at least this long before it signs, so every cache knows it by
 * then (docs/launch-operations.md: Asymmetric tokens and key rotation); jose's remote key sets
 * also refetch on an unknown kid.
 */
export const JWKS_MAX_AGE_SECONDS = 300;
const JWKS_HEADERS = { 'Cache-Control': `public, max-age=${JWKS_MAX_AGE_SECONDS}` };

export async function startServer(
  config: Config,
  deps: GateDependencies,
  options: { logger: Logger; rateLimiter?: RateLimiter; hooks?: ServerHooks },
): Promise<GateServer> {
  // uWS reads its header limit from the environment when it loads: keep it well above our own
  // limit so oversized headers reach us and get a JSON 431 instead of a bare one.
  process.env.UWS_HTTP_MAX_HEADERS_SIZE ??= String(Math.max(config.maxHeaderBytes * 4, 65_536));
  const { App, us_listen_socket_close, us_socket_local_port } = (await import('uWebSockets.js')).default;

  const { logger, rateLimiter, hooks = {} } = options;
  for (const warning of proxyTrustWarnings(config)) logger.warn(warning);
  const cors = createCors(config);
  const app: TemplatedApp = App();
  let inFlight = 0;
  let draining = false;
  let drained: (() => void) | undefined;

  const finish = (res: HttpResponse, state: RequestState, response: Answer): void => {
    inFlight--;
    if (!state.aborted) {
      const { body, contentType } = response.raw ?? { body: response.json ?? JSON.stringify(response.body), contentType: JSON_TYPE };
      writeResponse(res, response.status, body, contentType, [
        state.corsHeaders,
        response.headers ?? response.raw?.headers,
        state.extraHeaders,
      ]);
    }
    hooks.onResponse?.(state.route, response.status, state.startedAtNs);
    if (draining && inFlight === 0) drained?.();
  };

  const fail = (error: unknown, state: RequestState): GateResponse => {
    if (error instanceof GateError) return { status: error.httpStatus, body: error.body(), headers: error.options.headers };
    logger.error({ err: error, requestId: state.requestId, route: state.route }, 'unexpected failure');
    const internal = internalError();
    return { status: internal.httpStatus, body: internal.body() };
  };

  const serve = (res: HttpResponse, state: RequestState, work: () => Promise<Answer> | Answer): void => {
    inFlight++;
    res.onAborted(() => {
      state.aborted = true;
    });
    let pending: Promise<Answer> | Answer;
    try {
      pending = work();
    } catch (error) {
      pending = fail(error, state);
    }
    if (pending instanceof Promise) {
      pending.then(
        (response) => finish(res, state, response),
        (error: unknown) => finish(res, state, fail(error, state)),
      );
    } else {
      finish(res, state, pending);
    }
  };

  app.any('/*', (res, req) => {
    const state = readRequest(res, req, cors, rateLimiter !== undefined);
    const { method, path } = state;

    if (state.headerBytes > config.maxHeaderBytes) {
      return serve(res, state, () => {
        throw new GateError(431, 'HEADERS_TOO_LARGE', `Request headers exceed ${config.maxHeaderBytes} bytes`);
      });
    }
    // Before the preflight answer: a proxy asks with the method of the request it guards, OPTIONS
    // included, and a 204 here would let that request through without a token. Every spelling of
    // the path comes here, so a mistyped route is refused with a 401 naming it (src/gate/forward-auth.ts).
    if (isForwardAuthPath(path)) {
      state.route = FORWARD_AUTH_PATH;
      // Not rate limited: the proxy calls once per request it guards, from its own address.
      const request = { headers: state.headers, path, query: req.getQuery() ?? '' };
      return serve(res, state, () => handleForwardAuth(request, deps));
    }
    if (method === 'OPTIONS') {
      state.route = 'preflight';
      writeResponse(res, 204, undefined, JSON_TYPE, [cors.preflightFor(state.origin)]);
      hooks.onResponse?.(state.route, 204, state.startedAtNs);
      return;
    }

    if (path.startsWith(AUTH_PREFIX)) {
      const feature = path.slice(AUTH_PREFIX.length);
      // A feature, or one of the operator's rules (POLICIES_FILE), which is served like one.
      const rule = isFeatureName(feature) ? undefined : deps.policies?.rules.get(feature);
      if (rule === undefined && !isFeatureName(feature)) return serve(res, state, () => notFound(path));
      state.route = rule ? '/x404_auth/{rule}' : `/x404_auth/${feature}`;
      if (method !== 'GET') return serve(res, state, () => methodNotAllowed(method));
      const headers = state.headers;
      // ?policy= selects an operator policy; read only when there are policies (the query is otherwise ignored).
      const policyQuery = deps.policies ? req.getQuery('policy') || undefined : undefined;
      if (!rateLimiter) return serve(res, state, () => handleAuthRequest({ feature, rule, path, headers, policyQuery }, deps));
      // LOGIN_TIMEOUT_MS counts from here, the limiter's wait included.
      const receivedAtMs = performance.now();
      return serve(res, state, async () => {
        if (rateLimiter) {
          const decision = await rateLimiter.hit(rateLimitKey(clientAddress(state.remoteAddress, headers.get('x-forwarded-for'), config.trustProxy, config.trustedProxies)));
          if (!decision.allowed) throw rateLimitedError(decision);
          state.extraHeaders = rateLimitHeaders(decision);
        }
        return handleAuthRequest({ feature, rule, path, headers, policyQuery, receivedAtMs }, deps);
      });
    }

    if (path.startsWith(MINT_PREFIX) && hooks.mint) {
      const mint = hooks.mint;
      const name = path.slice(MINT_PREFIX.length);
      state.route = '/x404_mint/{name}';
      if (method !== 'GET' && method !== 'POST') return serve(res, state, () => methodNotAllowed(method, 'GET, POST, OPTIONS'));
      const limited = async (): Promise<void> => {
        if (!rateLimiter) return;
        const decision = await rateLimiter.hit(rateLimitKey(clientAddress(state.remoteAddress, state.headers.get('x-forwarded-for'), config.trustProxy, config.trustedProxies)));
        if (!decision.allowed) throw rateLimitedError(decision);
        state.extraHeaders = rateLimitHeaders(decision);
      };
      if (method === 'GET') {
        // Read now: uWebSockets.js's request is gone after the first await.
        const wallet = req.getQuery('wallet');
        return serve(res, state, async () => {
          await limited();
          return mint.describe(name, wallet);
        });
      }
      // The body is read from here, synchronously registered (serve registers onAborted first).
      return serve(res, state, async () => {
        const body = readBody(res, mint.maxBodyBytes, state.headers.get('content-length'));
        // Answered by the limiter first: the body's own failure (413) then has no one to tell.
        body.catch(() => {});
        await limited();
        return mint.cosign(name, await body, state.headers);
      });
    }

    if (path === POLICIES_PATH) {
      state.route = POLICIES_PATH;
      if (method !== 'GET') return serve(res, state, () => methodNotAllowed(method));
      const body = deps.policies?.listingJson ?? '{"mode":"open","policies":{}}';
      return serve(res, state, () => ({ status: 200, body: {}, raw: { body, contentType: JSON_TYPE, headers: { 'Cache-Control': 'no-cache' } } }));
    }

    if (path === JWKS_PATH) {
      state.route = JWKS_PATH;
      if (method !== 'GET') return serve(res, state, () => methodNotAllowed(method));
      const jwks = deps.tokens.jwks;
      return serve(res, state, () => {
        if (jwks === undefined) throw new GateError(404, 'NOT_FOUND', 'This gate signs tokens with HS256 (JWT_ALG), so it has no public keys to publish');
        return { status: 200, body: {}, raw: { body: jwks, contentType: 'application/jwk-set+json', headers: JWKS_HEADERS } };
      });
    }

    if (path === '/health') {
      state.route = '/health';
      if (method !== 'GET') return serve(res, state, () => methodNotAllowed(method));
      return serve(res, state, async () => ({
        status: 200,
        body: { status: 'ok', service: SERVICE_NAME, ...(await hooks.health?.()) },
        headers: { 'Cache-Control': 'no-store' },
      }));
    }

    const extra = hooks.routes?.[path];
    if (extra) {
      state.route = path;
      if (method !== 'GET') return serve(res, state, () => methodNotAllowed(method));
      const query = req.getQuery() ?? '';
      return serve(res, state, async () => ({ status: 200, body: {}, raw: await extra({ query }) }));
    }
    return serve(res, state, () => notFound(path));
  });

  const listenSocket = await new Promise<us_listen_socket>((resolve, reject) => {
    app.listen(config.host, config.port, (socket) => (socket ? resolve(socket) : reject(new Error(`cannot listen on ${config.host}:${config.port}`))));
  });
  const port = us_socket_local_port(listenSocket as never);

  return {
    port,
    async shutdown(timeoutMs) {
      draining = true;
      us_listen_socket_close(listenSocket);
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          drained = resolve;
          setTimeout(resolve, timeoutMs).unref();
        });
      }
      app.close();
    },
  };
}

interface RequestState {
  method: string;
  path: string;
  route: string;
  headers: Map<string, string>;
  headerBytes: number;
  origin: string | undefined;
  remoteAddress: string;
  corsHeaders: Record<string, string>;
  extraHeaders: Record<string, string> | undefined;
  aborted: boolean;
  requestId: number;
  startedAtNs: bigint;
}

let requestCounter = 0;

function readRequest(res: HttpResponse, req: HttpRequest, cors: Cors, needsPeerAddress: boolean): RequestState {
  const headers = new Map<string, string>();
  let headerBytes = 0;
  req.forEach((name, value) => {
    headerBytes += name.length + value.length + 4;
    const earlier = headers.get(name);
    // Repeated headers fold into one comma-separated value (RFC 9110 §5.3).
    headers.set(name, earlier === undefined ? value : `${earlier}, ${value}`);
  });
  const origin = headers.get('origin');
  return {
    method: req.getCaseSensitiveMethod().toUpperCase(),
    path: req.getUrl(),
    route: 'unknown',
    headers,
    headerBytes,
    origin,
    // Only the rate limiter reads it; it costs about 1 µs per request otherwise.
    remoteAddress: needsPeerAddress ? Buffer.from(res.getRemoteAddressAsText()).toString() : '',
    corsHeaders: cors.headersFor(origin),
    extraHeaders: undefined,
    aborted: false,
    requestId: ++requestCounter,
    startedAtNs: process.hrtime.bigint(),
  };
}

function notFound(path: string): never {
  throw new GateError(404, 'NOT_FOUND', `No route for ${path.slice(0, 100)}; features live at /x404_auth/{${FEATURE_NAMES.join('|')}}`);
}

function methodNotAllowed(method: string, allow = 'GET, OPTIONS'): never {
  const use = allow.replace(/, OPTIONS$/, '').replace(', ', ' or ');
  throw new GateError(405, 'METHOD_NOT_ALLOWED', `Method ${method.slice(0, 16)} is not allowed here; use ${use}`, { headers: { Allow: allow } });
}

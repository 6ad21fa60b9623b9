import { codeFromBody, X404Error, type X404ErrorBody } from './errors.js';

export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

export interface GateResponse {
  status: number;
  headers: Headers;
  /** The JSON body, or undefined when the body was empty or not JSON. */
  body: Record<string, unknown> | undefined;
}

/**
 * GET a feature endpoint. Every request gets a fresh `?_t=<ms>` cache buster, as existing clients
 * do, so no browser or proxy cache can answer with a stale nonce (the gate ignores the query).
 * Rejects only when no HTTP answer arrived (network failure, CORS refusal, abort).
 */
export async function getFeature(fetchImpl: Fetch, endpoint: string, headers: Record<string, string>, signal?: AbortSignal): Promise<GateResponse> {
  const url = `${endpoint}?_t=${Date.now()}`;
  const response = await fetchImpl(url, { method: 'GET', headers, ...(signal ? { signal } : {}) });
  const text = await response.text();
  let body: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body };
}

export function retryAfterSeconds(headers: Headers): number | undefined {
  const raw = headers.get('retry-after');
  if (raw === null || !/^\d+$/.test(raw.trim())) return undefined;
  return Number(raw.trim());
}

/** The gate's error answer as an X404Error with the gate's code, message and body. */
export function errorFromResponse(response: GateResponse): X404Error {
  const body: X404ErrorBody | undefined = response.body;
  const message = typeof body?.message === 'string' ? body.message : `The gate answered HTTP ${response.status}`;
  const retryAfter = retryAfterSeconds(response.headers);
  return new X404Error(codeFromBody(body), message, response.status, body, retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter });
}

export function describeFailure(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  if (error !== null && typeof error === 'object' && 'message' in error) return String((error as { message: unknown }).message);
  return String(error);
}

import { SIGN_IN_ERRORS } from '../contract/errors.js';
import { headerRef, JSON_TYPE, ref, type JsonObject } from './json.js';

/** Error answers: `{error, message, status?}` with `error` narrowed to the codes a response can carry. */
export const STATUS_TEXT: Record<number, string> = {
  400: 'A header is missing or invalid, or X-404-Feature does not match the path.',
  401: 'Nonce, signature or token refused, or the location is not allowed (status "locdeny").',
  403: 'The wallet does not meet the requirement.',
  404: 'No such route.',
  405: 'Only GET (and OPTIONS) are served.',
  429: 'Too many requests from this client address; see Retry-After.',
  431: 'The request headers are larger than the gate accepts.',
  500: 'The wallet does not meet the feature\'s requirement, the location could not be determined (status "locerror"), or an unexpected failure.',
  503: 'The chain (or the nonce store) could not be read within LOGIN_TIMEOUT_MS; no token was issued. See Retry-After. `nonceSpent: false`: the same signed request may be sent again after Retry-After; `true`: sign a new nonce.',
};

/** Codes every sign-in route can answer with, by status (src/contract/errors.ts). */
export const COMMON_ERRORS: Record<number, readonly string[]> = SIGN_IN_ERRORS;

/** `{error, message, status?}` with `error` restricted to the codes this answer can carry; a 503 always says `nonceSpent`. */
export function errorSchema(codes: string[], status: number): JsonObject {
  const narrowed: JsonObject = { properties: { error: { enum: [...new Set(codes)].sort() } } };
  if (status === 503) narrowed.required = ['nonceSpent'];
  return { allOf: [ref('Error'), narrowed] };
}

export function errorResponse(status: number, codes: string[], extraHeaders: string[] = []): JsonObject {
  const headers: JsonObject = { 'Access-Control-Allow-Origin': headerRef('AccessControlAllowOrigin') };
  for (const name of extraHeaders) headers[name] = headerRef(name.replace(/-/g, ''));
  return { description: STATUS_TEXT[status] ?? `HTTP ${status}`, headers, content: { [JSON_TYPE]: { schema: errorSchema(codes, status) } } };
}


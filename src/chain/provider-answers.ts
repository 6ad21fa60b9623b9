/**
 * What a provider's answer means beyond "failed": the shapes providers use to say "not like that"
 * (docs/solana-wire-format.md, "Providers' limits"). Three kinds matter to the client, because each
 * asks for a different reaction:
 *
 * - A refused array (batches off, or over a batch cap): send the same calls in smaller arrays or
 *   singly. The endpoint is fine.
 * - Rate limited: the calls were good, the budget was spent; slow down and send them again after a
 *   pause. Providers that count every batch member answer the members over the budget with an error
 *   inside an HTTP 200, so a member error may say it as well as an HTTP 429.
 * - A method refused for good by this endpoint (a node without the secondary index, a method the
 *   provider disabled or does not serve): no retry there will answer differently; another endpoint may.
 */

/**
 * Codes providers answer a call over the budget with: HTTP's 429 as a JSON-RPC code (public
 * endpoints, several providers), 7429 (a provider's own code), -32429 (seen from clients of a major
 * provider). -32005 is also Solana's "node unhealthy", so it counts as rate limited only with a
 * message that says so.
 */
const RATE_LIMIT_CODES: ReadonlySet<number> = new Set([429, 7429, -32429]);
const NODE_UNHEALTHY_OR_LIMITED = -32005;
const RATE_LIMIT_MESSAGE = /rate.?limit|too many requests/i;

/**
 * Codes that say this endpoint will not serve the method: -32010 (agave: the key is excluded from
 * the node's secondary indexes), -32601 (method not found), 410 and 403 as JSON-RPC codes (a method
 * disabled, as the public endpoint answers it inside a batch).
 */
const METHOD_REFUSED_CODES: ReadonlySet<number> = new Set([-32010, -32601, 410, 403]);

export interface RpcErrorObject {
  code: number | undefined;
  message: string;
}

export function errorObject(error: unknown): RpcErrorObject {
  if (typeof error !== 'object' || error === null) return { code: undefined, message: '' };
  const { code, message } = error as { code?: unknown; message?: unknown };
  return { code: typeof code === 'number' ? code : undefined, message: typeof message === 'string' ? message : '' };
}

/** A call's error that means "over the budget, try later". */
export function isRateLimitError({ code, message }: RpcErrorObject): boolean {
  if (code !== undefined && RATE_LIMIT_CODES.has(code)) return true;
  if (code === NODE_UNHEALTHY_OR_LIMITED) return RATE_LIMIT_MESSAGE.test(message);
  return RATE_LIMIT_MESSAGE.test(message);
}

/** A call's error that means "this endpoint does not serve this method" (checked after isRateLimitError). */
export function isMethodRefusal({ code }: RpcErrorObject): boolean {
  return code !== undefined && METHOD_REFUSED_CODES.has(code);
}

/**
 * Whether an HTTP answer to one call refuses its method at this endpoint: 410 (gone: the public
 * endpoint's "The RPC call or parameters have been disabled."), or 403 carrying a JSON-RPC error
 * that is not a rate limit. A bare 403 (a firewall's page, a plan's rate limit) is a failure to
 * retry like any other: keeping a method off an endpoint for minutes on it would be too much.
 */
export function isMethodRefusalAnswer(status: number, reply: unknown): boolean {
  if (status === 410) return true;
  if (status !== 403 || typeof reply !== 'object' || reply === null || Array.isArray(reply)) return false;
  const { error } = reply as { error?: unknown };
  if (typeof error !== 'object' || error === null) return false;
  return !isRateLimitError(errorObject(error));
}

/**
 * Whether an answer to an array of calls refuses the array as such: an HTTP 4xx other than 429 (a
 * rate limit) and 401 (a bad key, which no splitting fixes), or an HTTP 200 carrying one error object
 * (not an array) that is not a rate limit — jsonrpsee's -32005 "Batched requests are not supported",
 * -32010 "The batch request was too large", a gateway's -32600.
 */
export function refusesArray(status: number, reply: unknown): boolean {
  if (status >= 400 && status <= 499) return status !== 429 && status !== 401;
  if (status < 200 || status > 299) return false;
  if (typeof reply !== 'object' || reply === null || Array.isArray(reply)) return false;
  const { error } = reply as { error?: unknown };
  if (error === undefined || error === null) return false;
  return !isRateLimitError(errorObject(error));
}

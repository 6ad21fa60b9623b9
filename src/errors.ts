/**
 * The one way a request ends in an error body. `code` is the stable string clients switch on
 * (docs/api.md §3–§7); `status` is the HTTP status; `extra` adds feature fields to the body
 * (e.g. the requirement list of INSUFFICIENT_TOKENS) and `location` the spec's `status` field
 * (`locdeny` / `locerror`).
 */
export class GateError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: string,
    message: string,
    readonly options: {
      location?: 'locdeny' | 'locerror';
      extra?: Record<string, unknown>;
      headers?: Record<string, string>;
    } = {},
  ) {
    super(message);
    this.name = 'GateError';
  }

  body(): Record<string, unknown> {
    const body: Record<string, unknown> = { error: this.code, message: this.message };
    if (this.options.location) body.status = this.options.location;
    if (this.options.extra) Object.assign(body, this.options.extra);
    return body;
  }
}

export const missingHeader = (names: string[]): GateError =>
  new GateError(400, 'MISSING_HEADER', `Missing required header${names.length > 1 ? 's' : ''}: ${names.join(', ')}`, {
    extra: { missing: names },
  });

export const invalidHeader = (name: string, why: string): GateError =>
  new GateError(400, 'INVALID_HEADER', `Header ${name} is invalid: ${why}`, { extra: { header: name } });

export const upstreamUnavailable = (why: string, retryAfterSeconds = 2): GateError =>
  new GateError(503, 'UPSTREAM_UNAVAILABLE', `The chain could not be read (${why}); no token was issued. Retry shortly.`, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });

export const notImplemented = (feature: string): GateError =>
  new GateError(501, 'NOT_IMPLEMENTED', `Feature ${feature} is not implemented yet`);

export const internalError = (): GateError =>
  new GateError(500, 'INTERNAL_ERROR', 'An unexpected error occurred; no token was issued.');

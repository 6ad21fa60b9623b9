/**
 * Codes an X404Error can carry: the gate's own codes (docs/api.md §3–§7 and the feature failures of
 * §5), the location outcomes (`locdeny` / `locerror`, docs/api.md §7), and the caller-side codes of
 * docs/api.md §7 that arise before the gate is asked anything. The gate may add codes; switch on the
 * ones you handle and treat the rest as a failed sign-in.
 */
export type X404ErrorCode =
  // caller side (docs/api.md §7)
  | 'NONCE_ERROR'
  | 'SIGNING_ERROR'
  // no answer from the gate while logging in (the nonce step reports NONCE_ERROR instead)
  | 'NETWORK_ERROR'
  // nonce and signature (docs/api.md §3–§4)
  | 'INVALID_NONCE'
  | 'NONCE_EXPIRED'
  | 'NONCE_REUSED'
  | 'INVALID_SIGNATURE'
  | 'FEATURE_MISMATCH'
  // tokens (docs/api.md §6)
  | 'INVALID_TOKEN'
  | 'POLICY_MISMATCH'
  // bad input and upstream (docs/api.md §7)
  | 'MISSING_HEADER'
  | 'INVALID_HEADER'
  | 'HEADERS_TOO_LARGE'
  | 'RATE_LIMITED'
  | 'UPSTREAM_UNAVAILABLE'
  | 'INTERNAL_ERROR'
  // feature requirements (docs/api.md §5)
  | 'HOLDS_BANNED_TOKEN'
  | 'EXCEEDS_MAX_HOLDING'
  | 'INSUFFICIENT_BALANCE'
  | 'INSUFFICIENT_HOLD_DURATION'
  | 'INSUFFICIENT_TOKENS'
  | 'INSUFFICIENT_ACTIVITY'
  | 'HAS_DEBT'
  | 'WALLET_TOO_NEW'
  | 'MISSING_COLLECTION_NFT'
  | 'COLLECTION_LIMIT'
  | 'HISTORY_LIMIT'
  | 'HOLDINGS_LIMIT'
  // geolocation (docs/api.md §7)
  | 'LOCATION_DENIED'
  | 'LOCATION_ERROR'
  // co-signed mints, mint() (docs/minting.md#refusals)
  | 'INVALID_BODY'
  | 'INVALID_TRANSACTION'
  | 'BLOCKHASH_EXPIRED'
  | 'MINT_NOT_STARTED'
  | 'MINT_ENDED'
  | 'SOLD_OUT'
  | 'MINT_LIMIT_REACHED'
  | 'SIMULATION_FAILED'
  | 'MINT_MISCONFIGURED'
  // a response the SDK could not understand (not JSON, no code)
  | 'UNEXPECTED_RESPONSE'
  | (string & {});

/** The parsed JSON error body of the gate, `{error?, message, status?, …feature fields}`. */
export type X404ErrorBody = Record<string, unknown>;

/**
 * The one error type the SDK throws. `status` is the HTTP status of the gate's answer, or 0 when no
 * answer arrived (network failure, CORS refusal, a wallet that refused to sign). `body` is the
 * gate's JSON error body when there was one. `retryAfterSeconds` is set from `Retry-After` on 429
 * and 503.
 */
export class X404Error extends Error {
  override readonly name = 'X404Error';

  constructor(
    readonly code: X404ErrorCode,
    message: string,
    readonly status: number = 0,
    readonly body: X404ErrorBody | undefined = undefined,
    options: { cause?: unknown; retryAfterSeconds?: number } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  readonly retryAfterSeconds: number | undefined;
}

/**
 * The code of a gate error body. Location outcomes carry `status: locdeny|locerror`; the contract
 * also gives them an `error` code, but older gates sent only `status`, so map that as a fallback.
 */
export function codeFromBody(body: X404ErrorBody | undefined): X404ErrorCode {
  const error = body?.error;
  if (typeof error === 'string' && error !== '') return error;
  if (body?.status === 'locdeny') return 'LOCATION_DENIED';
  if (body?.status === 'locerror') return 'LOCATION_ERROR';
  return 'UNEXPECTED_RESPONSE';
}

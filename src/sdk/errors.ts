import type { CallerErrorCode, RuleRefusalCode, SignInErrorCode } from '../contract/errors.js';
import type { FeatureAnswerCode } from '../contract/features.js';
import type { MintRefusalCode } from '../contract/mint.js';

/**
 * Codes an X404Error can carry (src/contract): the gate's own codes (docs/api.md §3–§7), each
 * feature's answers (§5), a rule's refusals, the co-signed mint's refusals (docs/minting.md), and
 * the caller-side codes the SDK makes itself (NONCE_ERROR, SIGNING_ERROR, NETWORK_ERROR,
 * UNEXPECTED_RESPONSE). The gate may add codes; switch on the ones you handle and treat the rest
 * as a failed sign-in.
 */
export type X404ErrorCode = CallerErrorCode | SignInErrorCode | FeatureAnswerCode | RuleRefusalCode | MintRefusalCode | (string & {});

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

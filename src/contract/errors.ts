/**
 * The codes of the gate's error bodies `{error, message, …}` that are not a feature's own
 * (docs/api.md §3–§7), by the status that carries them. The OpenAPI document's error enums and
 * the SDK's X404ErrorCode are built from these and from each feature's and mint's answers.
 */

/** What any sign-in at /x404_auth/<feature> can meet besides its feature's answers. */
export const SIGN_IN_ERRORS = {
  400: ['MISSING_HEADER', 'INVALID_HEADER', 'FEATURE_MISMATCH'],
  401: ['INVALID_NONCE', 'NONCE_EXPIRED', 'NONCE_REUSED', 'INVALID_SIGNATURE', 'INVALID_TOKEN', 'POLICY_MISMATCH', 'LOCATION_DENIED'],
  429: ['RATE_LIMITED'],
  431: ['HEADERS_TOO_LARGE'],
  500: ['INTERNAL_ERROR', 'LOCATION_ERROR'],
  503: ['UPSTREAM_UNAVAILABLE'],
} as const;

/** A rule's own refusals (docs/rules.md): a wallet list or `not` decided the outcome. */
export const RULE_REFUSALS = ['WALLET_NOT_LISTED', 'WALLET_DENIED', 'RULE_NOT_MET'] as const;

/** Codes the SDK makes itself, before or instead of an answer of the gate (docs/api.md §7). */
export const CALLER_ERRORS = ['NONCE_ERROR', 'SIGNING_ERROR', 'NETWORK_ERROR', 'UNEXPECTED_RESPONSE'] as const;

export type SignInErrorCode = (typeof SIGN_IN_ERRORS)[keyof typeof SIGN_IN_ERRORS][number];
export type RuleRefusalCode = (typeof RULE_REFUSALS)[number];
export type CallerErrorCode = (typeof CALLER_ERRORS)[number];

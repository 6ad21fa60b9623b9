/**
 * pino `redact` paths for the gate's logs: whatever proves identity or grants access never reaches
 * a log line — tokens (x-jwt, authorization, success bodies), signatures, nonces, cookies and the
 * secret itself. Use as `pino({ redact: { paths: REDACT_PATHS, censor: '[redacted]' } })`.
 * Header names are lower case as the gate reads them.
 */
const SECRET_HEADERS = ['x-jwt', 'x-404-signature', 'x-404-nonce', 'authorization', 'cookie', 'set-cookie', 'proxy-authorization'];

export const REDACT_PATHS: readonly string[] = [
  ...SECRET_HEADERS.map((name) => `req.headers["${name}"]`),
  ...SECRET_HEADERS.map((name) => `headers["${name}"]`),
  ...SECRET_HEADERS.map((name) => `res.headers["${name}"]`),
  'token',
  '*.token',
  'body.token',
  'signature',
  '*.signature',
  'nonce',
  '*.nonce',
  'jwtSecret',
  '*.jwtSecret',
  'config.jwtSecret',
  'secret',
  '*.secret',
  'secretKey',
  '*.secretKey',
  // A mint's co-signing key (src/mint): a KeyObject prints as {}, but never let it near a log line.
  'privateKey',
  '*.privateKey',
];

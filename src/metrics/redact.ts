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

/** Where a configured endpoint URL may sit in a logged object: they carry providers' API keys. */
export const URL_SETTING_PATHS: readonly string[] = ['rpcUrls', 'config.rpcUrls', 'rpcUrl', '*.rpcUrl', 'dasUrl', 'config.dasUrl', 'redisUrl', 'config.redisUrl'];

/**
 * A URL as it may be shown (pages, logs, messages): scheme, host and port only. Providers carry the
 * API key in the user and password (`https://user:key@…`), in the query (`?api-key=…`) or in the path
 * (`/v2/<key>`, `/<token>/`, `/solana/<key>`), and no rule tells a key segment from a route segment,
 * so user, password, path, query and fragment are all replaced by `***` when present; the host is
 * enough to tell which provider is meant. Text that is not a URL is not shown at all.
 */
export function redactUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return '[not a URL]';
  }
  const auth = url.username !== '' || url.password !== '' ? '***@' : '';
  const query = url.search !== '' ? '?***' : '';
  const fragment = url.hash !== '' ? '#***' : '';
  const path = url.pathname === '' || url.pathname === '/' ? (query || fragment ? '/' : '') : '/***';
  return `${url.protocol}//${auth}${url.host}${path}${query}${fragment}`;
}

const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;

/** `text` with every URL in it redacted (redactUrl): for error messages and stacks that may quote one. */
export function redactUrlsIn(text: string): string {
  return text.replace(URL_IN_TEXT, (url) => redactUrl(url));
}

/** For a logged error (its message as a string, or an error serialized to an object): URLs in the message and stack redacted. */
export function redactedError(value: unknown): unknown {
  if (typeof value === 'string') return redactUrlsIn(value);
  if (value === null || typeof value !== 'object') return value;
  const { message, stack } = value as { message?: unknown; stack?: unknown };
  return {
    ...value,
    ...(typeof message === 'string' ? { message: redactUrlsIn(message) } : {}),
    ...(typeof stack === 'string' ? { stack: redactUrlsIn(stack) } : {}),
  };
}

import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';
import { REDACT_PATHS, redactedError, URL_SETTING_PATHS } from './metrics/redact.js';

/**
 * Structured JSON logs on stdout. Secrets, signatures and tokens never reach a log line: the paths
 * below are redacted wherever they appear, endpoint URL settings too, and a logged error (`err`)
 * has any URL in its message or stack cut to scheme and host (src/metrics/redact.ts redactUrl).
 */
export const REDACTED_PATHS = [
  'jwtSecret',
  'config.jwtSecret',
  'headers["x-jwt"]',
  'headers["x-404-signature"]',
  'token',
  '*.token',
  'signature',
  '*.signature',
];

/** `destination`: stdout unless given (tests). */
export function createLogger(level: Config['logLevel'] | 'info' = 'info', destination?: DestinationStream): Logger {
  const paths = [...new Set([...REDACTED_PATHS, ...REDACT_PATHS, ...URL_SETTING_PATHS])];
  return pino({ level, base: { service: 'x404-gate' }, redact: { paths, censor: '[redacted]' }, serializers: { err: (value: unknown) => redactedError(value instanceof Error ? pino.stdSerializers.err(value) : value) } }, destination);
}

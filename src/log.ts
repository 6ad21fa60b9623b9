import { pino, type Logger } from 'pino';
import type { Config } from './config.js';
import { REDACT_PATHS } from './metrics/redact.js';

/**
 * Structured JSON logs on stdout. Secrets, signatures and tokens never reach a log line: the paths
 * below are redacted wherever they appear.
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

export function createLogger(level: Config['logLevel'] | 'info' = 'info'): Logger {
  const paths = [...new Set([...REDACTED_PATHS, ...REDACT_PATHS])];
  return pino({ level, base: { service: 'x404-gate' }, redact: { paths, censor: '[redacted]' } });
}

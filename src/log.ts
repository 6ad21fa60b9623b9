import { pino, type Logger } from 'pino';
import type { Config } from './config.js';

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
  return pino({ level, base: { service: 'x404-gate' }, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } });
}

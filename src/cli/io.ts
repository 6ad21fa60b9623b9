import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import type { X404Error } from '../sdk/index.js';

/** A mistake in how the command was called (exit code 2); the message says how to fix it. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const EXIT = {
  ok: 0,
  /** The gate refused the wallet, or the token is not valid. */
  refused: 1,
  usage: 2,
  /** The gate could not be reached, was rate limiting, or could not read the chain: try again later. */
  unavailable: 3,
} as const;

/** An option that names a web address (--url, --jwks): http:// or https:// only. */
export function httpUrlOption(option: string, value: string): string {
  if (!/^https?:\/\//.test(value)) throw new UsageError(`--${option} must be an http:// or https:// URL, got "${value}"`);
  return value;
}

/**
 * The exit code for a gate's refusal: `unavailable` when it means "try again later" (one of the
 * command's transient codes, or HTTP 503 / 429), else `refused`.
 */
export function refusalExit(error: X404Error, transientCodes: ReadonlySet<string>): number {
  return transientCodes.has(error.code) || error.status === 503 || error.status === 429 ? EXIT.unavailable : EXIT.refused;
}

export function expandHome(path: string): string {
  return path === '~' || path.startsWith('~/') ? homedir() + path.slice(1) : path;
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(expandHome(path), 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${what} ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** A Solana keypair file as `solana-keygen` writes it: a JSON array of 64 byte values. */
export function readKeypairFile(path: string): Uint8Array {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readText(path, 'keypair file'));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`keypair file ${path} is not JSON (expected an array of 64 numbers, as solana-keygen writes)`);
  }
  if (!Array.isArray(parsed) || parsed.length !== 64 || !parsed.every((n) => Number.isInteger(n) && n >= 0 && n <= 255)) {
    throw new UsageError(`keypair file ${path} must be a JSON array of 64 numbers from 0 to 255 (a Solana keypair)`);
  }
  return Uint8Array.from(parsed as number[]);
}

/** `--policy '{"excluded_mints":[]}'` or `--policy @policy.json`: always a JSON object. */
export function readPolicyOption(value: string | undefined): Record<string, unknown> {
  if (value === undefined) return {};
  const text = value.startsWith('@') ? readText(value.slice(1), 'policy file') : value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--policy is not valid JSON (${(error as Error).message}); pass a JSON object or @file.json`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new UsageError('--policy must be a JSON object of the feature\'s headers, e.g. {"excluded_mints":[],"max_holdings":{}}');
  }
  return parsed as Record<string, unknown>;
}

export function readSecret(options: { secret?: string | undefined; 'secret-file'?: string | undefined }, env: NodeJS.ProcessEnv): string {
  if (options.secret !== undefined && options['secret-file'] !== undefined) throw new UsageError('give either --secret or --secret-file, not both');
  if (options['secret-file'] !== undefined) return readText(options['secret-file'], 'secret file').trim();
  const secret = options.secret ?? env.JWT_SECRET;
  if (!secret) throw new UsageError('the gate\'s JWT secret is needed: --secret-file <file>, --secret <value>, or JWT_SECRET in the environment');
  return secret;
}

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export const printResult = (text: string): void => void process.stdout.write(`${text}\n`);
export const printProgress = (text: string): void => void process.stderr.write(`${text}\n`);

export function isoTime(epochSeconds: unknown): string {
  return typeof epochSeconds === 'number' ? new Date(epochSeconds * 1000).toISOString() : 'unknown';
}

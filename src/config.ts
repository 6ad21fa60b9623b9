import os from 'node:os';
import ms from 'ms';
import { LOOPBACK_RANGES, parseAddressRange, type AddressRange } from './http/client-address.js';
import { redactUrl } from './metrics/redact.js';
import { DEFAULT_KEY_PREFIX, keyPrefixProblem } from './redis/keys.js';
import { CHAIN_ID as SIWS_CHAIN_ID, isSiwsStatement } from './sign-modes/siws.js';

/**
 * Every setting of the gate, read and validated once at start-up (docs/api.md §1 plus the project's
 * own knobs, each documented in docs/configuration.md with its default). An invalid value throws ConfigError
 * naming the variable; main() prints it and exits 1.
 */
export interface Config {
  port: number;
  host: string;
  jwtSecret: string;
  jwtExpirySeconds: number;
  rpcUrls: string[];
  mechanism: string;
  nonceTtlSeconds: number;
  /**
   * How far this instance's clock may be from the nonce store's (Redis TIME) before it serves no
   * nonces or logins (503); also bounds clock steps and issue times (src/nonce/store-clock.ts).
   */
  maxClockSkewMs: number;
  /**
   * What a deny condition (blacklist, holdings under a rule's `not`) counts when its policy names no
   * `scope`: `all`, every token account the wallet owns; `ata`, its associated token accounts only
   * (faster, bypassable). src/chain/wallet-holdings.ts.
   */
  holdingsScope: 'all' | 'ata';
  redisUrl: string | undefined;
  /** Treat REDIS_URL as a seed node of a Redis Cluster. */
  redisCluster: boolean;
  redisKeyPrefix: string;
  trustProxy: number;
  /** The proxies whose X-Forwarded-For entries are believed (TRUSTED_PROXIES); loopback by default. */
  trustedProxies: readonly AddressRange[];
  rateLimitPerMinute: number;
  /** Worker threads verifying signatures; 0 verifies on the main thread. */
  workerThreads: number;
  /** Most signatures sent to a worker in one task. */
  verifyBatchSize: number;
  /** With the pool: batches of at most this many signatures that find a worker idle are verified on the event loop (0: never). */
  verifyInlineUpTo: number;
  /** RPC HTTP requests in flight at start; the limit then adapts within the bounds below (src/chain/adaptive-limit.ts). */
  rpcConcurrency: number;
  rpcConcurrencyMin: number;
  rpcConcurrencyMax: number;
  /** Shortest time concurrent account reads are gathered into one getMultipleAccounts batch. */
  rpcBatchWindowMs: number;
  /** Longest: the window follows the provider's round trip (an eighth of it) up to this. */
  rpcBatchWindowMaxMs: number;
  rpcTimeoutMs: number;
  rpcRetries: number;
  /**
   * With two or more RPC URLs: how long a read waits for the first provider before the same read
   * also goes to the next one (first answer wins); 0 turns hedging off.
   */
  rpcHedgeMs: number;
  /** RPC_BATCH: send JSON-RPC arrays (`on`) or every call alone (`off`); src/chain/batch-limits.ts. */
  rpcBatch: boolean;
  /** RPC_BATCH_CAPS: most calls per array of a method class (history, index, das, other) or of one method. */
  rpcBatchCaps: Readonly<Record<string, number>>;
  /** RPC_CALLS_PER_SECOND: calls sent per second per endpoint, batch members counted (0: no cap); src/chain/call-budget.ts. */
  rpcCallsPerSecond: number;
  /** RPC_SCANS_PER_SECOND: getProgramAccounts calls per second per endpoint (0: no own cap). */
  rpcScansPerSecond: number;
  /** RPC_REPROBE_MS: how long an endpoint's refusal (a batch limit, a method it does not serve) is remembered before it is tried again. */
  rpcReprobeMs: number;
  /** RPC_MAX_RESPONSE_BYTES: the largest RPC answer read, after gzip is decoded; a larger one is a failed attempt. */
  rpcMaxResponseBytes: number;
  /** RPC_MIN_RETRY_AFTER_MS: how long an endpoint rests after a rate limit that named no Retry-After. */
  rpcMinRetryAfterMs: number;
  /** Longest a signed login may take from being read to being answered, across all its RPC calls, retries and waits. */
  loginTimeoutMs: number;
  rpcCommitment: 'processed' | 'confirmed' | 'finalized';
  /** Longest a request's headers may be, in bytes, before 431. */
  maxHeaderBytes: number;
  corsOrigins: string[];
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  shutdownTimeoutMs: number;
  /** Most getSignaturesForAddress pages (1000 each) a history walk may read (age, activity, timelock). */
  historyMaxPages: number;
  /** Most getTransaction reads one activity or timelock check may make. */
  historyMaxTransactions: number;
  /** How long an endpoint's getFirstAvailableBlock answer (its history horizon) is trusted; 0: read it every time it is needed. */
  historyHorizonTtlMs: number;
  /** Most candidate NFTs (token accounts holding exactly 1) one collection check examines (docs/collection.md). */
  collectionMaxNfts: number;
  /** A DAS API endpoint for compressed NFTs (collection feature); unset: compressed NFTs are not checked. */
  dasUrl: string | undefined;
  /** Most searchAssets pages (1000 items each) one collection check reads per listed collection or creator. */
  dasMaxPages: number;
  /** Most token accounts a wallet's whole list may hold (HOLDINGS_SCOPE=all, collection); more: 500 HOLDINGS_LIMIT. */
  tokenAccountsMax: number;
  /** How long one program scan's answer (program + filters + slice) serves other logins; 0: every login scans for itself. */
  programScanShareMs: number;
  /** Operator policies (src/policy): the JSON file naming policies per feature, if any. */
  policiesFile: string | undefined;
  /** `open`: request headers are the policy unless a named one is selected; `pinned`: only named policies. */
  policyMode: 'open' | 'pinned';
  /** How tokens are signed: HS256 with JWT_SECRET, or EdDSA / ES256 with the keys in jwtPrivateKeysFile. */
  jwtAlg: JwtAlg;
  /** PEM or JWK set; the first key signs, all verify (asymmetric algorithms only). */
  jwtPrivateKeysFile: string | undefined;
  /** `iss` of every token (required with an asymmetric algorithm). */
  jwtIssuer: string | undefined;
  /** `aud` of every token, when set. */
  jwtAudience: string | undefined;
  /** Cookie forward auth (/x404_verify) reads a token from, and X404_SET_COOKIE sets. */
  cookieName: string;
  /** Set the cookie on a successful sign-in. */
  setCookie: boolean;
  /** Answer forward auth under /x404_verify/<guarded path> too (Envoy ext_authz path_prefix), requirements from headers only. */
  forwardAuthSubpaths: boolean;
  /** The proofs a login may send (X-404-Sign-Mode); `challenge` is the seed's signed string. */
  signModes: readonly SignMode[];
  /** Sign In With Solana: the domains (host[:port]) a message may name; siws is off without them. */
  siwsDomains: readonly string[];
  /** The `Chain ID` a SIWS message must carry. */
  siwsChainId: string;
  /** The statement the nonce response suggests for SIWS messages (not checked: wallets show it). */
  siwsStatement: string | undefined;
}

export const SIGN_MODES = ['challenge', 'siws', 'offchain', 'memo-tx'] as const;
export type SignMode = (typeof SIGN_MODES)[number];

export const JWT_ALGS = ['HS256', 'EdDSA', 'ES256'] as const;
export type JwtAlg = (typeof JWT_ALGS)[number];

export class ConfigError extends Error {
  constructor(readonly variable: string, why: string) {
    super(`Invalid configuration: ${variable} ${why}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function text(env: Env, name: string, fallback?: string): string {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') {
    if (fallback === undefined) throw new ConfigError(name, 'is required but not set');
    return fallback;
  }
  return raw.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

/**
 * RPC_CONCURRENCY (the start) within RPC_CONCURRENCY_MIN..RPC_CONCURRENCY_MAX (defaults 2 and 64,
 * widened to include the start when only it is set).
 */
function rpcConcurrencySettings(env: Env): Pick<Config, 'rpcConcurrency' | 'rpcConcurrencyMin' | 'rpcConcurrencyMax'> {
  const rpcConcurrency = integer(env, 'RPC_CONCURRENCY', 8, 1, 1024);
  const rpcConcurrencyMin = integer(env, 'RPC_CONCURRENCY_MIN', Math.min(2, rpcConcurrency), 1, 1024);
  const rpcConcurrencyMax = integer(env, 'RPC_CONCURRENCY_MAX', Math.max(64, rpcConcurrency), 1, 1024);
  if (rpcConcurrencyMin > rpcConcurrency) throw new ConfigError('RPC_CONCURRENCY_MIN', `must be at most RPC_CONCURRENCY (${rpcConcurrency}), got ${rpcConcurrencyMin}`);
  if (rpcConcurrencyMax < rpcConcurrency) throw new ConfigError('RPC_CONCURRENCY_MAX', `must be at least RPC_CONCURRENCY (${rpcConcurrency}), got ${rpcConcurrencyMax}`);
  return { rpcConcurrency, rpcConcurrencyMin, rpcConcurrencyMax };
}

/** RPC_BATCH_WINDOW_MS (shortest, default 2) and RPC_BATCH_WINDOW_MAX_MS (longest, default 20). */
function rpcBatchWindowSettings(env: Env): Pick<Config, 'rpcBatchWindowMs' | 'rpcBatchWindowMaxMs'> {
  const rpcBatchWindowMs = integer(env, 'RPC_BATCH_WINDOW_MS', 2, 0, 1000);
  const rpcBatchWindowMaxMs = integer(env, 'RPC_BATCH_WINDOW_MAX_MS', Math.max(20, rpcBatchWindowMs), 0, 1000);
  if (rpcBatchWindowMaxMs < rpcBatchWindowMs) {
    throw new ConfigError('RPC_BATCH_WINDOW_MAX_MS', `must be at least RPC_BATCH_WINDOW_MS (${rpcBatchWindowMs}), got ${rpcBatchWindowMaxMs}`);
  }
  return { rpcBatchWindowMs, rpcBatchWindowMaxMs };
}

/**
 * RPC_BATCH_CAPS: `name:count` pairs, comma-separated, each name a method class (history, index,
 * das, other: src/chain/method-class.ts) or a method (`getTransaction:5`); counts 1..100.
 */
function rpcBatchCaps(env: Env): Record<string, number> {
  const raw = env.RPC_BATCH_CAPS?.trim();
  const caps: Record<string, number> = {};
  if (!raw) return caps;
  for (const pair of raw.split(',').map((part) => part.trim()).filter(Boolean)) {
    const match = /^([A-Za-z][A-Za-z0-9]*):(\d+)$/.exec(pair);
    if (!match) throw new ConfigError('RPC_BATCH_CAPS', `must be class-or-method:count pairs (e.g. history:10,getTransaction:5), got "${pair}"`);
    const count = Number(match[2]);
    if (count < 1 || count > 100) throw new ConfigError('RPC_BATCH_CAPS', `counts must be between 1 and 100, got ${pair}`);
    caps[match[1]!] = count;
  }
  return caps;
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const value = text(env, name, fallback).toLowerCase() as T;
  if (!allowed.includes(value)) throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${env[name]}"`);
  return value;
}

function duration(env: Env, name: string, fallback: string): number {
  const raw = text(env, name, fallback);
  let millis: number | undefined;
  try {
    millis = ms(raw as ms.StringValue);
  } catch {
    millis = undefined;
  }
  if (typeof millis !== 'number' || !Number.isFinite(millis) || millis < 1000) {
    throw new ConfigError(name, `must be a duration such as 30d, 12h or 900s (at least 1s), got "${raw}"`);
  }
  return Math.floor(millis / 1000);
}

function optionalUrl(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be an http or https URL');
  }
  // The URL is not echoed: DAS endpoints usually carry an API key.
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError(name, 'must be an http or https URL');
  return raw;
}

function urlList(env: Env, name: string): string[] {
  const urls = text(env, name)
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  if (urls.length === 0) throw new ConfigError(name, 'must list at least one URL');
  for (const url of urls) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      // Not echoed: a provider URL that fails to parse may still hold its API key.
      throw new ConfigError(name, `contains an entry that is not a URL (entry ${urls.indexOf(url) + 1} of ${urls.length})`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new ConfigError(name, `must use http or https, got "${redactUrl(url)}"`);
    }
  }
  return urls;
}

export function defaultWorkerThreads(): number {
  // One core stays for the event loop (HTTP, nonces, chain reads, tokens), the rest verify: on
  // 2 cores, interleaved A/B runs (bench/compare.ts, 64 connections, warm logins) measured gate CPU
  // per login 141–160 µs with 0 workers, 153–161 with 1 and 168–170 with 2 — a second worker only
  // competes with the event loop for the cores. Past 4 the single event loop is the limit (~10k
  // logins/s), so more workers would only cost memory (~10 MB each). docs/configuration.md says the same.
  return Math.max(1, Math.min(os.availableParallelism() - 1, 4));
}

function redisKeyPrefix(env: Env): string {
  const prefix = text(env, 'REDIS_KEY_PREFIX', DEFAULT_KEY_PREFIX);
  const problem = keyPrefixProblem(prefix);
  if (problem) throw new ConfigError('REDIS_KEY_PREFIX', problem);
  return prefix;
}

function jwtAlg(env: Env): JwtAlg {
  const raw = text(env, 'JWT_ALG', 'HS256');
  const alg = JWT_ALGS.find((name) => name.toLowerCase() === raw.toLowerCase());
  if (!alg) throw new ConfigError('JWT_ALG', `must be one of ${JWT_ALGS.join(', ')}, got "${raw}"`);
  return alg;
}

/** A StringOrURI claim value (RFC 7519 §2): printable, no whitespace or quotes, bounded. */
function claimValue(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  if (!/^[\x21\x23-\x7e]{1,256}$/.test(raw)) throw new ConfigError(name, 'must be 1–256 printable ASCII characters without spaces or quotes (e.g. https://gate.example.com)');
  return raw;
}

function cookieName(env: Env): string {
  const name = text(env, 'X404_COOKIE', 'x404_token');
  // An RFC 6265 cookie-name is an RFC 9110 token.
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/.test(name)) throw new ConfigError('X404_COOKIE', `must be a cookie name (letters, digits, !#$%&'*+-.^_\`|~), got "${name}"`);
  return name;
}

function asymmetricSettings(env: Env, alg: JwtAlg): { jwtPrivateKeysFile: string | undefined; jwtIssuer: string | undefined } {
  const jwtPrivateKeysFile = env.JWT_PRIVATE_KEYS_FILE?.trim() || undefined;
  const jwtIssuer = claimValue(env, 'JWT_ISSUER');
  if (alg === 'HS256') {
    if (jwtPrivateKeysFile) throw new ConfigError('JWT_PRIVATE_KEYS_FILE', 'is only used with JWT_ALG=EdDSA or ES256 (JWT_ALG is HS256)');
    return { jwtPrivateKeysFile, jwtIssuer };
  }
  if (!jwtPrivateKeysFile) throw new ConfigError('JWT_PRIVATE_KEYS_FILE', `is required with JWT_ALG=${alg} (create one with \`x404 keys generate --alg ${alg} --out <file>\`)`);
  if (!jwtIssuer) throw new ConfigError('JWT_ISSUER', `is required with JWT_ALG=${alg}: relying parties check it (e.g. https://gate.example.com)`);
  return { jwtPrivateKeysFile, jwtIssuer };
}

/** TRUSTED_PROXIES: comma-separated IPv4/IPv6 CIDRs or addresses. */
function trustedProxies(env: Env): AddressRange[] {
  const entries = text(env, 'TRUSTED_PROXIES', LOOPBACK_RANGES).split(',').map((entry) => entry.trim()).filter(Boolean);
  if (entries.length === 0) throw new ConfigError('TRUSTED_PROXIES', `must list at least one address or CIDR range (default ${LOOPBACK_RANGES})`);
  return entries.map((entry) => {
    const range = parseAddressRange(entry);
    if (range === undefined) throw new ConfigError('TRUSTED_PROXIES', `must list IPv4 or IPv6 addresses or CIDR ranges such as 10.0.0.0/8 or fd00::/8, got "${entry}"`);
    return range;
  });
}

function policySettings(env: Env): { policiesFile: string | undefined; policyMode: 'open' | 'pinned' } {
  const policiesFile = env.POLICIES_FILE?.trim() || undefined;
  const policyMode = oneOf(env, 'POLICY_MODE', 'open', ['open', 'pinned'] as const);
  if (policyMode === 'pinned' && !policiesFile) throw new ConfigError('POLICY_MODE', 'is pinned, which needs POLICIES_FILE (the named policies requests may use)');
  return { policiesFile, policyMode };
}

/** host[:port], a DNS name or IPv4 address (what a browser's `location.host` is for such a page), lower-cased. */
const SIWS_DOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*(?::[0-9]{1,5})?$/;

function signInSettings(env: Env): Pick<Config, 'signModes' | 'siwsDomains' | 'siwsChainId' | 'siwsStatement'> {
  const siwsDomains = (env.SIWS_DOMAINS ?? '')
    .split(',')
    .map((domain) => domain.trim().toLowerCase())
    .filter(Boolean);
  for (const domain of siwsDomains) {
    if (!SIWS_DOMAIN.test(domain) || domain.length > 253) throw new ConfigError('SIWS_DOMAINS', `must list host[:port] values such as app.example.com or localhost:5173 (no scheme or path), got "${domain}"`);
  }
  // The same rules the SIWS parser applies (src/sign-modes/siws.ts): the gate never offers what it would refuse.
  const siwsChainId = text(env, 'SIWS_CHAIN_ID', 'mainnet');
  if (!SIWS_CHAIN_ID.test(siwsChainId)) throw new ConfigError('SIWS_CHAIN_ID', `must be a cluster name such as mainnet, devnet or solana:mainnet (1–32 of A–Z a–z 0–9 _ -), got "${siwsChainId}"`);
  const siwsStatement = env.SIWS_STATEMENT?.trim() || undefined;
  if (siwsStatement !== undefined && (siwsStatement.length > 256 || !isSiwsStatement(siwsStatement))) {
    throw new ConfigError('SIWS_STATEMENT', 'must be at most 256 characters on one line of letters, digits, spaces and URI punctuation (no " % < > \\ ^ ` { | })');
  }

  const fallback = siwsDomains.length > 0 ? SIGN_MODES.join(',') : 'challenge,offchain,memo-tx';
  const signModes = [...new Set(text(env, 'SIGN_MODES', fallback).split(',').map((mode) => mode.trim().toLowerCase()).filter(Boolean))];
  for (const mode of signModes) {
    if (!(SIGN_MODES as readonly string[]).includes(mode)) throw new ConfigError('SIGN_MODES', `must list modes among ${SIGN_MODES.join(', ')}, got "${mode}"`);
  }
  if (signModes.length === 0) throw new ConfigError('SIGN_MODES', `must list at least one of ${SIGN_MODES.join(', ')}`);
  if (signModes.includes('siws') && siwsDomains.length === 0) throw new ConfigError('SIGN_MODES', 'includes siws, which needs SIWS_DOMAINS (the domains of the pages that sign in)');
  return { signModes: signModes as SignMode[], siwsDomains, siwsChainId, siwsStatement };
}

export function loadConfig(env: Env = process.env): Config {
  const jwtSecret = text(env, 'JWT_SECRET');
  if (jwtSecret.length < 32) {
    throw new ConfigError('JWT_SECRET', 'must be at least 32 characters (use a random string, e.g. `openssl rand -base64 48`)');
  }
  const mechanism = text(env, 'X404_MECHANISM', 'SERVICE404');
  if (!/^[A-Za-z0-9]{1,32}$/.test(mechanism)) {
    throw new ConfigError('X404_MECHANISM', 'must be 1–32 letters or digits');
  }
  const redisUrl = env.REDIS_URL?.trim() || undefined;
  if (redisUrl) {
    try {
      const protocol = new URL(redisUrl).protocol;
      if (protocol !== 'redis:' && protocol !== 'rediss:') throw new Error('protocol');
    } catch {
      throw new ConfigError('REDIS_URL', `must be a redis:// or rediss:// URL, got "${redactUrl(redisUrl)}"`);
    }
  }
  const workerRaw = env.WORKER_THREADS?.trim();
  const workerThreads =
    workerRaw === undefined || workerRaw === '' || workerRaw === 'auto'
      ? defaultWorkerThreads()
      : integer(env, 'WORKER_THREADS', 0, 0, 256);
  const alg = jwtAlg(env);

  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: text(env, 'HOST', '0.0.0.0'),
    jwtSecret,
    jwtExpirySeconds: duration(env, 'JWT_EXPIRY', '30d'),
    rpcUrls: urlList(env, 'SOLANA_RPC_URL'),
    mechanism,
    nonceTtlSeconds: integer(env, 'NONCE_TTL_SECONDS', 300, 1, 86_400),
    maxClockSkewMs: integer(env, 'MAX_CLOCK_SKEW_MS', 30_000, 1000, 600_000),
    holdingsScope: oneOf(env, 'HOLDINGS_SCOPE', 'all', ['all', 'ata'] as const),
    redisUrl,
    redisCluster: oneOf(env, 'REDIS_CLUSTER', 'false', ['true', 'false'] as const) === 'true',
    redisKeyPrefix: redisKeyPrefix(env),
    trustProxy: integer(env, 'TRUST_PROXY', 0, 0, 32),
    trustedProxies: trustedProxies(env),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 600, 0, 10_000_000),
    workerThreads,
    verifyBatchSize: integer(env, 'VERIFY_BATCH_SIZE', 64, 1, 4096),
    verifyInlineUpTo: integer(env, 'VERIFY_INLINE_UP_TO', 0, 0, 64),
    ...rpcConcurrencySettings(env),
    ...rpcBatchWindowSettings(env),
    rpcTimeoutMs: integer(env, 'RPC_TIMEOUT_MS', 5000, 100, 120_000),
    rpcRetries: integer(env, 'RPC_RETRIES', 2, 0, 10),
    rpcHedgeMs: integer(env, 'RPC_HEDGE_MS', 300, 0, 60_000),
    rpcBatch: oneOf(env, 'RPC_BATCH', 'on', ['on', 'off'] as const) === 'on',
    rpcBatchCaps: rpcBatchCaps(env),
    rpcCallsPerSecond: integer(env, 'RPC_CALLS_PER_SECOND', 0, 0, 1_000_000),
    rpcScansPerSecond: integer(env, 'RPC_SCANS_PER_SECOND', 0, 0, 1_000_000),
    rpcReprobeMs: integer(env, 'RPC_REPROBE_MS', 300_000, 1000, 86_400_000),
    rpcMaxResponseBytes: integer(env, 'RPC_MAX_RESPONSE_BYTES', 64 * 1024 * 1024, 65_536, 1024 * 1024 * 1024),
    rpcMinRetryAfterMs: integer(env, 'RPC_MIN_RETRY_AFTER_MS', 1000, 0, 60_000),
    // At most 60 s: a released nonce must still be held when its login lets go of it (the Redis
    // record outlives the nonce by 2 × MAX_CLOCK_SKEW_MS, 60 s by default, src/nonce/redis-scripts.ts).
    loginTimeoutMs: integer(env, 'LOGIN_TIMEOUT_MS', 8000, 500, 60_000),
    rpcCommitment: oneOf(env, 'RPC_COMMITMENT', 'confirmed', ['processed', 'confirmed', 'finalized'] as const),
    maxHeaderBytes: integer(env, 'MAX_HEADER_BYTES', 32_768, 1024, 1_048_576),
    corsOrigins: text(env, 'CORS_ORIGINS', '*')
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    historyMaxPages: integer(env, 'HISTORY_MAX_PAGES', 20, 1, 1000),
    historyMaxTransactions: integer(env, 'HISTORY_MAX_TRANSACTIONS', 500, 1, 100_000),
    historyHorizonTtlMs: integer(env, 'HISTORY_HORIZON_TTL_MS', 60_000, 0, 3_600_000),
    collectionMaxNfts: integer(env, 'COLLECTION_MAX_NFTS', 500, 1, 5_000),
    dasUrl: optionalUrl(env, 'DAS_URL'),
    dasMaxPages: integer(env, 'DAS_MAX_PAGES', 5, 1, 100),
    tokenAccountsMax: integer(env, 'TOKEN_ACCOUNTS_MAX', 2000, 1, 100_000),
    programScanShareMs: integer(env, 'PROGRAM_SCAN_SHARE_MS', 5000, 0, 60_000),
    ...policySettings(env),
    jwtAlg: alg,
    ...asymmetricSettings(env, alg),
    jwtAudience: claimValue(env, 'JWT_AUDIENCE'),
    cookieName: cookieName(env),
    setCookie: oneOf(env, 'X404_SET_COOKIE', 'false', ['true', 'false'] as const) === 'true',
    forwardAuthSubpaths: oneOf(env, 'FORWARD_AUTH_SUBPATHS', 'false', ['true', 'false'] as const) === 'true',
    ...signInSettings(env),
  };
}

import bs58 from 'bs58';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_COLLECTIONS } from 'x404-localnet/collections/fixture.js';
import { startLocalnet, type LocalnetHandle } from 'x404-localnet/server.js';
import { FEATURE_CONTRACTS, FEATURE_NAMES, type FeatureName } from '../../src/contract/features.js';
import { isJsonKind } from '../../src/contract/values.js';
import { blacklistPolicy, get, publicKeyOf, signedHeaders } from '../helpers/client.js';
import { runSchedule } from '../helpers/fuzz-run.js';
import { startGate, testSecret, type GateProcess } from '../helpers/gate.js';
import { RawPool, type RawRequest, type RawResponse } from '../helpers/raw-http.js';
import { prng, Seeded } from '../helpers/seeded.js';

/**
 * Header fuzzer against the real gate: at least REQUESTS_PER_ROUTE generated requests per route
 * (each feature, /health, unknown paths) with random, oversized, non-ASCII, duplicated and malformed
 * headers, truncated JSON, huge numbers, unicode addresses, stray methods, and a share of requests
 * that carry a real nonce and signature so the feature checks run on fuzzed policies.
 *
 * Every answer must use a status the contract names, with the error codes it names (500 only for
 * feature failures and locerror, never INTERNAL_ERROR), and carry a JSON body with content-type
 * application/json. Afterwards the server must still serve a login and its RSS must be bounded.
 *
 * Reproduce a failure with FUZZ_SEED=<seed printed in the failure>; request `i` of a route is built
 * from its own PRNG seeded by (seed, route, i), so it is the same whatever the concurrency.
 *
 * Scope: requests are syntactically valid HTTP/1.1 within uWebSockets' own limits (fewer than ~98
 * header lines, under 4 × MAX_HEADER_BYTES); beyond those uWS answers by itself before the gate sees
 * the request (see the report).
 */
const SEED = Number(process.env.FUZZ_SEED ?? 0x404f022);
const REQUESTS_PER_ROUTE = Number(process.env.FUZZ_REQUESTS_PER_ROUTE ?? 10_000);
/**
 * The whole schedule runs, however long a loaded machine takes; FUZZ_TIME_BUDGET_MS cuts a local
 * run short (and then asserts the schedule fitted). The test's own timeout only catches a hang.
 */
const TIME_BUDGET_MS = process.env.FUZZ_TIME_BUDGET_MS === undefined ? Infinity : Number(process.env.FUZZ_TIME_BUDGET_MS);
const HANG_MS = 30 * 60_000;
const CONCURRENCY = 48;
const RATE_LIMIT = 200;
const FEATURES = FEATURE_NAMES;
type Feature = FeatureName;
const ROUTES = [...FEATURES.map((feature) => `/x404_auth/${feature}`), '/x404_verify', '/health', 'unknown'] as const;

/** docs/api.md §3–§7: the codes each status may carry. 200 and 204 carry none. */
const CODES_BY_STATUS: Record<number, ReadonlySet<string>> = {
  400: new Set(['MISSING_HEADER', 'INVALID_HEADER', 'FEATURE_MISMATCH']),
  401: new Set(['INVALID_NONCE', 'NONCE_EXPIRED', 'NONCE_REUSED', 'INVALID_SIGNATURE', 'INVALID_TOKEN', 'POLICY_MISMATCH', 'MISSING_TOKEN', 'TOKEN_EXPIRED', 'FEATURE_MISMATCH', 'INVALID_REQUIREMENT']),
  403: new Set(['EXCEEDS_MAX_HOLDING']),
  404: new Set(['NOT_FOUND']),
  405: new Set(['METHOD_NOT_ALLOWED']),
  429: new Set(['RATE_LIMITED']),
  431: new Set(['HEADERS_TOO_LARGE']),
  500: new Set<string>([...FEATURE_NAMES.flatMap((feature) => FEATURE_CONTRACTS[feature].failures.filter(({ status }) => status === 500).map(({ code }) => code)), 'COLLECTION_LIMIT']),
  501: new Set(['NOT_IMPLEMENTED']),
  503: new Set(['UPSTREAM_UNAVAILABLE']),
};
const LOCATION_STATUS: Record<number, string> = { 401: 'locdeny', 500: 'locerror' };

// ---------------------------------------------------------------------------------------------
// Seeded generation (test/helpers/seeded.ts)

class Gen extends Seeded {
  /** Skewed towards short, sometimes long. */
  length(max: number): number {
    return this.chance(0.8) ? this.int(Math.min(max, 40)) : this.int(max);
  }
  ascii(length: number): string {
    let text = '';
    for (let i = 0; i < length; i += 1) text += String.fromCharCode(0x20 + this.int(95));
    return text.trim();
  }
  unicode(length: number): string {
    const pieces = ['ü', 'ß', '✓', '😀', '漢字', 'מ', '\u200b', '\u202e', '１２３', '٣', 'Ω', 'é', '\ufeff', '𝔘', '€'];
    let text = '';
    for (let i = 0; i < length; i += 1) text += this.chance(0.5) ? this.pick(pieces) : String.fromCharCode(0x21 + this.int(94));
    return text;
  }
  address(): string {
    return bs58.encode(this.bytes(32));
  }
  /** Something a wallet field might hold: a real-looking address, or one that is subtly wrong. */
  addressish(): string {
    switch (this.int(8)) {
      case 0: return bs58.encode(this.bytes(this.pick([31, 33, 64, 0, 1])));
      case 1: return `${this.address().slice(0, -1)}0`; // '0' is not base58
      case 2: return this.unicode(this.int(44));
      case 3: return this.address().replace(/[a-z]/, 'Ⅰ');
      default: return this.address();
    }
  }
  number(): string {
    return this.pick([
      () => String(this.int(1000)),
      () => String(this.int(2 ** 31)),
      () => '9'.repeat(1 + this.int(400)),
      () => `-${this.int(100)}`,
      () => `${this.int(100)}.${this.int(1000)}`,
      () => this.pick(['1e309', '-1e309', '1e-400', 'NaN', 'Infinity', '-0', '0x10', '1_000', '00012', ' 5 ', '+7', '.5', '5.', '', '١٢', '１２', 'null', 'true']),
      () => String(Number.MAX_SAFE_INTEGER + this.int(10)),
      () => `${'1'.repeat(30)}.${'0'.repeat(30)}1`,
    ])();
  }
  amount(): string {
    return this.chance(0.6) ? String(this.int(10 ** 9)) : this.number();
  }
  /** A JSON value of random shape, nested up to `depth`. */
  json(depth = 3): unknown {
    const kind = this.int(depth > 0 ? 8 : 5);
    switch (kind) {
      case 0: return this.number();
      case 1: return Number(this.number());
      case 2: return this.chance(0.5) ? this.ascii(this.length(30)) : this.unicode(this.length(10));
      case 3: return this.pick([null, true, false]);
      case 4: return this.address();
      case 5: return Array.from({ length: this.length(8) }, () => this.json(depth - 1));
      default: {
        const object: Record<string, unknown> = {};
        for (let i = this.length(6); i > 0; i -= 1) object[this.chance(0.5) ? this.address() : this.ascii(8)] = this.json(depth - 1);
        return object;
      }
    }
  }
  /** Breaks a (usually JSON) header value in one of the ways clients and attackers do. */
  mutate(value: string): string {
    switch (this.int(12)) {
      case 0: return value.slice(0, this.int(value.length + 1)); // truncated JSON
      case 1: return `${value}${this.pick([',', ']', '}', '"', '\\', ' ', 'x'])}`;
      case 2: return JSON.stringify(this.json());
      case 3: return this.unicode(this.length(60));
      case 4: return this.number();
      case 5: return '['.repeat(1 + this.int(3000)) + ']'.repeat(this.int(3000));
      case 6: return JSON.stringify(Array.from({ length: 95 + this.int(20) }, () => this.address())); // around the list cap
      case 7: return this.ascii(this.length(500));
      case 8: return '';
      case 9: return value.toUpperCase();
      case 10: return `  ${value}  `;
      default: return JSON.stringify(value);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Requests

/** Plausible policy headers of one feature, each maybe broken. */
function policyHeaders(g: Gen, feature: Feature): Array<[string, string]> {
  const tokenList = (): string => JSON.stringify(Array.from({ length: g.length(8) }, () => (g.chance(0.8) ? { mint: g.addressish(), amount: g.amount() } : g.json(2))));
  const plausible: Record<Feature, Array<[string, () => string]>> = {
    blacklist: [
      ['excluded_mints', () => JSON.stringify(Array.from({ length: g.length(6) }, () => g.addressish()))],
      ['max_holdings', () => JSON.stringify(Object.fromEntries(Array.from({ length: g.length(5) }, () => [g.addressish(), g.amount()])))],
      ['geo_code', () => g.pick(['true', 'false', 'TRUE', 'yes', '1', ''])],
      ['geo_code_locs', () => g.pick(['', 'US', 'us,DE', 'FR, GB', 'XX', '??', g.ascii(8), g.unicode(4)])],
    ],
    timelock: [
      ['required_mint', () => g.addressish()],
      ['mint_amount', () => g.amount()],
      ['min_hold_duration_days', () => g.number()],
    ],
    multitoken: [
      ['required_tokens', tokenList],
      ['verification_mode', () => g.pick(['ALL', 'ANY', 'any', '0', '1', '3', '-1', '1.5', '99999999999999999999', g.ascii(6)])],
    ],
    activity: [
      ['min_transactions', () => g.number()],
      ['time_period_days', () => g.number()],
      ['min_volume', () => g.number()],
      ['transaction_types', () => JSON.stringify(Array.from({ length: g.length(5) }, () => g.pick(['transfer', 'swap', 'nft', 'stake', 'TRANSFER', 'burn', 7, null])))],
    ],
    tier: [
      ['tier_config', () => JSON.stringify(Object.fromEntries(['bronze', 'silver', 'gold', 'platinum'].filter(() => g.chance(0.6)).map((tier) => [tier, g.chance(0.8) ? { mint: g.addressish(), amount: g.amount() } : g.json(2)])))],
    ],
    nodebt: [
      ['check_protocols', () => JSON.stringify(Array.from({ length: g.length(4) }, () => g.pick(['kamino', 'save', 'solend', 'marginfi', 'KAMINO', 'aave', '', 3])))],
      ['max_debt_allowed', () => g.number()],
    ],
    age: [
      ['min_wallet_age_days', () => g.number()],
      ['min_first_transaction_days', () => g.number()],
    ],
    collection: [
      ['collections', () => JSON.stringify(Array.from({ length: g.length(6) }, () => (g.chance(0.3) ? g.pick(Object.values(DEMO_COLLECTIONS)) : g.chance(0.9) ? g.addressish() : g.json(1))))],
      ['creators', () => JSON.stringify(Array.from({ length: g.length(4) }, () => (g.chance(0.9) ? g.addressish() : g.json(1))))],
      ['min_count', () => (g.chance(0.5) ? String(1 + g.int(5)) : g.number())],
    ],
    balance: [['min_lamports', () => g.amount()]],
  };
  const headers: Array<[string, string]> = [];
  for (const [name, make] of plausible[feature]) {
    if (g.chance(0.1)) continue; // missing
    const value = make();
    headers.push([name, g.chance(0.25) ? g.mutate(value) : value]);
  }
  if (feature !== 'blacklist' && g.chance(0.3)) headers.push(['geo_code', g.pick(['true', 'false', 'maybe'])]);
  if (g.chance(0.3)) headers.push(['geo_code_locs', g.pick(['US', 'de,fr', '', g.unicode(3)])]);
  if (g.chance(0.35)) {
    headers.push(['X-Lat', g.chance(0.6) ? String(g.random() * 180 - 90) : g.number()]);
    headers.push(['X-Long', g.chance(0.6) ? String(g.random() * 360 - 180) : g.number()]);
  }
  return headers;
}

const HEADER_NAME_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_!#$%&\'*+.^`|~';

function randomHeaders(g: Gen, count: number): Array<[string, string]> {
  const headers: Array<[string, string]> = [];
  for (let i = 0; i < count; i += 1) {
    let name = '';
    for (let length = 1 + g.int(20); length > 0; length -= 1) name += g.pick([...HEADER_NAME_CHARS]);
    headers.push([name, g.chance(0.5) ? g.ascii(g.length(200)) : g.unicode(g.length(30))]);
  }
  return headers;
}

/** X-Forwarded-For (TRUST_PROXY=1): mostly distinct clients, some hot ones, some garbage. */
function forwardedFor(g: Gen): string | undefined {
  switch (g.int(20)) {
    case 0: return undefined;
    case 1: return g.pick(['203.0.113.1', '2001:db8::1']); // hot clients: get rate limited
    case 2: return g.unicode(g.length(30));
    case 3: return `${g.ascii(10)}, ${g.pick(['', ' ', ',', '1.2.3.4:80', '[2001:db8::9]:443', '::ffff:10.0.0.1', '１.２.３.４', '999.1.1.1'])}`;
    case 4: return Array.from({ length: 2 + g.int(200) }, () => `${g.int(256)}.${g.int(256)}.${g.int(256)}.${g.int(256)}`).join(', ');
    case 5: return `${g.int(65536).toString(16)}:${g.int(65536).toString(16)}::${g.int(65536).toString(16)}`;
    default: return `10.${g.int(256)}.${g.int(256)}.${g.int(256)}`;
  }
}

interface Plan {
  request: RawRequest;
  /** Needs a live nonce and a real signature filled in before sending. */
  signFor?: Feature;
  secretKey?: Uint8Array;
  close: boolean;
}

const METHODS = ['POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'TRACE', 'FOO', 'get', 'OPTIONS'];

function unknownTarget(g: Gen): string {
  const target = g.pick([
    () => '/',
    () => '/x404_auth',
    () => '/x404_auth/',
    () => `/x404_auth/${g.pick(FEATURES).toUpperCase()}`,
    () => `/x404_auth/${g.pick(FEATURES)}/${g.ascii(5).replace(/[\s?#]/g, '')}`,
    () => `/x404_auth/${g.pick(FEATURES)}%00`,
    () => '/health/',
    () => '/HEALTH',
    () => `/${encodeURIComponent(g.unicode(g.length(20)))}`,
    () => `/${g.unicode(g.length(10)).replace(/\s/g, '')}`,
    () => `/${'a/'.repeat(g.int(2000))}`,
    () => `/x404_auth/${g.ascii(12).replace(/[\s?#]/g, '')}`,
    () => `/..%2f..%2fetc/passwd`,
    () => `//x404_auth//blacklist`,
  ])();
  return target;
}

/** Request `index` of `route`, built only from its own seeded PRNG. */
function plan(route: (typeof ROUTES)[number], index: number, tokens: string[]): Plan {
  const g = new Gen(prng(SEED, ROUTES.indexOf(route), index));
  const method = g.chance(0.88) ? 'GET' : g.pick(METHODS);
  const feature = route.startsWith('/x404_auth/') ? (route.slice('/x404_auth/'.length) as Feature) : undefined;
  let target = route === 'unknown' ? unknownTarget(g) : route;
  if (g.chance(0.2)) target += `?_t=${g.int(2 ** 31)}${g.chance(0.2) ? `&${g.ascii(g.length(100)).replace(/[\s#]/g, '')}` : ''}`;

  const headers: Array<[string, string]> = [];
  let signFor: Feature | undefined;
  let secretKey: Uint8Array | undefined;
  const policyFeature = feature ?? g.pick(FEATURES);
  if (feature !== undefined && method === 'GET' && g.chance(0.15)) {
    // Deep: a real nonce and signature, so the fuzzed policy reaches the feature's checks.
    signFor = g.chance(0.9) ? feature : g.pick(FEATURES);
    const seed = g.bytes(32);
    secretKey = new Uint8Array(64);
    secretKey.set(seed);
    secretKey.set(bs58.decode(publicKeyOf(seed)), 32);
    headers.push(...policyHeaders(g, policyFeature));
  } else {
    const signature = g.int(6); // 0: none (nonce request) … 5: all, with garbage
    if (signature >= 2) headers.push(['X-404-Nonce', g.pick([() => g.ascii(51), () => bs58.encode(g.bytes(38)), () => g.unicode(20), () => 'A'.repeat(g.int(5000))])()]);
    if (signature >= 3) headers.push(['X-404-Signature', g.pick([() => bs58.encode(g.bytes(64)), () => bs58.encode(g.bytes(g.int(100))), () => g.unicode(30), () => g.ascii(88)])()]);
    if (signature >= 4 || signature === 1) headers.push(['X-404-Addr', g.addressish()]);
    if (signature >= 2 || g.chance(0.2)) headers.push(['X-404-Feature', g.chance(0.7) ? (feature ?? 'blacklist') : g.pick([...FEATURES, '', 'BLACKLIST', g.unicode(5)])]);
    if (g.chance(0.15)) {
      headers.push(['x-jwt', g.chance(0.6) && tokens.length > 0 ? g.pick(tokens) : g.pick([() => g.ascii(g.length(300)), () => `${g.ascii(20)}.${g.ascii(40)}.${g.ascii(43)}`, () => 'x'.repeat(9000), () => g.unicode(20)])()]);
    }
    if (g.chance(0.7)) headers.push(...policyHeaders(g, policyFeature));
  }
  if (route === '/x404_verify') {
    // Forward auth: requirements in the query and headers, tokens in every place it reads them.
    if (g.chance(0.5)) target += `${target.includes('?') ? '&' : '?'}feature=${encodeURIComponent(g.pick([...FEATURES, '', g.unicode(4)]))}`;
    if (g.chance(0.3)) target += `${target.includes('?') ? '&' : '?'}policy=${encodeURIComponent(g.pick(['launch', '', g.ascii(8)]))}`;
    const token = (): string => (g.chance(0.6) && tokens.length > 0 ? g.pick(tokens) : g.pick([() => g.ascii(g.length(300)), () => `${g.ascii(20)}.${g.ascii(40)}.${g.ascii(43)}`, () => g.unicode(20)])());
    if (g.chance(0.5)) headers.push(['Authorization', g.pick([`Bearer ${token()}`, `bearer ${token()}`, `Basic ${g.ascii(20)}`, 'Bearer ', g.unicode(10)])]);
    if (g.chance(0.2)) headers.push(['Cookie', `${g.pick(['x404_token', 'other', g.ascii(6)])}=${token()}${g.chance(0.3) ? `; ${g.ascii(30)}` : ''}`]);
    if (g.chance(0.2)) headers.push(['X-404-Policy', g.pick(['launch', g.ascii(10), g.unicode(5)])]);
  }
  headers.push(...randomHeaders(g, g.chance(0.7) ? g.int(4) : g.int(40)));
  const xff = forwardedFor(g);
  if (xff !== undefined) headers.push(['X-Forwarded-For', xff]);
  if (g.chance(0.1)) headers.push(['Origin', g.pick(['https://app.example', 'null', g.unicode(10)])]);

  // Duplicates: repeat some headers with other values (fetch cannot send these).
  if (g.chance(0.15) && headers.length > 0) {
    for (let i = 1 + g.int(3); i > 0; i -= 1) {
      const [name, value] = g.pick(headers);
      headers.splice(g.int(headers.length + 1), 0, [g.chance(0.5) ? name.toLowerCase() : name, g.chance(0.5) ? value : g.mutate(value)]);
    }
  }
  // Oversized: past MAX_HEADER_BYTES (32 KiB) but within what uWS buffers (4×).
  if (g.chance(0.02)) headers.push([g.pick(['X-Pad', 'excluded_mints', 'X-404-Nonce']), 'p'.repeat(20_000 + g.int(90_000))]);
  // Stay inside uWS's header-count limit.
  headers.splice(88);

  const body = method !== 'GET' && method !== 'HEAD' && g.chance(0.3) ? Buffer.from(JSON.stringify(g.json())) : undefined;
  return { request: { method, target, headers, body }, signFor, secretKey, close: method === 'HEAD' || body !== undefined || g.chance(0.02) };
}

// ---------------------------------------------------------------------------------------------
// Checks

function problemWith(response: RawResponse, method: string): string | undefined {
  const { status } = response;
  if (![200, 204, 400, 401, 403, 404, 405, 429, 431, 500, 501, 503].includes(status)) return `status ${status} is not one the contract names`;
  if (!response.headers.has('access-control-allow-origin')) return 'no CORS headers';
  if (status === 204 || method.toUpperCase() === 'HEAD') return undefined;
  if (!/^application\/json\b/.test(response.headers.get('content-type') ?? '')) return `content-type ${response.headers.get('content-type')}`;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(response.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return `body is not JSON: ${response.body.toString('utf8').slice(0, 120)}`;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'body is not a JSON object';
  if (status === 200) return undefined;
  if (typeof body.message !== 'string' || body.message.length === 0) return 'error body without message';
  if (body.error === 'INTERNAL_ERROR') return 'INTERNAL_ERROR';
  if (LOCATION_STATUS[status] !== undefined && body.status === LOCATION_STATUS[status]) return undefined;
  if (typeof body.error !== 'string' || !CODES_BY_STATUS[status]?.has(body.error)) return `${status} with code ${String(body.error)}`;
  if (status === 429 && !response.headers.has('retry-after')) return '429 without Retry-After';
  return undefined;
}

// ---------------------------------------------------------------------------------------------

let localnet: LocalnetHandle;
let gate: GateProcess;
let jwtSecret: string;

beforeAll(async () => {
  localnet = await startLocalnet({ port: 0 });
  jwtSecret = testSecret();
  gate = await startGate({
    rpcUrl: localnet.url,
    // DAS_URL: the collection feature's compressed-NFT stage is fuzzed too (the local chain answers searchAssets).
    env: { JWT_SECRET: jwtSecret, TRUST_PROXY: '1', RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT), DAS_URL: localnet.url },
  });
});
afterAll(async () => {
  await gate?.stop('SIGKILL');
  await localnet?.close();
});

describe('deeply nested and oversized JSON in every JSON policy header', () => {
  // Each feature's JSON headers, the others valid around them, and where a nested value can sit in each.
  const M = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
  const valid: Record<Feature, Record<string, string>> = {
    blacklist: { excluded_mints: '[]', max_holdings: '{}', geo_code: 'false', geo_code_locs: '' },
    timelock: { required_mint: M, mint_amount: '1', min_hold_duration_days: '1' },
    multitoken: { required_tokens: JSON.stringify([{ mint: M, amount: '1' }]) },
    activity: { min_transactions: '1', time_period_days: '30', transaction_types: '[]' },
    tier: { tier_config: JSON.stringify({ gold: { mint: M, amount: '1' } }) },
    nodebt: { check_protocols: '[]' },
    age: { min_wallet_age_days: '1' },
    collection: { collections: JSON.stringify([M]), creators: '[]' },
    balance: { min_lamports: '1' },
  };
  const wrap = (deep: string): string[] => [deep, `[${deep}]`, `{"x":${deep}}`, `{"${M}":${deep}}`, `{"gold":${deep}}`, `[{"mint":${deep},"amount":"1"}]`, `{"gold":{"mint":"${M}","amount":${deep}}}`];
  // Every JSON header of the contract (src/contract/features.ts).
  const JSON_HEADERS: [Feature, string][] = FEATURE_NAMES.flatMap((feature) =>
    FEATURE_CONTRACTS[feature].headers.filter((spec) => isJsonKind(spec.value.kind)).map((spec): [Feature, string] => [feature, spec.name]),
  );
  expect(JSON_HEADERS.length).toBeGreaterThanOrEqual(8);

  it.each(JSON_HEADERS)('%s %s: 400 INVALID_HEADER for every depth and size, never a 500', async (feature, header) => {
    const seed = new Uint8Array(32).fill(9);
    const wallet = new Uint8Array(64);
    wallet.set(seed);
    wallet.set(bs58.decode(publicKeyOf(seed)), 32);
    let client = 0;
    const values: string[] = [];
    // Up to what fits under MAX_HEADER_BYTES (32 KiB): 14,000 characters of arrays, 27,000 of objects.
    for (const depth of [5, 64, 3000, 7000]) values.push(...wrap(`${'['.repeat(depth)}${']'.repeat(depth)}`));
    for (const depth of [5, 64, 1000, 4500]) values.push(...wrap(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`));
    values.push(JSON.stringify(Array.from({ length: 90 }, () => 'x'.repeat(200)))); // valid JSON, over the size bound
    const wrong: string[] = [];
    const unexplained: string[] = [];
    for (const value of values) {
      // A distinct client address each (TRUST_PROXY=1 from loopback), so the rate limit stays out of the way.
      const from = { 'X-Forwarded-For': `198.18.${(client >> 8) % 256}.${client++ % 256}` };
      const issued = await get(`${gate.url}/x404_auth/${feature}`, from);
      const nonce = issued.headers.get('x-404-nonce') as string;
      const answer = await get(`${gate.url}/x404_auth/${feature}`, { ...signedHeaders(wallet, nonce, feature), ...valid[feature], [header]: value, ...from });
      const what = `${value.length} characters (${value.slice(0, 24)}…)`;
      if (answer.status !== 400 || answer.body.error !== 'INVALID_HEADER' || answer.body.header !== header) wrong.push(`${what}: ${answer.status} ${answer.body.error}`);
      else if (!/levels deep|characters long; a JSON header may have at most 16384/.test(answer.body.message)) unexplained.push(`${what}: ${answer.body.message}`);
    }
    expect(wrong).toEqual([]);
    // The 400 names the bound, not whatever the parser met first inside the nesting.
    expect(unexplained).toEqual([]);
  }, 60_000);
});

describe('header fuzzing', () => {
  it(
    `answers ${REQUESTS_PER_ROUTE} fuzzed requests per route within the contract (seed ${SEED})`,
    async () => {
      const pid = gate.child.pid!;
      const encoder = new TextEncoder();
      const secret = encoder.encode(jwtSecret);
      // Real tokens with assorted claims, so re-authentication runs on fuzzed policy headers.
      const tokens = await Promise.all(
        Array.from({ length: 40 }, (_, i) => {
          const g = new Gen(prng(SEED, 99, i));
          const now = Math.floor(Date.now() / 1000);
          return new SignJWT({ feature: g.pick([...FEATURES, 'other']), pol: g.chance(0.5) ? bs58.encode(g.bytes(32)) : '', ...(g.chance(0.3) ? { tier: 'gold' } : {}) })
            .setProtectedHeader({ alg: 'HS256' })
            .setSubject(g.address())
            .setIssuedAt(now)
            .setJti(String(i))
            .setExpirationTime(g.chance(0.8) ? now + 3600 : now - 10)
            .sign(secret);
        }),
      );

      const pool = new RawPool(gate.port, CONCURRENCY);
      const schedule: Array<[(typeof ROUTES)[number], number]> = [];
      for (let i = 0; i < REQUESTS_PER_ROUTE; i += 1) for (const route of ROUTES) schedule.push([route, i]);
      const failures: string[] = [];
      const statusCounts = new Map<number, number>();
      const record = (what: string, response: RawResponse, method: string): void => {
        statusCounts.set(response.status, (statusCounts.get(response.status) ?? 0) + 1);
        const problem = problemWith(response, method);
        if (problem && failures.length < 25) failures.push(`${what}: ${problem} — ${response.body.toString('utf8').slice(0, 200)}`);
      };

      const each = async ([route, index]: (typeof schedule)[number]): Promise<void> => {
        const p = plan(route, index, tokens);
        const what = `seed ${SEED} ${route} #${index} ${p.request.method} ${String(p.request.target).slice(0, 60)}`;
        try {
          if (p.signFor && p.secretKey) {
            // Deep request: the nonce request is itself one of the route's requests.
            const issued = await pool.send({ method: 'GET', target: `/x404_auth/${p.signFor}`, headers: [['X-Forwarded-For', `10.255.${index % 256}.${(index >> 8) % 256}`]] });
            record(`${what} (nonce)`, issued, 'GET');
            const nonce = issued.headers.get('x-404-nonce');
            if (nonce) {
              const signed = signedHeaders(p.secretKey, nonce, p.signFor);
              if (index % 7 === 0) signed['X-404-Signature'] = bs58.encode(new Uint8Array(64)); // a forged one now and then
              p.request.headers.unshift(...Object.entries(signed));
            }
          }
          record(what, await pool.send(p.request, { close: p.close }), p.request.method);
        } catch (error) {
          if (failures.length < 25) failures.push(`${what}: ${(error as Error).message}`);
        }
      };
      const { sent, elapsedMs, warmRssKb, finalRssKb, peakRssKb } = await runSchedule(schedule, { pid, concurrency: CONCURRENCY, budgetMs: TIME_BUDGET_MS, each }).finally(() =>
        pool.close(),
      );
      console.log(
        `fuzz: ${Math.min(sent, schedule.length)} requests in ${elapsedMs} ms (${Math.round((schedule.length / elapsedMs) * 1000)}/s); ` +
          `statuses ${JSON.stringify(Object.fromEntries([...statusCounts].sort((a, b) => a[0] - b[0])))}; ` +
          `RSS warm ${warmRssKb} kB, peak ${peakRssKb} kB, final ${finalRssKb} kB`,
      );

      expect(failures).toEqual([]);
      expect(sent, `time budget of ${TIME_BUDGET_MS} ms ran out`).toBeGreaterThanOrEqual(schedule.length);
      // The fuzz reached the interesting answers, not only 400s.
      for (const status of [200, 400, 401, 404, 405, 429, 431]) expect(statusCounts.get(status) ?? 0, `status ${status}`).toBeGreaterThan(0);

      // Alive and still correct: health, and a real login.
      expect(gate.child.exitCode).toBeNull();
      const health = await get(`${gate.url}/health`, { 'X-Forwarded-For': '192.0.2.200' });
      expect(health.status).toBe(200);
      const seed = new Uint8Array(32).fill(7);
      const wallet = new Uint8Array(64);
      wallet.set(seed);
      wallet.set(bs58.decode(publicKeyOf(seed)), 32);
      const client = { 'X-Forwarded-For': '192.0.2.201' };
      const issued = await get(`${gate.url}/x404_auth/blacklist`, client);
      expect(issued.status).toBe(200);
      const nonce = issued.headers.get('x-404-nonce')!;
      const login = await get(`${gate.url}/x404_auth/blacklist`, { ...signedHeaders(wallet, nonce, 'blacklist'), ...blacklistPolicy(), ...client });
      expect(login.status, JSON.stringify(login.body)).toBe(200);

      // Bounded memory: what the first tenth of the run warmed up may grow, but not without limit.
      expect(finalRssKb - warmRssKb, `RSS grew from ${warmRssKb} kB to ${finalRssKb} kB`).toBeLessThan(128 * 1024);
      expect(peakRssKb, `peak RSS ${peakRssKb} kB`).toBeLessThan(768 * 1024);
    },
    Number.isFinite(TIME_BUDGET_MS) ? TIME_BUDGET_MS + 60_000 : HANG_MS,
  );
});

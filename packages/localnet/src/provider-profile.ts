/**
 * Provider profiles: how a hosted Solana RPC provider limits its callers, as providers document it,
 * so the gate can be tested and measured against those limits on the local chain. Each setting is
 * independent; the named presets combine them the way public documentation describes. Where a limit
 * comes from, and what a real provider answers, is in docs/local-chain.md ("Provider profiles").
 *
 * This module only describes and validates settings; provider-limits.ts applies them to requests.
 * Set at start-up (RPC_PROFILE, `startLocalnet({ profile })`) and at run time (`POST
 * /__localnet/provider {"profile": …}`).
 */

/** Methods that are limited together, as providers group them. A batch cap names a class or a method. */
export const METHOD_CLASSES = {
  /** Archival reads (Helius: "Batches over 10 requests are not allowed" for archival methods). */
  history: ['getSignaturesForAddress', 'getTransaction', 'getBlock', 'getBlocks', 'getBlocksWithLimit'],
  /** Reads served from secondary indexes, limited apart from the rest (Shyft: "index req/sec"). */
  index: ['getProgramAccounts', 'getTokenAccountsByOwner', 'getTokenAccountsByDelegate', 'getTokenLargestAccounts'],
  /** The DAS API (served beside the RPC by DAS providers). */
  das: ['searchAssets', 'getAsset', 'getAssetBatch', 'getAssetsByOwner', 'getAssetsByGroup'],
} as const satisfies Record<string, readonly string[]>;
export type MethodClass = keyof typeof METHOD_CLASSES;

/** The JSON-RPC error object a call over a rate limit gets (inside a 200, or as the body of a 429). */
export interface RateLimitError {
  code: number;
  message: string;
}

/**
 * Rate-limit errors as providers document or send them (sources in docs/local-chain.md); `rateLimitError`
 * takes one of these names or an explicit `{code, message}`.
 */
export const RATE_LIMIT_ERRORS = {
  /** Solana's public endpoints (api.*.solana.com, run by Triton/rpcpool), HTTP 429. */
  public: { code: 429, message: 'Too many requests for a specific RPC call, contact your app developer or support@rpcpool.com.' },
  /** QuickNode's Solana error reference, HTTP 429. */
  'code-429': { code: 429, message: 'The requests per second (RPS) of your requests are higher than your plan allows.' },
  /** P2P.org's RPC (HTTP 429) and Goldsky's normalized errors; note -32005 is also Solana's "node unhealthy". */
  'code-32005': { code: -32005, message: 'Rate limit exceeded' },
  /** Syndica's custom code for a method or namespace over its rate limit. */
  'code-7429': { code: 7429, message: 'Rate Limited' },
  /** Seen in clients' handling of a major provider; not found in provider documentation. */
  'code-32429': { code: -32429, message: 'rate limited' },
} as const satisfies Record<string, RateLimitError>;
export type RateLimitErrorName = keyof typeof RATE_LIMIT_ERRORS;

export interface CallBudget {
  /** Calls admitted per window, every batch member counted (0: no budget). */
  calls: number;
  /** The rolling window, in milliseconds. */
  windowMs: number;
  /** Calls of any one method admitted per window (0: no per-method limit). */
  perMethod: number;
}

export interface ProfileSettings {
  /** The preset these settings are; `custom` when they match none (a field changed after a preset). */
  preset: PresetName | 'custom';
  /** `refuse`: any JSON array (even of one call) is refused whole, in the `batchRefusal` shape. */
  batch: 'ok' | 'refuse';
  /**
   * How an array is refused (batches off, or a batch cap exceeded): `http-400` — HTTP 400 with one
   * error object `id: null` (code -32600); `error-object` — HTTP 200 with one error object `id: null`
   * instead of an array (jsonrpsee's shape: -32005 "Batched requests are not supported by this
   * server", -32010 "The batch request was too large").
   */
  batchRefusal: 'http-400' | 'error-object';
  /** Most calls of a method class (METHOD_CLASSES) or of one method in one array; 0: none at all. */
  batchCaps: Record<string, number>;
  budget: CallBudget;
  /**
   * Calls of an array over the budget: `member-errors` — those members answered `rateLimitError`
   * inside an HTTP 200, the rest served; `reject-batch` — the whole array answered HTTP 429 when it
   * does not fit. A single call over the budget is always HTTP 429.
   */
  budgetOverflow: 'member-errors' | 'reject-batch';
  rateLimitError: RateLimitError;
  /** Retry-After on 429s: `window` — seconds until the budget frees the calls; a fixed number of seconds; `none`. */
  retryAfter: 'window' | 'none' | number;
  /**
   * `refused`: -32010 "<program> excluded from account secondary indexes; this RPC method unavailable
   * for key" (a node without the index); `disabled`: HTTP 410 "The RPC call or parameters have been
   * disabled." (Solana's public endpoint); a member of an array gets the error object inside a 200.
   */
  getProgramAccounts: 'ok' | 'refused' | 'disabled';
  /** getProgramAccounts calls per second on top of the budget (0: no own limit); over it, `rateLimitError`. */
  getProgramAccountsPerSecond: number;
  /** getTokenAccountsByOwner that would answer more accounts than this without `dataSlice`: -32600 (0: no limit). */
  tokenAccountsLimit: number;
  /** `requires-token-type`: searchAssets without `tokenType` is refused (-32602); `absent`: the DAS methods are not served (-32601). */
  das: 'ok' | 'requires-token-type' | 'absent';
  /**
   * A getProgramAccounts of a token program whose filters do not match the owner or mint index shape
   * (agave `get_spl_token_owner_filter`: dataSize 165, or memcmp [2] at 165 for Token-2022, or
   * tokenAccountState — with the owner at 32 or the mint at 0) makes a real node scan the whole
   * program: `refuse` answers -32010 as a node excluding the program from its scans does, `slow`
   * answers after `unindexedScanMs`, `ok` answers at once.
   */
  unindexedTokenScan: 'ok' | 'refuse' | 'slow';
  unindexedScanMs: number;
  /** Answer `Content-Encoding: gzip` to a client sending `Accept-Encoding: gzip`, for bodies of at least GZIP_MIN_BYTES. */
  gzip: boolean;
}

/** Bodies shorter than this are sent as they are even when gzip is asked for (HTTP lets a server choose). */
export const GZIP_MIN_BYTES = 1024;

const NONE: Omit<ProfileSettings, 'preset'> = {
  batch: 'ok',
  batchRefusal: 'http-400',
  batchCaps: {},
  budget: { calls: 0, windowMs: 1000, perMethod: 0 },
  budgetOverflow: 'member-errors',
  rateLimitError: RATE_LIMIT_ERRORS['code-429'],
  retryAfter: 'window',
  getProgramAccounts: 'ok',
  getProgramAccountsPerSecond: 0,
  tokenAccountsLimit: 0,
  das: 'ok',
  unindexedTokenScan: 'ok',
  unindexedScanMs: 10_000,
  gzip: false,
};

/** The per-call budget preset's default, in calls per second (`callsPerSecond` changes it). */
export const DEFAULT_CALLS_PER_SECOND = 150;

/** The shapes public documentation describes (docs/local-chain.md cites each). */
export const PRESETS = {
  /** Today's local chain: no limits. */
  none: NONE,
  /**
   * api.mainnet-beta.solana.com as documented: 100 requests per 10 s per IP, 40 per 10 s for a single
   * method; HTTP 429 with the rpcpool body, no Retry-After documented; getProgramAccounts answered
   * HTTP 410 "disabled"; no DAS.
   */
  'public-mainnet': {
    ...NONE,
    budget: { calls: 100, windowMs: 10_000, perMethod: 40 },
    budgetOverflow: 'reject-batch',
    rateLimitError: RATE_LIMIT_ERRORS.public,
    retryAfter: 'none',
    getProgramAccounts: 'disabled',
    das: 'absent',
    gzip: true,
  },
  /** JSON-RPC batches turned off: every array refused with HTTP 400. */
  'batches-off': { ...NONE, batch: 'refuse', gzip: true },
  /** At most 10 history calls (getSignaturesForAddress, getTransaction, …) in one array. */
  'history-batch-10': { ...NONE, batchCaps: { history: 10 }, gzip: true },
  /** A budget in calls per second in which every batch member counts; overflow members answered inside a 200, a single call 429 with Retry-After. */
  'per-call-budget': { ...NONE, budget: { calls: DEFAULT_CALLS_PER_SECOND, windowMs: 1000, perMethod: 0 }, gzip: true },
} as const satisfies Record<string, Omit<ProfileSettings, 'preset'>>;
export type PresetName = keyof typeof PRESETS;

export function presetSettings(name: PresetName): ProfileSettings {
  return clone({ ...PRESETS[name], preset: name });
}

/**
 * A change to a profile: a preset name, or fields (with an optional `preset` to start from; without
 * it the change applies to the settings in force). `callsPerSecond` is short for a one-second budget.
 */
export type ProfileChange =
  | PresetName
  | (Partial<Omit<ProfileSettings, 'preset' | 'rateLimitError' | 'budget'>> & {
      /** `custom`: over the settings in force, like no preset (so settings read back can be sent again). */
      preset?: PresetName | 'custom';
      callsPerSecond?: number;
      budget?: Partial<CallBudget>;
      rateLimitError?: RateLimitErrorName | RateLimitError;
    });

const FIELDS = new Set([
  'preset',
  'callsPerSecond',
  'batch',
  'batchRefusal',
  'batchCaps',
  'budget',
  'budgetOverflow',
  'rateLimitError',
  'retryAfter',
  'getProgramAccounts',
  'getProgramAccountsPerSecond',
  'tokenAccountsLimit',
  'das',
  'unindexedTokenScan',
  'unindexedScanMs',
  'gzip',
]);

/** The settings after `change`; throws (with a message for the admin route's 400) on anything invalid, leaving `current` as it was. */
export function applyProfileChange(current: ProfileSettings, change: unknown): ProfileSettings {
  if (typeof change === 'string') return presetSettings(presetName(change));
  if (!change || typeof change !== 'object' || Array.isArray(change)) throw new Error('profile must be a preset name or an object of settings');
  const fields = change as Record<string, unknown>;
  for (const key of Object.keys(fields)) if (!FIELDS.has(key)) throw new Error(`unknown profile setting ${key}`);
  // `custom` (what current() reports after a change) starts from the settings in force, so settings read back can be sent again.
  const base = fields.preset === undefined || fields.preset === 'custom' ? null : presetName(fields.preset);
  const next = base === null ? clone(current) : presetSettings(base);
  if (fields.batch !== undefined) next.batch = oneOf(fields.batch, 'batch', ['ok', 'refuse'] as const);
  if (fields.batchRefusal !== undefined) next.batchRefusal = oneOf(fields.batchRefusal, 'batchRefusal', ['http-400', 'error-object'] as const);
  if (fields.batchCaps !== undefined) next.batchCaps = batchCaps(fields.batchCaps);
  if (fields.budget !== undefined) next.budget = budget(next.budget, fields.budget);
  if (fields.callsPerSecond !== undefined) next.budget = { calls: count(fields.callsPerSecond, 'callsPerSecond'), windowMs: 1000, perMethod: 0 };
  if (fields.budgetOverflow !== undefined) next.budgetOverflow = oneOf(fields.budgetOverflow, 'budgetOverflow', ['member-errors', 'reject-batch'] as const);
  if (fields.rateLimitError !== undefined) next.rateLimitError = rateLimitError(fields.rateLimitError);
  if (fields.retryAfter !== undefined) next.retryAfter = retryAfter(fields.retryAfter);
  if (fields.getProgramAccounts !== undefined) next.getProgramAccounts = oneOf(fields.getProgramAccounts, 'getProgramAccounts', ['ok', 'refused', 'disabled'] as const);
  if (fields.getProgramAccountsPerSecond !== undefined) next.getProgramAccountsPerSecond = count(fields.getProgramAccountsPerSecond, 'getProgramAccountsPerSecond');
  if (fields.tokenAccountsLimit !== undefined) next.tokenAccountsLimit = count(fields.tokenAccountsLimit, 'tokenAccountsLimit');
  if (fields.das !== undefined) next.das = oneOf(fields.das, 'das', ['ok', 'requires-token-type', 'absent'] as const);
  if (fields.unindexedTokenScan !== undefined) next.unindexedTokenScan = oneOf(fields.unindexedTokenScan, 'unindexedTokenScan', ['ok', 'refuse', 'slow'] as const);
  if (fields.unindexedScanMs !== undefined) next.unindexedScanMs = milliseconds(fields.unindexedScanMs, 'unindexedScanMs');
  if (fields.gzip !== undefined) {
    if (typeof fields.gzip !== 'boolean') throw new Error('gzip must be true or false');
    next.gzip = fields.gzip;
  }
  next.preset = namedPreset(next) ?? 'custom';
  return next;
}

/** The preset whose settings these are, if any (the one they started from first). */
function namedPreset(settings: ProfileSettings): PresetName | null {
  const names = Object.keys(PRESETS) as PresetName[];
  const candidates = settings.preset === 'custom' ? names : [settings.preset, ...names.filter((name) => name !== settings.preset)];
  return candidates.find((name) => sameSettings(settings, PRESETS[name])) ?? null;
}

/** Whether these settings limit nothing (whatever their `preset` label says). */
export function limitsNothing(settings: ProfileSettings): boolean {
  return sameSettings(settings, PRESETS.none);
}

function sameSettings(a: Omit<ProfileSettings, 'preset'>, b: Omit<ProfileSettings, 'preset'>): boolean {
  const caps = (caps: Record<string, number>) => JSON.stringify(Object.entries(caps).sort(([x], [y]) => (x < y ? -1 : 1)));
  return (
    a.batch === b.batch &&
    a.batchRefusal === b.batchRefusal &&
    caps(a.batchCaps) === caps(b.batchCaps) &&
    a.budget.calls === b.budget.calls &&
    a.budget.windowMs === b.budget.windowMs &&
    a.budget.perMethod === b.budget.perMethod &&
    a.budgetOverflow === b.budgetOverflow &&
    a.rateLimitError.code === b.rateLimitError.code &&
    a.rateLimitError.message === b.rateLimitError.message &&
    a.retryAfter === b.retryAfter &&
    a.getProgramAccounts === b.getProgramAccounts &&
    a.getProgramAccountsPerSecond === b.getProgramAccountsPerSecond &&
    a.tokenAccountsLimit === b.tokenAccountsLimit &&
    a.das === b.das &&
    a.unindexedTokenScan === b.unindexedTokenScan &&
    a.unindexedScanMs === b.unindexedScanMs &&
    a.gzip === b.gzip
  );
}

function presetName(value: unknown): PresetName {
  if (typeof value === 'string' && Object.hasOwn(PRESETS, value)) return value as PresetName;
  throw new Error(`unknown provider profile ${JSON.stringify(value)}; presets: ${Object.keys(PRESETS).join(', ')}`);
}

function oneOf<T extends string>(value: unknown, name: string, allowed: readonly T[]): T {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw new Error(`${name} must be one of ${allowed.join(', ')}`);
}

const MAX_COUNT = 1_000_000;
const MAX_WINDOW_MS = 3_600_000;

function count(value: unknown, name: string): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_COUNT) return value;
  throw new Error(`${name} must be an integer 0..${MAX_COUNT}`);
}

function milliseconds(value: unknown, name: string): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_WINDOW_MS) return value;
  throw new Error(`${name} must be a whole number of milliseconds 1..${MAX_WINDOW_MS}`);
}

function batchCaps(value: unknown): Record<string, number> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('batchCaps must be an object of {class or method: most calls per batch}');
  const caps: Record<string, number> = {};
  for (const [key, cap] of Object.entries(value)) {
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(key)) throw new Error(`batchCaps: ${JSON.stringify(key)} is not a method class (${Object.keys(METHOD_CLASSES).join(', ')}) or method name`);
    caps[key] = count(cap, `batchCaps.${key}`);
  }
  return caps;
}

function budget(current: CallBudget, value: unknown): CallBudget {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('budget must be an object {calls, windowMs, perMethod}');
  const fields = value as Record<string, unknown>;
  for (const key of Object.keys(fields)) if (key !== 'calls' && key !== 'windowMs' && key !== 'perMethod') throw new Error(`unknown budget field ${key}`);
  return {
    calls: fields.calls === undefined ? current.calls : count(fields.calls, 'budget.calls'),
    windowMs: fields.windowMs === undefined ? current.windowMs : milliseconds(fields.windowMs, 'budget.windowMs'),
    perMethod: fields.perMethod === undefined ? current.perMethod : count(fields.perMethod, 'budget.perMethod'),
  };
}

function rateLimitError(value: unknown): RateLimitError {
  if (typeof value === 'string') {
    if (Object.hasOwn(RATE_LIMIT_ERRORS, value)) return { ...RATE_LIMIT_ERRORS[value as RateLimitErrorName] };
    throw new Error(`rateLimitError must be one of ${Object.keys(RATE_LIMIT_ERRORS).join(', ')} or {code, message}`);
  }
  const error = value as Record<string, unknown> | null;
  if (error && typeof error === 'object' && Number.isSafeInteger(error.code) && typeof error.message === 'string' && error.message) {
    return { code: error.code as number, message: error.message };
  }
  throw new Error('rateLimitError must be a name or {code: integer, message: string}');
}

function retryAfter(value: unknown): ProfileSettings['retryAfter'] {
  if (value === 'window' || value === 'none') return value;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 86_400) return value;
  throw new Error("retryAfter must be 'window', 'none' or whole seconds 0..86400");
}

function clone(settings: ProfileSettings): ProfileSettings {
  return { ...settings, batchCaps: { ...settings.batchCaps }, budget: { ...settings.budget }, rateLimitError: { ...settings.rateLimitError } };
}

/**
 * RPC_PROFILE: a preset name, optionally followed by settings, comma-separated:
 * `per-call-budget,callsPerSecond=300,retryAfter=none`, `none,batch=refuse,batchRefusal=error-object`,
 * `history-batch-10,batchCaps.history=5`. Unset or empty: `none`.
 */
export function profileFromEnv(env: NodeJS.ProcessEnv): ProfileSettings {
  const raw = env.RPC_PROFILE?.trim();
  if (!raw) return presetSettings('none');
  const [name, ...pairs] = raw.split(',').map((part) => part.trim());
  try {
    const change: Record<string, unknown> = { preset: presetName(name) };
    for (const pair of pairs) {
      const equals = pair.indexOf('=');
      if (equals < 1) throw new Error(`expected name=value, got ${JSON.stringify(pair)}`);
      const key = pair.slice(0, equals);
      const value = envValue(pair.slice(equals + 1));
      if (key.startsWith('batchCaps.')) change.batchCaps = { ...(change.batchCaps as object), [key.slice('batchCaps.'.length)]: value };
      else if (key.startsWith('budget.')) change.budget = { ...(change.budget as object), [key.slice('budget.'.length)]: value };
      else change[key] = value;
    }
    return applyProfileChange(presetSettings('none'), change);
  } catch (error) {
    throw new Error(`RPC_PROFILE: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Numbers and booleans as such; everything else (preset, mode and error names) as text. */
function envValue(text: string): unknown {
  if (text === 'true' || text === 'false') return text === 'true';
  return /^-?\d+$/.test(text) ? Number(text) : text;
}

/** One line for a log: the preset and what differs from no limits. */
export function describeProfile(settings: ProfileSettings): string {
  const parts: string[] = [];
  if (settings.batch === 'refuse') parts.push(`batches refused (${settings.batchRefusal})`);
  for (const [key, cap] of Object.entries(settings.batchCaps)) parts.push(`≤ ${cap} ${key} calls per batch`);
  if (settings.budget.calls > 0) {
    parts.push(`${settings.budget.calls} calls per ${settings.budget.windowMs} ms${settings.budget.perMethod > 0 ? ` (${settings.budget.perMethod} per method)` : ''}, overflow ${settings.budgetOverflow}`);
  }
  if (settings.getProgramAccounts !== 'ok') parts.push(`getProgramAccounts ${settings.getProgramAccounts}`);
  if (settings.getProgramAccountsPerSecond > 0) parts.push(`getProgramAccounts ≤ ${settings.getProgramAccountsPerSecond}/s`);
  if (settings.tokenAccountsLimit > 0) parts.push(`getTokenAccountsByOwner ≤ ${settings.tokenAccountsLimit} accounts without dataSlice`);
  if (settings.das !== 'ok') parts.push(`DAS ${settings.das}`);
  if (settings.unindexedTokenScan !== 'ok') parts.push(`unindexed token scans ${settings.unindexedTokenScan}`);
  if (settings.gzip) parts.push('gzip');
  return `${settings.preset}${parts.length ? `: ${parts.join('; ')}` : ' (no limits)'}`;
}

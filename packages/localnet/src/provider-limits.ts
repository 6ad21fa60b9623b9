/**
 * Applies a provider profile (provider-profile.ts) to each JSON-RPC HTTP request the local chain
 * receives, before any call runs: a whole request may be refused the way the provider answers it
 * (HTTP 400/429/410, or one error object answering an array), or single calls of it answered with
 * the provider's error while the others are served. Nothing here changes what a served call answers.
 *
 * Order, as a provider's gateway and node apply them: batch refusal and per-class batch caps
 * (the array as a whole), then the call budget (every member counts; a refused call does not use
 * the budget), then what the node itself refuses (getProgramAccounts disabled/refused/throttled,
 * a token scan without the index filters, a too-large token-account list, DAS without tokenType).
 */
import bs58 from 'bs58';
import { TOKEN_ACCOUNT_SIZE, ACCOUNT_TYPE_ACCOUNT } from './layouts.js';
import { isTokenProgram, TOKEN_2022_PROGRAM } from './programs.js';
import { RollingWindow } from './rolling-window.js';
import { RPC_INVALID_PARAMS, RPC_INVALID_REQUEST, RPC_METHOD_NOT_FOUND } from './rpc-error.js';
import { applyProfileChange, limitsNothing, METHOD_CLASSES, type MethodClass, type ProfileSettings, presetSettings } from './provider-profile.js';
import type { ChainState } from './state.js';

/** Why a call was refused: the keys of the refusal counters in /__localnet/stats (provider-stats.ts). */
export type RefusalReason =
  | 'batch-refused'
  | 'batch-cap'
  | 'budget'
  | 'budget-method'
  | 'gpa-disabled'
  | 'gpa-refused'
  | 'gpa-throttled'
  | 'unindexed-token-scan'
  | 'token-accounts-too-many'
  | 'das-token-type'
  | 'das-absent';

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** One call the profile refuses: answered with `error` (its HTTP status when it was the whole request). */
export interface CallRefusal {
  reason: RefusalReason;
  error: JsonRpcErrorObject;
  /** The status a provider answers when this call is the whole request (429, 410); inside an array it is a member error. */
  aloneStatus?: number;
  /** Seconds for a Retry-After header when answered alone with 429 (undefined: no header). */
  retryAfterSeconds?: number;
}

/** A call of the request, as the server parsed it (null: a member that is not a valid call). */
export interface ProfiledCall {
  id: unknown;
  method: string;
  params: unknown;
}

export type Admission =
  /** The whole HTTP request is answered with `status` and `body` (one JSON-RPC error object); every call counted under `reason`. */
  | { kind: 'refuse-request'; status: number; body: string; headers: Record<string, string>; reason: RefusalReason }
  /** Serve it: calls with a refusal are answered with its error, the others run; the answer waits `delayMs` more. */
  | { kind: 'serve'; refusals: (CallRefusal | null)[]; delayMs: number };

/** The public endpoint's answer for a disabled call (HTTP 410). */
const DISABLED_ERROR: JsonRpcErrorObject = { code: 410, message: 'The RPC call or parameters have been disabled.' };
/** agave's JSON_RPC_SERVER_ERROR_KEY_EXCLUDED_FROM_SECONDARY_INDEX. */
const RPC_KEY_EXCLUDED_FROM_SECONDARY_INDEX = -32010;
/** jsonrpsee's BATCHES_NOT_SUPPORTED_CODE and TOO_BIG_BATCH_REQUEST_CODE (paritytech/jsonrpsee types/src/error.rs). */
const JSONRPSEE_BATCHES_NOT_SUPPORTED = -32005;
const JSONRPSEE_TOO_BIG_BATCH_REQUEST = -32010;
const TOKEN_OWNER_OFFSET = 32;
const TOKEN_MINT_OFFSET = 0;
const PUBKEY_BYTES = 32;
const DAS_TOKEN_TYPES = ['fungible', 'nonFungible', 'regularNft', 'compressedNft', 'all'];
const DAS_METHODS: ReadonlySet<string> = new Set(METHOD_CLASSES.das);
const MAX_METHOD_WINDOWS = 256;
/** Not a JSON-RPC method name (those have no spaces): the window the methods past MAX_METHOD_WINDOWS share. */
const OTHER_METHODS = 'other methods';

export class ProviderLimits {
  private settings: ProfileSettings;
  private budget: RollingWindow | null = null;
  private perMethod = new Map<string, RollingWindow>();
  private programScans: RollingWindow | null = null;

  constructor(
    private readonly state: ChainState,
    settings: ProfileSettings = presetSettings('none'),
    private readonly now: () => number = () => performance.now(),
  ) {
    this.settings = settings;
    this.set(settings);
  }

  /** Applies settings (validated by provider-profile.ts) and starts every window empty. */
  set(settings: ProfileSettings): void {
    this.settings = settings;
    this.inactive = limitsNothing(settings);
    const { calls, windowMs } = settings.budget;
    this.budget = calls > 0 ? new RollingWindow(calls, windowMs) : null;
    this.perMethod = new Map();
    this.programScans = settings.getProgramAccountsPerSecond > 0 ? new RollingWindow(settings.getProgramAccountsPerSecond, 1000) : null;
  }

  current(): ProfileSettings {
    return this.settings;
  }

  /** Applies a preset name or a change of settings (provider-profile.ts); throws, changing nothing, on a bad one. */
  change(change: unknown): ProfileSettings {
    this.set(applyProfileChange(this.settings, change));
    return this.settings;
  }

  /** True when no setting can change an answer (the server skips the profile on its hot path). */
  inactive = true;

  admit(isBatch: boolean, calls: readonly (ProfiledCall | null)[]): Admission {
    const settings = this.settings;
    const valid = calls.filter((call): call is ProfiledCall => call !== null);
    if (isBatch) {
      const refusal = this.refuseArray(valid);
      if (refusal) return refusal;
    }
    const refusals: (CallRefusal | null)[] = calls.map(() => null);
    const at = this.now();
    const budgetRefusal = this.applyBudget(isBatch, calls, refusals, at);
    if (budgetRefusal) return budgetRefusal;
    let delayMs = 0;
    calls.forEach((call, index) => {
      if (call === null || refusals[index]) return;
      const node = this.nodeRefusal(call, at);
      if (node === 'slow') delayMs = Math.max(delayMs, settings.unindexedScanMs);
      else if (node) refusals[index] = node;
    });
    if (!isBatch && refusals[0]?.aloneStatus !== undefined) {
      const refusal = refusals[0];
      const headers: Record<string, string> = refusal.retryAfterSeconds === undefined ? {} : { 'retry-after': String(refusal.retryAfterSeconds) };
      return { kind: 'refuse-request', status: refusal.aloneStatus!, body: errorBody(calls[0]?.id ?? null, refusal.error), headers, reason: refusal.reason };
    }
    return { kind: 'serve', refusals, delayMs };
  }

  /** Batches off, or a class over its cap: the array refused whole, in the configured shape. */
  private refuseArray(calls: readonly ProfiledCall[]): Admission | null {
    const settings = this.settings;
    if (settings.batch === 'refuse') {
      return settings.batchRefusal === 'http-400'
        ? arrayRefusal(400, { code: RPC_INVALID_REQUEST, message: 'Batch requests are not supported by this endpoint' }, 'batch-refused')
        : arrayRefusal(200, { code: JSONRPSEE_BATCHES_NOT_SUPPORTED, message: 'Batched requests are not supported by this server' }, 'batch-refused');
    }
    for (const [key, cap] of Object.entries(settings.batchCaps)) {
      const methods: readonly string[] = Object.hasOwn(METHOD_CLASSES, key) ? METHOD_CLASSES[key as MethodClass] : [key];
      const n = calls.filter((call) => methods.includes(call.method)).length;
      if (n <= cap) continue;
      return settings.batchRefusal === 'http-400'
        ? arrayRefusal(400, { code: RPC_INVALID_REQUEST, message: `Batch exceeds the limit of ${cap} ${key} calls (${methods.join(', ')}) per batch: ${n} sent` }, 'batch-cap')
        : arrayRefusal(200, { code: JSONRPSEE_TOO_BIG_BATCH_REQUEST, message: 'The batch request was too large', data: `Exceeded max limit of ${cap}` }, 'batch-cap');
    }
    return null;
  }

  /**
   * The call budget (and its per-method part): fills `refusals` for calls over it, or answers the
   * whole array 429 (`reject-batch`). Returns a whole-request answer, or null to go on.
   */
  private applyBudget(isBatch: boolean, calls: readonly (ProfiledCall | null)[], refusals: (CallRefusal | null)[], at: number): Admission | null {
    const settings = this.settings;
    const { perMethod, windowMs } = settings.budget;
    if (!this.budget && perMethod === 0) return null;
    const methodWindow = (method: string): RollingWindow | null => {
      if (perMethod === 0) return null;
      // Method names come from callers: past a few hundred, the rest share one window (memory stays bounded).
      const key = this.perMethod.has(method) || this.perMethod.size < MAX_METHOD_WINDOWS ? method : OTHER_METHODS;
      let window = this.perMethod.get(key);
      if (!window) this.perMethod.set(key, (window = new RollingWindow(perMethod, windowMs)));
      return window;
    };
    if (isBatch && settings.budgetOverflow === 'reject-batch') {
      const valid = calls.filter((call): call is ProfiledCall => call !== null);
      const byMethod = new Map<string, number>();
      for (const call of valid) byMethod.set(call.method, (byMethod.get(call.method) ?? 0) + 1);
      let waitMs = this.budget?.waitFor(valid.length, at) ?? 0;
      for (const [method, n] of byMethod) waitMs = Math.max(waitMs, methodWindow(method)?.waitFor(n, at) ?? 0);
      if (waitMs > 0) {
        const retryAfter = this.retryAfterSeconds(waitMs);
        return {
          kind: 'refuse-request',
          status: 429,
          body: errorBody(null, settings.rateLimitError),
          headers: retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) },
          reason: 'budget',
        };
      }
      for (const call of valid) {
        this.budget?.take(at);
        methodWindow(call.method)?.take(at);
      }
      return null;
    }
    calls.forEach((call, index) => {
      if (call === null) return;
      const total = this.budget?.waitFor(1, at) ?? 0;
      const method = methodWindow(call.method);
      const own = method?.waitFor(1, at) ?? 0;
      if (total > 0 || own > 0) {
        refusals[index] = {
          reason: total > 0 ? 'budget' : 'budget-method',
          error: settings.rateLimitError,
          aloneStatus: 429,
          retryAfterSeconds: this.retryAfterSeconds(Math.max(total, own)),
        };
        return;
      }
      this.budget?.take(at);
      method?.take(at);
    });
    return null;
  }

  /** What the node (or the provider in front of it, for one method) refuses; 'slow' for an unindexed scan it serves late. */
  private nodeRefusal(call: ProfiledCall, at: number): CallRefusal | 'slow' | null {
    const settings = this.settings;
    if (call.method === 'getProgramAccounts') {
      const programId = Array.isArray(call.params) && typeof call.params[0] === 'string' ? call.params[0] : '';
      if (settings.getProgramAccounts === 'disabled') return { reason: 'gpa-disabled', error: DISABLED_ERROR, aloneStatus: 410 };
      if (settings.getProgramAccounts === 'refused') return { reason: 'gpa-refused', error: excludedFromIndexes(programId) };
      if (this.programScans) {
        const waitMs = this.programScans.waitFor(1, at);
        if (waitMs > 0) return { reason: 'gpa-throttled', error: settings.rateLimitError, aloneStatus: 429, retryAfterSeconds: this.retryAfterSeconds(waitMs) };
        this.programScans.take(at);
      }
      if (settings.unindexedTokenScan !== 'ok' && isTokenProgram(programId) && !tokenScanUsesIndex(programId, call.params)) {
        return settings.unindexedTokenScan === 'refuse' ? { reason: 'unindexed-token-scan', error: excludedFromIndexes(programId) } : 'slow';
      }
      return null;
    }
    if (call.method === 'getTokenAccountsByOwner' && settings.tokenAccountsLimit > 0) {
      const n = this.tokenAccountsWithoutSlice(call.params);
      if (n > settings.tokenAccountsLimit) {
        return {
          reason: 'token-accounts-too-many',
          error: {
            code: RPC_INVALID_REQUEST,
            message: `getTokenAccountsByOwner would answer ${n} accounts, over this endpoint's limit of ${settings.tokenAccountsLimit} without dataSlice; use dataSlice or a mint filter`,
          },
        };
      }
      return null;
    }
    if (DAS_METHODS.has(call.method)) {
      if (settings.das === 'absent') return { reason: 'das-absent', error: { code: RPC_METHOD_NOT_FOUND, message: 'Method not found' } };
      if (settings.das === 'requires-token-type' && call.method === 'searchAssets') {
        const tokenType = call.params && typeof call.params === 'object' && !Array.isArray(call.params) ? (call.params as Record<string, unknown>).tokenType : undefined;
        if (typeof tokenType !== 'string' || !DAS_TOKEN_TYPES.includes(tokenType)) {
          return { reason: 'das-token-type', error: { code: RPC_INVALID_PARAMS, message: `Invalid params: searchAssets requires tokenType, one of ${DAS_TOKEN_TYPES.join(', ')}` } };
        }
      }
    }
    return null;
  }

  /** How many accounts a getTokenAccountsByOwner without dataSlice would answer (0 with dataSlice or params the handler refuses). */
  private tokenAccountsWithoutSlice(params: unknown): number {
    if (!Array.isArray(params) || typeof params[0] !== 'string') return 0;
    const config = params[2];
    if (config && typeof config === 'object' && (config as Record<string, unknown>).dataSlice !== undefined) return 0;
    const filter = params[1] as Record<string, unknown> | undefined;
    let programId: string | undefined;
    let mint: Buffer | undefined;
    if (filter && typeof filter.mint === 'string') {
      programId = this.state.getAccount(filter.mint)?.owner;
      try {
        mint = Buffer.from(bs58.decode(filter.mint));
      } catch {
        return 0;
      }
    } else if (filter && typeof filter.programId === 'string') {
      programId = filter.programId;
    }
    if (programId === undefined || !isTokenProgram(programId)) return 0;
    let n = 0;
    for (const address of this.state.tokenAccountsOf(params[0])) {
      const account = this.state.getAccount(address);
      if (!account || account.owner !== programId) continue;
      if (mint && !account.data.subarray(0, PUBKEY_BYTES).equals(mint)) continue;
      n += 1;
    }
    return n;
  }

  private retryAfterSeconds(waitMs: number): number | undefined {
    const setting = this.settings.retryAfter;
    if (setting === 'none') return undefined;
    if (typeof setting === 'number') return setting;
    return Number.isFinite(waitMs) ? Math.max(1, Math.ceil(waitMs / 1000)) : Math.max(1, Math.ceil(this.settings.budget.windowMs / 1000));
  }
}

function arrayRefusal(status: number, error: JsonRpcErrorObject, reason: RefusalReason): Admission {
  return { kind: 'refuse-request', status, body: errorBody(null, error), headers: {}, reason };
}

export function errorBody(id: unknown, error: JsonRpcErrorObject): string {
  return `{"jsonrpc":"2.0","error":${JSON.stringify(error)},"id":${JSON.stringify(id ?? null)}}`;
}

/** agave's KeyExcludedFromSecondaryIndex, word for word. */
function excludedFromIndexes(key: string): JsonRpcErrorObject {
  return { code: RPC_KEY_EXCLUDED_FROM_SECONDARY_INDEX, message: `${key} excluded from account secondary indexes; this RPC method unavailable for key` };
}

/**
 * Whether a token-program scan's filters let a node answer from its owner or mint index, as agave's
 * `get_spl_token_owner_filter` / `get_spl_token_mint_filter` decide: the account shape (dataSize 165;
 * for Token-2022 also memcmp [2] at 165; or tokenAccountState) and a 32-byte memcmp at the owner
 * (32) or mint (0) offset. Otherwise the node scans every account of the program.
 */
export function tokenScanUsesIndex(programId: string, params: unknown): boolean {
  const config = Array.isArray(params) ? (params[1] as Record<string, unknown> | undefined) : undefined;
  const filters = config && typeof config === 'object' && Array.isArray(config.filters) ? (config.filters as unknown[]) : [];
  let accountShape = false;
  let byOwnerOrMint = false;
  for (const filter of filters) {
    if (filter === 'tokenAccountState' || (filter && typeof filter === 'object' && 'tokenAccountState' in filter)) {
      accountShape = true;
      continue;
    }
    if (!filter || typeof filter !== 'object') continue;
    const { dataSize, memcmp } = filter as { dataSize?: unknown; memcmp?: { offset?: unknown; bytes?: unknown; encoding?: unknown } };
    if (dataSize === TOKEN_ACCOUNT_SIZE) accountShape = true;
    if (!memcmp || typeof memcmp.offset !== 'number' || typeof memcmp.bytes !== 'string') continue;
    const bytes = memcmpBytes(memcmp.bytes, memcmp.encoding);
    if (!bytes) continue;
    if (memcmp.offset === TOKEN_ACCOUNT_SIZE && programId === TOKEN_2022_PROGRAM && bytes.length === 1 && bytes[0] === ACCOUNT_TYPE_ACCOUNT) accountShape = true;
    if ((memcmp.offset === TOKEN_OWNER_OFFSET || memcmp.offset === TOKEN_MINT_OFFSET) && bytes.length === PUBKEY_BYTES) byOwnerOrMint = true;
  }
  return accountShape && byOwnerOrMint;
}

function memcmpBytes(text: string, encoding: unknown): Uint8Array | null {
  try {
    return encoding === 'base64' ? Buffer.from(text, 'base64') : bs58.decode(text);
  } catch {
    return null;
  }
}

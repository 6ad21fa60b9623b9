/**
 * What a hosted RPC provider adds to a node, so the gate can be measured and tested against it:
 * the network's round trip (every JSON-RPC HTTP answer is held `latencyMs` before it is written)
 * and a request-rate plan (above `requestsPerSecond` HTTP requests per second the answer is HTTP
 * 429 with a JSON-RPC error body and a Retry-After, as providers answer). Set at start-up
 * (RPC_LATENCY_MS, RPC_REQUESTS_PER_SECOND, or LocalnetOptions) and at run time
 * (`POST /__localnet/provider`). Admin routes are neither delayed nor limited.
 */
export interface ProviderSettings {
  /** Milliseconds every JSON-RPC HTTP answer is delayed (0: none). */
  latencyMs: number;
  /** HTTP requests per second served before answering 429 (0: no limit). */
  requestsPerSecond: number;
}

const MAX_LATENCY_MS = 60_000;

export class ProviderSimulation {
  private settings: ProviderSettings = { latencyMs: 0, requestsPerSecond: 0 };
  /** Token bucket: holds up to one second's worth of requests, refilled continuously. */
  private tokens = 0;
  private refilledAt = 0;

  constructor(initial: Partial<ProviderSettings> = {}) {
    this.set(initial);
  }

  /** Validates and applies; a field left out keeps its value. Throws on a bad value. */
  set(change: Partial<Record<keyof ProviderSettings, unknown>>): ProviderSettings {
    const latencyMs = change.latencyMs === undefined ? this.settings.latencyMs : change.latencyMs;
    const requestsPerSecond = change.requestsPerSecond === undefined ? this.settings.requestsPerSecond : change.requestsPerSecond;
    if (typeof latencyMs !== 'number' || !Number.isInteger(latencyMs) || latencyMs < 0 || latencyMs > MAX_LATENCY_MS) {
      throw new Error(`latencyMs must be an integer 0..${MAX_LATENCY_MS}`);
    }
    if (typeof requestsPerSecond !== 'number' || !Number.isInteger(requestsPerSecond) || requestsPerSecond < 0) {
      throw new Error('requestsPerSecond must be a non-negative integer (0: no limit)');
    }
    this.settings = { latencyMs, requestsPerSecond };
    this.tokens = requestsPerSecond;
    this.refilledAt = performance.now();
    return this.current();
  }

  current(): ProviderSettings {
    return { ...this.settings };
  }

  get latencyMs(): number {
    return this.settings.latencyMs;
  }

  /**
   * Called once per JSON-RPC HTTP request as it arrives: 0 when it may be served, otherwise the
   * seconds the client should wait (its Retry-After, at least 1 as the header is whole seconds).
   */
  admit(): number {
    const rate = this.settings.requestsPerSecond;
    if (rate === 0) return 0;
    const at = performance.now();
    this.tokens = Math.min(rate, this.tokens + ((at - this.refilledAt) / 1000) * rate);
    this.refilledAt = at;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - this.tokens) / rate));
  }

  /** Runs `write` after the simulated latency plus `extraMs` (a provider profile's slow scan); at once when both are 0. */
  answer(write: () => void, extraMs = 0): void {
    const delayMs = this.settings.latencyMs + extraMs;
    if (delayMs === 0) write();
    else setTimeout(write, delayMs);
  }
}

/** RPC_LATENCY_MS and RPC_REQUESTS_PER_SECOND from the environment (unset or empty: 0). */
export function providerSettingsFromEnv(env: NodeJS.ProcessEnv): ProviderSettings {
  const read = (name: string): number => {
    const raw = env[name]?.trim();
    if (raw === undefined || raw === '') return 0;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got ${raw}`);
    return value;
  };
  return { latencyMs: read('RPC_LATENCY_MS'), requestsPerSecond: read('RPC_REQUESTS_PER_SECOND') };
}

import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The gate's Prometheus instruments, in one registry of their own (not prom-client's global one,
 * so tests and embedded gates never collide). The server calls the small methods below; /metrics
 * answers `await metrics.render()` with `metrics.contentType`.
 *
 * Label values are bounded sets the gate controls (route names, status codes, RPC method names,
 * features, outcomes); never a wallet, a mint, a nonce or a token.
 */
export class Metrics {
  readonly registry = new Registry();

  private readonly requests = new Counter({
    name: 'x404_http_requests_total',
    help: 'HTTP responses by route and status code',
    labelNames: ['route', 'status'] as const,
    registers: [this.registry],
  });

  private readonly requestSeconds = new Histogram({
    name: 'x404_http_request_duration_seconds',
    help: 'Time from reading a request to writing its response, by route',
    labelNames: ['route'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  private readonly loginSeconds = new Histogram({
    name: 'x404_login_duration_seconds',
    help: 'Time from receiving a signed authentication request to answering it, by feature and outcome',
    labelNames: ['feature', 'outcome'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  private readonly rpcCalls = new Counter({
    name: 'x404_rpc_calls_total',
    help: 'JSON-RPC calls made to the Solana RPC endpoint, by method',
    labelNames: ['method'] as const,
    registers: [this.registry],
  });

  private readonly rpcErrors = new Counter({
    name: 'x404_rpc_errors_total',
    help: 'Failed or refused JSON-RPC calls, by method and kind (timeout, http, rpc, network, rate_limited, batch_refused, method_refused)',
    labelNames: ['method', 'kind'] as const,
    registers: [this.registry],
  });

  private readonly rpcHedges = new Counter({
    name: 'x404_rpc_hedges_total',
    help: 'Reads sent to a second RPC endpoint because the first had not answered within RPC_HEDGE_MS, by outcome (won: the hedge answered first; lost: the first endpoint did; failed: neither answered cleanly)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  private readonly multipleAccountsBatch = new Histogram({
    name: 'x404_rpc_get_multiple_accounts_batch_size',
    help: 'Accounts requested per getMultipleAccounts call (after coalescing concurrent requests)',
    buckets: [1, 2, 4, 8, 16, 32, 50, 64, 100],
    registers: [this.registry],
  });

  private readonly nonceStoreOps = new Counter({
    name: 'x404_nonce_store_operations_total',
    help: 'Single-use nonce bookkeeping, by operation and result (consume: first|reused|expired|superseded|future|error; release: ok|error)',
    labelNames: ['op', 'result'] as const,
    registers: [this.registry],
  });

  private readonly mintCosigns = new Counter({
    name: 'x404_mint_cosigns_total',
    help: 'Mint transactions the gate co-signed and sent, by mint (POST /x404_mint/<name> answered 200)',
    labelNames: ['mint'] as const,
    registers: [this.registry],
  });

  private readonly mintRefusals = new Counter({
    name: 'x404_mint_refusals_total',
    help: 'POST /x404_mint/<name> answers other than 200, by mint and error code',
    labelNames: ['mint', 'code'] as const,
    registers: [this.registry],
  });

  private readonly mintPending = new Gauge({
    name: 'x404_mint_reservations_pending',
    help: 'Reservations co-signed and sent, neither confirmed nor released yet, by mint (as of the tracker\'s last pass)',
    labelNames: ['mint'] as const,
    registers: [this.registry],
  });

  private readonly mintSettled = new Counter({
    name: 'x404_mint_reservations_settled_total',
    help: 'Reservations this instance settled, by mint and outcome (confirmed: became a mint; expired: released, the blockhash expired without it; failed: released, it landed with an error)',
    labelNames: ['mint', 'outcome'] as const,
    registers: [this.registry],
  });

  private readonly rpcCallBudget = new Gauge({
    name: 'x404_rpc_call_budget',
    help: 'Calls per second the last RPC request was paced by: RPC_CALLS_PER_SECOND, or the budget learned from the provider\'s rate-limit refusals (0: none)',
    registers: [this.registry],
  });

  private queueDepthSource: () => number = () => 0;
  private clockOffsetSource: () => number | undefined = () => undefined;

  constructor(options: { defaultMetrics?: boolean } = {}) {
    const source = () => this.queueDepthSource();
    new Gauge({
      name: 'x404_worker_pool_queue_depth',
      help: 'Signature-verification tasks waiting for a worker thread',
      registers: [this.registry],
      collect() {
        this.set(source());
      },
    });
    const clockOffset = () => this.clockOffsetSource();
    new Gauge({
      name: 'x404_clock_offset_seconds',
      help: "This instance's clock minus the nonce store's (Redis TIME); beyond MAX_CLOCK_SKEW_MS it serves no nonces or logins. NaN without Redis or before the first measurement",
      registers: [this.registry],
      collect() {
        const offsetMs = clockOffset();
        this.set(offsetMs === undefined ? Number.NaN : offsetMs / 1000);
      },
    });
    // Process CPU, memory, event-loop lag and GC: what an operator looks at first.
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'x404_' });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  /** `route` is the route's name or template, never the raw URL (which would make unbounded label values). */
  countRequest(route: string, status: number): void {
    this.requests.inc({ route, status: String(status) });
  }

  /** Fits ServerHooks.onResponse: counts the response and observes its duration. */
  onResponse(route: string, status: number, startedAtNs: bigint): void {
    this.responseRecorder(route, status)(Number(process.hrtime.bigint() - startedAtNs) / 1e9);
  }

  /**
   * Label children resolved once per (route, status): prom-client validates and hashes labels on
   * every labelled call, about 2 µs per response on the hottest path. Both sets are bounded (routes
   * the server names, status codes it sends).
   */
  private readonly recorders = new Map<string, Map<number, (seconds: number) => void>>();
  private responseRecorder(route: string, status: number): (seconds: number) => void {
    let byStatus = this.recorders.get(route);
    if (byStatus === undefined) this.recorders.set(route, (byStatus = new Map()));
    let record = byStatus.get(status);
    if (record === undefined) {
      const counter = this.requests.labels(route, String(status));
      const histogram = this.requestSeconds.labels(route);
      record = (seconds) => {
        counter.inc();
        histogram.observe(seconds);
      };
      byStatus.set(status, record);
    }
    return record;
  }

  /** outcome: success, or the error code the request ended with (INVALID_SIGNATURE, HOLDS_BANNED_TOKEN, …). */
  observeLogin(feature: string, outcome: string, seconds: number): void {
    let observe = this.loginObservers.get(feature)?.get(outcome);
    if (observe === undefined) {
      const child = this.loginSeconds.labels(feature, outcome);
      observe = (value) => child.observe(value);
      let byOutcome = this.loginObservers.get(feature);
      if (byOutcome === undefined) this.loginObservers.set(feature, (byOutcome = new Map()));
      byOutcome.set(outcome, observe);
    }
    observe(seconds);
  }

  /**
   * Label children of the login histogram and the nonce-store counter, resolved once per label set
   * as for responses (about 1 µs per labelled call saved, twice per login). Bounded like the label
   * values: features and rules the gate serves, error codes it defines, the store's few outcomes.
   */
  private readonly loginObservers = new Map<string, Map<string, (seconds: number) => void>>();
  private readonly nonceStoreCounters = new Map<string, { inc(): void }>();

  /** Starts a login timer; call the returned function with the outcome when the answer is sent. */
  startLoginTimer(feature: string): (outcome: string) => void {
    const started = performance.now();
    return (outcome) => this.observeLogin(feature, outcome, (performance.now() - started) / 1000);
  }

  countRpcCall(method: string): void {
    this.rpcCalls.inc({ method });
  }

  setRpcCallBudget(perSecond: number): void {
    this.rpcCallBudget.set(perSecond);
  }

  countRpcError(method: string, kind: string): void {
    this.rpcErrors.inc({ method, kind });
  }

  /** outcome: won, lost or failed (ChainObserver.rpcHedge). */
  countRpcHedge(outcome: string): void {
    this.rpcHedges.inc({ outcome });
  }

  observeMultipleAccountsBatch(accounts: number): void {
    this.multipleAccountsBatch.observe(accounts);
  }

  /** op: consume, release, health; result: first, reused, expired, superseded, future, error, ok. */
  countNonceStoreOp(op: string, result: string): void {
    const key = `${op} ${result}`;
    let counter = this.nonceStoreCounters.get(key);
    if (counter === undefined) {
      counter = this.nonceStoreOps.labels(op, result);
      this.nonceStoreCounters.set(key, counter);
    }
    counter.inc();
  }

  /** Label values: mint names come from POLICIES_FILE, codes from the gate's own list (src/contract/mint.ts). */
  countMintCosign(mint: string): void {
    this.mintCosigns.inc({ mint });
  }

  countMintRefusal(mint: string, code: string): void {
    this.mintRefusals.inc({ mint, code });
  }

  setMintPending(mint: string, count: number): void {
    this.mintPending.set({ mint }, count);
  }

  countMintSettled(mint: string, outcome: 'confirmed' | 'expired' | 'failed', count: number): void {
    this.mintSettled.inc({ mint, outcome }, count);
  }

  /** The nonce store's clock watch (src/nonce/store-clock.ts): local minus Redis, ms; read at each scrape. */
  setClockOffsetSource(source: () => number | undefined): void {
    this.clockOffsetSource = source;
  }

  /** The worker pool tells how many tasks wait (e.g. `() => pool.queueSize`); read at each scrape. */
  setQueueDepthSource(source: () => number): void {
    this.queueDepthSource = source;
  }
}

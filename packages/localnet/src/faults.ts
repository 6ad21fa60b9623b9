/**
 * Fault injection for the local chain: lets tests and benchmarks see how the gate behaves when the
 * RPC node misbehaves. Settable in-process (`handle.faults.set`) and over HTTP
 * (`POST /__localnet/fault`) so out-of-process users can use it too. A fault holds until cleared,
 * for the next `count` matching requests, or for the next `forBlocks` blocks (whichever ends first).
 */
export type FaultMode = 'none' | 'http500' | 'http429' | 'timeout' | 'malformed' | 'rpc-error' | 'unhealthy' | TransactionFaultMode;

/**
 * Faults of transaction delivery (transaction-rpc.ts), each on its own method unless `methods` says
 * otherwise: `tx-dropped` — sendTransaction answers the signature but the transaction never lands,
 * so its blockhash expires; `tx-delayed` — it lands `blocks` blocks later (default 10), status null
 * until then; `simulate-failure` — simulateTransaction (and sendTransaction's preflight, when
 * `methods` names sendTransaction) reports `err` (default {"InstructionError":[0,{"Custom":1}]}).
 */
export type TransactionFaultMode = 'tx-dropped' | 'tx-delayed' | 'simulate-failure';

/** How a `malformed` reply is broken: cut-off JSON, or valid JSON-RPC whose result lacks `value`. */
export type MalformedVariant = 'truncated' | 'no-value';

export interface FaultSpec {
  mode: FaultMode;
  /** Only requests calling one of these methods are affected (a batch matches if any member does). */
  methods?: string[];
  /** Only the next N matching HTTP requests are affected, then back to normal. */
  count?: number;
  /** The fault clears itself once this many blocks have been produced after it was set. */
  forBlocks?: number;
  variant?: MalformedVariant;
  /** tx-delayed: blocks between sendTransaction and landing. */
  blocks?: number;
  /** simulate-failure: the transaction error reported, as the node writes it. */
  err?: unknown;
}

const MODES: ReadonlySet<string> = new Set(['none', 'http500', 'http429', 'timeout', 'malformed', 'rpc-error', 'unhealthy', 'tx-dropped', 'tx-delayed', 'simulate-failure']);
const TRANSACTION_FAULT_METHODS: Record<TransactionFaultMode, string[]> = {
  'tx-dropped': ['sendTransaction'],
  'tx-delayed': ['sendTransaction'],
  'simulate-failure': ['simulateTransaction'],
};

export class FaultInjector {
  private spec: FaultSpec = { mode: 'none' };
  private remaining = Infinity;
  /** The block height at which a `forBlocks` fault clears itself. */
  private untilHeight = Infinity;

  /** `blockHeight`: the chain's, for `forBlocks` (blocks.ts). */
  constructor(private readonly blockHeight: () => number = () => 0) {}

  set(spec: FaultSpec): void {
    if (!MODES.has(spec.mode)) throw new Error(`unknown fault mode ${String(spec.mode)}`);
    if (spec.count !== undefined && !(Number.isInteger(spec.count) && spec.count >= 0)) {
      throw new Error('fault count must be a non-negative integer');
    }
    if (spec.methods !== undefined && !(Array.isArray(spec.methods) && spec.methods.every((m) => typeof m === 'string'))) {
      throw new Error('fault methods must be an array of strings');
    }
    if (spec.blocks !== undefined && !(Number.isInteger(spec.blocks) && spec.blocks >= 0)) throw new Error('fault blocks must be a non-negative integer');
    if (spec.forBlocks !== undefined && !(Number.isSafeInteger(spec.forBlocks) && spec.forBlocks >= 0)) throw new Error('fault forBlocks must be a non-negative integer');
    const implied = TRANSACTION_FAULT_METHODS[spec.mode as TransactionFaultMode];
    this.spec = implied && spec.methods === undefined ? { ...spec, methods: implied } : { ...spec };
    this.remaining = spec.count ?? Infinity;
    this.untilHeight = spec.forBlocks === undefined ? Infinity : this.blockHeight() + spec.forBlocks;
  }

  clear(): void {
    this.set({ mode: 'none' });
  }

  /** The fault in force; `remaining`: requests it still hits (null: no count), `blocksLeft`: blocks it still holds for (null: no forBlocks). */
  current(): FaultSpec & { remaining: number | null; blocksLeft: number | null } {
    this.expire();
    return {
      ...this.spec,
      remaining: Number.isFinite(this.remaining) ? this.remaining : null,
      blocksLeft: Number.isFinite(this.untilHeight) ? this.untilHeight - this.blockHeight() : null,
    };
  }

  /**
   * Called once per RPC HTTP request with the methods it calls. Returns the fault to apply (and uses
   * up one of its `count`), or null when the request should be served normally.
   */
  take(methods: readonly string[]): FaultSpec | null {
    this.expire();
    const spec = this.spec;
    if (spec.mode === 'none' || this.remaining <= 0) return null;
    if (spec.methods && !methods.some((m) => spec.methods!.includes(m))) return null;
    this.remaining -= 1;
    if (this.remaining <= 0) {
      this.spec = { mode: 'none' };
      this.untilHeight = Infinity;
    }
    return spec;
  }

  /** A `forBlocks` fault whose blocks have been produced is over. */
  private expire(): void {
    if (this.blockHeight() >= this.untilHeight) {
      this.spec = { mode: 'none' };
      this.remaining = Infinity;
      this.untilHeight = Infinity;
    }
  }

  /** Whether a fault that applies per call (rpc-error, unhealthy, the transaction faults) hits this batch member. */
  static hits(spec: FaultSpec, method: string): boolean {
    return !spec.methods || spec.methods.includes(method);
  }
}

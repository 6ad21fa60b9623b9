import { upstreamUnavailable } from '../errors.js';
import { malformed } from './replies.js';
import type { AttemptResult } from './reply-verdict.js';
import type { RpcEndpoint } from './rpc-endpoint.js';
import { isSlot } from './slot-view.js';
import type { HistoryHorizon } from './types.js';

/**
 * What each endpoint's history can prove, asked of that endpoint alone (another one's says nothing
 * about it) and kept HISTORY_HORIZON_TTL_MS: how far back it keeps history (getFirstAvailableBlock,
 * and that block's time), and whether it honours `minContextSlot` on history reads. The history
 * features ask both of the endpoint that answered a page (docs/solana-wire-format.md, "History
 * horizons" and "One view of the chain").
 */

/** An endpoint's history horizon is read again after this long (HISTORY_HORIZON_TTL_MS's default): a pruning node's moves forward. */
export const HORIZON_TTL_MS = 60_000;

/** What the client lends: one call to one endpoint. */
export interface EndpointCalls {
  /**
   * One attempt at one call to `endpoint` alone, no failover. `record` applies what the attempt
   * says about the endpoint (cool-down, stats), as for every attempt of the client.
   */
  attemptOn(
    endpoint: RpcEndpoint,
    method: string,
    params: unknown[],
    parse: (result: unknown) => unknown,
    minSlot: number,
    deadlineMs: number,
  ): Promise<{ result: AttemptResult; record(): void }>;
  /** Cools `endpoint` down, as after a failure, so the next read goes to another one. */
  coolDown(endpoint: RpcEndpoint): void;
}

interface Known<T> {
  value: T | undefined;
  readAt: number;
  loading: Promise<T> | undefined;
}

export class HistoryHorizons {
  private readonly horizons = new Map<RpcEndpoint, Known<HistoryHorizon>>();
  private readonly honours = new Map<RpcEndpoint, Known<boolean>>();

  constructor(
    private readonly calls: EndpointCalls,
    /** HISTORY_HORIZON_TTL_MS. */
    private readonly ttlMs: number,
  ) {}

  /**
   * How far back `endpoint` keeps history: getFirstAvailableBlock, and the block time of that slot
   * when it is not 0. Concurrent callers share one read. Rejects with 503 when it cannot be read.
   */
  horizon(endpoint: RpcEndpoint, deadlineMs: number): Promise<HistoryHorizon> {
    return this.kept(this.horizons, endpoint, () => this.readHorizon(endpoint, deadlineMs));
  }

  /**
   * Whether `endpoint` refuses a history read below its slot, as the validator does: a
   * getSignaturesForAddress reply carries no slot, so this is the only way to know that a page it
   * gave for a `minContextSlot` is at least that new. Probed with a minimum no node can have reached
   * (-32016 expected; a list, or any other error, means it does not honour it — a provider that
   * serves history from an index of its own may ignore the parameter). An endpoint found not to
   * honour it cools down, so the next read goes to another one.
   */
  honoursMinimum(endpoint: RpcEndpoint, probe: { address: string; commitment: string }, deadlineMs: number): Promise<boolean> {
    return this.kept(this.honours, endpoint, () => this.probeMinimum(endpoint, probe, deadlineMs));
  }

  /** The value known of `endpoint` if younger than the TTL; otherwise one read, shared by concurrent callers. */
  private kept<T>(known: Map<RpcEndpoint, Known<T>>, endpoint: RpcEndpoint, read: () => Promise<T>): Promise<T> {
    let entry = known.get(endpoint);
    if (entry === undefined) known.set(endpoint, (entry = { value: undefined, readAt: -Infinity, loading: undefined }));
    if (entry.value !== undefined && performance.now() - entry.readAt < this.ttlMs) return Promise.resolve(entry.value);
    const state = entry;
    state.loading ??= read()
      .then((value) => {
        state.value = value;
        state.readAt = performance.now();
        return value;
      })
      .finally(() => {
        state.loading = undefined;
      });
    return state.loading;
  }

  private async probeMinimum(endpoint: RpcEndpoint, { address, commitment }: { address: string; commitment: string }, deadlineMs: number): Promise<boolean> {
    const method = 'getSignaturesForAddress';
    const params = [address, { limit: 1, commitment, minContextSlot: Number.MAX_SAFE_INTEGER }];
    const { result, record } = await this.calls.attemptOn(endpoint, method, params, () => null, Number.MAX_SAFE_INTEGER, deadlineMs);
    if (result.kind === 'failed') {
      record();
      throw upstreamUnavailable(`${method}: ${result.reason}`);
    }
    // An answer is not recorded: refused as behind (-32016) is the answer hoped for, not a failure
    // of the endpoint; any other answer cools the endpoint down here.
    const [verdict] = result.verdicts;
    const honours = !verdict!.ok && verdict!.failure === 'behind';
    if (!honours) this.calls.coolDown(endpoint);
    return honours;
  }

  private async readHorizon(endpoint: RpcEndpoint, deadlineMs: number): Promise<HistoryHorizon> {
    const firstSlot = await this.callOn(endpoint, 'getFirstAvailableBlock', [], parseSlotNumber, deadlineMs);
    // The time is needed only to know whether a pruned part could fall inside a period (activity).
    const blockTime = firstSlot === 0 ? null : await this.callOn(endpoint, 'getBlockTime', [firstSlot], parseBlockTime, deadlineMs).catch(() => null);
    return { firstSlot, blockTime };
  }

  /** One call to one endpoint, one attempt, no failover: for what only that endpoint can say. */
  private async callOn<T>(endpoint: RpcEndpoint, method: string, params: unknown[], parse: (result: unknown) => T, deadlineMs: number): Promise<T> {
    const { result, record } = await this.calls.attemptOn(endpoint, method, params, parse, 0, deadlineMs);
    record();
    if (result.kind === 'failed') throw upstreamUnavailable(`${method}: ${result.reason}`);
    const [verdict] = result.verdicts;
    if (!verdict!.ok) throw upstreamUnavailable(`${method}: ${verdict!.reason}`);
    return verdict!.result as T;
  }
}

function parseSlotNumber(result: unknown): number {
  if (!isSlot(result)) throw malformed('getFirstAvailableBlock', 'expected a slot number');
  return result;
}

function parseBlockTime(result: unknown): number | null {
  if (result === null) return null;
  if (!(typeof result === 'number' && Number.isSafeInteger(result))) throw malformed('getBlockTime', 'expected unix seconds or null');
  return result;
}

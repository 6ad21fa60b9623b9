import type { RpcEndpoint } from './rpc-endpoint.js';

/**
 * How far each endpoint's nodes have got, from the slots its replies carry (`context.slot`, and a
 * -32016's `data.contextSlot`), and whether a reply is new enough: not older than its read's
 * minimum slot, and not far behind the newest slot any endpoint answered at lately. One view of the
 * chain per login rests on it (docs/solana-wire-format.md, "One view of the chain").
 */

/** "Minimum context slot has not been reached" (agave rpc-client-api custom_error.rs); `data.contextSlot` is the node's slot. */
export const MIN_CONTEXT_SLOT_NOT_REACHED = -32016;
/** Solana's slot time: how long a node a few slots short of a minimum takes to get there. */
export const SLOT_MS = 400;
/**
 * A reply more than this many slots (~13 s) behind the newest slot any endpoint answered at lately
 * comes from a node that has fallen behind: it is refused like a failure (retried elsewhere, or a
 * 503) and its endpoint cools down. Providers keep their nodes within a few slots of each other;
 * the validator itself calls a node unhealthy (-32005) 128 slots behind.
 */
export const LAGGING_SLOTS = 32;
/**
 * How long an endpoint's newest slot is remembered as what the chain has reached. Past it, a slot
 * the endpoint reported once (a node stuck, or one on another cluster) stops counting.
 */
export const SLOT_MEMORY_MS = 30_000;
/** A node short of a read's minimum by at most this many slots is waited for (SLOT_MS each), not skipped. */
export const CATCH_UP_SLOTS = 4;

/**
 * Why a reply is not new enough. `catchUpMs`: the node is only a few slots short — the call is
 * retried after that long (or elsewhere), and the endpoint is not to blame. Without it, the node
 * has fallen behind and its endpoint is.
 */
export interface Shortfall {
  reason: string;
  catchUpMs?: number;
}

interface SeenSlot {
  slot: number;
  at: number;
}

export class SlotView {
  /** Each endpoint's highest `context.slot` within SLOT_MEMORY_MS, and when it was seen. */
  private readonly seen = new Map<RpcEndpoint, SeenSlot>();

  /** The newest slot any endpoint answered at within SLOT_MEMORY_MS (0: none): the chain has reached at least this. */
  newest(at: number): number {
    let newest = 0;
    for (const { slot, at: seenAt } of this.seen.values()) {
      if (slot > newest && at - seenAt <= SLOT_MEMORY_MS) newest = slot;
    }
    return newest;
  }

  /**
   * A reply of `endpoint` read at `slot`: recorded, and judged against the read's `minSlot` and the
   * newest slot seen before it. Undefined: new enough.
   */
  checkReply(endpoint: RpcEndpoint, slot: number, minSlot: number, at: number): Shortfall | undefined {
    const newest = this.newest(at);
    this.saw(endpoint, slot, at);
    if (slot < minSlot) return shortfall(slot, minSlot);
    if (slot + LAGGING_SLOTS < newest) return shortfall(slot, newest);
    return undefined;
  }

  /** A -32016 from `endpoint`, whose node is at `nodeSlot` (when the error says), for a read of `minSlot`. */
  notReached(endpoint: RpcEndpoint, nodeSlot: number | undefined, minSlot: number, at: number): Shortfall {
    if (nodeSlot !== undefined) this.saw(endpoint, nodeSlot, at);
    return shortfall(nodeSlot, minSlot);
  }

  /** The highest slot counts, until it is older than SLOT_MEMORY_MS. */
  private saw(endpoint: RpcEndpoint, slot: number, at: number): void {
    const seen = this.seen.get(endpoint);
    if (seen === undefined) this.seen.set(endpoint, { slot, at });
    else if (slot >= seen.slot || at - seen.at > SLOT_MEMORY_MS) {
      seen.slot = slot;
      seen.at = at;
    }
  }
}

/** A reply from `slot` where `needed` is required (the node's slot may be unknown for a -32016). */
function shortfall(slot: number | undefined, needed: number): Shortfall {
  const short = slot === undefined ? undefined : needed - slot;
  const reason = slot === undefined ? 'the node has not reached the slot already read (-32016)' : `the node is at slot ${slot}, behind slot ${needed} already read`;
  if (short !== undefined && short > 0 && short <= CATCH_UP_SLOTS) return { reason, catchUpMs: short * SLOT_MS };
  return { reason };
}

export function isSlot(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** `context.slot` of a `{context: {slot}, value}` result; undefined for other shapes (parse checks those). */
export function contextSlotOf(result: unknown): number | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const context = (result as { context?: unknown }).context;
  if (typeof context !== 'object' || context === null) return undefined;
  const slot = (context as { slot?: unknown }).slot;
  return isSlot(slot) ? slot : undefined;
}

import type { GateError } from '../errors.js';
import type { RpcEndpoint } from './rpc-endpoint.js';

/**
 * A JSON-RPC call as the client's callers give it (RpcClient.call and batch), what it comes to, and
 * the same call made ready to send: one member of a JSON-RPC body.
 */

export interface RpcRequest<T = unknown> {
  method: string;
  /** Positional (Solana's methods) or named (the DAS API's searchAssets). */
  params: unknown[] | Record<string, unknown>;
  /**
   * Checks and converts `result`; throws MalformedReply when the shape is wrong (then retried).
   * `source` says which endpoint answered and at which slot.
   */
  parse: (result: unknown, source: ReplySource) => T;
  /**
   * The oldest slot the answer may be read at (the caller also sends it as `minContextSlot`, for
   * the node to refuse with -32016): a reply whose `context.slot` is below it is retried elsewhere.
   * 0 or absent: none beyond the LAGGING_SLOTS check every reply passes.
   */
  minSlot?: number;
  /**
   * `params` as JSON.stringify writes them, when a hot caller has them already (most of them
   * cached): the member's JSON is then concatenated around them, not serialized (~0.9 µs a call).
   */
  paramsJson?: string;
}

/** Where an answer came from. */
export interface ReplySource {
  endpoint: RpcEndpoint;
  /** The reply's `context.slot`, for methods that answer `{context, value}`. */
  slot: number | undefined;
}

export type RpcOutcome<T = unknown> = { ok: true; result: T } | { ok: false; error: GateError };

/** A request ready to send: its place in the caller's list, its JSON-RPC id and its JSON. */
export interface Member {
  index: number;
  id: number;
  method: string;
  json: string;
  parse: (result: unknown, source: ReplySource) => unknown;
  /** RpcRequest.minSlot (0: none). */
  minSlot: number;
}

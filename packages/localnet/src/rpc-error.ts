/** JSON-RPC errors with the codes and messages the Solana node uses. */
export const RPC_PARSE_ERROR = -32700;
export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INVALID_PARAMS = -32602;
export const RPC_INTERNAL_ERROR = -32603;
export const RPC_SEND_TRANSACTION_PREFLIGHT_FAILURE = -32002;
export const RPC_TRANSACTION_SIGNATURE_VERIFICATION_FAILURE = -32003;
export const RPC_BLOCK_NOT_AVAILABLE = -32004;
export const RPC_NODE_UNHEALTHY = -32005;
export const RPC_TRANSACTION_HISTORY_NOT_AVAILABLE = -32011;
export const RPC_MIN_CONTEXT_SLOT_NOT_REACHED = -32016;
export const RPC_UNSUPPORTED_TRANSACTION_VERSION = -32015;

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }

  toJson(): Record<string, unknown> {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** The RPC client's counters (RpcClient.stats), kept by the exchanges that send and the client that acts on their verdicts. */
export interface RpcStats {
  /** HTTP POSTs sent, retries and hedges included. */
  httpRequests: number;
  /** JSON-RPC calls sent per method, each batch member, each retry and each hedge counted. */
  rpcCalls: Record<string, number>;
  /** Failed HTTP attempts plus failed calls inside answered batches (error, no answer, wrong shape). */
  errors: number;
  /**
   * Calls the endpoint refused without failing: members of refused arrays (sent again split) and
   * calls of a method it does not serve (sent elsewhere).
   */
  refusedCalls: number;
  /** Calls answered "rate limited" (an HTTP 429, or a member error inside a 200); sent again after the cool-down. */
  rateLimitedCalls: number;
  /** Calls answered 503 at once because the call budget could not send them within their deadline. */
  budgetRefusedCalls: number;
}

export function emptyStats(): RpcStats {
  return { httpRequests: 0, rpcCalls: {}, errors: 0, refusedCalls: 0, rateLimitedCalls: 0, budgetRefusedCalls: 0 };
}

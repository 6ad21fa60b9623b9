export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window frees capacity again. */
  resetSeconds: number;
}

/** Requests per client address per minute, shared across instances when Redis is configured. */
export interface RateLimiter {
  hit(clientKey: string): Promise<RateDecision>;
  close(): Promise<void>;
}

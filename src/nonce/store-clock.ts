import type { RedisClient } from '../redis/client.js';

/** How often the local clock is compared with Redis's. */
const CHECK_INTERVAL_MS = 5_000;

/**
 * This instance's clock against the nonce store's (Redis TIME), measured every CHECK_INTERVAL_MS.
 *
 * Single use does not depend on it: the store judges a nonce's age and keeps its record on its own
 * clock (src/nonce/redis-scripts.ts). But this instance writes its own clock into every nonce it
 * issues (issuedAt) and token it signs (iat, exp), and judges ages on it before asking the store,
 * so with a clock off by more than MAX_CLOCK_SKEW_MS it issues nonces the store will call expired
 * or issued in the future, and tokens that live too long or too short. It then serves neither
 * nonces nor logins (503, with the reason) until its clock is back, and /health and the
 * x404_clock_offset_seconds metric say by how much it is off.
 *
 * The offset is (local before + local after) / 2 − Redis time, known to ± half the round trip; only
 * an offset beyond the tolerance by more than that counts. A measurement whose round trip alone
 * exceeds the tolerance is discarded.
 */
export class StoreClockWatch {
  private offset: number | undefined;
  private uncertainty = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly onReady = (): void => void this.measure().catch(() => undefined);

  constructor(
    private readonly redis: RedisClient,
    private readonly maxClockSkewMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async start(): Promise<void> {
    this.redis.on('ready', this.onReady);
    this.timer = setInterval(() => void this.measure().catch(() => undefined), CHECK_INTERVAL_MS);
    this.timer.unref();
    await this.measure().catch(() => undefined);
  }

  close(): void {
    clearInterval(this.timer);
    this.redis.off('ready', this.onReady);
  }

  /** Local clock minus the store's, in ms; undefined before the first measurement. */
  get offsetMs(): number | undefined {
    return this.offset;
  }

  async measure(): Promise<void> {
    if (this.redis.status !== 'ready') return;
    const before = this.now();
    const [seconds, micros] = await this.redis.time();
    const after = this.now();
    const roundTrip = after - before;
    if (roundTrip > this.maxClockSkewMs) return;
    this.offset = (before + after) / 2 - (Number(seconds) * 1000 + Number(micros) / 1000);
    this.uncertainty = roundTrip / 2;
  }

  /** Why this instance must not serve nonces or logins (its clock is off), or undefined. */
  problem(): string | undefined {
    const offset = this.offset;
    if (offset === undefined || Math.abs(offset) - this.uncertainty <= this.maxClockSkewMs) return undefined;
    return `its clock is ${describeOffset(offset)} the nonce store's (Redis TIME), more than MAX_CLOCK_SKEW_MS (${this.maxClockSkewMs / 1000} s) allows`;
  }

  /** For /health: 'ok', or what is wrong. */
  describe(): string {
    if (this.offset === undefined) return 'not measured yet (Redis not reached)';
    const problem = this.problem();
    return problem === undefined ? 'ok' : `${problem}: nonces and logins answer 503 until it is fixed`;
  }
}

function describeOffset(offsetMs: number): string {
  const seconds = (Math.abs(offsetMs) / 1000).toFixed(1);
  return offsetMs > 0 ? `${seconds} s ahead of` : `${seconds} s behind`;
}

import { randomInt } from 'node:crypto';

/**
 * A generation of the consumed-nonce store. Every nonce names the epoch it was issued under (its
 * 16-bit tag in clear, the whole epoch inside its MAC), and is spent only while that epoch is the
 * store's current one. Whatever makes the store forget spent nonces — a restart of the gate (memory
 * store), a FLUSHALL, a Redis restart or failover, an evicted key — also ends the epoch, so a nonce
 * whose spend was forgotten can never be spent again: it answers NONCE_EXPIRED and the client signs
 * a new one. Nothing else changes for callers.
 */
export interface NonceEpoch {
  /** The 16 bits a nonce carries to say which epoch of its bucket it was issued under. */
  readonly tag: number;
  /** 16 bytes bound into the nonce's MAC: a nonce cannot be moved to another epoch that shares its tag. */
  readonly id: Buffer;
  /** The epoch as the store writes it (Redis: base64url of `id`); '' for the epoch of the process. */
  readonly name: string;
  /**
   * Nonces of this epoch are issued at or after this time (the process epoch: when it began), so
   * one issued earlier is from an earlier epoch whatever its tag. 0 where the store judges it.
   */
  readonly since: number;
}

export interface KnownEpoch {
  epoch: NonceEpoch;
  /** False for an earlier epoch this instance remembers: its nonces answer NONCE_EXPIRED. */
  current: boolean;
}

/** Where a nonce codec gets its epochs; `bucket` is the first random byte of the nonce (0–255). */
export interface NonceEpochs {
  /** The epoch a nonce of `bucket` is issued under now (synchronous: issuing is a hot path). */
  current(bucket: number, nowMs: number): NonceEpoch;
  /** What this instance knows of the epoch with `tag` in `bucket`; undefined when it does not know it. */
  find(bucket: number, tag: number, nowMs: number): KnownEpoch | undefined;
  /**
   * Asks the store for the current epoch of `bucket`: an unknown tag may be a newer epoch another
   * instance began. Resolves when done (or when asked too recently); rejects when the store cannot be
   * reached. Absent where there is nothing to ask (the process epoch knows every answer).
   */
  learn?(bucket: number): Promise<void>;
}

export const EPOCH_ID_BYTES = 16;
const NO_ID = Buffer.alloc(EPOCH_ID_BYTES);

/**
 * The memory store's epoch: the life of this process, or the part of it since the wall clock last
 * stepped backwards.
 *
 * A restart forgets every spent nonce, so a new process begins a new epoch: a random tag (so a
 * restarted gate can still read its predecessor's nonces and answer NONCE_EXPIRED, not
 * INVALID_NONCE — the id bound into the MAC is the same zero bytes for every process epoch) and
 * `since`, the start time, which refuses an earlier nonce even in the 1-in-65,536 case of a
 * repeated tag. The limit: that case combined with a wall clock set back across the restart.
 *
 * The memory store forgets a spent nonce once the nonce has expired (plus `stepToleranceMs`) by the
 * wall clock, the same clock that judges its age. A clock set back by more than that would make a
 * forgotten nonce young again, so a step backwards larger than `stepToleranceMs` (seen as a reading
 * below the highest one so far) begins a new epoch, with a tag no earlier epoch of this process had.
 * Forward steps are harmless: nonces only look older.
 */
export class ProcessEpochs implements NonceEpochs {
  private epoch: NonceEpoch;
  /** `{ epoch, current: true }`, made once per epoch: accepting a nonce allocates nothing for it. */
  private known: KnownEpoch;
  private highestMs: number;
  private readonly usedTags = new Set<number>();

  constructor(
    private readonly stepToleranceMs: number,
    nowMs: number,
    /** Told when a clock set back by more than the tolerance began a new epoch (by how much, ms). */
    private readonly onSetBack?: (stepMs: number) => void,
  ) {
    this.epoch = this.begin(nowMs);
    this.known = { epoch: this.epoch, current: true };
    this.highestMs = nowMs;
  }

  current(_bucket: number, nowMs: number): NonceEpoch {
    this.observe(nowMs);
    return this.epoch;
  }

  find(_bucket: number, tag: number, nowMs: number): KnownEpoch {
    this.observe(nowMs);
    if (tag === this.epoch.tag) return this.known;
    // Another process's (or an earlier epoch's) nonce: authenticated all the same, then refused as expired.
    return { epoch: { tag, id: NO_ID, name: '', since: 0 }, current: false };
  }

  /** Epochs begun so far by this process (1 + the backward clock steps seen). */
  get epochsBegun(): number {
    return this.usedTags.size;
  }

  private observe(nowMs: number): void {
    if (nowMs > this.highestMs) this.highestMs = nowMs;
    else if (nowMs < this.highestMs - this.stepToleranceMs) {
      const stepMs = this.highestMs - nowMs;
      this.epoch = this.begin(nowMs);
      this.known = { epoch: this.epoch, current: true };
      this.highestMs = nowMs;
      this.onSetBack?.(stepMs);
    }
  }

  private begin(nowMs: number): NonceEpoch {
    let tag: number;
    do tag = randomInt(0x10000);
    while (this.usedTags.has(tag));
    this.usedTags.add(tag);
    return { tag, id: NO_ID, name: '', since: nowMs };
  }
}

/** An epoch from its store name (base64url of 16 random bytes); undefined when the name is not one. */
export function epochFromName(name: string): NonceEpoch | undefined {
  if (!/^[A-Za-z0-9_-]{22}$/.test(name)) return undefined;
  const id = Buffer.from(name, 'base64url');
  if (id.length !== EPOCH_ID_BYTES || id.toString('base64url') !== name) return undefined;
  return { tag: id.readUInt16BE(0), id, name, since: 0 };
}

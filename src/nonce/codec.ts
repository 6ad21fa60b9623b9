import { createHmac, timingSafeEqual } from 'node:crypto';
import { GateError } from '../errors.js';
import { base32Length, decodeBase32, encodeBase32 } from '../lib/base32.js';
import { HmacSha256 } from '../lib/hmac-sha256.js';
import { fillRandomFromPool } from '../lib/random-pool.js';
import { EPOCH_ID_BYTES, ProcessEpochs, type KnownEpoch, type NonceEpochs } from './epoch.js';
import type { SpendOutcome } from './store.js';

/**
 * Self-describing, authenticated nonces: issuing one stores nothing, so a flood of nonce requests
 * cannot grow memory. Layout before base32 (40 bytes → 64 characters of [a-z2-7], the most
 * docs/api.md §3 allows):
 *
 *   issuedAtMs u48 BE | epoch tag u16 BE | 16 random bytes |
 *   first 16 bytes of HMAC-SHA256(key, feature | 0x00 | epoch id (16 bytes) | the 24 bytes before)
 *
 * The feature is inside the MAC, not the nonce, so a nonce issued for one feature fails
 * authentication on another (INVALID_NONCE). The random part is the single-use identifier; its
 * first byte is the nonce's bucket (Redis keeps each bucket's spent nonces with its epoch, on one
 * Cluster slot). The epoch (src/nonce/epoch.ts) is the generation of the consumed-nonce store the
 * nonce will be spent in: its tag says which one in clear, so a nonce of an earlier epoch answers
 * NONCE_EXPIRED rather than INVALID_NONCE, and its whole 16-byte id is in the MAC, so no nonce can
 * pass as one of another epoch that happens to share the tag.
 *
 * The text is alphanumeric so that the same nonce can go into a Sign In With Solana message
 * (src/sign-modes/siws.ts), whose grammar and wallets allow only letters and digits.
 *
 * Earlier versions wrote 38 bytes without a tag (issuedAt | random | MAC over feature | 0x00 | the
 * 22 bytes, under another key), as 61 base32 characters or, before that, 51 of base64url. They carry
 * no epoch, so nothing can tell whether their spend was forgotten. With Redis (`legacy: 'accept'`)
 * they are still accepted, spent under their old key and judged on Redis's clock: during a rolling
 * upgrade the instances not upgraded yet issue and accept them anyway, so refusing them on the
 * upgraded ones would fail logins without closing anything; they stop existing NONCE_TTL_SECONDS
 * after the last old instance is gone. With the memory store (`legacy: 'refuse'`) an old nonce can
 * only come from the process before the upgrade's restart, whose spends are forgotten: accepting it
 * would be exactly the replay this closes, so it answers NONCE_EXPIRED (one in-flight login signs
 * again).
 */
const ISSUED_AT_BYTES = 6;
const TAG_AT = ISSUED_AT_BYTES;
const RANDOM_AT = TAG_AT + 2;
const RANDOM_BYTES = 16;
const MAC_BYTES = 16;
const PAYLOAD_BYTES = RANDOM_AT + RANDOM_BYTES;
const NONCE_BYTES = PAYLOAD_BYTES + MAC_BYTES;
const NONCE_CHARS = base32Length(NONCE_BYTES);

const LEGACY_PAYLOAD_BYTES = ISSUED_AT_BYTES + RANDOM_BYTES;
const LEGACY_NONCE_BYTES = LEGACY_PAYLOAD_BYTES + MAC_BYTES;
const LEGACY_BASE32_CHARS = base32Length(LEGACY_NONCE_BYTES);
const LEGACY_BASE64URL_CHARS = Math.ceil((LEGACY_NONCE_BYTES * 4) / 3);
const BASE64URL_PATTERN = /^[A-Za-z0-9_-]+$/;

export const DEFAULT_MAX_CLOCK_SKEW_MS = 30_000;
const MAX_CACHED_FEATURES = 32;

export interface IssuedNonce {
  nonce: string;
  issuedAtMs: number;
  expiresInSeconds: number;
}

export interface AcceptedNonce {
  /**
   * The nonce's record in the consumed-nonce store: `<bucket>.<random part in base64url>`, or the
   * random part alone for a nonce of the earlier formats.
   */
  id: string;
  /** When it was issued (by the issuing instance's clock). */
  issuedAtMs: number;
  expiresAtMs: number;
  /** The store epoch it names (its name; '' for the process epoch and for the earlier formats). */
  epoch: string;
  /** Issued by an earlier version (no epoch). */
  legacy: boolean;
}

export interface NonceCodecOptions {
  now?: () => number;
  /** Default: the process epoch (the memory store). */
  epochs?: NonceEpochs;
  /** Nonces of the earlier formats: see the comment at the top. Default 'refuse'. */
  legacy?: 'accept' | 'refuse';
  /**
   * MAX_CLOCK_SKEW_MS: how far clocks may disagree. A nonce issued more than twice this ahead of
   * this instance's clock is refused (instances each within it of the store's clock are within
   * twice it of each other).
   */
  maxClockSkewMs?: number;
  /**
   * Why this instance must serve neither nonces nor logins now (its clock is off the store's), or
   * undefined. Read on every call: keep it cheap.
   */
  unavailable?: () => string | undefined;
}

export class NonceCodec {
  private readonly hmac: HmacSha256;
  private readonly legacyHmac: HmacSha256;
  private readonly macs = new Map<string, FeatureMac>();
  private readonly legacyMacs = new Map<string, FeatureMac>();
  private readonly now: () => number;
  private readonly epochs: NonceEpochs;
  private readonly acceptLegacy: boolean;
  private readonly futureToleranceMs: number;
  private readonly unavailable: () => string | undefined;

  constructor(
    secret: string,
    private readonly ttlSeconds: number,
    options: NonceCodecOptions = {},
  ) {
    // Key separation: the JWT key never MACs nonces directly, and the two formats use different keys.
    this.hmac = new HmacSha256(createHmac('sha256', secret).update('x404 nonce key v2').digest());
    this.legacyHmac = new HmacSha256(createHmac('sha256', secret).update('x404 nonce key v1').digest());
    this.now = options.now ?? Date.now;
    const maxClockSkewMs = options.maxClockSkewMs ?? DEFAULT_MAX_CLOCK_SKEW_MS;
    this.epochs = options.epochs ?? new ProcessEpochs(maxClockSkewMs, this.now());
    this.acceptLegacy = options.legacy === 'accept';
    this.futureToleranceMs = 2 * maxClockSkewMs;
    this.unavailable = options.unavailable ?? (() => undefined);
  }

  issue(feature: string): IssuedNonce {
    this.refuseWhileUnavailable();
    const bytes = Buffer.allocUnsafe(NONCE_BYTES);
    fillRandomFromPool(bytes, RANDOM_AT, RANDOM_BYTES);
    const now = this.now();
    const epoch = this.epochs.current(bytes[RANDOM_AT]!, now);
    // Never before the epoch began (a clock set back by less than the tolerance), so that the
    // `since` check below refuses only nonces of earlier epochs.
    const issuedAtMs = now < epoch.since ? epoch.since : now;
    bytes.writeUIntBE(issuedAtMs, 0, ISSUED_AT_BYTES);
    bytes.writeUInt16BE(epoch.tag, TAG_AT);
    this.mac(feature, epoch.id, bytes.subarray(0, PAYLOAD_BYTES)).copy(bytes, PAYLOAD_BYTES);
    return { nonce: encodeBase32(bytes), issuedAtMs, expiresInSeconds: this.ttlSeconds };
  }

  /**
   * Authenticates a nonce for `feature` and checks its epoch and age as far as this instance can
   * tell; says nothing about prior use (the store does, when it spends it, on its own clock).
   * Synchronous, except for a nonce of an epoch this instance has not learnt yet (another instance
   * began it after the store lost its records): the store is asked first.
   */
  accept(nonce: string, feature: string): AcceptedNonce | Promise<AcceptedNonce> {
    this.refuseWhileUnavailable();
    if (nonce.length !== NONCE_CHARS) return this.acceptEarlierFormat(nonce, feature);
    const bytes = decodeBase32(nonce);
    if (bytes === undefined) throw invalidNonce();
    const bucket = bytes[RANDOM_AT]!;
    const tag = bytes.readUInt16BE(TAG_AT);
    const known = this.epochs.find(bucket, tag, this.now());
    if (known !== undefined) return this.acceptOfEpoch(bytes, feature, known);
    const learn = this.epochs.learn;
    if (learn === undefined) throw invalidNonce();
    return learn.call(this.epochs, bucket).then(
      () => {
        const learnt = this.epochs.find(bucket, tag, this.now());
        // Still unknown: an epoch from before the store lost its records (this instance never saw
        // it, so it cannot authenticate the nonce), or a forgery.
        if (learnt === undefined) throw invalidNonce();
        return this.acceptOfEpoch(bytes, feature, learnt);
      },
      () => {
        throw nonceStoreUnavailable();
      },
    );
  }

  /** The 401 for a spend the store refused. */
  spendRefusal(outcome: Exclude<SpendOutcome, 'spent'>): GateError {
    switch (outcome) {
      case 'reused':
        return new GateError(401, 'NONCE_REUSED', 'Nonce was already used; request a new one');
      case 'expired':
        return this.expired();
      case 'superseded':
        return superseded();
      case 'future':
        return new GateError(401, 'INVALID_NONCE', "Nonce was issued at a time ahead of the nonce store's clock (an instance's clock is off). Request a new one.");
    }
  }

  private acceptOfEpoch(bytes: Buffer, feature: string, { epoch, current }: KnownEpoch): AcceptedNonce {
    const payload = bytes.subarray(0, PAYLOAD_BYTES);
    if (!timingSafeEqual(bytes.subarray(PAYLOAD_BYTES), this.mac(feature, epoch.id, payload))) throw invalidNonce();
    const issuedAtMs = payload.readUIntBE(0, ISSUED_AT_BYTES);
    if (!current || issuedAtMs < epoch.since) throw superseded();
    const expiresAtMs = this.checkAge(issuedAtMs);
    const random = payload.subarray(RANDOM_AT);
    return { id: `${random[0]}.${random.toString('base64url')}`, issuedAtMs, expiresAtMs, epoch: epoch.name, legacy: false };
  }

  private acceptEarlierFormat(nonce: string, feature: string): AcceptedNonce {
    let bytes: Buffer | undefined;
    if (nonce.length === LEGACY_BASE32_CHARS) bytes = decodeBase32(nonce);
    else if (nonce.length === LEGACY_BASE64URL_CHARS && BASE64URL_PATTERN.test(nonce)) bytes = Buffer.from(nonce, 'base64url');
    if (bytes?.length !== LEGACY_NONCE_BYTES) throw invalidNonce();
    const payload = bytes.subarray(0, LEGACY_PAYLOAD_BYTES);
    if (!timingSafeEqual(bytes.subarray(LEGACY_PAYLOAD_BYTES), this.legacyMac(feature, payload))) throw invalidNonce();
    if (!this.acceptLegacy) throw superseded();
    const issuedAtMs = payload.readUIntBE(0, ISSUED_AT_BYTES);
    const expiresAtMs = this.checkAge(issuedAtMs);
    return { id: payload.subarray(ISSUED_AT_BYTES).toString('base64url'), issuedAtMs, expiresAtMs, epoch: '', legacy: true };
  }

  /** Age on this instance's clock: a first refusal only (the Redis store judges again on its clock). */
  private checkAge(issuedAtMs: number): number {
    const now = this.now();
    if (issuedAtMs > now + this.futureToleranceMs) throw invalidNonce();
    const expiresAtMs = issuedAtMs + this.ttlSeconds * 1000;
    if (now >= expiresAtMs) throw this.expired();
    return expiresAtMs;
  }

  private refuseWhileUnavailable(): void {
    const why = this.unavailable();
    if (why !== undefined) {
      // nonceSpent: this nonce (or the one asked for) is untouched: the same request may be sent again.
      throw new GateError(503, 'UPSTREAM_UNAVAILABLE', `This instance serves no nonces or logins while ${why}; no token was issued. Retry shortly.`, {
        headers: { 'Retry-After': '5' },
        extra: { nonceSpent: false },
      });
    }
  }

  private expired(): GateError {
    return new GateError(401, 'NONCE_EXPIRED', `Nonce expired; nonces are valid for ${this.ttlSeconds} seconds. Request a new one.`);
  }

  private mac(feature: string, epochId: Buffer, payload: Buffer): Buffer {
    return featureMac(this.macs, this.hmac, feature, EPOCH_ID_BYTES + PAYLOAD_BYTES).compute(epochId, payload);
  }

  private legacyMac(feature: string, payload: Buffer): Buffer {
    return featureMac(this.legacyMacs, this.legacyHmac, feature, LEGACY_PAYLOAD_BYTES).compute(undefined, payload);
  }
}

function featureMac(cache: Map<string, FeatureMac>, hmac: HmacSha256, feature: string, tailBytes: number): FeatureMac {
  let mac = cache.get(feature);
  if (mac === undefined) {
    mac = new FeatureMac(hmac, feature, tailBytes);
    // Features are a fixed handful; bound the cache anyway so no caller can grow it.
    if (cache.size < MAX_CACHED_FEATURES) cache.set(feature, mac);
  }
  return mac;
}

/** The MAC of a nonce: HMAC-SHA256(key, feature | 0x00 | tail), the message assembled once per feature. */
class FeatureMac {
  /** feature | 0x00 | tail (epoch id and payload, or the payload alone) */
  private readonly message: Buffer;
  private readonly tailAt: number;

  constructor(
    private readonly hmac: HmacSha256,
    feature: string,
    tailBytes: number,
  ) {
    this.message = Buffer.concat([Buffer.from(feature, 'utf8'), Buffer.from([0]), Buffer.alloc(tailBytes)]);
    this.tailAt = this.message.length - tailBytes;
  }

  compute(epochId: Buffer | undefined, payload: Buffer): Buffer {
    let at = this.tailAt;
    if (epochId !== undefined) at += epochId.copy(this.message, at);
    payload.copy(this.message, at);
    return this.hmac.digest(this.message).subarray(0, MAC_BYTES);
  }
}

function invalidNonce(): GateError {
  return new GateError(401, 'INVALID_NONCE', 'Nonce is unknown, malformed, or was issued for another feature. Request a new one.');
}

function superseded(): GateError {
  return new GateError(
    401,
    'NONCE_EXPIRED',
    'Nonce expired: it was issued before the nonce store last lost its records (a restart, flush or failover), so it can no longer be spent. Request a new one.',
  );
}

function nonceStoreUnavailable(): GateError {
  return new GateError(503, 'UPSTREAM_UNAVAILABLE', 'The nonce store is unavailable, so the nonce cannot be checked; no token was issued. Retry shortly.', {
    headers: { 'Retry-After': '2' },
    extra: { nonceSpent: false },
  });
}

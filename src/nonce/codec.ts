import { createHmac, timingSafeEqual } from 'node:crypto';
import { GateError } from '../errors.js';
import { base32Length, decodeBase32, encodeBase32 } from '../lib/base32.js';
import { HmacSha256 } from '../lib/hmac-sha256.js';
import { fillRandomFromPool } from '../lib/random-pool.js';

/**
 * Self-describing, authenticated nonces: issuing one stores nothing, so a flood of nonce requests
 * cannot grow memory. Layout before base32 (38 bytes → 61 characters of [a-z2-7]):
 *
 *   issuedAtMs u48 BE | 16 random bytes | first 16 bytes of HMAC-SHA256(key, feature | 0x00 | the 22 bytes)
 *
 * The feature is inside the MAC, not the nonce, so a nonce issued for one feature fails
 * authentication on another (INVALID_NONCE). The random part is the single-use identifier.
 *
 * The text is alphanumeric so that the same nonce can go into a Sign In With Solana message
 * (src/sign-modes/siws.ts), whose grammar and wallets allow only letters and digits. Earlier versions
 * of the gate wrote the same 38 bytes in base64url (51 characters); those are still accepted, so a rolling
 * upgrade does not void nonces issued by the instances it has not reached yet.
 */
const ISSUED_AT_BYTES = 6;
const RANDOM_BYTES = 16;
const MAC_BYTES = 16;
const PAYLOAD_BYTES = ISSUED_AT_BYTES + RANDOM_BYTES;
const NONCE_BYTES = PAYLOAD_BYTES + MAC_BYTES;
const NONCE_CHARS = base32Length(NONCE_BYTES);
const BASE64URL_NONCE_CHARS = Math.ceil((NONCE_BYTES * 4) / 3);
const BASE64URL_PATTERN = /^[A-Za-z0-9_-]+$/;
/** Tolerated clock difference between instances for a nonce that looks issued in the future. */
const FUTURE_SKEW_MS = 30_000;
const MAX_CACHED_FEATURES = 32;

export interface IssuedNonce {
  nonce: string;
  issuedAtMs: number;
  expiresInSeconds: number;
}

export interface AcceptedNonce {
  /** Key for the consumed-nonce store. */
  id: string;
  /** When it was issued (by the issuing instance's clock). */
  issuedAtMs: number;
  expiresAtMs: number;
}

export class NonceCodec {
  private readonly hmac: HmacSha256;
  private readonly macs = new Map<string, FeatureMac>();

  constructor(
    secret: string,
    private readonly ttlSeconds: number,
    private readonly now: () => number = Date.now,
  ) {
    // Key separation: the JWT key never MACs nonces directly.
    this.hmac = new HmacSha256(createHmac('sha256', secret).update('x404 nonce key v1').digest());
  }

  issue(feature: string): IssuedNonce {
    const bytes = Buffer.allocUnsafe(NONCE_BYTES);
    const issuedAtMs = this.now();
    bytes.writeUIntBE(issuedAtMs, 0, ISSUED_AT_BYTES);
    fillRandomFromPool(bytes, ISSUED_AT_BYTES, RANDOM_BYTES);
    this.mac(feature, bytes.subarray(0, PAYLOAD_BYTES)).copy(bytes, PAYLOAD_BYTES);
    return { nonce: encodeBase32(bytes), issuedAtMs, expiresInSeconds: this.ttlSeconds };
  }

  /** Authenticates a nonce for `feature` and checks its age; says nothing about prior use. */
  accept(nonce: string, feature: string): AcceptedNonce {
    const bytes = nonceBytes(nonce);
    if (bytes?.length !== NONCE_BYTES) throw invalidNonce();
    const payload = bytes.subarray(0, PAYLOAD_BYTES);
    if (!timingSafeEqual(bytes.subarray(PAYLOAD_BYTES), this.mac(feature, payload))) throw invalidNonce();

    const issuedAtMs = payload.readUIntBE(0, ISSUED_AT_BYTES);
    const now = this.now();
    if (issuedAtMs > now + FUTURE_SKEW_MS) throw invalidNonce();
    const expiresAtMs = issuedAtMs + this.ttlSeconds * 1000;
    if (now >= expiresAtMs) {
      throw new GateError(401, 'NONCE_EXPIRED', `Nonce expired; nonces are valid for ${this.ttlSeconds} seconds. Request a new one.`);
    }
    return { id: payload.subarray(ISSUED_AT_BYTES).toString('base64url'), issuedAtMs, expiresAtMs };
  }

  private mac(feature: string, payload: Buffer): Buffer {
    let mac = this.macs.get(feature);
    if (mac === undefined) {
      mac = new FeatureMac(this.hmac, feature);
      // Features are a fixed handful; bound the cache anyway so no caller can grow it.
      if (this.macs.size < MAX_CACHED_FEATURES) this.macs.set(feature, mac);
    }
    return mac.compute(payload).subarray(0, MAC_BYTES);
  }
}

/** The MAC of a nonce: HMAC-SHA256(key, feature | 0x00 | payload), the message assembled once per feature. */
class FeatureMac {
  /** feature | 0x00 | payload */
  private readonly message: Buffer;

  constructor(
    private readonly hmac: HmacSha256,
    feature: string,
  ) {
    this.message = Buffer.concat([Buffer.from(feature, 'utf8'), Buffer.from([0]), Buffer.alloc(PAYLOAD_BYTES)]);
  }

  compute(payload: Buffer): Buffer {
    payload.copy(this.message, this.message.length - PAYLOAD_BYTES);
    return this.hmac.digest(this.message);
  }
}

function nonceBytes(nonce: string): Buffer | undefined {
  if (nonce.length === NONCE_CHARS) return decodeBase32(nonce);
  if (nonce.length === BASE64URL_NONCE_CHARS && BASE64URL_PATTERN.test(nonce)) return Buffer.from(nonce, 'base64url');
  return undefined;
}

function invalidNonce(): GateError {
  return new GateError(401, 'INVALID_NONCE', 'Nonce is unknown, malformed, or was issued for another feature. Request a new one.');
}

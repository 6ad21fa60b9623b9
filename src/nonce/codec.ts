import { createHmac, timingSafeEqual } from 'node:crypto';
import { GateError } from '../errors.js';
import { fillRandomFromPool } from '../lib/random-pool.js';

/**
 * Self-describing, authenticated nonces: issuing one stores nothing, so a flood of nonce requests
 * cannot grow memory. Layout before base64url (38 bytes → 51 characters of [A-Za-z0-9_-]):
 *
 *   issuedAtMs u48 BE | 16 random bytes | first 16 bytes of HMAC-SHA256(key, feature | 0x00 | the 22 bytes)
 *
 * The feature is inside the MAC, not the nonce, so a nonce issued for one feature fails
 * authentication on another (INVALID_NONCE). The random part is the single-use identifier.
 */
const ISSUED_AT_BYTES = 6;
const RANDOM_BYTES = 16;
const MAC_BYTES = 16;
const PAYLOAD_BYTES = ISSUED_AT_BYTES + RANDOM_BYTES;
const NONCE_BYTES = PAYLOAD_BYTES + MAC_BYTES;
const NONCE_CHARS = Math.ceil((NONCE_BYTES * 4) / 3);
/** Tolerated clock difference between instances for a nonce that looks issued in the future. */
const FUTURE_SKEW_MS = 30_000;
const NONCE_PATTERN = /^[A-Za-z0-9_-]+$/;
const MAX_CACHED_FEATURES = 32;

export interface IssuedNonce {
  nonce: string;
  expiresInSeconds: number;
}

export interface AcceptedNonce {
  /** Key for the consumed-nonce store. */
  id: string;
  expiresAtMs: number;
}

export class NonceCodec {
  private readonly key: Buffer;
  /** Per feature: `feature | 0x00 | room for the payload`, reused (the codec is synchronous). */
  private readonly macInputs = new Map<string, Buffer>();

  constructor(
    secret: string,
    private readonly ttlSeconds: number,
    private readonly now: () => number = Date.now,
  ) {
    // Key separation: the JWT key never MACs nonces directly.
    this.key = createHmac('sha256', secret).update('x404 nonce key v1').digest();
  }

  issue(feature: string): IssuedNonce {
    const bytes = Buffer.allocUnsafe(NONCE_BYTES);
    bytes.writeUIntBE(this.now(), 0, ISSUED_AT_BYTES);
    fillRandomFromPool(bytes, ISSUED_AT_BYTES, RANDOM_BYTES);
    this.mac(feature, bytes.subarray(0, PAYLOAD_BYTES)).copy(bytes, PAYLOAD_BYTES);
    return { nonce: bytes.toString('base64url'), expiresInSeconds: this.ttlSeconds };
  }

  /** Authenticates a nonce for `feature` and checks its age; says nothing about prior use. */
  accept(nonce: string, feature: string): AcceptedNonce {
    if (nonce.length !== NONCE_CHARS || !NONCE_PATTERN.test(nonce)) throw invalidNonce();
    const bytes = Buffer.from(nonce, 'base64url');
    if (bytes.length !== NONCE_BYTES) throw invalidNonce();
    const payload = bytes.subarray(0, PAYLOAD_BYTES);
    if (!timingSafeEqual(bytes.subarray(PAYLOAD_BYTES), this.mac(feature, payload))) throw invalidNonce();

    const issuedAtMs = payload.readUIntBE(0, ISSUED_AT_BYTES);
    const now = this.now();
    if (issuedAtMs > now + FUTURE_SKEW_MS) throw invalidNonce();
    const expiresAtMs = issuedAtMs + this.ttlSeconds * 1000;
    if (now >= expiresAtMs) {
      throw new GateError(401, 'NONCE_EXPIRED', `Nonce expired; nonces are valid for ${this.ttlSeconds} seconds. Request a new one.`);
    }
    return { id: payload.subarray(ISSUED_AT_BYTES).toString('base64url'), expiresAtMs };
  }

  /** HMAC-SHA256(key, feature | 0x00 | payload), truncated; one update call (the prefix is cached per feature). */
  private mac(feature: string, payload: Buffer): Buffer {
    let input = this.macInputs.get(feature);
    if (input === undefined) {
      input = Buffer.concat([Buffer.from(feature, 'utf8'), Buffer.from([0]), Buffer.alloc(PAYLOAD_BYTES)]);
      // Features are a fixed handful; bound the cache anyway so no caller can grow it.
      if (this.macInputs.size < MAX_CACHED_FEATURES) this.macInputs.set(feature, input);
    }
    payload.copy(input, input.length - PAYLOAD_BYTES);
    return createHmac('sha256', this.key).update(input).digest().subarray(0, MAC_BYTES);
  }
}

function invalidNonce(): GateError {
  return new GateError(401, 'INVALID_NONCE', 'Nonce is unknown, malformed, or was issued for another feature. Request a new one.');
}

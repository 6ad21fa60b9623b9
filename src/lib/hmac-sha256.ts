import * as nodeCrypto from 'node:crypto';

/** One-shot SHA-256 (Node ≥ 20.12); undefined on older versions, which use createHmac. */
const sha256OneShot: ((algorithm: string, data: Buffer, encoding: 'buffer') => Buffer) | undefined =
  typeof nodeCrypto.hash === 'function' ? (nodeCrypto.hash as (algorithm: string, data: Buffer, encoding: 'buffer') => Buffer) : undefined;
const BLOCK = 64;
const DIGEST = 32;

/**
 * HMAC-SHA256 with one key, as RFC 2104 defines it — SHA-256(key⊕opad | SHA-256(key⊕ipad | m)) —
 * computed with two one-shot SHA-256 calls over buffers padded once: no Hmac object per message,
 * which costs an OpenSSL context, a native handle and its release (~1.5–2 µs here, measured in
 * the nonce route and the login's token signing). Same bytes as createHmac, cross-checked in
 * test/unit/hmac-sha256.test.ts. Reuses its padded buffers between calls (synchronous only); each
 * digest is a buffer of its own.
 */
export class HmacSha256 {
  /** key⊕ipad | message, grown to the longest message seen. */
  private inner: Buffer;
  /** key⊕opad | inner digest */
  private readonly outer = Buffer.alloc(BLOCK + DIGEST);
  private readonly key: Buffer;

  constructor(key: Buffer | string) {
    const bytes = typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
    // A key longer than a block is hashed first (RFC 2104 §2).
    this.key = bytes.length > BLOCK ? nodeCrypto.createHash('sha256').update(bytes).digest() : Buffer.from(bytes);
    this.inner = Buffer.alloc(BLOCK + 256);
    this.inner.fill(0x36, 0, BLOCK);
    this.outer.fill(0x5c, 0, BLOCK);
    for (let i = 0; i < this.key.length; i++) {
      this.inner[i]! ^= this.key[i]!;
      this.outer[i]! ^= this.key[i]!;
    }
  }

  /** The 32-byte MAC of `message` (a string is taken as UTF-8). */
  digest(message: string | Uint8Array): Buffer {
    if (sha256OneShot === undefined) return nodeCrypto.createHmac('sha256', this.key).update(message).digest();
    const length = typeof message === 'string' ? this.writeText(message) : this.writeBytes(message);
    sha256OneShot('sha256', this.inner.subarray(0, BLOCK + length), 'buffer').copy(this.outer, BLOCK);
    return sha256OneShot('sha256', this.outer, 'buffer');
  }

  private writeText(message: string): number {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    this.reserve(message.length * 3);
    return this.inner.write(message, BLOCK, 'utf8');
  }

  private writeBytes(message: Uint8Array): number {
    this.reserve(message.length);
    this.inner.set(message, BLOCK);
    return message.length;
  }

  private reserve(bytes: number): void {
    if (BLOCK + bytes <= this.inner.length) return;
    const grown = Buffer.alloc(BLOCK + Math.max(bytes, this.inner.length * 2));
    this.inner.copy(grown, 0, 0, BLOCK);
    this.inner = grown;
  }
}

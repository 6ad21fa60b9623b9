import { describe, expect, it } from 'vitest';
import { GateError } from '../../src/errors.js';
import { decodeBase32 } from '../../src/lib/base32.js';
import { NonceCodec } from '../../src/nonce/codec.js';
import { MemoryNonceStore } from '../../src/nonce/memory-store.js';
import { challengeFor } from '../../src/signature/challenge.js';

const SECRET = 'a'.repeat(40);

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
    return undefined;
  } catch (error) {
    return error instanceof GateError ? error.code : 'not a GateError';
  }
}

describe('nonces', () => {
  it('are at most 64 characters of [A-Za-z0-9_-], letters and digits only (a SIWS nonce), and never repeat', () => {
    const codec = new NonceCodec(SECRET, 300);
    const seen = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const { nonce } = codec.issue('blacklist');
      expect(nonce).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      expect(nonce).toMatch(/^[A-Za-z0-9]{8,}$/);
      seen.add(nonce);
    }
    expect(seen.size).toBe(10_000);
  });

  it('are accepted for the feature they were issued for, with a stable single-use id', () => {
    const codec = new NonceCodec(SECRET, 300);
    const { nonce } = codec.issue('tier');
    const first = codec.accept(nonce, 'tier');
    expect(codec.accept(nonce, 'tier').id).toBe(first.id);
    expect(first.id.length).toBeGreaterThanOrEqual(22); // 128 random bits
  });

  it('issued by an earlier version (the same bytes in base64url) are still accepted, with the same single-use id', () => {
    const codec = new NonceCodec(SECRET, 300);
    const { nonce } = codec.issue('tier');
    const bytes = decodeBase32(nonce) as Buffer;
    const older = bytes.toString('base64url');
    expect(older).toHaveLength(51);
    expect(codec.accept(older, 'tier').id).toBe(codec.accept(nonce, 'tier').id);
    expect(codeOf(() => codec.accept(older, 'age'))).toBe('INVALID_NONCE');
  });

  it('are refused for another feature, under another secret, or when altered', () => {
    const codec = new NonceCodec(SECRET, 300);
    const { nonce } = codec.issue('blacklist');
    expect(codeOf(() => codec.accept(nonce, 'timelock'))).toBe('INVALID_NONCE');
    expect(codeOf(() => new NonceCodec('b'.repeat(40), 300).accept(nonce, 'blacklist'))).toBe('INVALID_NONCE');
    const altered = `${nonce.slice(0, 10)}${nonce[10] === 'a' ? 'b' : 'a'}${nonce.slice(11)}`;
    expect(codeOf(() => codec.accept(altered, 'blacklist'))).toBe('INVALID_NONCE');
    const lastBitsSet = `${nonce.slice(0, -1)}${'abcdefghijklmnopqrstuvwxyz234567'['abcdefghijklmnopqrstuvwxyz234567'.indexOf(nonce.at(-1)!) | 1]}`;
    for (const garbage of ['', 'abc', nonce + 'a', nonce.slice(1), nonce.toUpperCase(), lastBitsSet, '!'.repeat(nonce.length), 'é'.repeat(nonce.length)]) {
      expect(codeOf(() => codec.accept(garbage, 'blacklist'))).toBe('INVALID_NONCE');
    }
  });

  it('expire after the configured lifetime', () => {
    let now = 1_700_000_000_000;
    const codec = new NonceCodec(SECRET, 300, () => now);
    const { nonce } = codec.issue('age');
    now += 299_999;
    expect(codeOf(() => codec.accept(nonce, 'age'))).toBeUndefined();
    now += 1;
    expect(codeOf(() => codec.accept(nonce, 'age'))).toBe('NONCE_EXPIRED');
  });

  it('issued far in the future (forged clock) are invalid', () => {
    let now = 1_700_000_000_000;
    const issuer = new NonceCodec(SECRET, 300, () => now + 120_000);
    const { nonce } = issuer.issue('age');
    const verifier = new NonceCodec(SECRET, 300, () => now);
    expect(codeOf(() => verifier.accept(nonce, 'age'))).toBe('INVALID_NONCE');
  });
});

describe('consumed-nonce store (memory)', () => {
  it('lets exactly one of many concurrent consumers through', async () => {
    const store = new MemoryNonceStore();
    const results = await Promise.all(Array.from({ length: 40 }, () => store.consume('id', Date.now() + 60_000)));
    expect(results.filter(Boolean)).toHaveLength(1);
    await store.close();
  });

  it('release() gives a spent nonce back: it can be spent once more, and only once', async () => {
    const store = new MemoryNonceStore();
    expect(await store.consume('n', Date.now() + 60_000)).toBe(true);
    await store.release('n');
    const again = await Promise.all(Array.from({ length: 10 }, () => store.consume('n', Date.now() + 60_000)));
    expect(again.filter(Boolean)).toHaveLength(1);
    await store.close();
  });

  it('forgets entries once their nonce has expired', async () => {
    let now = 1000;
    const store = new MemoryNonceStore(1000, () => now);
    await store.consume('a', 2000);
    await store.consume('b', 5000);
    now = 3000;
    store.sweep();
    expect(store.size).toBe(1);
    expect(await store.consume('b', 5000)).toBe(false);
    await store.close();
  });

  it('a sweep never forgets a nonce that has not expired, whatever the expiries and the time', async () => {
    let now = 0;
    const store = new MemoryNonceStore(250, () => now);
    const expiries = new Map<string, number>();
    let seed = 7;
    const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let step = 0; step < 400; step++) {
      now += Math.floor(random() * 40);
      const id = `n${step}`;
      const expiresAtMs = now + 1 + Math.floor(random() * 3000);
      expect(await store.consume(id, expiresAtMs)).toBe(true);
      expiries.set(id, expiresAtMs);
      if (step % 7 === 0) store.sweep();
      for (const [earlier, at] of expiries) {
        if (at > now) expect(await store.consume(earlier, at)).toBe(false);
      }
    }
    now += 4000;
    store.sweep();
    expect(store.size).toBe(0);
    await store.close();
  });

  it('release() finds the nonce in whichever bucket holds it', async () => {
    const store = new MemoryNonceStore(1000, () => 0);
    await store.consume('early', 1500);
    await store.consume('late', 250_000);
    await store.release('late');
    expect(store.size).toBe(1);
    expect(await store.consume('late', 250_000)).toBe(true);
    expect(await store.consume('early', 1500)).toBe(false);
    await store.close();
  });
});

describe('challenge', () => {
  it('is CHALLENGE::<nonce>::<path>::<MECHANISM>_<FEATURE>', () => {
    expect(challengeFor('n0nce', '/x404_auth/blacklist', 'SERVICE404', 'blacklist')).toBe('CHALLENGE::n0nce::/x404_auth/blacklist::SERVICE404_BLACKLIST');
    expect(challengeFor('n', '/x404_auth/nodebt', 'ACME', 'nodebt')).toBe('CHALLENGE::n::/x404_auth/nodebt::ACME_NODEBT');
  });
});

import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { GateError } from '../../src/errors.js';
import { decodeBase32, encodeBase32 } from '../../src/lib/base32.js';
import { NonceCodec, type AcceptedNonce } from '../../src/nonce/codec.js';
import { epochFromName, ProcessEpochs, type KnownEpoch, type NonceEpoch, type NonceEpochs } from '../../src/nonce/epoch.js';
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

async function codeOfAsync(action: () => unknown): Promise<string | undefined> {
  try {
    await action();
    return undefined;
  } catch (error) {
    return error instanceof GateError ? `${error.httpStatus} ${error.code}` : 'not a GateError';
  }
}

/** A nonce of the current format with its tag replaced (the MAC left as it was). */
function withTag(nonce: string, tag: number): string {
  const bytes = decodeBase32(nonce) as Buffer;
  bytes.writeUInt16BE(tag, 6);
  return encodeBase32(bytes);
}

/** A nonce of the earlier format (38 bytes, the v1 key), made from its definition. */
function earlierFormatNonce(secret: string, feature: string, issuedAtMs: number): Buffer {
  const payload = Buffer.alloc(22);
  payload.writeUIntBE(issuedAtMs, 0, 6);
  payload.fill(9, 6);
  const key = createHmac('sha256', secret).update('x404 nonce key v1').digest();
  const mac = createHmac('sha256', key).update(Buffer.concat([Buffer.from(feature), Buffer.from([0]), payload])).digest().subarray(0, 16);
  return Buffer.concat([payload, mac]);
}

/** Epochs as a Redis store would hand them out: named, one per bucket (here the same for all), earlier ones remembered. */
class FixedEpochs implements NonceEpochs {
  constructor(
    public now: NonceEpoch,
    public past: NonceEpoch[] = [],
  ) {}
  current(): NonceEpoch {
    return this.now;
  }
  find(_bucket: number, tag: number): KnownEpoch | undefined {
    if (tag === this.now.tag) return { epoch: this.now, current: true };
    const past = this.past.find((epoch) => epoch.tag === tag);
    return past && { epoch: past, current: false };
  }
}

const epochNamed = (byte: number, tag?: number): NonceEpoch => {
  const id = Buffer.alloc(16, byte);
  if (tag !== undefined) id.writeUInt16BE(tag, 0);
  return epochFromName(id.toString('base64url')) as NonceEpoch;
};

describe('nonces', () => {
  it('are 64 characters of lower-case base32 (within [A-Za-z0-9_-]{1,64}, letters and digits only: a SIWS nonce), and never repeat', () => {
    const codec = new NonceCodec(SECRET, 300);
    const seen = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const { nonce } = codec.issue('blacklist');
      expect(nonce).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      expect(nonce).toMatch(/^[a-z2-7]{64}$/);
      seen.add(nonce);
    }
    expect(seen.size).toBe(10_000);
  });

  it('are accepted for the feature they were issued for, with a stable single-use id of 128 random bits', () => {
    const codec = new NonceCodec(SECRET, 300);
    const { nonce } = codec.issue('tier');
    const first = codec.accept(nonce, 'tier') as AcceptedNonce;
    expect((codec.accept(nonce, 'tier') as AcceptedNonce).id).toBe(first.id);
    const [bucket, random] = first.id.split('.');
    expect(Buffer.from(random!, 'base64url')).toHaveLength(16);
    expect(Number(bucket)).toBe(Buffer.from(random!, 'base64url')[0]);
    expect(first.legacy).toBe(false);
  });

  it('are refused for another feature, under another secret, or when altered', () => {
    const codec = new NonceCodec(SECRET, 300);
    const { nonce } = codec.issue('blacklist');
    expect(codeOf(() => codec.accept(nonce, 'timelock'))).toBe('INVALID_NONCE');
    expect(codeOf(() => new NonceCodec('b'.repeat(40), 300).accept(nonce, 'blacklist'))).toBe('INVALID_NONCE');
    const altered = `${nonce.slice(0, 20)}${nonce[20] === 'a' ? 'b' : 'a'}${nonce.slice(21)}`;
    expect(codeOf(() => codec.accept(altered, 'blacklist'))).toBe('INVALID_NONCE');
    for (const garbage of ['', 'abc', nonce + 'a', nonce.slice(1), nonce.toUpperCase(), '!'.repeat(nonce.length), 'é'.repeat(nonce.length), 'a'.repeat(64)]) {
      expect(codeOf(() => codec.accept(garbage, 'blacklist'))).toBe('INVALID_NONCE');
    }
  });

  it('with a tampered epoch tag are INVALID_NONCE: the tag is authenticated', () => {
    const codec = new NonceCodec(SECRET, 300);
    const { nonce } = codec.issue('age');
    const tag = (decodeBase32(nonce) as Buffer).readUInt16BE(6);
    for (const other of [tag ^ 1, tag ^ 0x8000, (tag + 12345) & 0xffff]) {
      expect(codeOf(() => codec.accept(withTag(nonce, other), 'age'))).toBe('INVALID_NONCE');
    }
  });

  it('expire after the configured lifetime', () => {
    let now = 1_700_000_000_000;
    const codec = new NonceCodec(SECRET, 300, { now: () => now });
    const { nonce } = codec.issue('age');
    now += 299_999;
    expect(codeOf(() => codec.accept(nonce, 'age'))).toBeUndefined();
    now += 1;
    expect(codeOf(() => codec.accept(nonce, 'age'))).toBe('NONCE_EXPIRED');
  });

  it('issued far in the future (a clock off by more than twice MAX_CLOCK_SKEW_MS) are invalid', () => {
    const now = 1_700_000_000_000;
    const epochs = new FixedEpochs(epochNamed(1));
    const verifier = new NonceCodec(SECRET, 300, { now: () => now, epochs });
    const farAhead = new NonceCodec(SECRET, 300, { now: () => now + 61_000, epochs });
    expect(codeOf(() => verifier.accept(farAhead.issue('age').nonce, 'age'))).toBe('INVALID_NONCE');
    const ahead = new NonceCodec(SECRET, 300, { now: () => now + 59_000, epochs });
    expect(codeOf(() => verifier.accept(ahead.issue('age').nonce, 'age'))).toBeUndefined();
  });

  it('answer 503 while the instance must not serve them (its clock is off the store\'s), and again once it may', async () => {
    let why: string | undefined = 'its clock is 300.0 s ahead of the nonce store\'s';
    const codec = new NonceCodec(SECRET, 300, { unavailable: () => why });
    expect(codeOf(() => codec.issue('age'))).toBe('UPSTREAM_UNAVAILABLE');
    why = undefined;
    const { nonce } = codec.issue('age');
    why = 'its clock is off';
    expect(await codeOfAsync(() => codec.accept(nonce, 'age'))).toBe('503 UPSTREAM_UNAVAILABLE');
    why = undefined;
    expect(await codeOfAsync(() => codec.accept(nonce, 'age'))).toBeUndefined();
  });

  it('name each store refusal with its code', () => {
    const codec = new NonceCodec(SECRET, 300);
    expect(codec.spendRefusal('reused').code).toBe('NONCE_REUSED');
    expect(codec.spendRefusal('expired').code).toBe('NONCE_EXPIRED');
    expect(codec.spendRefusal('superseded').code).toBe('NONCE_EXPIRED');
    expect(codec.spendRefusal('future').code).toBe('INVALID_NONCE');
    for (const outcome of ['reused', 'expired', 'superseded', 'future'] as const) expect(codec.spendRefusal(outcome).httpStatus).toBe(401);
  });
});

describe('nonce epochs', () => {
  it('bind the whole epoch into the MAC: a nonce is refused under another epoch that shares its tag', () => {
    const first = epochNamed(1, 0x1234);
    const second = epochNamed(2, 0x1234);
    const issuer = new NonceCodec(SECRET, 300, { epochs: new FixedEpochs(first) });
    const { nonce } = issuer.issue('tier');
    expect(codeOf(() => issuer.accept(nonce, 'tier'))).toBeUndefined();
    expect((decodeBase32(nonce) as Buffer).readUInt16BE(6)).toBe(0x1234);
    expect(codeOf(() => new NonceCodec(SECRET, 300, { epochs: new FixedEpochs(second) }).accept(nonce, 'tier'))).toBe('INVALID_NONCE');
  });

  it('answer NONCE_EXPIRED for a nonce of an earlier epoch the instance remembers, INVALID_NONCE for one it never knew', () => {
    const old = epochNamed(1);
    const issuer = new NonceCodec(SECRET, 300, { epochs: new FixedEpochs(old) });
    const { nonce } = issuer.issue('tier');
    const accepted = issuer.accept(nonce, 'tier') as AcceptedNonce;
    expect(accepted.epoch).toBe(old.name);
    expect(codeOf(() => new NonceCodec(SECRET, 300, { epochs: new FixedEpochs(epochNamed(3), [old]) }).accept(nonce, 'tier'))).toBe('NONCE_EXPIRED');
    expect(codeOf(() => new NonceCodec(SECRET, 300, { epochs: new FixedEpochs(epochNamed(3)) }).accept(nonce, 'tier'))).toBe('INVALID_NONCE');
    // A forged nonce naming the remembered epoch's tag is still INVALID_NONCE: the MAC is checked first.
    const forged = withTag(new NonceCodec(SECRET, 300, { epochs: new FixedEpochs(epochNamed(4)) }).issue('tier').nonce, old.tag);
    expect(codeOf(() => new NonceCodec(SECRET, 300, { epochs: new FixedEpochs(epochNamed(3), [old]) }).accept(forged, 'tier'))).toBe('INVALID_NONCE');
  });

  it('ask the store about an unknown tag, then accept a nonce of the epoch it names', async () => {
    const newer = epochNamed(5);
    const issuer = new NonceCodec(SECRET, 300, { epochs: new FixedEpochs(newer) });
    const { nonce } = issuer.issue('age');
    const behind = new FixedEpochs(epochNamed(6));
    let asked = 0;
    const learning: NonceEpochs = Object.assign(behind, {
      learn: async () => {
        asked += 1;
        behind.past.push(behind.now);
        behind.now = newer;
      },
    });
    const codec = new NonceCodec(SECRET, 300, { epochs: learning });
    const accepted = codec.accept(nonce, 'age');
    expect(accepted).toBeInstanceOf(Promise);
    expect((await accepted).epoch).toBe(newer.name);
    expect(asked).toBe(1);
    // The store unreachable while asking: 503, not a verdict on the nonce.
    const unreachable = new NonceCodec(SECRET, 300, { epochs: Object.assign(new FixedEpochs(epochNamed(7)), { learn: () => Promise.reject(new Error('down')) }) });
    expect(await codeOfAsync(() => unreachable.accept(nonce, 'age'))).toBe('503 UPSTREAM_UNAVAILABLE');
  });

  it('of the process: a restarted gate refuses its predecessor\'s nonces as NONCE_EXPIRED and serves new ones', () => {
    const before = new NonceCodec(SECRET, 300);
    const { nonce } = before.issue('blacklist');
    const restarted = new NonceCodec(SECRET, 300);
    expect(codeOf(() => restarted.accept(nonce, 'blacklist'))).toBe('NONCE_EXPIRED');
    expect(codeOf(() => restarted.accept(restarted.issue('blacklist').nonce, 'blacklist'))).toBeUndefined();
    // Still authenticated first: the predecessor's nonce for another feature is INVALID_NONCE.
    expect(codeOf(() => restarted.accept(nonce, 'tier'))).toBe('INVALID_NONCE');
  });

  it('of the process: a restart that draws the same tag still refuses nonces issued before it began', () => {
    let now = 1_700_000_000_000;
    const first = new ProcessEpochs(30_000, now);
    const before = new NonceCodec(SECRET, 300, { now: () => now, epochs: first });
    const { nonce } = before.issue('blacklist');
    now += 1000;
    const tag = first.current(0, now).tag;
    let second: ProcessEpochs;
    let draws = 0;
    do {
      second = new ProcessEpochs(30_000, now);
      draws += 1;
    } while (second.current(0, now).tag !== tag && draws < 2_000_000);
    expect(second.current(0, now).tag).toBe(tag);
    const restarted = new NonceCodec(SECRET, 300, { now: () => now, epochs: second });
    expect(codeOf(() => restarted.accept(nonce, 'blacklist'))).toBe('NONCE_EXPIRED');
    expect(codeOf(() => restarted.accept(restarted.issue('blacklist').nonce, 'blacklist'))).toBeUndefined();
  });

  it('of the process: the wall clock set back by more than the tolerance begins a new epoch; less does not', () => {
    let now = 1_700_000_000_000;
    const steps: number[] = [];
    const epochs = new ProcessEpochs(30_000, now, (stepMs) => steps.push(stepMs));
    const codec = new NonceCodec(SECRET, 300, { now: () => now, epochs, maxClockSkewMs: 30_000 });
    const { nonce } = codec.issue('age');
    now -= 30_000;
    expect(codeOf(() => codec.accept(nonce, 'age'))).toBeUndefined();
    const issuedWhileBack = codec.issue('age');
    // Never before the epoch began, so that the epoch's own nonces pass its start-time check.
    expect(issuedWhileBack.issuedAtMs).toBe(1_700_000_000_000);
    expect(epochs.epochsBegun).toBe(1);
    now -= 1;
    expect(codeOf(() => codec.accept(nonce, 'age'))).toBe('NONCE_EXPIRED');
    expect(codeOf(() => codec.accept(issuedWhileBack.nonce, 'age'))).toBe('NONCE_EXPIRED');
    expect(epochs.epochsBegun).toBe(2);
    expect(steps).toEqual([30_001]);
    expect(codeOf(() => codec.accept(codec.issue('age').nonce, 'age'))).toBeUndefined();
    // A step forward is harmless: nonces only look older.
    const fresh = codec.issue('age').nonce;
    now += 200_000;
    expect(codeOf(() => codec.accept(fresh, 'age'))).toBeUndefined();
    expect(epochs.epochsBegun).toBe(2);
  });
});

describe('nonces of the earlier formats (no epoch)', () => {
  it('are accepted where a rolling upgrade needs them (Redis), in base32 and base64url, under their old single-use id', () => {
    const codec = new NonceCodec(SECRET, 300, { legacy: 'accept' });
    const bytes = earlierFormatNonce(SECRET, 'tier', Date.now());
    const base32 = encodeBase32(bytes);
    const base64url = bytes.toString('base64url');
    expect(base32).toHaveLength(61);
    expect(base64url).toHaveLength(51);
    const accepted = codec.accept(base32, 'tier') as AcceptedNonce;
    expect(accepted).toMatchObject({ legacy: true, epoch: '', id: bytes.subarray(6, 22).toString('base64url') });
    expect((codec.accept(base64url, 'tier') as AcceptedNonce).id).toBe(accepted.id);
    expect(codeOf(() => codec.accept(base32, 'age'))).toBe('INVALID_NONCE');
    expect(codeOf(() => codec.accept(encodeBase32(earlierFormatNonce(SECRET, 'tier', Date.now() - 300_000)), 'tier'))).toBe('NONCE_EXPIRED');
  });

  it('are refused as NONCE_EXPIRED by the memory store (only the process before the upgrade issued them), and forged ones as INVALID_NONCE', () => {
    const codec = new NonceCodec(SECRET, 300);
    const bytes = earlierFormatNonce(SECRET, 'tier', Date.now());
    expect(codeOf(() => codec.accept(encodeBase32(bytes), 'tier'))).toBe('NONCE_EXPIRED');
    expect(codeOf(() => codec.accept(bytes.toString('base64url'), 'tier'))).toBe('NONCE_EXPIRED');
    expect(codeOf(() => codec.accept(encodeBase32(earlierFormatNonce('c'.repeat(40), 'tier', Date.now())), 'tier'))).toBe('INVALID_NONCE');
  });
});

const spendable = (id: string, expiresAtMs: number) => ({ id, issuedAtMs: expiresAtMs - 300_000, expiresAtMs, epoch: '', legacy: false });

describe('consumed-nonce store (memory)', () => {
  it('lets exactly one of many concurrent consumers through', async () => {
    const store = new MemoryNonceStore();
    const results = await Promise.all(Array.from({ length: 40 }, () => store.consume(spendable('id', Date.now() + 60_000))));
    expect(results.filter((outcome) => outcome === 'spent')).toHaveLength(1);
    expect(results.filter((outcome) => outcome === 'reused')).toHaveLength(39);
    await store.close();
  });

  it('release() gives a spent nonce back: it can be spent once more, and only once', async () => {
    const store = new MemoryNonceStore();
    expect(await store.consume(spendable('n', Date.now() + 60_000))).toBe('spent');
    await store.release('n');
    const again = await Promise.all(Array.from({ length: 10 }, () => store.consume(spendable('n', Date.now() + 60_000))));
    expect(again.filter((outcome) => outcome === 'spent')).toHaveLength(1);
    await store.close();
  });

  it('forgets entries once their nonce has expired and the margin has passed', async () => {
    let now = 1000;
    const store = new MemoryNonceStore(1000, () => now, 1500);
    store.add('a', 2000);
    store.add('b', 5000);
    now = 3000;
    store.sweep();
    expect(store.size).toBe(2);
    now = 4000;
    store.sweep();
    expect(store.size).toBe(1);
    expect(store.add('b', 5000)).toBe(false);
    await store.close();
  });

  it('a sweep never forgets a nonce before its expiry plus the margin, whatever the expiries and the time', async () => {
    let now = 0;
    const margin = 300;
    const store = new MemoryNonceStore(250, () => now, margin);
    const expiries = new Map<string, number>();
    let seed = 7;
    const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let step = 0; step < 400; step++) {
      now += Math.floor(random() * 40);
      const id = `n${step}`;
      const expiresAtMs = now + 1 + Math.floor(random() * 3000);
      expect(store.add(id, expiresAtMs)).toBe(true);
      expiries.set(id, expiresAtMs);
      if (step % 7 === 0) store.sweep();
      for (const [earlier, at] of expiries) {
        if (at + margin > now) expect(store.add(earlier, at)).toBe(false);
      }
    }
    now += 4000;
    store.sweep();
    expect(store.size).toBe(0);
    await store.close();
  });

  it('release() finds the nonce in whichever bucket holds it', async () => {
    const store = new MemoryNonceStore(1000, () => 0, 0);
    store.add('early', 1500);
    store.add('late', 250_000);
    await store.release('late');
    expect(store.size).toBe(1);
    expect(store.add('late', 250_000)).toBe(true);
    expect(store.add('early', 1500)).toBe(false);
    await store.close();
  });

  it('with the codec on one clock: a clock set back after a spend was forgotten cannot bring the nonce back', async () => {
    let now = 1_700_000_000_000;
    const skew = 30_000;
    const codec = new NonceCodec(SECRET, 300, { now: () => now, maxClockSkewMs: skew });
    const store = new MemoryNonceStore(10_000, () => now, skew);
    const { nonce } = codec.issue('age');
    expect(await store.consume(codec.accept(nonce, 'age') as AcceptedNonce)).toBe('spent');
    // Time passes until the record is forgotten...
    now += 300_000 + skew + 10_000;
    store.sweep();
    expect(store.size).toBe(0);
    expect(codeOf(() => codec.accept(nonce, 'age'))).toBe('NONCE_EXPIRED');
    // ...then the clock is set back within the tolerance: the nonce is still too old.
    now -= skew;
    expect(codeOf(() => codec.accept(nonce, 'age'))).toBe('NONCE_EXPIRED');
    // ...or far back, to when the nonce was young: a new epoch, and the nonce is of the old one.
    now -= 300_000;
    expect(codeOf(() => codec.accept(nonce, 'age'))).toBe('NONCE_EXPIRED');
    await store.close();
  });
});

describe('challenge', () => {
  it('is CHALLENGE::<nonce>::<path>::<MECHANISM>_<FEATURE>', () => {
    expect(challengeFor('n0nce', '/x404_auth/blacklist', 'SERVICE404', 'blacklist')).toBe('CHALLENGE::n0nce::/x404_auth/blacklist::SERVICE404_BLACKLIST');
    expect(challengeFor('n', '/x404_auth/nodebt', 'ACME', 'nodebt')).toBe('CHALLENGE::n::/x404_auth/nodebt::ACME_NODEBT');
  });
});

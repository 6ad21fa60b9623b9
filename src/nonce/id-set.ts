/**
 * A set of nonce ids kept as 64-bit fingerprints in one open-addressing table (linear probing,
 * load kept between 1/4 and 1/2): 8 bytes a slot, 16–32 bytes an id, where a Set of the id strings
 * costs ~120. The consumed-nonce store holds every login's nonce for NONCE_TTL_SECONDS — a million
 * at a launch's rate — so this is most of the gate's memory under load.
 *
 * Two ids share a fingerprint with probability ~n / 2^64 (n ids held): a million held makes a
 * fresh nonce look used once in ~10^13 logins. Ids are random bytes chosen by the gate and
 * authenticated with the nonce (src/nonce/codec.ts), so no caller can aim at a fingerprint.
 */
export class IdSet {
  /** Pairs (high, low) of 32-bit halves; (0, 0) marks an empty slot. */
  private slots: Uint32Array;
  private count = 0;

  constructor(initialCapacity = 1024) {
    this.slots = new Uint32Array(2 * powerOfTwoAtLeast(Math.max(16, initialCapacity)));
  }

  get size(): number {
    return this.count;
  }

  has(id: string): boolean {
    const [high, low] = fingerprint(id);
    return this.find(high, low) >= 0;
  }

  /** Adds `id`; false when it was already there. */
  add(id: string): boolean {
    const [high, low] = fingerprint(id);
    if (this.find(high, low) >= 0) return false;
    if (2 * (this.count + 1) > this.capacity) this.resize(2 * this.capacity);
    this.insert(high, low);
    this.count++;
    return true;
  }

  delete(id: string): boolean {
    const [high, low] = fingerprint(id);
    let slot = this.find(high, low);
    if (slot < 0) return false;
    // Backward-shift deletion: move later members of the probe run into the gap, so that no
    // lookup stops early at it (no tombstones).
    const mask = this.capacity - 1;
    let next = (slot + 1) & mask;
    while (!this.isEmpty(next)) {
      const home = this.home(this.slots[2 * next]!, this.slots[2 * next + 1]!);
      // The member at `next` may fill the gap when its home is not between the gap and it.
      if (((next - home) & mask) >= ((next - slot) & mask)) {
        this.slots[2 * slot] = this.slots[2 * next]!;
        this.slots[2 * slot + 1] = this.slots[2 * next + 1]!;
        slot = next;
      }
      next = (next + 1) & mask;
    }
    this.slots[2 * slot] = 0;
    this.slots[2 * slot + 1] = 0;
    this.count--;
    if (this.capacity > 1024 && 4 * this.count < this.capacity) this.resize(this.capacity / 2);
    return true;
  }

  private get capacity(): number {
    return this.slots.length / 2;
  }

  private isEmpty(slot: number): boolean {
    return this.slots[2 * slot] === 0 && this.slots[2 * slot + 1] === 0;
  }

  private home(high: number, low: number): number {
    return (low ^ Math.imul(high, 0x9e3779b1)) & (this.capacity - 1);
  }

  private find(high: number, low: number): number {
    const mask = this.capacity - 1;
    for (let slot = this.home(high, low); ; slot = (slot + 1) & mask) {
      const h = this.slots[2 * slot]!;
      const l = this.slots[2 * slot + 1]!;
      if (h === high && l === low) return slot;
      if (h === 0 && l === 0) return -1;
    }
  }

  private insert(high: number, low: number): void {
    const mask = this.capacity - 1;
    let slot = this.home(high, low);
    while (!this.isEmpty(slot)) slot = (slot + 1) & mask;
    this.slots[2 * slot] = high;
    this.slots[2 * slot + 1] = low;
  }

  private resize(capacity: number): void {
    const old = this.slots;
    this.slots = new Uint32Array(2 * capacity);
    for (let i = 0; i < old.length; i += 2) {
      if (old[i] !== 0 || old[i + 1] !== 0) this.insert(old[i]!, old[i + 1]!);
    }
  }
}

const pair: [number, number] = [0, 0];

/**
 * Two 32-bit hashes of the id's characters (FNV-1a, and a multiply-rotate mix with other
 * constants), never both zero. Returns a shared pair: read it before the next call.
 */
function fingerprint(id: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9747b28c ^ id.length;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ Math.imul(c, 0xcc9e2d51), 0x1b873593);
    b = (b << 13) | (b >>> 19);
  }
  b = Math.imul(b ^ (b >>> 16), 0x85ebca6b);
  b ^= b >>> 13;
  pair[0] = a >>> 0;
  pair[1] = b >>> 0;
  if (pair[0] === 0 && pair[1] === 0) pair[1] = 1;
  return pair;
}

function powerOfTwoAtLeast(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

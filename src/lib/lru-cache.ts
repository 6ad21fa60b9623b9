/**
 * A bounded cache that keeps what was used recently, in two generations (two Maps): new and used
 * entries go into the young one; when it holds half the capacity it becomes the old one and the
 * previous old one is dropped whole. An entry found in the old generation moves to the young one,
 * so whatever was used within the last half-capacity insertions stays.
 *
 * A least-recently-used order kept exactly (a Map whose hit deletes and re-inserts the entry) cost
 * ~160 ns a hit on a 100,000-entry cache here, against ~15 ns for a plain Map lookup, and the
 * churn of re-insertions fed the garbage collector — on the hot path of every login (ATAs, mint
 * programs, parsed policy headers). Here a hit in the young generation is one Map lookup.
 */
export class LruCache<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();
  private readonly generation: number;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('LRU capacity must be a positive integer');
    this.generation = Math.max(1, Math.floor(capacity / 2));
  }

  get size(): number {
    return this.young.size + this.old.size;
  }

  get(key: K): V | undefined {
    const value = this.young.get(key);
    if (value !== undefined) return value;
    const aged = this.old.get(key);
    if (aged !== undefined) {
      this.old.delete(key);
      this.insert(key, aged);
    }
    return aged;
  }

  /** The value without counting as a use. */
  peek(key: K): V | undefined {
    return this.young.get(key) ?? this.old.get(key);
  }

  /** Presence, without counting as a use. */
  has(key: K): boolean {
    return this.young.has(key) || this.old.has(key);
  }

  set(key: K, value: V): void {
    if (this.young.has(key)) {
      this.young.set(key, value);
      return;
    }
    this.old.delete(key);
    this.insert(key, value);
  }

  clear(): void {
    this.young.clear();
    this.old.clear();
  }

  private insert(key: K, value: V): void {
    if (this.young.size >= this.generation) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
    // Never more than `capacity` entries (an odd capacity, or 1): the oldest of the old go first.
    while (this.young.size + this.old.size > this.capacity) {
      const oldest = this.old.keys().next();
      if (oldest.done) break;
      this.old.delete(oldest.value);
    }
  }
}

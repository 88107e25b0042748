/**
 * A string-keyed LRU bounded by entry count and by the summed length of its keys. A hit moves its
 * entry to the recently-used end only when the entry is in the older half (more than half the entry
 * bound of insertions and moves ago): a hit on a recent entry changes nothing. Moving costs a delete
 * and an insert, and a table that churns on every hit is rehashed over and over; with tens of
 * thousands of entries (a long chat) that would be most of the cost of a count. An entry hit at least once
 * per half-bound of insertions is never evicted, as with a strict LRU.
 */
export class LruCounts {
  private readonly map = new Map<string, { n: number; seq: number }>();
  private chars = 0;
  private seq = 0;
  constructor(
    private readonly maxEntries: number,
    private readonly maxChars: number,
  ) {}
  get size(): number {
    return this.map.size;
  }
  get keyChars(): number {
    return this.chars;
  }
  get(key: string): number | undefined {
    const e = this.map.get(key);
    if (e === undefined) return undefined;
    if (this.seq - e.seq > this.maxEntries >> 1) {
      this.map.delete(key);
      e.seq = ++this.seq;
      this.map.set(key, e);
    }
    return e.n;
  }
  set(key: string, value: number): void {
    if (key.length > this.maxChars) return;
    const had = this.map.get(key);
    if (had) {
      had.n = value;
      return;
    }
    // A slice of a large string keeps the whole parent alive; store a flat copy instead.
    const own = key.length >= 13 ? (' ' + key).slice(1) : key;
    this.map.set(own, { n: value, seq: ++this.seq });
    this.chars += own.length;
    while (this.map.size > this.maxEntries || this.chars > this.maxChars) {
      const oldest = this.map.keys().next().value as string;
      this.map.delete(oldest);
      this.chars -= oldest.length;
    }
  }
  clear(): void {
    this.map.clear();
    this.chars = 0;
  }
}

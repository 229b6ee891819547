// A set of strings remembered by a 52-bit hash of each, in one Float64Array: ~16–32 bytes per key, none of it an
// object the garbage collector traces. A Set<string> of keys like "cluster/group/resource/namespace/name" costs ~270
// bytes per key (the concatenated key strings are trees of parts); a watch remembering 250,000 objects held ~68 MB.
//
// Two keys with the same hash are taken for one. The chance that any two of n keys collide is about n² / 2^53
// (~7·10⁻⁶ for 250,000 keys); callers must be ones for which a collision is harmless.

const EMPTY = 0;
const TOMBSTONE = -1;
/** Hashes are in [1, 2^52]: 0 and -1 mark empty and deleted slots. */
const HIGH = 2 ** 32;

/** Two 32-bit FNV-1a hashes of the string's UTF-16 code units (different offset bases), as one number in [1, 2^52]. */
export function hash52(s: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  // 20 bits of b above the 32 of a; +1 keeps 0 free.
  return ((b >>> 12) * HIGH) + (a >>> 0) + 1;
}

export class KeyHashSet {
  private table = new Float64Array(16);
  private live = 0;
  private tombstones = 0;

  get size(): number {
    return this.live;
  }

  has(key: string): boolean {
    return this.slotOf(hash52(key)) >= 0;
  }

  /** True when the key was not there. */
  add(key: string): boolean {
    const h = hash52(key);
    if (this.slotOf(h) >= 0) return false;
    if ((this.live + this.tombstones + 1) * 2 > this.table.length) this.rehash();
    this.place(this.table, h);
    this.live++;
    return true;
  }

  /** True when the key was there. */
  delete(key: string): boolean {
    const i = this.slotOf(hash52(key));
    if (i < 0) return false;
    this.table[i] = TOMBSTONE;
    this.live--;
    this.tombstones++;
    return true;
  }

  private slotOf(h: number): number {
    const t = this.table;
    const mask = t.length - 1;
    for (let i = h % HIGH & mask; ; i = (i + 1) & mask) {
      const v = t[i]!;
      if (v === h) return i;
      if (v === EMPTY) return -1;
    }
  }

  private place(t: Float64Array, h: number): void {
    const mask = t.length - 1;
    let i = h % HIGH & mask;
    while (t[i] !== EMPTY && t[i] !== TOMBSTONE) i = (i + 1) & mask;
    t[i] = h;
  }

  /** At most half full, so probes stay short; tombstones go. Shrinks too, when most keys were deleted. */
  private rehash(): void {
    let cap = 16;
    while (cap < (this.live + 1) * 2) cap *= 2;
    const next = new Float64Array(cap);
    for (const v of this.table) if (v !== EMPTY && v !== TOMBSTONE) this.place(next, v);
    this.table = next;
    this.tombstones = 0;
  }
}

// What the synchro remembers of a resource: key → member resourceVersion, nothing else (STYLE §12), compactly.

const EMPTY = 0;
const TOMBSTONE = 0xffffffff;
/** Growth factor of the backing arrays: small, because doubling wastes a third of the memory on average. */
const GROW = 1.25;

/**
 * A key → resourceVersion map off the JavaScript heap's object graph. A Map<string,string> costs ~110 bytes per
 * object (hash-table slots, a cons string per "ns/name" key, a string per RV) and all of it is traced by every
 * full GC; a million objects are then ~110 MB the collector walks again and again. Here keys are UTF-8 bytes in
 * one arena, decimal RVs are float64s (exact to 2^53; non-numeric RVs go to a small side map), and the index is
 * an open-addressing table of uint32s: ~70 bytes per object, in a handful of typed arrays the GC does not scan.
 *
 * Every entry also carries the generation of the last list that saw it, so a relist finds what vanished without a
 * second map: beginSweep() starts a generation, touch() marks, unseen() lists the rest.
 */
export class VersionMap {
  private table = new Uint32Array(16);
  private hashes = new Uint32Array(8);
  private keyStart = new Uint32Array(8);
  /** Key length in bytes; 0 marks a deleted entry (keys are never empty). */
  private keyLen = new Uint32Array(8);
  private rvs = new Float64Array(8);
  private gens = new Uint32Array(8);
  /** Entry index → RV, for RVs that are not canonical decimal integers (rare: kube-apiserver's are etcd revisions). */
  private readonly textRvs = new Map<number, string>();
  private arena = Buffer.allocUnsafe(256);
  private arenaUsed = 0;
  private arenaGarbage = 0;
  /** Entries allocated (live and deleted), live entries, tombstones in the table. */
  private entries = 0;
  private live = 0;
  private tombstones = 0;
  private generation = 0;
  private scratch = Buffer.allocUnsafe(512);

  static from(entries: Iterable<[string, string]>): VersionMap {
    const m = new VersionMap();
    for (const [k, v] of entries) m.set(k, v);
    return m;
  }

  get size(): number {
    return this.live;
  }

  get(key: string): string | undefined {
    const e = this.find(key, this.encode(key));
    return e < 0 ? undefined : this.rvOf(e);
  }

  has(key: string): boolean {
    return this.find(key, this.encode(key)) >= 0;
  }

  /** Inserts or updates; a new entry counts as seen by the current sweep. */
  set(key: string, rv: string): void {
    const len = this.encode(key);
    let e = this.find(key, len);
    if (e < 0) e = this.insert(len);
    this.setRv(e, rv);
  }

  /** set() and mark the key seen by the current sweep. */
  touch(key: string, rv: string): void {
    const len = this.encode(key);
    let e = this.find(key, len);
    if (e < 0) e = this.insert(len);
    this.setRv(e, rv);
    this.gens[e] = this.generation;
  }

  delete(key: string): boolean {
    const len = this.encode(key);
    const slot = this.slotOf(len);
    if (slot < 0) return false;
    const e = this.table[slot]! - 1;
    this.table[slot] = TOMBSTONE;
    this.tombstones++;
    this.arenaGarbage += this.keyLen[e]!;
    this.keyLen[e] = 0;
    this.textRvs.delete(e);
    this.live--;
    if (this.arenaGarbage > 4096 && this.arenaGarbage > this.arenaUsed / 2) this.compact();
    return true;
  }

  /** Starts a sweep: from now on only touched keys count as seen. */
  beginSweep(): void {
    this.generation = (this.generation + 1) >>> 0;
  }

  /** Keys not touched since beginSweep(). */
  unseen(): string[] {
    const out: string[] = [];
    for (let e = 0; e < this.entries; e++) if (this.keyLen[e] !== 0 && this.gens[e] !== this.generation) out.push(this.keyOf(e));
    return out;
  }

  *keys(): IterableIterator<string> {
    for (let e = 0; e < this.entries; e++) if (this.keyLen[e] !== 0) yield this.keyOf(e);
  }

  /** Writes `key` as UTF-8 into the scratch buffer; returns its byte length. */
  private encode(key: string): number {
    if (key.length * 3 > this.scratch.length) this.scratch = Buffer.allocUnsafe(key.length * 3);
    return this.scratch.write(key, 0, 'utf8');
  }

  /** Entry index of the key in scratch, or -1. */
  private find(_key: string, len: number): number {
    const slot = this.slotOf(len);
    return slot < 0 ? -1 : this.table[slot]! - 1;
  }

  private slotOf(len: number): number {
    const h = fnv1a(this.scratch, len);
    const mask = this.table.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const v = this.table[i]!;
      if (v === EMPTY) return -1;
      if (v === TOMBSTONE) continue;
      const e = v - 1;
      if (this.hashes[e] === h && this.keyLen[e] === len && this.scratch.compare(this.arena, this.keyStart[e]!, this.keyStart[e]! + len, 0, len) === 0) return i;
    }
  }

  /** Appends the key in scratch as a new entry and indexes it. */
  private insert(len: number): number {
    if (this.entries === this.hashes.length) this.growEntries();
    if (this.arenaUsed + len > this.arena.length) this.growArena(len);
    if ((this.live + this.tombstones + 1) * 2 > this.table.length) this.rehash();
    const e = this.entries++;
    this.scratch.copy(this.arena, this.arenaUsed, 0, len);
    this.keyStart[e] = this.arenaUsed;
    this.keyLen[e] = len;
    this.arenaUsed += len;
    const h = fnv1a(this.scratch, len);
    this.hashes[e] = h;
    this.gens[e] = this.generation;
    this.place(e, h);
    this.live++;
    return e;
  }

  private place(e: number, h: number): void {
    const mask = this.table.length - 1;
    let i = h & mask;
    while (this.table[i] !== EMPTY) i = (i + 1) & mask;
    this.table[i] = e + 1;
  }

  private setRv(e: number, rv: string): void {
    const n = numeric(rv);
    if (n === undefined) {
      this.rvs[e] = NaN;
      this.textRvs.set(e, rv);
    } else {
      this.rvs[e] = n;
      this.textRvs.delete(e);
    }
  }

  private rvOf(e: number): string {
    const n = this.rvs[e]!;
    return Number.isNaN(n) ? this.textRvs.get(e)! : String(n);
  }

  private keyOf(e: number): string {
    return this.arena.toString('utf8', this.keyStart[e]!, this.keyStart[e]! + this.keyLen[e]!);
  }

  private growEntries(): void {
    const n = Math.max(8, Math.ceil(this.hashes.length * GROW));
    this.hashes = grown(this.hashes, n);
    this.keyStart = grown(this.keyStart, n);
    this.keyLen = grown(this.keyLen, n);
    this.rvs = grown(this.rvs, n);
    this.gens = grown(this.gens, n);
  }

  private growArena(need: number): void {
    const next = Buffer.allocUnsafe(Math.max(this.arena.length + need, Math.ceil(this.arena.length * GROW)));
    this.arena.copy(next, 0, 0, this.arenaUsed);
    this.arena = next;
  }

  /** A table at most half full keeps probes short; tombstones are dropped on the way. */
  private rehash(): void {
    let cap = 16;
    while (cap < (this.live + 1) * 2) cap *= 2;
    this.table = new Uint32Array(cap);
    this.tombstones = 0;
    for (let e = 0; e < this.entries; e++) if (this.keyLen[e] !== 0) this.place(e, this.hashes[e]!);
  }

  /** Drops deleted entries and their key bytes (when more than half the arena is garbage). */
  private compact(): void {
    const arena = Buffer.allocUnsafe(Math.max(256, Math.ceil((this.arenaUsed - this.arenaGarbage) * GROW)));
    let used = 0;
    let to = 0;
    const textRvs = new Map<number, string>();
    for (let e = 0; e < this.entries; e++) {
      const len = this.keyLen[e]!;
      if (len === 0) continue;
      this.arena.copy(arena, used, this.keyStart[e]!, this.keyStart[e]! + len);
      this.hashes[to] = this.hashes[e]!;
      this.keyStart[to] = used;
      this.keyLen[to] = len;
      this.rvs[to] = this.rvs[e]!;
      this.gens[to] = this.gens[e]!;
      const t = this.textRvs.get(e);
      if (t !== undefined) textRvs.set(to, t);
      used += len;
      to++;
    }
    this.textRvs.clear();
    for (const [k, v] of textRvs) this.textRvs.set(k, v);
    this.keyLen.fill(0, to, this.entries);
    this.entries = to;
    this.arena = arena;
    this.arenaUsed = used;
    this.arenaGarbage = 0;
    this.rehash();
  }
}

/** Whether `listed` should replace `known` (reference §5.4): numeric → strictly greater; otherwise any difference. */
export function isNewer(listed: string, known: string | undefined): boolean {
  if (known === undefined) return true;
  if (listed === known) return false;
  const a = numeric(listed);
  const b = numeric(known);
  if (a !== undefined && b !== undefined) return a > b;
  return true;
}

/** Canonical decimal integers a double holds exactly; undefined for anything else ("007", "1e3", 20 digits). */
function numeric(rv: string): number | undefined {
  const len = rv.length;
  if (len === 0 || len > 15) return undefined;
  if (len > 1 && rv.charCodeAt(0) === 48) return undefined;
  for (let i = 0; i < len; i++) {
    const c = rv.charCodeAt(i);
    if (c < 48 || c > 57) return undefined;
  }
  return Number(rv);
}

function fnv1a(buf: Buffer, len: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < len; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
  return h >>> 0;
}

function grown<T extends Uint32Array | Float64Array>(a: T, n: number): T {
  const b = new (a.constructor as new (n: number) => T)(n);
  b.set(a);
  return b;
}

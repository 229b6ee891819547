// What the synchro remembers of a resource: key → member resourceVersion, nothing else (STYLE §12), compactly.

const EMPTY = 0;
const TOMBSTONE = 0xffffffff;
/** Growth factor of the arena: small, because doubling wastes a third of the memory on average. */
const GROW = 1.125;
/** An entry's RV field: a decimal RV below this as a 48-bit integer, else this and the RV in `textRvs`. */
const TEXT_RV = 2 ** 48 - 1;
const RV_BYTES = 6;
/** After the RV: the generation of the last sweep that saw the entry, 1–255; 0 marks a deleted entry. */
const TAIL_BYTES = RV_BYTES + 1;
const DELETED = 0;
const GENERATIONS = 255;
/** Room before a key's name in the scratch buffer for its two varints (5 bytes each up to 2^35). */
const HEAD_ROOM = 10;
const SLASH = 0x2f;

/**
 * A buffer outside Node's pool. allocUnsafe hands out slices of shared 8 KiB slabs below 4 KiB, and one live slice
 * keeps its whole slab: a synchro syncing 1,000 members' types held 12 MB of slabs for ~3 MB of small maps' arenas,
 * interleaved there with the network's short-lived buffers (heap snapshot, 2026-12-07).
 */
const unpooled = (size: number): Buffer => Buffer.allocUnsafeSlow(size);

/**
 * The key being looked up, encoded as a record's head: one buffer for every map, whose operations never yield while
 * they use it. A fleet keeps a map per synced type of each member, thousands of them.
 */
let scratch: Buffer = unpooled(512);

/**
 * A key → resourceVersion map off the JavaScript heap's object graph. A Map<string,string> costs ~110 bytes per
 * object (hash-table slots, a cons string per "ns/name" key, a string per RV) and all of it is traced by every
 * full GC; a million objects are then ~110 MB the collector walks again and again. Here every entry is one record in
 * an arena of bytes, `[namespace id][name length][name][RV][generation]`, the ids and length as varints, the
 * namespace interned ("ns/name" keys of a resource share a handful of namespaces; a key without "/" has id 0 and is
 * its own name), the RV a 48-bit integer (kube-apiserver's are etcd revisions; others go to a small side map), and
 * the index an open-addressing table of record offsets: ~47 bytes per simulator-shaped key (BENCHMARKS.md) instead of
 * ~78 with a hash, offset, length, float64 RV and generation in arrays of their own beside the whole key's bytes.
 *
 * The generation lets a relist find what vanished without a second map: beginSweep() starts one, touch() marks,
 * unseen() lists the rest.
 */
export class VersionMap {
  /** Offset + 1 of each indexed record; EMPTY or TOMBSTONE otherwise. */
  private table = new Uint32Array(16);
  private arena = unpooled(256);
  private arenaUsed = 0;
  private arenaGarbage = 0;
  /** Record offset → RV, for RVs that are not canonical decimal integers below TEXT_RV (rare). */
  private textRvs = new Map<number, string>();
  /** Namespace → id (from 1), and back. */
  private nsIds = new Map<string, number>();
  private nsNames: string[] = [''];
  /** The namespace of the last key encoded (0: none). */
  private lastNs = 0;
  private live = 0;
  private tombstones = 0;
  private generation = 1;
  /** Where the key being looked up starts in `scratch`, and its length. */
  private keyAt = 0;
  private keyBytes = 0;

  static from(entries: Iterable<[string, string]>): VersionMap {
    const m = new VersionMap();
    for (const [k, v] of entries) m.set(k, v);
    return m;
  }

  get size(): number {
    return this.live;
  }

  get(key: string): string | undefined {
    if (!this.encode(key, false)) return undefined;
    const slot = this.slotOf();
    return slot < 0 ? undefined : this.rvOf(this.table[slot]! - 1);
  }

  has(key: string): boolean {
    return this.encode(key, false) && this.slotOf() >= 0;
  }

  /** Inserts or updates; a new entry counts as seen by the current sweep. */
  set(key: string, rv: string): void {
    this.setRv(this.findOrInsert(key), rv);
  }

  /** set() and mark the key seen by the current sweep. */
  touch(key: string, rv: string): void {
    const at = this.findOrInsert(key);
    this.setRv(at, rv);
    this.arena[at + this.keyBytes + RV_BYTES] = this.generation;
  }

  delete(key: string): boolean {
    if (!this.encode(key, false)) return false;
    const slot = this.slotOf();
    if (slot < 0) return false;
    const at = this.table[slot]! - 1;
    this.table[slot] = TOMBSTONE;
    this.tombstones++;
    const end = at + this.keyBytes + TAIL_BYTES;
    this.arena[end - 1] = DELETED;
    this.arenaGarbage += end - at;
    this.textRvs.delete(at);
    this.live--;
    if (this.arenaGarbage > 4096 && this.arenaGarbage > this.arenaUsed / 4) this.compact();
    return true;
  }

  /** Starts a sweep: from now on only touched keys count as seen. */
  beginSweep(): void {
    const next = (this.generation % GENERATIONS) + 1;
    // The generation byte comes round again every 255 sweeps: an entry last seen by the sweep `next` stood for is
    // moved to the current one, so it is not taken for seen by the new sweep.
    for (const [, gen] of records(this.arena, this.arenaUsed)) if (this.arena[gen] === next) this.arena[gen] = this.generation;
    this.generation = next;
  }

  /** Keys not touched since beginSweep(). */
  unseen(): string[] {
    const out: string[] = [];
    for (const [at, gen] of records(this.arena, this.arenaUsed)) {
      if (this.arena[gen] !== DELETED && this.arena[gen] !== this.generation) out.push(this.keyOf(at));
    }
    return out;
  }

  *keys(): IterableIterator<string> {
    for (const [at, gen] of records(this.arena, this.arenaUsed)) if (this.arena[gen] !== DELETED) yield this.keyOf(at);
  }

  /**
   * Encodes `key` into the scratch buffer as a record's head (`keyAt`, `keyBytes`). A namespace not seen before is
   * interned only when `intern` (an insert): a lookup of such a key cannot match anything. False when it was not.
   */
  private encode(key: string, intern: boolean): boolean {
    let id = 0;
    let name = key;
    const last = this.nsNames[this.lastNs]!;
    // Keys come in runs of a namespace (a list is in key order): the last one is tried before the map.
    if (this.lastNs !== 0 && key.charCodeAt(last.length) === SLASH && key.startsWith(last)) {
      id = this.lastNs;
      name = key.slice(last.length + 1);
    } else {
      const slash = key.indexOf('/');
      if (slash >= 0) {
        const ns = key.slice(0, slash);
        let known = this.nsIds.get(ns);
        if (known === undefined) {
          if (!intern) return false;
          known = this.nsNames.length;
          this.nsIds.set(ns, known);
          this.nsNames.push(ns);
        }
        id = this.lastNs = known;
        name = key.slice(slash + 1);
      }
    }
    if (HEAD_ROOM + name.length * 3 > scratch.length) scratch = unpooled(HEAD_ROOM + name.length * 3);
    const len = writeUtf8(scratch, HEAD_ROOM, name);
    const head = varintBytes(id) + varintBytes(len);
    const at = HEAD_ROOM - head;
    writeVarint(scratch, writeVarint(scratch, at, id), len);
    this.keyAt = at;
    this.keyBytes = head + len;
    return true;
  }

  /** Table slot of the encoded key, or -1. */
  private slotOf(): number {
    const { keyAt, keyBytes, arena, table } = this;
    const mask = table.length - 1;
    for (let i = fnv1a(scratch, keyAt, keyAt + keyBytes) & mask; ; i = (i + 1) & mask) {
      const v = table[i]!;
      if (v === EMPTY) return -1;
      if (v === TOMBSTONE) continue;
      const at = v - 1;
      if (headBytes(arena, at) === keyBytes && sameBytes(scratch, keyAt, arena, at, keyBytes)) return i;
    }
  }

  /** Offset of the encoded key's record, appended (seen by the current sweep) when it is not there. */
  private findOrInsert(key: string): number {
    this.encode(key, true);
    const slot = this.slotOf();
    if (slot >= 0) return this.table[slot]! - 1;
    const size = this.keyBytes + TAIL_BYTES;
    if (this.arenaUsed + size > this.arena.length) this.growArena(size);
    if ((this.live + this.tombstones + 1) * 2 > this.table.length) this.rehash();
    const at = this.arenaUsed;
    scratch.copy(this.arena, at, this.keyAt, this.keyAt + this.keyBytes);
    this.arena[at + size - 1] = this.generation;
    this.arenaUsed += size;
    this.place(at);
    this.live++;
    return at;
  }

  /** Indexes the record at `at`. */
  private place(at: number): void {
    const mask = this.table.length - 1;
    let i = fnv1a(this.arena, at, at + headBytes(this.arena, at)) & mask;
    while (this.table[i] !== EMPTY) i = (i + 1) & mask;
    this.table[i] = at + 1;
  }

  /** Sets the RV of the record at `at`, the key just encoded (its head is `keyBytes` long). */
  private setRv(at: number, rv: string): void {
    const n = numeric(rv);
    const tail = at + this.keyBytes;
    if (n === undefined || n >= TEXT_RV) {
      this.arena.writeUIntLE(TEXT_RV, tail, RV_BYTES);
      this.textRvs.set(at, rv);
    } else {
      this.arena.writeUIntLE(n, tail, RV_BYTES);
      this.textRvs.delete(at);
    }
  }

  /** The RV of the record at `at`, the key just encoded. */
  private rvOf(at: number): string {
    const n = this.arena.readUIntLE(at + this.keyBytes, RV_BYTES);
    return n === TEXT_RV ? this.textRvs.get(at)! : String(n);
  }

  private keyOf(at: number): string {
    return keyAt(this.arena, at, this.nsNames);
  }

  private growArena(need: number): void {
    const size = Math.max(this.arenaUsed + need, Math.ceil(this.arena.length * GROW));
    if (size >= TOMBSTONE - 1) throw new Error('VersionMap: more than 4 GiB of keys in one resource');
    const next = unpooled(size);
    this.arena.copy(next, 0, 0, this.arenaUsed);
    this.arena = next;
  }

  /** A table at most half full keeps probes short; tombstones are dropped on the way. */
  private rehash(): void {
    let cap = 16;
    while (cap < (this.live + 1) * 2) cap *= 2;
    this.table = new Uint32Array(cap);
    this.tombstones = 0;
    for (const [at, gen] of records(this.arena, this.arenaUsed)) if (this.arena[gen] !== DELETED) this.place(at);
  }

  /**
   * Drops deleted records (when a quarter of the arena is garbage: a pod replaced is a record deleted and one added), and the namespaces no live key has: every key
   * left is written again as a new map would write it.
   */
  private compact(): void {
    const old = this.arena;
    const oldUsed = this.arenaUsed;
    const oldTextRvs = this.textRvs;
    const oldNames = this.nsNames;
    this.arena = unpooled(Math.max(256, Math.ceil((oldUsed - this.arenaGarbage) * GROW)));
    this.arenaUsed = 0;
    this.arenaGarbage = 0;
    this.textRvs = new Map();
    this.nsIds = new Map();
    this.nsNames = [''];
    this.lastNs = 0;
    this.live = 0;
    this.tombstones = 0;
    this.table = new Uint32Array(16);
    for (const [at, gen] of records(old, oldUsed)) {
      if (old[gen] === DELETED) continue;
      const to = this.findOrInsert(keyAt(old, at, oldNames));
      const n = old.readUIntLE(gen - RV_BYTES, RV_BYTES);
      this.arena.writeUIntLE(n, to + this.keyBytes, RV_BYTES);
      this.arena[to + this.keyBytes + RV_BYTES] = old[gen]!;
      if (n === TEXT_RV) this.textRvs.set(to, oldTextRvs.get(at)!);
    }
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

function fnv1a(buf: Buffer, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
  return h >>> 0;
}

function varintBytes(n: number): number {
  let bytes = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    bytes++;
  }
  return bytes;
}

/** `s` as UTF-8 at `at`; returns its length in bytes. ASCII (every kube name) is copied here: a call into Buffer's
 * native write costs more than the loop for a name of a few dozen characters. */
function writeUtf8(buf: Buffer, at: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return buf.write(s, at, 'utf8');
    buf[at + i] = c;
  }
  return s.length;
}

/** Whether `n` bytes of `a` from `i` and of `b` from `j` are the same (a loop: cheaper than Buffer.compare's call for short keys). */
function sameBytes(a: Buffer, i: number, b: Buffer, j: number, n: number): boolean {
  for (let k = 0; k < n; k++) if (a[i + k] !== b[j + k]) return false;
  return true;
}

/** Every record of `arena` up to `used`, deleted ones included: its offset, and that of its generation byte. */
function* records(arena: Buffer, used: number): Generator<[number, number]> {
  for (let at = 0; at < used; ) {
    const gen = at + headBytes(arena, at) + RV_BYTES;
    yield [at, gen];
    at = gen + 1;
  }
}

/** Bytes of the head (namespace id, name length, name) of the record at `at`. */
function headBytes(buf: Buffer, at: number): number {
  let i = at;
  while (buf[i]! & 0x80) i++;
  let b = buf[++i]!;
  if (b < 0x80) return i + 1 - at + b;
  let len = 0;
  for (let shift = 0; ; shift += 7) {
    b = buf[i++]!;
    len += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return i - at + len;
  }
}

/** The key of the record at `at`. */
function keyAt(buf: Buffer, at: number, namespaces: readonly string[]): string {
  const [id, afterId] = readVarint(buf, at);
  const [len, name] = readVarint(buf, afterId);
  const n = buf.toString('utf8', name, name + len);
  return id === 0 ? n : `${namespaces[id]!}/${n}`;
}

/** The LEB128 number at `at`, and the offset after it. */
function readVarint(buf: Buffer, at: number): [number, number] {
  let n = 0;
  for (let shift = 0; ; shift += 7) {
    const b = buf[at++]!;
    n += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return [n, at];
  }
}

/** Writes `n` as LEB128 at `at`; returns the offset after it. */
function writeVarint(buf: Buffer, at: number, n: number): number {
  while (n >= 0x80) {
    buf[at++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 0x80);
  }
  buf[at++] = n;
  return at;
}

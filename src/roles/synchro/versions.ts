// What the synchro remembers of a resource: key → member resourceVersion, nothing else (STYLE §12), compactly.

/**
 * A key → resourceVersion map. kube-apiserver RVs are decimal etcd revisions, so they are kept as numbers
 * (a small integer costs nothing beside the map slot; a string costs a heap object): with ~30-character keys
 * this is about 80 bytes per object, 80 MB for a million. Non-numeric RVs (other API servers) stay strings.
 */
export class VersionMap {
  private map = new Map<string, number | string>();

  static from(entries: Iterable<[string, string]>): VersionMap {
    const m = new VersionMap();
    for (const [k, v] of entries) m.set(k, v);
    return m;
  }

  get size(): number {
    return this.map.size;
  }

  get(key: string): string | undefined {
    const v = this.map.get(key);
    return v === undefined ? undefined : String(v);
  }

  has(key: string): boolean {
    return this.map.has(key);
  }

  set(key: string, rv: string): void {
    this.map.set(key, compact(rv));
  }

  delete(key: string): boolean {
    return this.map.delete(key);
  }

  keys(): IterableIterator<string> {
    return this.map.keys();
  }

  /** Moves every entry of `other` into this map (other's values win) and empties `other`. */
  absorb(other: VersionMap): void {
    for (const [k, v] of other.map) this.map.set(k, v);
    other.map.clear();
  }

  /** The highest numeric RV, or undefined when empty or any RV is not numeric (then no safe resume point exists). */
  maxNumeric(): string | undefined {
    let max = -1;
    for (const v of this.map.values()) {
      if (typeof v !== 'number') return undefined;
      if (v > max) max = v;
    }
    return max < 0 ? undefined : String(max);
  }
}

/** Whether `listed` should replace `known` (reference §5.4): numeric → strictly greater; otherwise any difference. */
export function isNewer(listed: string, known: string | undefined): boolean {
  if (known === undefined) return true;
  if (listed === known) return false;
  const a = compact(listed);
  const b = compact(known);
  if (typeof a === 'number' && typeof b === 'number') return a > b;
  return true;
}

/** Canonical decimal integers that a double holds exactly become numbers; anything else stays a string. */
function compact(rv: string): number | string {
  if (rv.length === 0 || rv.length > 15 || !/^(0|[1-9]\d*)$/.test(rv)) return rv;
  return Number(rv);
}

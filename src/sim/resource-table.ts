// One group-resource's objects: the generated base (built on demand) overlaid by stored overrides, creations and tombstones.
import type { BaseSet } from './generated.js';
import type { ResourceDef, SimObject } from './types.js';

export class ResourceTable {
  /** Objects that differ from the generated base: mutated base objects and objects created at runtime. */
  private readonly live = new Map<string, SimObject>();
  /** Generated keys that have been deleted. */
  private readonly tombstones = new Set<string>();
  /** Sorted keys of live objects that are not in the base. */
  private extraKeys: string[] = [];

  constructor(public def: ResourceDef, private readonly base: BaseSet | undefined, private readonly rvOffset: number) {}

  get generatedCount(): number {
    return this.base?.size ?? 0;
  }

  get count(): number {
    return (this.base?.size ?? 0) - this.tombstones.size + this.extraKeys.length;
  }

  /** Number of objects that differ from the generated base (for memory accounting in benchmarks). */
  get overrides(): number {
    return this.live.size + this.tombstones.size;
  }

  get(key: string): SimObject | undefined {
    const l = this.live.get(key);
    if (l) return l;
    if (!this.base || this.tombstones.has(key)) return undefined;
    const i = this.base.indexOf(key);
    return i < 0 ? undefined : this.baseObject(i);
  }

  set(key: string, obj: SimObject): void {
    if (!this.live.has(key) && !this.inBase(key)) insertSorted(this.extraKeys, key);
    this.live.set(key, obj);
    this.tombstones.delete(key);
  }

  remove(key: string): void {
    this.live.delete(key);
    if (this.inBase(key)) {
      this.tombstones.add(key);
      return;
    }
    const i = lowerBound(this.extraKeys, key);
    if (this.extraKeys[i] === key) this.extraKeys.splice(i, 1);
  }

  /** Current objects with key >= `from` and starting with `prefix`, in key order. */
  *entries(from = '', prefix = ''): Generator<[string, SimObject]> {
    const start = from > prefix ? from : prefix;
    let i = this.base ? this.base.lowerBound(start) : 0;
    let j = lowerBound(this.extraKeys, start);
    const baseSize = this.base?.size ?? 0;
    let baseKey = i < baseSize && this.base ? this.base.keyAt(i) : undefined;
    for (;;) {
      const extraKey = this.extraKeys[j];
      const takeBase = baseKey !== undefined && (extraKey === undefined || baseKey < extraKey);
      const key = takeBase ? baseKey : extraKey;
      if (key === undefined || !key.startsWith(prefix)) return;
      if (takeBase) {
        if (!this.tombstones.has(key)) yield [key, this.live.get(key) ?? this.baseObject(i)];
        i++;
        baseKey = i < baseSize && this.base ? this.base.keyAt(i) : undefined;
      } else {
        const obj = this.live.get(key);
        if (obj) yield [key, obj];
        j++;
      }
    }
  }

  /** Keys >= `from` starting with `prefix`, in order (cheap: no object is built for generated keys). */
  *keys(prefix = '', from = ''): Generator<string> {
    const start = from > prefix ? from : prefix;
    let i = this.base ? this.base.lowerBound(start) : 0;
    let j = lowerBound(this.extraKeys, start);
    const baseSize = this.base?.size ?? 0;
    for (;;) {
      const baseKey = i < baseSize && this.base ? this.base.keyAt(i) : undefined;
      const extraKey = this.extraKeys[j];
      const takeBase = baseKey !== undefined && (extraKey === undefined || baseKey < extraKey);
      const key = takeBase ? baseKey : extraKey;
      if (key === undefined || !key.startsWith(prefix)) return;
      if (takeBase) {
        i++;
        if (!this.tombstones.has(key)) yield key;
      } else {
        j++;
        yield key;
      }
    }
  }

  /** How many current keys are >= `from` and start with `prefix`, without building any object. */
  countFrom(from: string, prefix: string): number {
    const start = from > prefix ? from : prefix;
    const end = `${prefix}\uffff`;
    let n = 0;
    if (this.base) n += this.base.lowerBound(end) - this.base.lowerBound(start);
    for (const k of this.tombstones) if (k >= start && k < end && k.startsWith(prefix)) n--;
    n += lowerBound(this.extraKeys, end) - lowerBound(this.extraKeys, start);
    return n;
  }

  /** The first current key at or after generated position `n` (wrapping to the first key); churn picks targets this way. */
  keyNear(n: number): string | undefined {
    const start = this.base && this.base.size > 0 ? this.base.keyAt(Math.abs(n) % this.base.size) : '';
    const k = this.keys('', start).next();
    return k.done ? this.keys().next().value ?? undefined : k.value;
  }

  private baseObject(i: number): SimObject {
    const obj = (this.base as BaseSet).objectAt(i);
    obj.metadata.resourceVersion = String(this.rvOffset + i + 1);
    return obj;
  }

  private inBase(key: string): boolean {
    return this.base !== undefined && this.base.indexOf(key) >= 0;
  }
}

function lowerBound(keys: string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as string) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function insertSorted(keys: string[], key: string): void {
  keys.splice(lowerBound(keys, key), 0, key);
}

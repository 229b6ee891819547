// Seeded, deterministic randomness: every generated name, uid and status is a function of (seed, cluster, key).

/** 32-bit string hash (cyrb53's mixing, truncated); stable across runs and platforms. */
export function hash32(s: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h1 ^ h2) >>> 0;
}

/** mulberry32: small, fast, good enough for simulation (not for secrets). */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    const v = items[this.int(items.length)];
    if (v === undefined) throw new Error('pick from an empty list');
    return v;
  }

  /** A 32-bit integer, for deriving further seeds. */
  u32(): number {
    return Math.floor(this.next() * 4294967296) >>> 0;
  }
}

/** A generator seeded by any list of parts (seed, cluster, kind, key...). */
export function rngFor(...parts: Array<string | number>): Rng {
  return new Rng(hash32(parts.join('\u0001')));
}

/** The alphabet kube uses for generated names (utilrand.String): no vowels, no confusable digits. */
const KUBE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** A container's id as containerd reports it (64 hex digits), deterministic from `rng`: new each time one starts. */
export function containerId(rng: Rng): string {
  let hex = '';
  while (hex.length < 64) hex += rng.u32().toString(16).padStart(8, '0');
  return `containerd://${hex}`;
}

/** A kube-style random suffix (`web-7d4b9c8f6-x2k9p`), deterministic from `rng`. */
export function kubeSuffix(rng: Rng, length = 5): string {
  let s = '';
  for (let i = 0; i < length; i++) s += KUBE_ALPHABET[rng.int(KUBE_ALPHABET.length)];
  return s;
}

/**
 * The `index`-th of a sequence of distinct kube-style suffixes: a bijection of the index into the 27^length
 * suffix space (offset plus a stride coprime to 27), so pods of one workload never share a name — kube retries a
 * generateName that collides; generating from random draws alone, 1 cluster in ~60 got a duplicate at 10k pods.
 */
export function distinctSuffix(rng: Rng, index: number, length = 5): string {
  const space = KUBE_ALPHABET.length ** length;
  const offset = rng.int(space);
  let stride = 1 + rng.int(space - 1);
  if (stride % 3 === 0) stride += 1;
  let v = (offset + (index % space) * stride) % space;
  let s = '';
  for (let i = 0; i < length; i++) {
    s = (KUBE_ALPHABET[v % KUBE_ALPHABET.length] ?? 'b') + s;
    v = Math.floor(v / KUBE_ALPHABET.length);
  }
  return s;
}

/** A pod-template-hash-like string (kube: SafeEncodeString of an fnv32 hash), 9–10 characters. */
export function templateHash(...parts: Array<string | number>): string {
  const rng = rngFor('template-hash', ...parts);
  return kubeSuffix(rng, rng.chance(0.5) ? 9 : 10);
}

/** A version-4-shaped UUID derived from the parts; unique per (seed, cluster, resource, key) in practice. */
export function uidFor(...parts: Array<string | number>): string {
  const joined = parts.join('\u0001');
  const h = [hash32(joined, 1), hash32(joined, 2), hash32(joined, 3), hash32(joined, 4)].map((n) => n.toString(16).padStart(8, '0'));
  const hex = h.join('');
  const variant = ((parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A hex string of `length` characters (event name suffixes, image digests). */
export function hexFor(length: number, ...parts: Array<string | number>): string {
  let s = '';
  for (let i = 0; s.length < length; i++) s += hash32(parts.join('\u0001'), i).toString(16).padStart(8, '0');
  return s.slice(0, length);
}

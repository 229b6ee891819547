// A small TTL cache with in-flight sharing, for TokenReview and SubjectAccessReview answers (both ask the host cluster).

export interface ReviewCacheOptions {
  /** How long an answer is reused, milliseconds; 0 disables caching (in-flight sharing stays). */
  ttlMs: number;
  /** Entries kept; the oldest go first. Bounds memory when many distinct users or tokens pass. */
  maxEntries?: number;
  now?: () => number;
}

interface Entry<V> {
  value: V;
  expires: number;
}

/**
 * Caches answers by key for a TTL. Concurrent misses on one key share one load, so a burst of requests
 * with the same token costs the host cluster one review, not one per request. Failed loads are not cached:
 * an unreachable host must not pin a user out (or in) for the TTL.
 */
export class ReviewCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly loading = new Map<string, Promise<V>>();
  private readonly max: number;
  private readonly now: () => number;

  constructor(private readonly o: ReviewCacheOptions) {
    this.max = o.maxEntries ?? 10_000;
    this.now = o.now ?? Date.now;
  }

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && hit.expires > this.now()) return hit.value;
    if (hit) this.entries.delete(key);
    const pending = this.loading.get(key);
    if (pending) return pending;
    const p = load().then((value) => {
      if (this.o.ttlMs > 0) this.put(key, value);
      return value;
    }).finally(() => this.loading.delete(key));
    this.loading.set(key, p);
    return p;
  }

  get size(): number {
    return this.entries.size;
  }

  private put(key: string, value: V): void {
    // Map keeps insertion order: the first keys are the oldest.
    while (this.entries.size >= this.max) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, expires: this.now() + this.o.ttlMs });
  }
}

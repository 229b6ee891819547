// A per-connection cache of prepared statements keyed by SQL text (preparing costs more than running small queries).
// Free of drizzle: the writer thread's bundle uses it.
import type { Statement } from 'better-sqlite3';
import type { Db } from './connection.js';

const caches = new WeakMap<Db, Map<string, Statement>>();
/** Distinct query shapes kept per connection; list filters vary, so the cache is bounded. */
const MAX_CACHED = 256;

export function prepare(db: Db, text: string): Statement {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  let st = cache.get(text);
  if (st) {
    // Refresh its position: the Map's insertion order is the eviction order.
    cache.delete(text);
    cache.set(text, st);
    return st;
  }
  st = db.prepare(text);
  cache.set(text, st);
  if (cache.size > MAX_CACHED) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  return st;
}

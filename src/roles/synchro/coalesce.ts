// Per-key event coalescing (reference §5.3, Clusterpedia queue/event.go): many events for one key, one write.

export type Action = 'Added' | 'Updated' | 'Deleted';

/** The part of a queued event that coalescing decides on; the payload travels with the winning action. */
export interface Coalescable<P> {
  action: Action;
  payload: P;
}

/**
 * Merges a newer event into an older pending one for the same key:
 * - newer Deleted wins;
 * - same action → the newer;
 * - Added then Updated → Added with the newer object (the row does not exist yet in the eyes of a consumer);
 * - Deleted then Updated → stays Deleted (an update after a delete of the same key is stale);
 * - Deleted then Added → Updated with the newer object (the key existed before and exists again);
 * - Updated then Added → Added.
 */
export function coalesce<P>(older: Coalescable<P> | undefined, newer: Coalescable<P> | undefined): Coalescable<P> | undefined {
  if (!older) return newer;
  if (!newer) return older;
  if (newer.action === 'Deleted') return newer;
  if (older.action === newer.action) return newer;
  if (older.action === 'Added' && newer.action === 'Updated') return { action: 'Added', payload: newer.payload };
  if (older.action === 'Deleted' && newer.action === 'Updated') return older;
  if (older.action === 'Deleted' && newer.action === 'Added') return { action: 'Updated', payload: newer.payload };
  // Updated then Added.
  return newer;
}

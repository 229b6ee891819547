// Where a new store's revisions start.

/**
 * The revision a store created at `now` starts from: microseconds since the epoch. Revisions are the
 * resourceVersions clients hold, and they mean something only in the store that issued them. A store created later
 * (a lost SQLite file, a database created anew, a move from SQLite to PostgreSQL) starts above every revision an
 * earlier one issued, unless that one averaged more than a million writes a second over its life; its change log
 * starts there too, so a client resuming a watch from an earlier store's resourceVersion is answered 410 Expired and
 * lists again, as after a compaction, instead of waiting in silence for revisions that mean nothing here.
 * Exact as a JS number until 2^53 (the year 2255).
 */
export function originRevision(now = Date.now()): number {
  return now * 1000;
}

// Which label requirement (if any) drives a list: measured, because no planner statistics tell these cases apart.
import { sql, type SQL } from 'drizzle-orm';
import { labelRowsCondition } from './list-sql.js';
import type { QueryDialect } from './query-dialect.js';
import type { ListQuery } from './types.js';

/** A paged list drives from the label rows when fewer match than this; otherwise it walks the order index. */
export const DRIVE_BELOW_PAGED = 5000;
/** An unpaged list needs every match anyway: drive unless the label matches a large part of the rows. */
export const DRIVE_BELOW_UNPAGED = 50_000;

/**
 * Measured on 1.1M rows (SQLite, EXPLAIN QUERY PLAN in test/storage/query-plans.test.ts): a selective label
 * (team=team-7, 1,000 rows) takes 7 ms driven from resource_labels but 220 ms as a per-row probe while walking the
 * order index; a label matching half the rows takes 2,000 ms driven (every match fetched and sorted) but 3 ms
 * walked. Even with ANALYZE (STAT4) SQLite keeps the form it is given, so the form is chosen here: count the
 * matching label rows of each positive requirement up to the threshold (an index range read, ≤ 1 ms) and drive
 * from the most selective one that stays under it.
 */
export async function chooseDrivingLabel(d: QueryDialect, q: ListQuery, count: (q: SQL) => Promise<number>): Promise<number | undefined> {
  const labels = q.labels ?? [];
  const cap = q.limit !== undefined && q.limit > 0 ? DRIVE_BELOW_PAGED : DRIVE_BELOW_UNPAGED;
  let best: { index: number; n: number } | undefined;
  for (let i = 0; i < labels.length; i++) {
    const rows = labelRowsCondition(d, labels[i] as (typeof labels)[number]);
    if (!rows) continue;
    const n = await count(sql`SELECT count(*) FROM (SELECT 1 FROM resource_labels l WHERE ${rows} LIMIT ${cap}) x`);
    if (n < cap && (!best || n < best.n)) best = { index: i, n };
  }
  return best?.index;
}

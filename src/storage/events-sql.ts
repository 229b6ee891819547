// inject-events: the stored core/v1 Events of a page's objects, found through owner_uid (an Event's involvedObject
// uid, object-columns.ts) and the resources_owner index — one range per object, never a scan of the events.
import { sql, type SQL } from 'drizzle-orm';
import type { QueryDialect } from './query-dialect.js';

/** Rows (involved uid, event JSON text) of the Events of `uids` (non-empty) in `cluster`, each object's oldest first. */
export function involvedEventsQuery(d: QueryDialect, cluster: string, uids: readonly string[]): SQL {
  return sql`SELECT r.owner_uid, ${d.objectText(sql.raw('r.object'), false, false)} FROM resources r
    WHERE r.cluster = ${cluster} AND ${d.inList(sql.raw('r.owner_uid'), [...uids])} AND r."group" = '' AND r.version = 'v1' AND r.resource = 'events'
    ORDER BY r.owner_uid, r.created_at, r.namespace, r.name`;
}

/** Those rows as involved uid → event JSON texts. */
export function groupInvolvedEvents(rows: readonly unknown[][]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [uid, object] of rows) {
    const key = String(uid);
    const list = out.get(key);
    if (list) list.push(String(object));
    else out.set(key, [String(object)]);
  }
  return out;
}

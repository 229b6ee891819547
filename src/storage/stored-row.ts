// The SELECT list of a served row and its mapping to StoredRow (shared by list, get and changesSince).
import { sql, type SQL } from 'drizzle-orm';
import type { ColumnRefs } from './list-sql.js';
import type { QueryDialect } from './query-dialect.js';
import type { StoredRow } from './types.js';

/** Number of leading columns rowColumns() selects; sort keys (k0…) follow. */
export const ROW_COLUMNS = 12;

/** cluster, group, version, resource, kind, namespace, name, uid, resource_version, revision, created_at, object. */
export function rowColumns(d: QueryDialect, c: ColumnRefs & { uid: SQL; revision: SQL }, onlyMetadata: boolean): SQL {
  return sql`${c.cluster}, ${c.group}, ${c.version}, ${c.resource}, ${c.kind}, ${c.namespace}, ${c.name}, ${c.uid}, ${c.resourceVersion}, ${c.revision}, ${c.createdAt}, ${d.objectText(c.doc, onlyMetadata)}`;
}

/** A row of rowColumns() as a StoredRow. 64-bit integers may arrive as strings (postgres.js) or numbers (SQLite). */
export function toStoredRow(r: unknown[]): StoredRow {
  const created = Number(r[10]);
  return {
    cluster: r[0] as string,
    group: r[1] as string,
    version: r[2] as string,
    resource: r[3] as string,
    kind: (r[4] as string | null) ?? '',
    namespace: r[5] as string,
    name: r[6] as string,
    uid: (r[7] as string | null) ?? '',
    resourceVersion: (r[8] as string | null) ?? '',
    revision: String(r[9]),
    createdAt: created > 0 ? new Date(created).toISOString().replace('.000Z', 'Z') : '',
    object: r[11] as string,
  };
}

// The SELECT list of a served row and its mapping to StoredRow (shared by list, get and changesSince).
import { sql, type SQL } from 'drizzle-orm';
import type { ColumnRefs } from './list-sql.js';
import type { QueryDialect } from './query-dialect.js';
import type { StoredRow } from './types.js';

/** Number of leading columns rowColumns() selects; sort keys (k0…) follow. */
export const ROW_COLUMNS = 12;

/** How each object is read: whole, metadata only or not at all, as bytes where the driver allows (ListQuery.objectBytes). */
export interface ObjectForm {
  onlyMetadata?: boolean;
  objectBytes?: boolean;
  /** ListQuery.keysOnly: `{}` in place of the object, which is then never read. */
  keysOnly?: boolean;
}

/** cluster, group, version, resource, kind, namespace, name, uid, resource_version, revision, created_at, object. */
export function rowColumns(d: QueryDialect, c: ColumnRefs & { uid: SQL; revision: SQL }, form: ObjectForm = {}): SQL {
  const object = form.keysOnly === true ? sql`'{}'` : d.objectText(c.doc, form.onlyMetadata === true, form.objectBytes === true);
  return sql`${c.cluster}, ${c.group}, ${c.version}, ${c.resource}, ${c.kind}, ${c.namespace}, ${c.name}, ${c.uid}, ${c.resourceVersion}, ${c.revision}, ${c.createdAt}, ${object}`;
}

/** A row whose object came as UTF-8 bytes: they are served as they are, and decoded only if someone reads `object`. */
class BytesRow implements StoredRow {
  private text: string | undefined;
  constructor(
    readonly cluster: string,
    readonly group: string,
    readonly version: string,
    readonly resource: string,
    readonly kind: string,
    readonly namespace: string,
    readonly name: string,
    readonly uid: string,
    readonly resourceVersion: string,
    readonly revision: string,
    readonly createdAt: string,
    readonly bytes: Buffer,
  ) {}

  get object(): string {
    this.text ??= this.bytes.toString('utf8');
    return this.text;
  }
}

/** A row of rowColumns() as a StoredRow. 64-bit integers may arrive as strings (postgres.js) or numbers (SQLite). */
export function toStoredRow(r: unknown[]): StoredRow {
  const created = Number(r[10]);
  const createdAt = created > 0 ? new Date(created).toISOString().replace('.000Z', 'Z') : '';
  const kind = (r[4] as string | null) ?? '';
  const uid = (r[7] as string | null) ?? '';
  const resourceVersion = (r[8] as string | null) ?? '';
  const object = r[11];
  if (Buffer.isBuffer(object)) {
    return new BytesRow(r[0] as string, r[1] as string, r[2] as string, r[3] as string, kind, r[5] as string, r[6] as string, uid, resourceVersion, String(r[9]), createdAt, object);
  }
  return {
    cluster: r[0] as string,
    group: r[1] as string,
    version: r[2] as string,
    resource: r[3] as string,
    kind,
    namespace: r[5] as string,
    name: r[6] as string,
    uid,
    resourceVersion,
    revision: String(r[9]),
    createdAt,
    object: object as string,
  };
}

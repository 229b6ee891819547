// changesSince(): the change log joined to the current rows, filtered like list(), as one query for both dialects.
import { sql, type SQL } from 'drizzle-orm';
import { MEMBER_RV_ANNOTATION } from '../kube/types.js';
import { and, filterConditions, type ColumnRefs } from './list-sql.js';
import type { QueryDialect } from './query-dialect.js';
import { rowColumns, toStoredRow } from './stored-row.js';
import type { Change, ChangeType, KeyFilter, SelectorHistoryEntry, WatchFilter } from './types.js';

/**
 * The change-log entry advanceRevision leaves at the revision it jumped to: no object, only the revision, so that one
 * handed to clients (a list's, a bookmark's) is known later. A revision that is neither an entry, nor the head, nor the
 * compacted mark was never issued by the storage as it stands: issued, then lost (a PostgreSQL with synchronous_commit
 * off that crashed, a restore, a failover to a replica behind) — a watch from it is 410 (`revisionKnown`).
 */
export const REVISION_MARK = 'REVISION';

/** SQL: whether `after` is a revision this change log can start a watch from (see REVISION_MARK). */
export function revisionKnown(after: number, head: SQL, compacted: SQL): SQL {
  return sql`(${after} = ${head} OR ${after} = ${compacted} OR EXISTS (SELECT 1 FROM changes WHERE revision = ${after}))`;
}

/**
 * Entries with after < revision ≤ head, oldest first. ADDED/MODIFIED entries carry no object: the row serves while
 * its revision is the entry's; once the row moved on (or was deleted) the entry is skipped, because a later entry
 * delivers the newer state. DELETED entries carry the last state. Labels are evaluated on the JSON (a deleted
 * object has no label rows), with the same semantics as the label table of list().
 */
export function changesQuery(d: QueryDialect, filter: WatchFilter, after: number, head: SQL, limit: number): SQL {
  const deleted = (path: string[]): SQL => d.jsonText(sql.raw('c.object'), path.map((key) => ({ key })));
  const refs: ColumnRefs & { uid: SQL; revision: SQL } = {
    id: sql.raw('c.resource_id'),
    cluster: sql.raw('c.cluster'),
    group: sql.raw('c."group"'),
    version: sql.raw('c.version'),
    resource: sql.raw('c.resource'),
    kind: sql`COALESCE(r.kind, ${deleted(['kind'])}, '')`,
    namespace: sql.raw('c.namespace'),
    name: sql.raw('c.name'),
    ownerUid: sql`''`,
    uid: sql`COALESCE(r.uid, ${deleted(['metadata', 'uid'])}, '')`,
    resourceVersion: sql`COALESCE(r.resource_version, ${deleted(['metadata', 'annotations', MEMBER_RV_ANNOTATION])}, '')`,
    revision: sql.raw('c.revision'),
    createdAt: sql.raw('c.created_at'),
    doc: sql.raw('COALESCE(c.object, r.object)'),
    // A deleted row's last state, else the row's fields where it has them.
    fieldsDoc: sql.raw('COALESCE(c.object, r.fields, r.object)'),
    labels: sql.raw('COALESCE(c.object, r.object)'),
    labelsPath: ['metadata', 'labels'],
  };
  const conds = [sql`c.revision > ${after}`, sql`c.revision <= ${head}`, sql`c.type <> ${REVISION_MARK}`, sql`(c.type = 'DELETED' OR r.id IS NOT NULL)`, ...filterConditions(d, filter, refs)];
  return sql`SELECT c.type, ${rowColumns(d, refs)} FROM changes c LEFT JOIN resources r ON c.type <> 'DELETED' AND r.id = c.resource_id AND r.revision = c.revision WHERE ${and(conds)} ORDER BY c.revision LIMIT ${limit}`;
}

/** changedBetween(): one row if any entry with after < revision ≤ upTo matches `filter` (entryConditions). */
export function changedQuery(d: QueryDialect, filter: KeyFilter, after: number, upTo: number): SQL {
  return sql`SELECT 1 FROM changes c WHERE ${and(entryConditions(d, filter, after, upTo))} LIMIT 1`;
}

/**
 * selectorHistory(): entries with after < revision ≤ upTo matching `filter` on the change log's own columns, oldest first,
 * each with its prev_labels and prev_fields as text (PostgreSQL's `json` keeps the text as written).
 */
export function selectorHistoryQuery(d: QueryDialect, filter: KeyFilter, after: number, upTo: number, limit: number): SQL {
  return sql`SELECT c.revision, c.type, c.cluster, c."group", c.version, c.resource, c.namespace, c.name, CAST(c.prev_labels AS TEXT), CAST(c.prev_fields AS TEXT)
    FROM changes c WHERE ${and(entryConditions(d, filter, after, upTo))} ORDER BY c.revision LIMIT ${limit}`;
}

/** A row of selectorHistoryQuery() as a SelectorHistoryEntry. */
export function toSelectorHistoryEntry(r: unknown[]): SelectorHistoryEntry {
  const [revision, type, cluster, group, version, resource, namespace, name, prevLabels, prevFields] = r.map((v) => (v === null ? undefined : String(v)));
  return {
    revision: revision!, type: type as ChangeType, cluster: cluster!, group: group!, version: version!, resource: resource!, namespace: namespace!, name: name!,
    ...(prevLabels !== undefined ? { prevLabels } : {}),
    ...(prevFields !== undefined ? { prevFields } : {}),
  };
}

/**
 * The conditions on entries with after < revision ≤ upTo matching `filter`, read from the change log's own columns
 * (what KeyFilter names never changes for an object, so the entry holds it whatever happened to the row since).
 */
function entryConditions(d: QueryDialect, filter: KeyFilter, after: number, upTo: number): SQL[] {
  const c = (name: string): SQL => sql.raw(`c."${name}"`);
  // KeyFilter has no labels, fields, owner or SQL: the columns those read are never used here.
  const unused = sql`NULL`;
  const refs: ColumnRefs = {
    id: c('resource_id'), cluster: c('cluster'), group: c('group'), version: c('version'), resource: c('resource'), namespace: c('namespace'), name: c('name'),
    createdAt: c('created_at'), kind: unused, ownerUid: unused, resourceVersion: unused, doc: unused, fieldsDoc: unused, labels: unused, labelsPath: [],
  };
  return [sql`c.revision > ${after}`, sql`c.revision <= ${upTo}`, sql`c.type <> ${REVISION_MARK}`, ...filterConditions(d, filter, refs)];
}

/** A row of changesQuery() as a Change. */
export function toChange(r: unknown[]): Change {
  const row = toStoredRow(r.slice(1));
  return { revision: row.revision, type: r[0] as ChangeType, row };
}

/** Default change-log retention by revisions (a burst of 200k writes still leaves watchers a window). */
export const DEFAULT_CHANGE_LOG_REVISIONS = 200_000;
/** Default change-log retention by age, milliseconds (kube-apiserver's etcd keeps ~5 min; watchers resume within that). */
export const DEFAULT_CHANGE_LOG_MAX_AGE_MS = 60 * 60 * 1000;

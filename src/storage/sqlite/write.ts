// The SQLite write path: statements run inside one IMMEDIATE transaction per batch (in-process, so per-row
// statements cost microseconds, not round trips).
import { REVISION_MARK } from '../changes-sql.js';
import { rowKeyString } from '../key.js';
import { parseLabelsJson, revisionText, type TemplateParts } from '../object-columns.js';
import type { ResourceType, WriteFence } from '../types.js';
import { planWrite, prevSelectable, type CollapsedBatch, type ExistingRow, type WritePlan } from '../write-plan.js';
import type { Db } from './connection.js';
import { FENCED_CODE } from './errors.js';
import { prepare } from './prepare.js';
import { headRevisionOf } from '../snapshot.js';

const SELECT_KEY = `SELECT id, resource_version, size, labels, fields, uid, owner_uid, created_at FROM resources WHERE "group" = ? AND version = ? AND resource = ? AND cluster = ? AND namespace = ? AND name = ?`;
// The stored text is joined here from the template's head, the revision and its tail (object-columns.ts TemplateParts):
// bytes from the writer thread's buffer are read as UTF-8 text (CAST), so no string of it is made in JavaScript.
const OBJECT = `CAST(? AS TEXT) || ? || CAST(? AS TEXT)`;
const INSERT_ROW = `INSERT INTO resources (cluster, "group", version, resource, kind, namespace, name, uid, owner_uid, resource_version, revision, created_at, synced_at, size, labels, fields, object) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ${OBJECT})`;
const UPDATE_ROW = `UPDATE resources SET kind = ?, uid = ?, owner_uid = ?, resource_version = ?, revision = ?, created_at = ?, synced_at = ?, size = ?, labels = ?, fields = ?, object = ${OBJECT} WHERE id = ?`;
// SQLite rewrites the entries of every index whose columns an UPDATE sets, whatever the values: an update that keeps
// uid, owner and creation time (most do: status changes, scaling) leaves resources_owner and resources_created alone.
// At a million rows that halves the pages a churned row dirties (measured: WAL 16 -> 8 KB per update).
const UPDATE_BODY = `UPDATE resources SET kind = ?, resource_version = ?, revision = ?, synced_at = ?, size = ?, labels = ?, fields = ?, object = ${OBJECT} WHERE id = ?`;
const DELETE_LABEL = `DELETE FROM resource_labels WHERE key = ? AND value = ? AND resource_id = ?`;
const INSERT_LABEL = `INSERT INTO resource_labels (key, value, resource_id) VALUES (?, ?, ?)`;
// Every label of a row in one statement, from the labels column's JSON text (one call into SQLite, not one per label).
const INSERT_LABELS = `INSERT INTO resource_labels (key, value, resource_id) SELECT key, value, ? FROM json_each(?)`;
const INSERT_CHANGE = `INSERT INTO changes (revision, resource_id, cluster, "group", version, resource, namespace, name, type, created_at, time, prev_labels, prev_fields) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
// The last state of a deleted row, with its metadata.resourceVersion set to the deletion's revision.
const INSERT_DELETED = `INSERT INTO changes (revision, resource_id, cluster, "group", version, resource, namespace, name, type, created_at, time, object, prev_labels, prev_fields) SELECT ?, id, cluster, "group", version, resource, namespace, name, 'DELETED', created_at, ?, json_set(object, '$.metadata.resourceVersion', ?), labels, fields FROM resources WHERE id = ?`;
const DELETE_ROW = `DELETE FROM resources WHERE id = ?`;
const UPSERT_TYPE = `INSERT INTO resource_types (cluster, "group", version, resource, kind, namespaced, count, bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (cluster, "group", version, resource) DO UPDATE SET count = resource_types.count + excluded.count, bytes = resource_types.bytes + excluded.bytes,
  kind = CASE WHEN excluded.kind <> '' THEN excluded.kind ELSE resource_types.kind END, namespaced = resource_types.namespaced OR excluded.namespaced`;
const GET_META = `SELECT value FROM meta WHERE key = ?`;
const SET_META = `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`;

export function readMeta(db: Db, key: string): number {
  const r = prepare(db, GET_META).raw(true).get(key) as unknown[] | undefined;
  return r ? Number(r[0]) : 0;
}

/** The head revision for a reader (headRevisionOf: none is a store emptied under it, never revision 0). */
export function readHeadRevision(db: Db): string {
  const r = prepare(db, GET_META).raw(true).get('revision') as unknown[] | undefined;
  return headRevisionOf(r?.[0]);
}

export function writeMeta(db: Db, key: string, value: number): void {
  prepare(db, SET_META).run(key, String(value));
}

/** Plans and applies one collapsed batch. Must run inside the write transaction. */
export function applyBatch<T extends TemplateParts>(db: Db, batch: CollapsedBatch<T>, now: number): WritePlan<T> {
  const selectKey = prepare(db, SELECT_KEY).raw(true);
  const existing = new Map<string, ExistingRow>();
  for (const k of batch.keys) {
    const r = selectKey.get(k.group, k.version, k.resource, k.cluster, k.namespace, k.name) as
      | [number, string, number, string, string | null, string, string, number]
      | undefined;
    if (r) existing.set(rowKeyString(k), { id: r[0], resourceVersion: r[1], size: r[2], labels: r[3], fields: r[4], indexed: { uid: r[5], ownerUid: r[6], createdAt: r[7] } });
  }
  const plan = planWrite(batch, existing, readMeta(db, 'revision'));
  if (plan.upserts.length === 0 && plan.deletes.length === 0) return plan;

  const insertRow = prepare(db, INSERT_ROW);
  const updateRow = prepare(db, UPDATE_ROW);
  const updateBody = prepare(db, UPDATE_BODY);
  const deleteLabel = prepare(db, DELETE_LABEL);
  const insertLabel = prepare(db, INSERT_LABEL);
  const insertLabels = prepare(db, INSERT_LABELS);
  const insertChange = prepare(db, INSERT_CHANGE);
  for (const u of plan.upserts) {
    const c = u.cols;
    const old = u.old;
    const { head, tail } = u.template;
    const rv = revisionText(u.revision);
    let id: number;
    if (!old) {
      id = Number(
        insertRow.run(c.cluster, c.group, c.version, c.resource, c.kind, c.namespace, c.name, c.uid, c.ownerUid, c.memberRv, u.revision, c.createdAt, now, u.size, c.labelsJson, c.fieldsJson, head, rv, tail)
          .lastInsertRowid,
      );
      if (c.labels.length === 1) insertLabel.run(c.labels[0]![0], c.labels[0]![1], id);
      else if (c.labels.length > 1) insertLabels.run(id, c.labelsJson);
    } else {
      id = old.id;
      const ix = old.indexed;
      if (ix && ix.uid === c.uid && ix.ownerUid === c.ownerUid && ix.createdAt === c.createdAt) {
        updateBody.run(c.kind, c.memberRv, u.revision, now, u.size, c.labelsJson, c.fieldsJson, head, rv, tail, id);
      } else {
        updateRow.run(c.kind, c.uid, c.ownerUid, c.memberRv, u.revision, c.createdAt, now, u.size, c.labelsJson, c.fieldsJson, head, rv, tail, id);
      }
      // Most updates are status changes: the label rows stay untouched unless the labels text differs.
      if (old.labels !== c.labelsJson) {
        for (const [k, v] of parseLabelsJson(old.labels)) deleteLabel.run(k, v, id);
        for (const [k, v] of c.labels) insertLabel.run(k, v, id);
      }
    }
    insertChange.run(u.revision, id, c.cluster, c.group, c.version, c.resource, c.namespace, c.name, old ? 'MODIFIED' : 'ADDED', c.createdAt, now, ...prevSelectable(u));
  }
  const insertDeleted = prepare(db, INSERT_DELETED);
  const deleteRow = prepare(db, DELETE_ROW);
  for (const d of plan.deletes) {
    insertDeleted.run(d.revision, now, String(d.revision), d.id);
    for (const [k, v] of parseLabelsJson(d.labels)) deleteLabel.run(k, v, d.id);
    deleteRow.run(d.id);
  }
  const upsertType = prepare(db, UPSERT_TYPE);
  for (const t of plan.types) upsertType.run(t.cluster, t.group, t.version, t.resource, t.kind, t.namespaced ? 1 : 0, t.count, t.bytes);
  writeMeta(db, 'revision', plan.revision);
  return plan;
}

/**
 * Deletes every row of a cluster (or of one of its types), recording a DELETED entry with the last state for each,
 * numbered after the current revision in id order — set-based statements, no per-row work in JavaScript.
 */
export function cleanRows(db: Db, cluster: string, type: ResourceType | undefined, now: number): { count: number; revision: number } {
  const where = type ? `cluster = ? AND "group" = ? AND version = ? AND resource = ?` : `cluster = ?`;
  const whereR = type ? `r.cluster = ? AND r."group" = ? AND r.version = ? AND r.resource = ?` : `r.cluster = ?`;
  const args: string[] = type ? [cluster, type.group, type.version, type.resource] : [cluster];
  const base = readMeta(db, 'revision');
  // better-sqlite3 binds JS numbers as REAL: CAST, or the stamped revision would read "5.0".
  const count = Number(
    prepare(
      db,
      `INSERT INTO changes (revision, resource_id, cluster, "group", version, resource, namespace, name, type, created_at, time, object, prev_labels, prev_fields)
       SELECT CAST(? AS INTEGER) + rn, id, cluster, "group", version, resource, namespace, name, 'DELETED', created_at, ?, json_set(object, '$.metadata.resourceVersion', CAST(CAST(? AS INTEGER) + rn AS TEXT)), labels, fields
       FROM (SELECT row_number() OVER (ORDER BY id) AS rn, * FROM resources WHERE ${where})`,
    ).run(base, now, base, ...args).changes,
  );
  // Label rows are keyed (key, value, resource_id): find them through each row's labels column.
  prepare(
    db,
    `DELETE FROM resource_labels WHERE (key, value, resource_id) IN (SELECT j.key, j.value, r.id FROM resources r, json_each(r.labels) j WHERE ${whereR})`,
  ).run(...args);
  prepare(db, `DELETE FROM resources WHERE ${where}`).run(...args);
  prepare(db, `DELETE FROM resource_types WHERE ${where}`).run(...args);
  if (count > 0) writeMeta(db, 'revision', base + count);
  return { count, revision: base + count };
}

/**
 * The cluster status row (spec and status as JSON text); with `requireRevision`, only while the database still holds
 * that revision (StorageWriter.putClusterStatus). Run inside a write transaction.
 */
export function putClusterStatus(db: Db, cluster: string, spec: string, status: string, updatedAt: string, requireRevision?: number): boolean {
  if (requireRevision !== undefined && !holdsRevision(db, requireRevision)) return false;
  prepare(db, `INSERT INTO cluster_status (cluster, spec, status, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (cluster) DO UPDATE SET spec = excluded.spec, status = excluded.status, updated_at = excluded.updated_at`).run(
    cluster, spec, status, updatedAt,
  );
  return true;
}

/** The head, an entry of the change log, or at or below the compacted mark: a revision this database issued and kept. */
function holdsRevision(db: Db, revision: number): boolean {
  return revision === readMeta(db, 'revision') || revision <= readMeta(db, 'compacted_revision')
    || prepare(db, `SELECT 1 FROM changes WHERE revision = ?`).raw(true).get(revision) !== undefined;
}

export function deleteClusterStatus(db: Db, cluster: string): void {
  prepare(db, `DELETE FROM cluster_status WHERE cluster = ?`).run(cluster);
}

/**
 * Throws unless `fence.holder` holds lease `fence.lease` (Storage.fenceWrites). Inside the write transaction, which
 * holds SQLite's write lock: no other process can take the lease over until it ends, so holding it here is holding
 * it at commit. Expiry is not looked at: an expired lease still ours was taken by nobody, so nobody else has written.
 */
export function assertFence(db: Db, fence: WriteFence | undefined): void {
  if (fence === undefined) return;
  const row = prepare(db, `SELECT json_extract(value, '$.holder') FROM meta WHERE key = ?`).raw(true).get(`lease:${fence.lease}`) as unknown[] | undefined;
  if (row?.[0] !== fence.holder) throw Object.assign(new Error(fence.lease), { code: FENCED_CODE });
}

// Leases live in `meta` as `lease:<name>` → {"holder","expiresAt"}; one conditional upsert is atomic under SQLite's
// write lock, and every process sharing the file shares this machine's clock.
export function tryAcquireLease(db: Db, name: string, holder: string, ttlMs: number, now: number): boolean {
  const value = JSON.stringify({ holder, expiresAt: now + ttlMs });
  return prepare(db,
    `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value
     WHERE json_extract(meta.value, '$.holder') = ? OR json_extract(meta.value, '$.expiresAt') < ?`).run(`lease:${name}`, value, holder, now).changes === 1;
}

export function releaseLease(db: Db, name: string, holder: string): void {
  prepare(db, `UPDATE meta SET value = ? WHERE key = ? AND json_extract(value, '$.holder') = ?`).run(JSON.stringify({ holder: '', expiresAt: 0 }), `lease:${name}`, holder);
}

/**
 * Drops change-log entries beyond the newest `keep` and older than `cutoffTime`. Inside the write transaction. Counted
 * in entries, not revisions: the revision jumps when a synchro starts (advanceRevision), and entries are one a revision
 * otherwise.
 */
export function compactChanges(db: Db, keep: number, cutoffTime: number): void {
  const head = readMeta(db, 'revision');
  const compacted = readMeta(db, 'compacted_revision');
  const byAge = Number((prepare(db, `SELECT max(revision) FROM changes WHERE time < ?`).raw(true).get(cutoffTime) as unknown[])[0] ?? 0);
  const byCount = Number((prepare(db, `SELECT revision FROM changes WHERE type <> ? ORDER BY revision DESC LIMIT 1 OFFSET ?`).raw(true).get(REVISION_MARK, keep) as unknown[] | undefined)?.[0] ?? 0);
  // Everything at or below the cutoff goes, so "revision > compacted" is exactly what the log still holds.
  const cutoff = Math.min(head, Math.max(compacted, byCount, byAge));
  if (cutoff <= compacted) return;
  prepare(db, `DELETE FROM changes WHERE revision <= ?`).run(cutoff);
  writeMeta(db, 'compacted_revision', cutoff);
}

/** Whether a watch can start from `after` (changes-sql.ts REVISION_MARK): the head, the compacted mark, or an entry. */
export function revisionIsKnown(db: Db, after: number, head: number, compacted: number): boolean {
  return after === head || after === compacted || prepare(db, `SELECT 1 FROM changes WHERE revision = ?`).raw(true).get(after) !== undefined;
}

/**
 * Storage.bumpRevision (`compact`: the revision past `to`, every change-log entry gone and marked so) and
 * Storage.advanceRevision (the revision at least `to`, the change log as it is). Returns the revision it found.
 */
export function moveRevision(db: Db, to: number, compact: boolean): number {
  const head = readMeta(db, 'revision');
  if (!compact) {
    if (to > head) {
      writeMeta(db, 'revision', to);
      // The jump's mark (REVISION_MARK): the target is a revision clients may hold, though no object changed at it.
      prepare(db, INSERT_CHANGE).run(to, 0, '', '', '', '', '', '', REVISION_MARK, 0, Date.now(), null, null);
    }
    return head;
  }
  const next = Math.max(head, to) + 1;
  prepare(db, `DELETE FROM changes`).run();
  writeMeta(db, 'revision', next);
  writeMeta(db, 'compacted_revision', next);
  return head;
}

/** ANALYZE with a row budget: milliseconds even at millions of rows, enough for the planner to pick label seeks. */
export function refreshStatistics(db: Db): void {
  db.pragma('analysis_limit = 2000');
  db.exec('ANALYZE resources; ANALYZE resource_labels;');
}

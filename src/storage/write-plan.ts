// Plans one write batch, dialect-free: collapse per key, apply the RV guards, assign revisions, render objects.
import type { TypeRows } from './analyze-policy.js';
import { rowKeyString, type RowKey } from './key.js';
import { extractColumns, isPrepared, renderTemplate, revisionText, type ObjectColumns, type StoredTemplate, type TemplateParts } from './object-columns.js';
import { deleteWins, upsertWins } from './resource-version.js';
import type { PreparedUpsert, UpsertObject, WriteBatch } from './types.js';

type Collapsed<T = StoredTemplate> =
  | { op: 'upsert'; key: string; cols: ObjectColumns; template: T }
  | { op: 'delete'; key: string; row: RowKey; rv: string | undefined };

/** What the dialect must know about a stored row to plan over it. */
export interface ExistingRow {
  id: number;
  resourceVersion: string;
  size: number;
  /** The stored `labels` column (JSON object text). */
  labels: string;
  /** The stored `fields` column (object-columns.ts selectableFields); null for a row written before it was kept. */
  fields: string | null;
  /**
   * The stored indexed columns an update may leave as they are, where the dialect reads them: SQLite rewrites the
   * entries of every index whose columns an UPDATE sets, even to the same values.
   */
  indexed?: { uid: string; ownerUid: string; createdAt: number };
}

export interface PlannedUpsert<T extends TemplateParts = StoredTemplate> {
  /** The replaced row as stored; undefined for an insert. */
  old: ExistingRow | undefined;
  cols: ObjectColumns;
  revision: number;
  /** The stored text but for the revision, which goes between head and tail as a JSON string (`revisionText`). */
  template: T;
  /** UTF-8 bytes of the stored text. */
  size: number;
}

export interface PlannedDelete {
  id: number;
  key: RowKey;
  revision: number;
  /** The deleted row's `labels` column, to remove its label rows. */
  labels: string;
}

export interface TypeDelta {
  cluster: string;
  group: string;
  version: string;
  resource: string;
  /** '' when only deletions touched the type (the stored kind is kept). */
  kind: string;
  namespaced: boolean;
  count: number;
  bytes: number;
}

/** The row counts a plan changes, per cluster and type (for AnalyzePolicy): only types that gained or lost rows. */
export function rowChanges(types: readonly TypeDelta[]): TypeRows[] {
  const out: TypeRows[] = [];
  for (const t of types) if (t.count !== 0) out.push({ cluster: t.cluster, group: t.group, version: t.version, resource: t.resource, count: t.count });
  return out;
}

export interface WritePlan<T extends TemplateParts = StoredTemplate> {
  upserts: PlannedUpsert<T>[];
  deletes: PlannedDelete[];
  types: TypeDelta[];
  /** Revision after the batch (= the start revision when nothing is effective). */
  revision: number;
  skipped: number;
}

/**
 * The batch reduced to at most one operation per key, plus how many upserts lost inside the batch. Plain data (no
 * parsed objects), so it crosses to the SQLite writer thread as strings.
 */
export interface CollapsedBatch<T = StoredTemplate> {
  ops: Collapsed<T>[];
  /** Keys whose stored state the planner needs. */
  keys: RowKey[];
  droppedUpserts: number;
}

/**
 * Collapses a batch: upserts in order, then deletes in order (the contract's "in order"). For one key the
 * highest member RV wins; a delete after an upsert wins unless the upsert's RV is known to be newer. PostgreSQL's
 * ON CONFLICT cannot touch a row twice in one statement, and one revision per key and batch is all a watcher needs.
 */
export function collapseBatch(batch: WriteBatch): CollapsedBatch {
  type Op = { op: 'upsert'; key: string; cols: ObjectColumns; upsert: UpsertObject | PreparedUpsert } | Extract<Collapsed, { op: 'delete' }>;
  const byKey = new Map<string, Op>();
  let dropped = 0;
  for (const u of batch.upserts) {
    const cols = isPrepared(u) ? u.cols : extractColumns(u);
    const key = rowKeyString(cols);
    const prev = byKey.get(key);
    if (prev?.op === 'upsert' && !upsertWins(cols.memberRv, prev.cols.memberRv)) {
      dropped++;
      continue;
    }
    if (prev) dropped++;
    byKey.set(key, { op: 'upsert', key, cols, upsert: u });
  }
  for (const d of batch.deletes) {
    const row: RowKey = { cluster: d.cluster, group: d.group, version: d.version, resource: d.resource, namespace: d.namespace, name: d.name };
    const key = rowKeyString(row);
    const prev = byKey.get(key);
    if (prev?.op === 'upsert') {
      if (!deleteWins(d.resourceVersion, prev.cols.memberRv)) continue;
      dropped++;
    }
    byKey.set(key, { op: 'delete', key, row, rv: d.resourceVersion });
  }
  // Only the upserts that survived are rendered (those prepared ahead already are).
  const ops: Collapsed[] = [];
  for (const o of byKey.values()) {
    if (o.op === 'delete') ops.push(o);
    else ops.push({ op: 'upsert', key: o.key, cols: o.cols, template: isPrepared(o.upsert) ? o.upsert.template : renderTemplate(o.upsert, o.cols.memberRv) });
  }
  return { ops, keys: ops.map((o) => (o.op === 'upsert' ? o.cols : o.row)), droppedUpserts: dropped };
}

/**
 * Decides every operation against the stored rows (`existing`, by rowKeyString) and numbers the effective ones
 * from `revision + 1`. Must run while the caller holds the write lock, so `existing` and `revision` cannot move.
 */
export function planWrite<T extends TemplateParts>(batch: CollapsedBatch<T>, existing: Map<string, ExistingRow>, revision: number): WritePlan<T> {
  const upserts: PlannedUpsert<T>[] = [];
  const deletes: PlannedDelete[] = [];
  const types = new Map<string, TypeDelta>();
  let skipped = batch.droppedUpserts;
  let rev = revision;
  const delta = (k: RowKey, kind: string, namespaced: boolean): TypeDelta => {
    const tk = `${k.cluster}\0${k.group}\0${k.version}\0${k.resource}`;
    let t = types.get(tk);
    if (!t) {
      t = { cluster: k.cluster, group: k.group, version: k.version, resource: k.resource, kind, namespaced, count: 0, bytes: 0 };
      types.set(tk, t);
    }
    if (kind !== '') t.kind = kind;
    t.namespaced ||= namespaced;
    return t;
  };
  for (const op of batch.ops) {
    const ex = existing.get(op.key);
    if (op.op === 'upsert') {
      if (ex && !upsertWins(op.cols.memberRv, ex.resourceVersion)) {
        skipped++;
        continue;
      }
      rev++;
      const size = op.template.bytes + revisionText(rev).length;
      upserts.push({ old: ex, cols: op.cols, revision: rev, template: op.template, size });
      const t = delta(op.cols, op.cols.kind, op.cols.namespace !== '');
      t.count += ex ? 0 : 1;
      t.bytes += size - (ex?.size ?? 0);
    } else {
      if (!ex) continue;
      if (!deleteWins(op.rv, ex.resourceVersion)) {
        skipped++;
        continue;
      }
      rev++;
      deletes.push({ id: ex.id, key: op.row, revision: rev, labels: ex.labels });
      const t = delta(op.row, '', false);
      t.count -= 1;
      t.bytes -= ex.size;
    }
  }
  return { upserts, deletes, types: [...types.values()], revision: rev, skipped };
}

/**
 * The change-log entry's prev_labels and prev_fields for an upsert: the stored labels and fields when the write changes
 * either (both, so that an entry tells all a selector reads or nothing), else nulls: an insert has none before, and a
 * status update that leaves them writes nothing more.
 */
export function prevSelectable(u: PlannedUpsert<TemplateParts>): [labels: string | null, fields: string | null] {
  const old = u.old;
  if (old === undefined || (old.labels === u.cols.labelsJson && old.fields === u.cols.fieldsJson)) return [null, null];
  return [old.labels, old.fields];
}

// SQLite tables (drizzle-kit generates src/storage/sqlite/migrations from this file; see drizzle.sqlite.config.ts).
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * One row per object per cluster and stored version. `object` is the LAST column on purpose: SQLite stops
 * decoding a record at the last column a query needs, so scans of the small columns (resourceVersions,
 * counts, labels, fields) never touch the object's overflow pages. (drizzle-kit does not see column order: `fields`,
 * added after `object` by 0003, was put back before it by rebuilding the table in 0004.)
 */
export const resources = sqliteTable(
  'resources',
  {
    // INTEGER PRIMARY KEY = the rowid: no extra b-tree. No AUTOINCREMENT: change entries join on (id, revision),
    // so a reused id can never be mistaken for the row a change was about.
    id: integer('id').primaryKey(),
    cluster: text('cluster').notNull(),
    group: text('group').notNull(),
    version: text('version').notNull(),
    resource: text('resource').notNull(),
    kind: text('kind').notNull(),
    namespace: text('namespace').notNull(),
    name: text('name').notNull(),
    uid: text('uid').notNull(),
    ownerUid: text('owner_uid').notNull(),
    resourceVersion: text('resource_version').notNull(),
    revision: integer('revision').notNull(),
    /** creationTimestamp, epoch milliseconds; 0 when the object had none. */
    createdAt: integer('created_at').notNull(),
    /** Last write, epoch milliseconds. */
    syncedAt: integer('synced_at').notNull(),
    /** UTF-8 bytes of `object`, kept so resource_types.bytes can be maintained without reading objects. */
    size: integer('size').notNull(),
    /**
     * metadata.labels as a small JSON object: negated and non-selective label requirements read it (no 4 KB object
     * parse), and the writer compares it to know whether resource_labels must change.
     */
    labels: text('labels').notNull(),
    /**
     * The values kube's field selectors read that a write can change (status.phase, spec.nodeName, …) as a small JSON
     * object (object-columns.ts selectableFields), compared by the writer as the labels are, for the change log's
     * prev_fields. Null in rows written before it was kept.
     */
    fields: text('fields'),
    object: text('object').notNull(),
  },
  (t) => [
    // The row key, and the default order (cluster, namespace, name) of a one-type list: keyset pages walk it.
    uniqueIndex('resources_key').on(t.group, t.version, t.resource, t.cluster, t.namespace, t.name),
    // One namespace across all clusters, ordered by (cluster, name): `kubectl get pods -n x` at the root path.
    index('resources_namespace').on(t.group, t.version, t.resource, t.namespace, t.cluster, t.name),
    // names=… across clusters, and owner-by-name candidates (name, cluster).
    index('resources_name').on(t.name, t.cluster),
    // Owner search: children of a set of uids, covering (the descent reads only uid).
    index('resources_owner').on(t.cluster, t.ownerUid, t.uid),
    // since/before and orderby=created_at within a type.
    index('resources_created').on(t.group, t.version, t.resource, t.createdAt),
  ],
);

/**
 * One row per label, written in the same transaction as the row (Rancher steve's approach): a selective selector
 * (app=x, team in (a,b)) becomes a range of this primary key that drives the query, instead of a JSON scan of every
 * object. Only the primary key exists — (key, value, resource_id) — so each label costs one b-tree insert; the
 * migration makes the table WITHOUT ROWID (drizzle-kit cannot express that).
 */
export const resourceLabels = sqliteTable(
  'resource_labels',
  {
    key: text('key').notNull(),
    value: text('value').notNull(),
    resourceId: integer('resource_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.key, t.value, t.resourceId] })],
);

/** The change log behind watch: one entry per effective write, in revision order. */
export const changes = sqliteTable('changes', {
  revision: integer('revision').primaryKey(),
  resourceId: integer('resource_id').notNull(),
  cluster: text('cluster').notNull(),
  group: text('group').notNull(),
  version: text('version').notNull(),
  resource: text('resource').notNull(),
  namespace: text('namespace').notNull(),
  name: text('name').notNull(),
  /** ADDED | MODIFIED | DELETED. */
  type: text('type').notNull(),
  /** creationTimestamp of the object (epoch ms), so since/before apply to deleted objects too. */
  createdAt: integer('created_at').notNull(),
  /** When the entry was written (epoch ms), for age-based compaction. */
  time: integer('time').notNull(),
  /** Last state, only for DELETED: for ADDED/MODIFIED the row itself serves while its revision matches. */
  object: text('object'),
  /**
   * The object's labels before this entry (the `labels` column's text), only where the entry changed them (a MODIFIED)
   * or removed them (DELETED): a watch from an old revision with a label selector learns from the first such entry
   * after it whether the object matched then, and so which objects left the selector (selectorHistory).
   */
  prevLabels: text('prev_labels'),
  /**
   * The object's `fields` column before this entry, written with prev_labels wherever that is (an entry that changed
   * either): with both, the watch judges field selectors on status.phase and the like as it judges label selectors.
   */
  prevFields: text('prev_fields'),
});

/** Stored types with their counts, maintained by the writer so discovery never scans `resources`. */
export const resourceTypes = sqliteTable(
  'resource_types',
  {
    cluster: text('cluster').notNull(),
    group: text('group').notNull(),
    version: text('version').notNull(),
    resource: text('resource').notNull(),
    kind: text('kind').notNull(),
    namespaced: integer('namespaced', { mode: 'boolean' }).notNull(),
    count: integer('count').notNull(),
    bytes: integer('bytes').notNull(),
  },
  (t) => [primaryKey({ columns: [t.cluster, t.group, t.version, t.resource] })],
);

export const clusterStatus = sqliteTable('cluster_status', {
  cluster: text('cluster').primaryKey(),
  spec: text('spec').notNull(),
  status: text('status').notNull(),
  updatedAt: text('updated_at').notNull(),
});

/** Storage-wide values: `revision`, `compacted_revision`, `schema_version`. */
export const meta = sqliteTable('meta', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

// The storage contract (STYLE §5): a writer for the synchro, a reader for the apiserver, one schema.
import type { FieldPathSegment, FieldRequirement, LabelRequirement } from '../kube/requirement.js';
import type { RowKey } from './key.js';
import type { ObjectColumns, StoredTemplate } from './object-columns.js';

/** Identity of a stored resource type. Rows are keyed by (cluster, group, version, resource, namespace, name). */
export interface ResourceType {
  group: string;
  version: string;
  resource: string;
}

/** A stored resource type with what discovery needs. */
export interface StoredResourceType extends ResourceType {
  cluster: string;
  kind: string;
  /** True when at least one stored row has a non-empty namespace, or the synchro said so. */
  namespaced: boolean;
}

/**
 * One object to write. `object` is the full JSON object as it will be served, already pruned and annotated
 * by the synchro (cluster annotation, managedFields removed). Storage sets `metadata.resourceVersion` to the
 * row's revision and moves the member's resourceVersion into annotation `shadow.clusterpedia.io/resource-version`.
 */
export interface UpsertObject {
  cluster: string;
  group: string;
  version: string;
  resource: string;
  kind: string;
  object: StoredJsonObject;
}

/**
 * An upsert made ready ahead of its write (`prepareUpsert`): its columns and its stored text, revision left out.
 * A writer that holds objects a while (the synchro's write queue) keeps these strings instead of the parsed tree,
 * which then dies young: smaller to hold, nothing for the garbage collector to promote and trace.
 */
export interface PreparedUpsert {
  cols: ObjectColumns;
  template: StoredTemplate;
}

/** The JSON object as parsed; storage extracts columns from it (namespace, name, uid, owner, labels, times, RV). */
export type StoredJsonObject = {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    creationTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { uid?: string; controller?: boolean; kind?: string; name?: string; apiVersion?: string; [key: string]: unknown }[];
    [key: string]: unknown;
  };
  [key: string]: unknown;
};

/** One object to delete: its key and the member resourceVersion of the deletion (for ordering), when known. */
export interface DeleteKey extends RowKey {
  /** The member RV carried by the DELETED event; a stored row with a newer RV is kept. */
  resourceVersion?: string;
}

/** One write: upserts (as parsed, or prepared ahead) and deletes. */
export interface WriteBatch {
  upserts: (UpsertObject | PreparedUpsert)[];
  deletes: DeleteKey[];
}

/** What one write batch did. */
export interface WriteResult {
  /** Rows inserted or replaced (older member RV replaced by newer). */
  written: number;
  /** Objects skipped because the stored row is as new or newer (replays, out-of-order events). */
  skipped: number;
  /** Rows deleted. */
  deleted: number;
  /** Storage revision after the batch (unchanged when nothing was written). */
  revision: string;
}

/** The write path (synchro). Every method is one transaction. */
export interface StorageWriter {
  /**
   * Applies upserts and deletes in one transaction, in order. An upsert replaces a stored row only if its member
   * resourceVersion is newer (numeric comparison of decimal RVs; non-numeric RVs compare as different = newer).
   * Each effective write takes the next storage revision and is appended to the change log.
   */
  write(batch: WriteBatch): Promise<WriteResult>;
  /** Deletes every row of a cluster (change log records the deletions). */
  cleanCluster(cluster: string): Promise<number>;
  /** Deletes every row of one resource type of a cluster. */
  cleanResource(cluster: string, type: ResourceType): Promise<number>;
  /** key ("ns/name" or "name" for cluster-scoped) → member resourceVersion, for resuming without relisting. */
  resourceVersions(cluster: string, type: ResourceType): Promise<Map<string, string>>;
  /**
   * Keeps cluster status (conditions, per-resource status) for `show clusters` and the PediaCluster read API; a
   * restarted synchro resumes each watch from the resourceVersion it records. `requireRevision`: written only while
   * storage still holds that revision (the head, an entry of the change log, or at or below the compacted mark),
   * in the same transaction; false when it does not — storage went back past it (PostgreSQL lost commits it had
   * reported, a restore), and a status rendered from the writes before would resume past rows that are gone.
   */
  putClusterStatus(cluster: string, status: ClusterStatusRecord, o?: { requireRevision?: string }): Promise<boolean>;
  deleteClusterStatus(cluster: string): Promise<void>;
  /**
   * Leader election without a host cluster: takes lease `name` for `holder` when it is free, expired or already
   * `holder`'s, valid for `ttlMs` from now (the database's clock on PostgreSQL, so replicas on different machines
   * agree). True when `holder` holds it afterwards. Atomic: two candidates never both get true.
   */
  tryAcquireLease(name: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease up at once if `holder` holds it. */
  releaseLease(name: string, holder: string): Promise<void>;
}

/**
 * A storage lease a writer must hold for its writes to commit: the fencing of a leader that lost its lease with a
 * write in flight (Storage.fenceWrites).
 */
export interface WriteFence {
  /** The lease's name (tryAcquireLease). */
  lease: string;
  /** The writer's identity in it. */
  holder: string;
}

/** Per-cluster status kept in storage when clusters come from a file (API.md §2). JSON of PediaCluster.status plus spec summary. */
export interface ClusterStatusRecord {
  /** Redacted spec summary: apiserver URL and sync resources, never credentials. */
  spec: Record<string, unknown>;
  status: Record<string, unknown>;
  updatedAt: string;
}

/** A set filter: `in` (match any) or `notin` (match none). */
export interface SetFilter {
  op: 'in' | 'notin';
  values: string[];
}

/** Columns `orderby` may name (API.md §4) — never SQL text. */
export const ORDER_COLUMNS = ['cluster', 'namespace', 'name', 'created_at', 'resource_version', 'group', 'version', 'resource', 'kind'] as const;
export type OrderColumn = (typeof ORDER_COLUMNS)[number];

export type OrderTerm =
  | { column: OrderColumn; desc: boolean }
  /** A JSON path into the object, e.g. `.status.phase`. No list segments. Compared as text. */
  | { path: FieldPathSegment[]; desc: boolean };

export interface OwnerFilter {
  uid?: string;
  name?: string;
  /** Restricts owner-by-name candidates to one group/resource (e.g. deployments.apps). */
  groupResource?: { group: string; resource: string };
  /** 0 = direct children, 1 = grandchildren, … */
  seniority: number;
}

/** Resource types a query covers: one GVR (resources API) or several (collectionresources). */
export type TypeFilter =
  | { kind: 'one'; group: string; version: string; resource: string }
  /** OR over entries; an entry with only `group` matches the whole group; version/resource narrow it. */
  | { kind: 'many'; entries: { group: string; version?: string; resource?: string }[] }
  /** Every stored type (collection `any` with `*`). */
  | { kind: 'all' };

/** A bound value of a SQL filter; an array fills `IN ?` as a parenthesised list. */
export type SqlParam = string | number | boolean | null | (string | number | boolean | null)[];

/**
 * A caller's SQL condition on the `resources` table (the apiserver's --allow-parameterized-sql-query), checked to be
 * one expression: its text cut at the placeholders, and one value per placeholder.
 */
export interface WhereSql {
  pieces: string[];
  params: SqlParam[];
}

/** The whole query model of API.md §4, already parsed and validated. */
export interface ListQuery {
  types: TypeFilter;
  /** Rows for which this condition holds, evaluated on the resources table alone. */
  where?: WhereSql;
  clusters?: SetFilter;
  namespaces?: SetFilter;
  names?: SetFilter;
  labels?: LabelRequirement[];
  fields?: FieldRequirement[];
  /** creationTimestamp >= since (inclusive). */
  since?: Date;
  /** creationTimestamp < before (exclusive). */
  before?: Date;
  /** Requires exactly one cluster in `clusters` (the API layer checks). */
  owner?: OwnerFilter;
  /** Every substring must occur in the name (AND). */
  fuzzyNames?: string[];
  /** Default: cluster, namespace, name (then group, version, resource for multi-type queries). */
  orderBy?: OrderTerm[];
  /** 0 or absent = no limit. */
  limit?: number;
  /** Opaque keyset token from a previous page (ContinueToken), or Clusterpedia's numeric offset. */
  continue?: { token: string } | { offset: number };
  withRemainingCount?: boolean;
  /** Return only apiVersion, kind and metadata of each object. */
  onlyMetadata?: boolean;
  /**
   * Return each row without its object (`object` is `{}`), for a caller that needs only which rows match: the object
   * is neither read (a 4 KB object lives in SQLite's overflow pages, in PostgreSQL's TOAST) nor sent.
   */
  keysOnly?: boolean;
  /**
   * Read each object as its UTF-8 bytes (StoredRow.bytes), for a caller that copies objects out unchanged: no decode
   * into a JS string and no re-encode on the way to a socket. Honoured for pages read at once (a limit up to 1000)
   * where the driver allows, and on PostgreSQL for the first chunk of a streamed list; a backend may ignore it, and
   * `object` is always usable.
   */
  objectBytes?: boolean;
}

/** A stored row as read. `object` is JSON text exactly as served (revision in metadata.resourceVersion). */
export interface StoredRow {
  cluster: string;
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  /** Member resourceVersion. */
  resourceVersion: string;
  /** Storage revision of the row's last write (decimal string). */
  revision: string;
  /** ISO timestamp or '' when the object had none. */
  createdAt: string;
  object: string;
  /** The object's UTF-8 bytes, when the query asked for them (ListQuery.objectBytes) and the backend read them so. */
  readonly bytes?: Buffer;
}

/** One page of a list. `rows` is streamed: a large unpaged list is never materialised. */
export interface ListPage {
  /** Storage revision the list was read at (decimal string). */
  revision: string;
  rows: AsyncIterable<StoredRow>;
  /** Available once `rows` is exhausted: the token for the next page, if there is one. */
  continueToken(): string | undefined;
  /** Set when withRemainingCount was asked (may be computed before streaming). */
  remainingItemCount?: number;
}

/**
 * One page of a list as its objects joined (StorageReader.listJoined): the items of a JSON list, stored bytes as they
 * are, comma-separated within each buffer; the buffers follow each other, to be joined by commas too.
 */
export interface JoinedPage {
  revision: string;
  /** Objects in `objects`, all buffers together. */
  count: number;
  objects: Buffer[];
  continueToken(): string | undefined;
  remainingItemCount?: number;
}

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One change-log entry: the object's state after the change (last state for deletions). */
export interface Change {
  revision: string;
  type: ChangeType;
  row: StoredRow;
}

/** Filter of a watch: the subset of ListQuery a change can be matched against. */
export type WatchFilter = Pick<ListQuery, 'types' | 'clusters' | 'namespaces' | 'names' | 'labels' | 'fields' | 'fuzzyNames' | 'since' | 'before'>;

/** What a list covers that no write changes: types, clusters, namespaces, names, creation times (changedBetween). */
export type KeyFilter = Pick<WatchFilter, 'types' | 'clusters' | 'namespaces' | 'names' | 'fuzzyNames' | 'since' | 'before'>;

export type ChangedResult =
  | { expired: false; changed: boolean }
  /** `after` left the change-log window, or was lost (`lost`, see changesSince): what changed since is not known. */
  | { expired: true; oldestRevision: string; lost?: true };

/** A change-log entry as selectorHistory() reads it: which object, and the labels and fields the entry replaced. */
export interface SelectorHistoryEntry extends RowKey {
  revision: string;
  type: ChangeType;
  /**
   * The object's labels just before the entry (a JSON object's text) where the entry changed them or its fields
   * (MODIFIED) or removed them (DELETED); undefined where it left both as they were, added the object, or predates the
   * column.
   */
  prevLabels?: string;
  /**
   * Its `fields` just before (object-columns.ts selectableFields), wherever prevLabels is, unless the row or the entry
   * predates the column.
   */
  prevFields?: string;
}

export type SelectorHistoryResult =
  | { expired: false; entries: SelectorHistoryEntry[]; revision: string }
  /** As for changesSince: `after` left the change-log window, or was lost. */
  | { expired: true; oldestRevision: string; lost?: true };

export type ChangesResult =
  | { expired: false; changes: Change[]; revision: string }
  /**
   * The revision left the change-log window, or was lost (`lost`: issued once, then gone with the commits that storage
   * went back past — changes.ts REVISION_MARK): the client must relist (410 Expired).
   */
  | { expired: true; oldestRevision: string; lost?: true };

/** The read path (apiserver). */
export interface StorageReader {
  get(key: { cluster: string; group: string; version: string; resource: string; namespace: string; name: string }): Promise<StoredRow | undefined>;
  list(query: ListQuery, signal?: AbortSignal): Promise<ListPage>;
  /**
   * The same page as list(), its objects joined into a few buffers instead of one row each: for a caller that serves
   * the objects as stored (a JSON list). Undefined where the backend does not join this page (a limit over 1000, no
   * limit and more than 1000 rows, or keysOnly); the caller then uses list(). Optional: a backend may not join at all.
   */
  listJoined?(query: ListQuery, signal?: AbortSignal): Promise<JoinedPage | undefined>;
  /** Changes with revision > `revision` matching `filter`, oldest first, at most `limit`. */
  changesSince(revision: string, filter: WatchFilter, limit: number): Promise<ChangesResult>;
  /**
   * Whether anything matching `filter` changed with after < revision ≤ upTo: any change-log entry, also one whose
   * object changed again since (which changesSince skips, the later entry standing for it).
   */
  changedBetween(after: string, upTo: string, filter: KeyFilter): Promise<ChangedResult>;
  /**
   * Every entry with after < revision ≤ upTo within `filter`, oldest first, at most `limit`: also those changesSince
   * skips, and with the labels and fields each replaced. From them a watch from `after` with a label or field selector
   * knows which objects matched at `after`: none added since, and for one whose labels or fields changed, those before
   * the first change.
   * `revision` is where the next page starts (`upTo` once there is none).
   */
  selectorHistory(after: string, upTo: string, filter: KeyFilter, limit: number): Promise<SelectorHistoryResult>;
  /** The current storage revision (decimal string). */
  currentRevision(): Promise<string>;
  /** Every stored (cluster, group, version, resource, kind), for discovery. */
  resourceTypes(): Promise<StoredResourceType[]>;
  /**
   * The stored core/v1 Events whose involvedObject is one of `uids` in `cluster`, as involved uid → the Events' JSON,
   * oldest first (inject-events).
   */
  involvedEvents(cluster: string, uids: readonly string[]): Promise<Map<string, string[]>>;
  /** Row counts per (cluster, type), for `show resources`. */
  counts(): Promise<{ cluster: string; group: string; version: string; resource: string; count: number; bytes: number }[]>;
  clusterStatuses(): Promise<Map<string, ClusterStatusRecord>>;
  /** Cheap round trip for /readyz; reads a schema table, so a database not migrated fails it (SchemaMismatch). */
  ping(): Promise<void>;
  /**
   * Calls `listener` soon after the storage revision advances: at once for writes made through this process,
   * and through LISTEN/NOTIFY (PostgreSQL) for writes made by another process. Watchers also poll, so a
   * missed notification only delays them. Returns the unsubscribe function.
   */
  subscribe(listener: (revision: string) => void): () => void;
}

export interface StorageOptions {
  /** Change-log retention: entries older than this many revisions behind the head are compacted. */
  changeLogRevisions?: number;
  /** Change-log retention by age, milliseconds. */
  changeLogMaxAgeMs?: number;
  /** SQLite: how long to wait for another process's write lock before failing with Unavailable, milliseconds (default 5000). */
  busyTimeoutMs?: number;
  /**
   * SQLite: where writes run. 'thread' (the default): a writer thread of their own, so a write batch never stops the
   * event loop. 'inline': on the event loop's connection, for a process that writes little (the apiserver role, whose
   * only writes are change-log compactions) and is better off without a second V8 isolate.
   */
  sqliteWrites?: 'thread' | 'inline';
  /** SQLite: a database file that does not exist is a NotFound error instead of a new, empty database (read-only commands). */
  mustExist?: boolean;
  /**
   * PostgreSQL: when a connection that hears nothing is asked about and when one that waits in vain is closed
   * (postgres/answer-watch.ts; defaults 20 s, 5 min, counters read every second); false: never. For tests.
   */
  postgresAnswerWatch?: AnswerWatchTimes | false;
  /** PostgreSQL: told of each connection closed because it would not be answered (the roles count them: metrics.ts). */
  onConnectionClosed?: (reason: ConnectionClosedReason) => void;
}

/** PostgreSQL: when a connection that hears nothing is asked about, and when one that waits in vain is closed. */
export interface AnswerWatchTimes {
  /** A connection that has heard nothing for this long is asked about (default 20 s). */
  askAfterMs: number;
  /** A connection that has waited this long for an answer, the server not vouching for it, is closed (default 5 min). */
  giveUpMs: number;
  /** How often the byte counters are read (default 1 s). */
  tickMs: number;
}

/**
 * Why a PostgreSQL connection was closed as one that would not be answered: the server's session was idle while it
 * waited, the server had no session for it, the server's last answer never arrived, or it waited past giving up with
 * no way to ask the server.
 */
export type ConnectionClosedReason = 'idle_session' | 'no_session' | 'answer_lost' | 'gave_up';

/** An opened storage: both halves over one connection set, plus lifecycle. */
export interface Storage extends StorageReader, StorageWriter {
  readonly dialect: 'sqlite' | 'postgres';
  /** Applies pending migrations; returns the ones applied (empty when up to date). */
  migrate(opts?: { dryRun?: boolean }): Promise<MigrationPlan>;
  /** Removes change-log entries outside the retention window. */
  compact(): Promise<void>;
  /**
   * After storage went back in time (a restore, a failover to a replica behind): moves the revision past `above`, the
   * highest one issued before, and marks everything up to it compacted, so a watch from any revision issued before
   * gets 410 and lists again — revisions reissued since may name other changes. etcdutl's restore does the same
   * (`--bump-revision`, `--mark-compacted`).
   */
  bumpRevision(above: string): Promise<void>;
  /**
   * Moves the revision up to `to` when it is below (the change log stays: a watch from before the jump goes on). A
   * synchro starting moves it to the clock's microseconds (originRevision), which every revision issued before is
   * below unless storage averaged a million writes a second: so after a restore it did not witness (it was restarted
   * with it), the revisions it issues still pass every one a client holds, and clients see its corrections. The write
   * queue does the same before it writes again after a write whose outcome it does not know. Returns the revision it
   * found (before the move).
   */
  advanceRevision(to: string): Promise<string>;
  /**
   * From now on, each write, clean and cluster status write of this storage commits only while `fence.holder` holds
   * lease `fence.lease`, checked in its own transaction; otherwise it fails with a retryable Conflict and writes
   * nothing. Taking the lease over from another holder waits for that holder's write transactions in flight, so a
   * leader that lost its lease mid-write either commits before its successor starts or not at all. Renewal by the
   * holder does not wait for them.
   */
  fenceWrites(fence: WriteFence): void;
  close(): Promise<void>;
}

export interface MigrationPlan {
  /** Schema version before. */
  from: number;
  /** Schema version after (or that would be reached with dryRun). */
  to: number;
  /** Names of the migrations applied (or to apply). */
  applied: string[];
}

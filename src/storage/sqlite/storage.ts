// The SQLite storage: the event loop's own connection (single-row reads, migrations), a writer (a thread of its own
// with the one connection that writes, or that same connection inline: writer-thread.ts, writer-ops.ts), and a pool of
// read connections for snapshots and streamed lists.
import { sql, type SQL } from 'drizzle-orm';
import { groupInvolvedEvents, involvedEventsQuery } from '../events-sql.js';
import type { Logger } from '../../lib/log.js';
import type { OpenBackend } from '../open.js';
import { StatisticsRefresher, statisticsFailed, type TypeRows } from '../analyze-policy.js';
import { StorageError } from '../errors.js';
import { changedQuery, changesQuery, DEFAULT_CHANGE_LOG_MAX_AGE_MS, DEFAULT_CHANGE_LOG_REVISIONS, selectorHistoryQuery, toChange, toSelectorHistoryEntry } from '../changes-sql.js';
import { namespacedName } from '../key.js';
import { joinable, planList, readJoinedPage, readPage, type ListStatements } from '../list-page.js';
import { RevisionNotifier } from '../notifier.js';
import { rowColumns, toStoredRow } from '../stored-row.js';
import { resourceColumns } from '../list-sql.js';
import type {
  ChangedResult, ChangesResult, ClusterStatusRecord, JoinedPage, KeyFilter, SelectorHistoryResult, ListPage, ListQuery, MigrationPlan, ResourceType, Storage, StorageOptions,
  StoredResourceType, StoredRow, WatchFilter, WriteBatch, WriteFence, WriteResult,
} from '../types.js';
import { collapseBatch } from '../write-plan.js';
import { Checkpointer } from './checkpointer.js';
import { DEFAULT_BUSY_TIMEOUT_MS, openConnection, ReadPool, resolveDatabasePath, WAL_CHECKPOINT_BYTES, type Db } from './connection.js';
import { mapSqliteError } from './errors.js';
import { appliedMigrations, migrateSqlite } from './migrate.js';
import { sqliteQuery } from './query.js';
import { SqliteSnapshot } from './snapshot.js';
import { allRows } from './statements.js';
import { prepare } from './prepare.js';
import { readHeadRevision, readMeta, revisionIsKnown } from './write.js';
import { WriterThread } from './writer-thread.js';
import { InlineWriter, type Writer, type WriterAnswers, type WriterOp } from './writer-ops.js';
import { migrationPlan } from '../schema-version.js';
import { migrations } from './embedded-migrations.js';

/** Rows per cluster and type as stored, from the counts the writer keeps (none before the schema exists). */
function storedTypeRows(db: Db): TypeRows[] {
  try {
    return db.prepare('SELECT cluster, "group", version, resource, count FROM resource_types').all() as TypeRows[];
  } catch {
    return [];
  }
}

/**
 * Stored bytes of objects joined into one buffer by listJoined (SQLite builds each in memory, and refuses one over
 * its 1 GB string limit): a 500-pod page is ~2 MB, a page of large objects is split.
 */
const JOIN_GROUP_BYTES = 16 * 1024 * 1024;

/**
 * The objects of `ids` as one buffer, comma-separated, in the order of `ids`: json_each drives the loop (CROSS JOIN
 * keeps it outermost) and each id is a rowid lookup, so group_concat sees the rows in the order given. An ORDER BY
 * inside group_concat would sort the 2 MB of objects again (measured 1.8 → 4.9 ms for 500 pods).
 */
function joinedObjects(ids: number[], onlyMetadata: boolean): SQL {
  const object = sqliteQuery.objectText(sql.raw('r."object"'), onlyMetadata, false);
  return sql`SELECT CAST(group_concat(${object}, ',') AS BLOB) FROM json_each(${JSON.stringify(ids)}) j CROSS JOIN resources r ON r.id = j.value`;
}

/** The get's SELECT, rendered once: building it through drizzle took ~20 µs of a ~0.1 ms get. Parameters: group, version, resource, cluster, namespace, name. */
let getText: string | undefined;
function getStatementText(): string {
  if (getText === undefined) {
    const c = resourceColumns('r');
    const q = sqliteQuery.render(sql`SELECT ${rowColumns(sqliteQuery, { ...c, uid: sql.raw('r.uid'), revision: sql.raw('r.revision') })} FROM resources r
      WHERE r."group" = ${'g'} AND r.version = ${'v'} AND r.resource = ${'r'} AND r.cluster = ${'c'} AND r.namespace = ${'n'} AND r.name = ${'x'}`);
    if (q.params.join() !== 'g,v,r,c,n,x') throw new Error(`get statement: unexpected parameters ${JSON.stringify(q.params)}`);
    getText = q.sql;
  }
  return getText;
}

function closedError(what: string): StorageError {
  return new StorageError('Unavailable', `${what}: storage is closed`, false);
}

/** Read connections: enough for a few concurrent streamed lists; more callers wait for one. */
const READ_CONNECTIONS = 4;

export const openSqliteStorage: OpenBackend = async (target, opts) => {
  if (target.dialect !== 'sqlite') throw new Error(`sqlite backend cannot open a ${target.dialect} target`);
  const path = target.path;
  const { file, cleanup } = resolveDatabasePath(path);
  const busy = opts.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  let main: Db;
  try {
    main = openConnection(file, busy, 'main');
  } catch (e: unknown) {
    cleanup();
    throw mapSqliteError(e, `open sqlite:${path}`);
  }
  try {
    // Refuse a schema this binary does not know before anything reads or writes it.
    migrationPlan(appliedMigrations(main), migrations);
  } catch (e: unknown) {
    main.close();
    cleanup();
    throw mapSqliteError(e, `open sqlite:${path}`);
  }
  const writes: Writer = opts.sqliteWrites === 'inline' ? new InlineWriter(main) : new WriterThread({ file, busyTimeoutMs: busy, logger: opts.logger });
  const checkpoints = new Checkpointer({
    file, busyTimeoutMs: busy, logger: opts.logger, ownBytes: WAL_CHECKPOINT_BYTES, backstopBytes: 4 * WAL_CHECKPOINT_BYTES,
    setAutocheckpoint: (bytes) => void writes.call({ op: 'autocheckpoint', bytes }).catch(() => undefined),
  });
  return new SqliteStorage(main, writes, new ReadPool(file, busy, READ_CONNECTIONS), checkpoints, cleanup, opts);
};

/**
 * `db` is this thread's connection: reads that need no snapshot of their own, and migrations (which run before
 * anything writes). Every other write goes to `writer`: the writer thread (writer-thread.ts), or `db` itself when
 * the process writes little (StorageOptions.sqliteWrites).
 */
class SqliteStorage implements Storage {
  readonly dialect = 'sqlite' as const;
  private readonly notifier = new RevisionNotifier();
  private readonly statistics: StatisticsRefresher;
  private readonly log: Logger;
  private closed = false;
  private fence: WriteFence | undefined;

  constructor(
    private readonly db: Db,
    private readonly writer: Writer,
    private readonly readers: ReadPool,
    private readonly checkpoints: Checkpointer,
    private readonly cleanup: () => void,
    private readonly opts: { logger: Logger } & StorageOptions,
  ) {
    this.log = opts.logger.child({ component: 'storage', dialect: 'sqlite' });
    this.statistics = new StatisticsRefresher(storedTypeRows(db), () => this.send('analyze', { op: 'analyze' }), (e) => statisticsFailed(this.log, e));
  }

  /**
   * Runs a write on `writer`, then tells the checkpointer: every statement that may append to the WAL goes
   * through here, so none leaves its pages for the backstop alone.
   */
  private async commit<K extends WriterOp['op']>(what: string, op: Extract<WriterOp, { op: K }>): Promise<WriterAnswers[K]> {
    if (this.closed) throw closedError(what);
    return this.send(what, op);
  }

  /** commit() without the closed check: for the statistics refresh close() runs before the writer stops. */
  private async send<K extends WriterOp['op']>(what: string, op: Extract<WriterOp, { op: K }>): Promise<WriterAnswers[K]> {
    let r: WriterAnswers[K];
    try {
      r = await this.writer.call(op);
    } catch (e: unknown) {
      throw mapSqliteError(e, what);
    }
    this.checkpoints.committed();
    return r;
  }

  /** Runs `fn` synchronously, mapping driver errors at this edge. */
  private run<T>(what: string, fn: () => T): T {
    if (this.closed) throw closedError(what);
    try {
      return fn();
    } catch (e: unknown) {
      throw mapSqliteError(e, what);
    }
  }

  async migrate(o?: { dryRun?: boolean }): Promise<MigrationPlan> {
    const plan = migrateSqlite(this.db, o?.dryRun === true);
    if (plan.applied.length > 0 && o?.dryRun !== true) this.log.info({ from: plan.from, to: plan.to, applied: plan.applied }, 'schema migrated');
    return plan;
  }

  async write(batch: WriteBatch): Promise<WriteResult> {
    const r = await this.commit('write', { op: 'write', batch: collapseBatch(batch), now: Date.now(), ...this.fenced() });
    if (r.written + r.deleted > 0) {
      this.notifier.notify(r.revision);
      await this.statistics.afterWrite(r.written + r.deleted, r.rows);
    }
    return { written: r.written, skipped: r.skipped, deleted: r.deleted, revision: String(r.revision) };
  }

  async cleanCluster(cluster: string): Promise<number> {
    return this.clean(cluster, undefined);
  }

  async cleanResource(cluster: string, type: ResourceType): Promise<number> {
    return this.clean(cluster, type);
  }

  private async clean(cluster: string, type: ResourceType | undefined): Promise<number> {
    // Only the three fields cross to the writer thread: a caller's type may carry more (StoredResourceType, say).
    const r = await this.commit('clean', { op: 'clean', cluster, type: type && { group: type.group, version: type.version, resource: type.resource }, now: Date.now(), ...this.fenced() });
    if (r.count > 0) this.notifier.notify(r.revision);
    return r.count;
  }

  async resourceVersions(cluster: string, type: ResourceType): Promise<Map<string, string>> {
    return this.run('resourceVersions', () => {
      const rows = prepare(this.db, `SELECT namespace, name, resource_version FROM resources WHERE "group" = ? AND version = ? AND resource = ? AND cluster = ?`)
        .raw(true)
        .all(type.group, type.version, type.resource, cluster) as [string, string, string][];
      const m = new Map<string, string>();
      for (const [ns, name, rv] of rows) m.set(namespacedName(ns, name), rv);
      return m;
    });
  }

  async putClusterStatus(cluster: string, status: ClusterStatusRecord, o?: { requireRevision?: string }): Promise<boolean> {
    return this.commit('putClusterStatus', {
      op: 'putClusterStatus', cluster, spec: JSON.stringify(status.spec), status: JSON.stringify(status.status), updatedAt: status.updatedAt,
      ...(o?.requireRevision !== undefined ? { requireRevision: Number(o.requireRevision) } : {}), ...this.fenced(),
    });
  }

  async deleteClusterStatus(cluster: string): Promise<void> {
    await this.commit('deleteClusterStatus', { op: 'deleteClusterStatus', cluster, ...this.fenced() });
  }

  fenceWrites(fence: WriteFence): void {
    this.fence = { lease: fence.lease, holder: fence.holder };
  }

  /** The fence a writer op carries (assertFence checks it in the op's transaction), if writes are fenced. */
  private fenced(): { fence?: WriteFence } {
    return this.fence ? { fence: this.fence } : {};
  }

  async tryAcquireLease(name: string, holder: string, ttlMs: number): Promise<boolean> {
    return this.commit('tryAcquireLease', { op: 'tryAcquireLease', name, holder, ttlMs, now: Date.now() });
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    await this.commit('releaseLease', { op: 'releaseLease', name, holder });
  }

  async get(key: { cluster: string; group: string; version: string; resource: string; namespace: string; name: string }): Promise<StoredRow | undefined> {
    const rows = this.run('get', () => prepare(this.db, getStatementText()).raw(true)
      .all(key.group, key.version, key.resource, key.cluster, key.namespace, key.name) as unknown[][]);
    return rows[0] ? toStoredRow(rows[0]) : undefined;
  }

  async involvedEvents(cluster: string, uids: readonly string[]): Promise<Map<string, string[]>> {
    if (uids.length === 0) return new Map();
    return groupInvolvedEvents(this.run('involvedEvents', () => allRows(this.db, involvedEventsQuery(sqliteQuery, cluster, uids))));
  }

  async list(query: ListQuery, signal?: AbortSignal): Promise<ListPage> {
    const { st, snap } = await this.openList(query);
    return readPage(snap, st, signal);
  }

  async listJoined(query: ListQuery, signal?: AbortSignal): Promise<JoinedPage | undefined> {
    if (!joinable(query.limit) || query.keysOnly) return undefined;
    const { st, snap } = await this.openList(query);
    return readJoinedPage(snap, st, (ids) => joinedObjects(ids, query.onlyMetadata === true), JOIN_GROUP_BYTES, signal);
  }

  /** A list's statements (planList) and the read snapshot to run them on. */
  private async openList(query: ListQuery): Promise<{ st: ListStatements; snap: SqliteSnapshot }> {
    const st = await planList(sqliteQuery, query, async (q) => this.run('list', () => allRows(this.db, q)));
    return { st, snap: await SqliteSnapshot.open(this.readers) };
  }

  async changesSince(revision: string, filter: WatchFilter, limit: number): Promise<ChangesResult> {
    const after = Number(revision);
    return this.run('changesSince', () =>
      // A read transaction: the head and the entries come from one snapshot even if another process writes.
      this.db.transaction((): ChangesResult => {
        const head = Number(readHeadRevision(this.db));
        const compacted = readMeta(this.db, 'compacted_revision');
        if (!Number.isSafeInteger(after) || after < compacted || after > head) return { expired: true, oldestRevision: String(compacted) };
        if (!revisionIsKnown(this.db, after, head, compacted)) return { expired: true, oldestRevision: String(compacted), lost: true };
        const rows = allRows(this.db, changesQuery(sqliteQuery, filter, after, sql`${head}`, Math.max(1, Math.floor(limit))));
        const changes = rows.map(toChange);
        const last = changes.length >= limit ? changes[changes.length - 1]?.revision : undefined;
        return { expired: false, changes, revision: last ?? String(head) };
      }).deferred(),
    );
  }

  async changedBetween(after: string, upTo: string, filter: KeyFilter): Promise<ChangedResult> {
    const from = Number(after);
    return this.run('changedBetween', () =>
      this.db.transaction((): ChangedResult => {
        const gone = this.logLacks(from);
        if (gone) return gone;
        return { expired: false, changed: allRows(this.db, changedQuery(sqliteQuery, filter, from, Number(upTo))).length > 0 };
      }).deferred(),
    );
  }

  async selectorHistory(after: string, upTo: string, filter: KeyFilter, limit: number): Promise<SelectorHistoryResult> {
    const from = Number(after);
    const n = Math.max(1, Math.floor(limit));
    return this.run('selectorHistory', () =>
      this.db.transaction((): SelectorHistoryResult => {
        const gone = this.logLacks(from);
        if (gone) return gone;
        const entries = allRows(this.db, selectorHistoryQuery(sqliteQuery, filter, from, Number(upTo), n)).map(toSelectorHistoryEntry);
        return { expired: false, entries, revision: entries.length >= n ? entries[entries.length - 1]!.revision : upTo };
      }).deferred(),
    );
  }

  /**
   * Why the change log cannot tell what changed after `from` (compacted past it, or a revision storage went back
   * past); undefined when it can. Inside a read transaction.
   */
  private logLacks(from: number): { expired: true; oldestRevision: string; lost?: true } | undefined {
    const compacted = readMeta(this.db, 'compacted_revision');
    if (!Number.isSafeInteger(from) || from < compacted) return { expired: true, oldestRevision: String(compacted) };
    if (!revisionIsKnown(this.db, from, Number(readHeadRevision(this.db)), compacted)) return { expired: true, oldestRevision: String(compacted), lost: true };
    return undefined;
  }

  async currentRevision(): Promise<string> {
    return this.run('currentRevision', () => readHeadRevision(this.db));
  }

  async resourceTypes(): Promise<StoredResourceType[]> {
    const rows = this.run('resourceTypes', () =>
      prepare(this.db, `SELECT cluster, "group", version, resource, kind, namespaced FROM resource_types ORDER BY cluster, "group", version, resource`).raw(true).all(),
    ) as [string, string, string, string, string, number][];
    return rows.map(([cluster, group, version, resource, kind, namespaced]) => ({ cluster, group, version, resource, kind, namespaced: namespaced !== 0 }));
  }

  async counts(): Promise<{ cluster: string; group: string; version: string; resource: string; count: number; bytes: number }[]> {
    const rows = this.run('counts', () =>
      prepare(this.db, `SELECT cluster, "group", version, resource, count, bytes FROM resource_types ORDER BY cluster, "group", version, resource`).raw(true).all(),
    ) as [string, string, string, string, number, number][];
    return rows.map(([cluster, group, version, resource, count, bytes]) => ({ cluster, group, version, resource, count, bytes }));
  }

  async clusterStatuses(): Promise<Map<string, ClusterStatusRecord>> {
    const rows = this.run('clusterStatuses', () => prepare(this.db, `SELECT cluster, spec, status, updated_at FROM cluster_status ORDER BY cluster`).raw(true).all()) as [string, string, string, string][];
    return new Map(rows.map(([cluster, spec, status, updatedAt]) => [cluster, { spec: JSON.parse(spec) as Record<string, unknown>, status: JSON.parse(status) as Record<string, unknown>, updatedAt }]));
  }

  async ping(): Promise<void> {
    this.run('ping', () => this.db.prepare('SELECT 1 FROM meta LIMIT 1').get());
  }

  subscribe(listener: (revision: string) => void): () => void {
    return this.notifier.subscribe(listener);
  }

  async bumpRevision(above: string): Promise<void> {
    await this.commit('bumpRevision', { op: 'moveRevision', to: Number(above), compact: true });
  }

  async advanceRevision(to: string): Promise<string> {
    return String(await this.commit('advanceRevision', { op: 'moveRevision', to: Number(to), compact: false }));
  }

  async compact(): Promise<void> {
    const keep = this.opts.changeLogRevisions ?? DEFAULT_CHANGE_LOG_REVISIONS;
    const maxAge = this.opts.changeLogMaxAgeMs ?? DEFAULT_CHANGE_LOG_MAX_AGE_MS;
    await this.commit('compact', { op: 'compact', keep, cutoffTime: Date.now() - maxAge });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.statistics.close({ refreshDue: true });
    this.notifier.clear();
    this.readers.close();
    await this.writer.close();
    await this.checkpoints.close();
    try {
      this.db.close();
    } finally {
      this.cleanup();
    }
  }
}

// The PostgreSQL storage: a postgres.js pool; writes serialised by an advisory lock, reads on reserved snapshots,
// LISTEN/NOTIFY so apiservers in other processes hear new revisions.
import { sql } from 'drizzle-orm';
import { groupInvolvedEvents, involvedEventsQuery } from '../events-sql.js';
import type postgres from 'postgres';
import type { Logger } from '../../lib/log.js';
import { StatisticsRefresher, statisticsFailed, type TypeRows } from '../analyze-policy.js';
import { changedQuery, changesQuery, DEFAULT_CHANGE_LOG_MAX_AGE_MS, DEFAULT_CHANGE_LOG_REVISIONS, REVISION_MARK, revisionKnown, selectorHistoryQuery, toChange, toSelectorHistoryEntry } from '../changes-sql.js';
import { namespacedName } from '../key.js';
import { firstRead, joinRows, planList, readAtOnce, readPage } from '../list-page.js';
import { resourceColumns } from '../list-sql.js';
import { RevisionNotifier } from '../notifier.js';
import type { OpenBackend } from '../open.js';
import { migrationPlan } from '../schema-version.js';
import type { PostgresConnection } from '../storage-config.js';
import { rowColumns, toStoredRow } from '../stored-row.js';
import type {
  ChangedResult, ChangesResult, ClusterStatusRecord, JoinedPage, KeyFilter, SelectorHistoryResult, ListPage, ListQuery, MigrationPlan, ResourceType, Storage, StorageOptions,
  StoredResourceType, StoredRow, WatchFilter, WriteBatch, WriteFence, WriteResult,
} from '../types.js';
import { collapseBatch, rowChanges } from '../write-plan.js';
import { createPool, type Pg } from './connection.js';
import { migrations } from './embedded-migrations.js';
import { fencedError } from '../errors.js';
import { mapPostgresError } from './errors.js';
import { unprepared } from './literals.js';
import { appliedMigrations, migratePostgres } from './migrate.js';
import { postgresQuery } from './query.js';
import { HEAD_REVISION, headRevisionOf } from '../snapshot.js';
import { PgSnapshot } from './snapshot.js';
import { inTransaction, send } from './transaction.js';
import { cleanRows, lockAndApplyBatch, lockAndReadRevision, setMeta, STATUS_LOCK, WRITE_LOCK } from './write.js';

type Param = postgres.ParameterOrJSON<never>;

/** Channel of NOTIFY '<revision>' sent by every write transaction. */
const CHANNEL = 'clusterpedia_revision';

export const openPostgresStorage: OpenBackend = async (target, opts) => {
  if (target.dialect !== 'postgres') throw new Error(`postgres backend cannot open a ${target.dialect} target`);
  const pool = createPool(target.connection, {
    logger: opts.logger.child({ component: 'storage', dialect: 'postgres' }),
    answerWatch: opts.postgresAnswerWatch,
    ...(opts.onConnectionClosed ? { onClosed: opts.onConnectionClosed } : {}),
  });
  try {
    // Connects now (an unreachable server fails here, as Unavailable) and refuses a schema newer than this binary.
    migrationPlan(await appliedMigrations(pool), migrations);
    const migrated = await pool.unsafe(`SELECT to_regclass('resource_types') IS NOT NULL AS present`);
    const present = (migrated[0] as { present?: boolean } | undefined)?.present === true;
    const stored = present ? await pool.unsafe<TypeRows[]>(`SELECT cluster, "group", version, resource, count::float8 AS count FROM resource_types`) : [];
    // Rows changed since the last ANALYZE, whoever wrote them: a refresh this process had due when it stopped, or
    // writes by a version that refreshed less often, are not lost with the process.
    const changed = present
      ? Number((await pool.unsafe<{ n: number }[]>(`SELECT n_mod_since_analyze::float8 AS n FROM pg_stat_user_tables WHERE relid = to_regclass('resources')`).catch(() => []))[0]?.n ?? 0)
      : 0;
    return new PostgresStorage(pool, target.connection, stored, changed, opts);
  } catch (e: unknown) {
    await pool.end({ timeout: 1 });
    throw mapPostgresError(e, 'open postgres');
  }
};

/** One row: the head revision and the compacted mark, read in the statement's snapshot. */
const HEAD_AND_COMPACTED = sql`(SELECT (SELECT value::bigint FROM meta WHERE key = 'revision') AS head, coalesce((SELECT value::bigint FROM meta WHERE key = 'compacted_revision'), 0) AS compacted)`;

/**
 * A CTE `fence(held)` for a statement of Storage.fenceWrites: true when writes are not fenced (`$key` null) or lease
 * row `$key` is held by `$holder`.
 */
function fenceCte(key: number, holder: number): string {
  return `fence AS (SELECT $${key}::text IS NULL OR EXISTS (SELECT 1 FROM meta WHERE key = $${key}::text AND (value::jsonb ->> 'holder') = $${holder}::text) AS held)`;
}

class PostgresStorage implements Storage {
  readonly dialect = 'postgres' as const;
  private readonly notifier = new RevisionNotifier();
  private readonly statistics: StatisticsRefresher;
  private readonly log: Logger;
  private listening: Promise<postgres.ListenMeta | undefined> | undefined;
  private closed = false;
  private fence: WriteFence | undefined;

  constructor(
    private readonly pool: Pg,
    private readonly conn: PostgresConnection,
    stored: readonly TypeRows[],
    changedSinceAnalyze: number,
    private readonly opts: { logger: Logger } & StorageOptions,
  ) {
    this.log = opts.logger.child({ component: 'storage', dialect: 'postgres' });
    this.statistics = new StatisticsRefresher(stored, () => this.refreshStatistics(), (e) => statisticsFailed(this.log, e), { changedSinceRefresh: changedSinceAnalyze });
  }

  /** Runs `fn`, mapping driver errors at this edge. */
  private async run<T>(what: string, fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw mapPostgresError(new Error('storage is closed'), what);
    try {
      return await fn();
    } catch (e: unknown) {
      throw mapPostgresError(e, what);
    }
  }

  /**
   * Runs a statement. Unprepared by default: list filters vary, and postgres.js would keep every shape prepared on
   * every connection. But postgres.js describes an unprepared statement with parameters before it binds it, a round
   * trip of its own: an unprepared one goes with its parameters written in as literals (literals.ts), and a statement
   * of one fixed shape (`prepare`) is described once per connection instead.
   */
  private async rows(what: string, q: ReturnType<typeof sql>, prepare = false): Promise<unknown[][]> {
    return this.run(what, async () => {
      if (!prepare) return (await unprepared(this.pool, q).query.values()) as unknown[][];
      const r = postgresQuery.render(q);
      return (await this.pool.unsafe(r.sql, r.params as Param[], { prepare: true }).values()) as unknown[][];
    });
  }

  async migrate(o?: { dryRun?: boolean }): Promise<MigrationPlan> {
    const plan = await migratePostgres(this.pool, this.conn, o?.dryRun === true);
    if (plan.applied.length > 0 && o?.dryRun !== true) this.log.info({ from: plan.from, to: plan.to, applied: plan.applied }, 'schema migrated');
    return plan;
  }

  async write(batch: WriteBatch): Promise<WriteResult> {
    const collapsed = collapseBatch(batch);
    const now = Date.now();
    const plan = await this.run('write', () => inTransaction(this.pool, (tx) => lockAndApplyBatch(tx, collapsed, now, this.fence)));
    const written = plan.upserts.length;
    const deleted = plan.deletes.length;
    if (written + deleted > 0) {
      this.notifier.notify(plan.revision);
      await this.statistics.afterWrite(written + deleted, rowChanges(plan.types));
    }
    return { written, skipped: plan.skipped, deleted, revision: String(plan.revision) };
  }

  /**
   * After a large ingest autovacuum's ANALYZE may lag a minute. The column list skips the JSON columns: sampling
   * 30k objects of ~4 KB for statistics no query uses made each ANALYZE take seconds.
   */
  private async refreshStatistics(): Promise<void> {
    await this.run('analyze', () =>
      this.pool.unsafe('ANALYZE resources (cluster, "group", version, resource, kind, namespace, name, uid, owner_uid, created_at, revision), resource_labels'),
    );
  }

  async cleanCluster(cluster: string): Promise<number> {
    return this.clean(cluster, undefined);
  }

  async cleanResource(cluster: string, type: ResourceType): Promise<number> {
    return this.clean(cluster, type);
  }

  private async clean(cluster: string, type: ResourceType | undefined): Promise<number> {
    const now = Date.now();
    const r = await this.run('clean', () => inTransaction(this.pool, async (tx) => cleanRows(tx, cluster, type, await lockAndReadRevision(tx, this.fence), now)));
    if (r.count > 0) this.notifier.notify(r.revision);
    return r.count;
  }

  async resourceVersions(cluster: string, type: ResourceType): Promise<Map<string, string>> {
    const rows = (await this.run('resourceVersions', () =>
      this.pool.unsafe(`SELECT namespace, name, resource_version FROM resources WHERE "group" = $1 AND version = $2 AND resource = $3 AND cluster = $4`, [
        type.group, type.version, type.resource, cluster,
      ]).values(),
    )) as unknown as [string, string, string][];
    const m = new Map<string, string>();
    for (const [ns, name, rv] of rows) m.set(namespacedName(ns, name), rv);
    return m;
  }

  async putClusterStatus(cluster: string, status: ClusterStatusRecord, o?: { requireRevision?: string }): Promise<boolean> {
    const [r] = await this.run('putClusterStatus', () =>
      this.statusStatement(
        `WITH ${fenceCte(6, 7)}, put AS (
           INSERT INTO cluster_status (cluster, spec, status, updated_at)
           SELECT $1, $2::text::jsonb, $3::text::jsonb, $4
           WHERE (SELECT held FROM fence) AND ($5::bigint IS NULL OR $5::bigint = (SELECT value::bigint FROM meta WHERE key = 'revision')
             OR $5::bigint <= coalesce((SELECT value::bigint FROM meta WHERE key = 'compacted_revision'), 0)
             OR EXISTS (SELECT 1 FROM changes WHERE revision = $5::bigint))
           ON CONFLICT (cluster) DO UPDATE SET spec = excluded.spec, status = excluded.status, updated_at = excluded.updated_at
           RETURNING 1)
         SELECT (SELECT held FROM fence) AS held, EXISTS (SELECT 1 FROM put) AS put`,
        [cluster, JSON.stringify(status.spec), JSON.stringify(status.status), status.updatedAt, o?.requireRevision ?? null, ...this.fenceParams()],
      ),
    );
    this.assertHeld('putClusterStatus', r);
    return (r as { put?: boolean }).put === true;
  }

  async deleteClusterStatus(cluster: string): Promise<void> {
    const [r] = await this.run('deleteClusterStatus', () => this.statusStatement(
      `WITH ${fenceCte(2, 3)}, gone AS (DELETE FROM cluster_status WHERE cluster = $1 AND (SELECT held FROM fence) RETURNING 1)
       SELECT (SELECT held FROM fence) AS held, (SELECT count(*) FROM gone) AS n`,
      [cluster, ...this.fenceParams()],
    ));
    this.assertHeld('deleteClusterStatus', r);
  }

  fenceWrites(fence: WriteFence): void {
    this.fence = { lease: fence.lease, holder: fence.holder };
  }

  /** The lease key and holder fenceCte checks; nulls when writes are not fenced. */
  private fenceParams(): [string | null, string | null] {
    return this.fence ? [`lease:${this.fence.lease}`, this.fence.holder] : [null, null];
  }

  /**
   * A status write's statement (with fenceCte). Not behind WRITE_LOCK, so as not to queue behind the writes; fenced,
   * it runs in a transaction that first takes STATUS_LOCK shared, which a takeover takes exclusively: the statement's
   * snapshot, taken after the lock, sees any takeover that committed, and none commits until it has.
   */
  private async statusStatement(text: string, params: Array<string | null>): Promise<readonly unknown[]> {
    if (!this.fence) return this.pool.unsafe(text, params, { prepare: true });
    return inTransaction(this.pool, async (tx) => {
      const [, rows] = await Promise.all([send(tx, `SELECT pg_advisory_xact_lock_shared(${STATUS_LOCK})`), send(tx, text, params)] as const);
      return rows;
    });
  }

  /** Throws the fenced error when fenceCte found the lease held by another. */
  private assertHeld(what: string, r: unknown): void {
    if ((r as { held?: boolean } | undefined)?.held !== true && this.fence) throw fencedError(what, this.fence.lease);
  }

  // Leases live in `meta` as `lease:<name>` → {"holder","expiresAt"}, timed by the server's clock (replicas on
  // different machines must agree on expiry).
  async tryAcquireLease(name: string, holder: string, ttlMs: number): Promise<boolean> {
    const key = `lease:${name}`;
    const args = [key, holder, String(Math.round(ttlMs))];
    return this.run('tryAcquireLease', async () => {
      // Renewal by the holder: one statement, never queued behind writes in flight (they are the holder's own).
      if ((await this.pool.unsafe(
        `UPDATE meta SET value = json_build_object('holder', $2::text, 'expiresAt', (extract(epoch FROM clock_timestamp()) * 1000)::bigint + $3::bigint)::text
         WHERE key = $1 AND (value::jsonb ->> 'holder') = $2::text RETURNING key`, args)).length === 1) return true;
      // Held by another and not expired: no need to queue for the write lock to hear no.
      const [cur] = await this.pool.unsafe(
        `SELECT (value::jsonb ->> 'holder') <> '' AND (value::jsonb ->> 'expiresAt')::bigint >= (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS held
         FROM meta WHERE key = $1`, [key]);
      if ((cur as { held?: boolean } | undefined)?.held === true) return false;
      // A takeover (Storage.fenceWrites): behind WRITE_LOCK and STATUS_LOCK, so a write or status write of the
      // previous holder in flight commits before the lease changes hands, and each one after sees the new holder and
      // writes nothing.
      return inTransaction(this.pool, async (tx) => {
        // Sent together, run in this order: the statement's snapshot is taken once both locks are held.
        const [, , rows] = await Promise.all([
          send(tx, `SELECT pg_advisory_xact_lock(${WRITE_LOCK})`),
          send(tx, `SELECT pg_advisory_xact_lock(${STATUS_LOCK})`),
          send(
            tx,
            `WITH now AS (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms)
             INSERT INTO meta (key, value) SELECT $1, json_build_object('holder', $2::text, 'expiresAt', now.ms + $3::bigint)::text FROM now
             ON CONFLICT (key) DO UPDATE SET value = excluded.value
             WHERE (meta.value::jsonb ->> 'holder') = $2::text OR (meta.value::jsonb ->> 'expiresAt')::bigint < (SELECT ms FROM now)
             RETURNING key`,
            args,
          ),
        ] as const);
        return rows.length === 1;
      });
    });
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    await this.run('releaseLease', () => this.pool.unsafe(
      `UPDATE meta SET value = '{"holder":"","expiresAt":0}' WHERE key = $1 AND (value::jsonb ->> 'holder') = $2::text`, [`lease:${name}`, holder]));
  }

  async get(key: { cluster: string; group: string; version: string; resource: string; namespace: string; name: string }): Promise<StoredRow | undefined> {
    const c = resourceColumns('r');
    const rows = await this.rows(
      'get',
      sql`SELECT ${rowColumns(postgresQuery, { ...c, uid: sql.raw('r.uid'), revision: sql.raw('r.revision') })} FROM resources r
        WHERE r."group" = ${key.group} AND r.version = ${key.version} AND r.resource = ${key.resource} AND r.cluster = ${key.cluster} AND r.namespace = ${key.namespace} AND r.name = ${key.name}`,
      true,
    );
    return rows[0] ? toStoredRow(rows[0]) : undefined;
  }

  async involvedEvents(cluster: string, uids: readonly string[]): Promise<Map<string, string[]>> {
    if (uids.length === 0) return new Map();
    return groupInvolvedEvents(await this.rows('involvedEvents', involvedEventsQuery(postgresQuery, cluster, uids)));
  }

  async list(query: ListQuery, signal?: AbortSignal): Promise<ListPage> {
    const st = await planList(postgresQuery, query, (q) => this.rows('list', q));
    const first = firstRead(st);
    const snap = await this.run('list', () => PgSnapshot.open(this.pool, first ? { first } : {}));
    return readPage(snap, st, signal);
  }

  /**
   * A page read at once (a limit of 1–1000 rows) with its objects as the bytes received, so the apiserver sends it in
   * one writev with a content-length rather than 500 strings one write at a time. Unlimited lists stream instead.
   */
  async listJoined(query: ListQuery, signal?: AbortSignal): Promise<JoinedPage | undefined> {
    if (!readAtOnce(query.limit) || query.keysOnly) return undefined;
    return joinRows(await this.list({ ...query, objectBytes: true }, signal));
  }

  async changesSince(revision: string, filter: WatchFilter, limit: number): Promise<ChangesResult> {
    const after = Number(revision);
    const n = Math.max(1, Math.floor(limit));
    if (!Number.isSafeInteger(after)) return { expired: true, oldestRevision: String(await this.compactedRevision()) };
    // One statement, so the head and the entries come from one snapshot; LATERAL still yields the head when no
    // entry matches (the watcher then moves to the head past entries it filtered out).
    const inner = changesQuery(postgresQuery, filter, after, sql.raw('m.head'), n);
    const rows = await this.rows(
      'changesSince',
      sql`SELECT m.head, m.compacted, m.known, x.* FROM (SELECT h.head, h.compacted, ${revisionKnown(after, sql.raw('h.head'), sql.raw('h.compacted'))} AS known
        FROM ${HEAD_AND_COMPACTED} h) m
        LEFT JOIN LATERAL (${inner}) x ON TRUE`,
    );
    const head = Number(headRevisionOf(rows[0]?.[0]));
    const compacted = Number(rows[0]?.[1] ?? 0);
    if (after < compacted || after > head) return { expired: true, oldestRevision: String(compacted) };
    if (rows[0]?.[2] !== true) return { expired: true, oldestRevision: String(compacted), lost: true };
    const changes = rows.filter((r) => r[3] !== null).map((r) => toChange(r.slice(3)));
    const last = changes.length >= n ? changes[changes.length - 1]?.revision : undefined;
    return { expired: false, changes, revision: last ?? String(head) };
  }

  async changedBetween(after: string, upTo: string, filter: KeyFilter): Promise<ChangedResult> {
    const from = Number(after);
    if (!Number.isSafeInteger(from)) return { expired: true, oldestRevision: String(await this.compactedRevision()) };
    // One statement: the compacted revision and the entries from one snapshot.
    const rows = await this.rows('changedBetween', sql`SELECT h.compacted, EXISTS (${changedQuery(postgresQuery, filter, from, Number(upTo))}), ${revisionKnown(from, sql.raw('h.head'), sql.raw('h.compacted'))}
      FROM ${HEAD_AND_COMPACTED} h`);
    const compacted = Number(rows[0]?.[0] ?? 0);
    if (from < compacted) return { expired: true, oldestRevision: String(compacted) };
    if (rows[0]?.[2] !== true) return { expired: true, oldestRevision: String(compacted), lost: true };
    return { expired: false, changed: rows[0]?.[1] === true };
  }

  async selectorHistory(after: string, upTo: string, filter: KeyFilter, limit: number): Promise<SelectorHistoryResult> {
    const from = Number(after);
    const n = Math.max(1, Math.floor(limit));
    if (!Number.isSafeInteger(from)) return { expired: true, oldestRevision: String(await this.compactedRevision()) };
    // One statement, as changesSince: the compacted revision and the entries from one snapshot.
    const rows = await this.rows('selectorHistory', sql`SELECT h.compacted, ${revisionKnown(from, sql.raw('h.head'), sql.raw('h.compacted'))}, x.*
      FROM ${HEAD_AND_COMPACTED} h LEFT JOIN LATERAL (${selectorHistoryQuery(postgresQuery, filter, from, Number(upTo), n)}) x ON TRUE`);
    const compacted = Number(rows[0]?.[0] ?? 0);
    if (from < compacted) return { expired: true, oldestRevision: String(compacted) };
    if (rows[0]?.[1] !== true) return { expired: true, oldestRevision: String(compacted), lost: true };
    const entries = rows.filter((r) => r[2] !== null).map((r) => toSelectorHistoryEntry(r.slice(2)));
    return { expired: false, entries, revision: entries.length >= n ? entries[entries.length - 1]!.revision : upTo };
  }

  private async compactedRevision(): Promise<number> {
    const r = await this.rows('changesSince', sql`SELECT value FROM meta WHERE key = 'compacted_revision'`);
    return Number(r[0]?.[0] ?? 0);
  }

  async currentRevision(): Promise<string> {
    const r = await this.rows('currentRevision', HEAD_REVISION);
    return headRevisionOf(r[0]?.[0]);
  }

  async resourceTypes(): Promise<StoredResourceType[]> {
    const rows = (await this.rows('resourceTypes', sql`SELECT cluster, "group", version, resource, kind, namespaced FROM resource_types ORDER BY cluster, "group", version, resource`)) as [
      string, string, string, string, string, boolean,
    ][];
    return rows.map(([cluster, group, version, resource, kind, namespaced]) => ({ cluster, group, version, resource, kind, namespaced }));
  }

  async counts(): Promise<{ cluster: string; group: string; version: string; resource: string; count: number; bytes: number }[]> {
    const rows = (await this.rows('counts', sql`SELECT cluster, "group", version, resource, count, bytes FROM resource_types ORDER BY cluster, "group", version, resource`)) as [
      string, string, string, string, string, string,
    ][];
    return rows.map(([cluster, group, version, resource, count, bytes]) => ({ cluster, group, version, resource, count: Number(count), bytes: Number(bytes) }));
  }

  async clusterStatuses(): Promise<Map<string, ClusterStatusRecord>> {
    const rows = (await this.rows('clusterStatuses', sql`SELECT cluster, spec::text, status::text, updated_at FROM cluster_status ORDER BY cluster`)) as [string, string, string, string][];
    return new Map(rows.map(([cluster, spec, status, updatedAt]) => [cluster, { spec: JSON.parse(spec) as Record<string, unknown>, status: JSON.parse(status) as Record<string, unknown>, updatedAt }]));
  }

  async ping(): Promise<void> {
    await this.run('ping', () => this.pool.unsafe('SELECT 1 FROM meta LIMIT 1'));
  }

  subscribe(listener: (revision: string) => void): () => void {
    // LISTEN on first use only: a process that never watches holds no extra connection.
    this.listening ??= this.pool
      .listen(CHANNEL, (payload) => this.notifier.notify(Number(payload)))
      .catch((e: unknown) => {
        // Watchers also poll: without notifications they are only slower to wake.
        this.log.warn({ err: mapPostgresError(e, 'listen') }, 'LISTEN failed; watchers fall back to polling');
        this.listening = undefined;
        return undefined;
      });
    return this.notifier.subscribe(listener);
  }

  async bumpRevision(above: string): Promise<void> {
    await this.run('bumpRevision', () =>
      inTransaction(this.pool, async (tx) => {
        const head = await lockAndReadRevision(tx);
        const next = Math.max(head, Number(above)) + 1;
        await tx.unsafe(`DELETE FROM changes`);
        await setMeta(tx, 'revision', next);
        await setMeta(tx, 'compacted_revision', next);
      }),
    );
  }

  async advanceRevision(to: string): Promise<string> {
    return this.run('advanceRevision', () =>
      inTransaction(this.pool, async (tx) => {
        const head = await lockAndReadRevision(tx);
        if (Number(to) > head) {
          await setMeta(tx, 'revision', Number(to));
          // The jump's mark (REVISION_MARK): the target is a revision clients may hold, though no object changed at it.
          await tx.unsafe(
            `INSERT INTO changes (revision, resource_id, cluster, "group", version, resource, namespace, name, type, created_at, time) VALUES ($1, 0, '', '', '', '', '', '', $2, 0, $3)`,
            [Number(to), REVISION_MARK, Date.now()],
          );
        }
        return String(head);
      }),
    );
  }

  async compact(): Promise<void> {
    const keep = this.opts.changeLogRevisions ?? DEFAULT_CHANGE_LOG_REVISIONS;
    const cutoffTime = Date.now() - (this.opts.changeLogMaxAgeMs ?? DEFAULT_CHANGE_LOG_MAX_AGE_MS);
    await this.run('compact', () =>
      inTransaction(this.pool, async (tx) => {
        const head = await lockAndReadRevision(tx);
        // Counted in entries, not revisions: the revision jumps when a synchro starts (advanceRevision).
        const r = await tx.unsafe(
          `SELECT coalesce((SELECT value::bigint FROM meta WHERE key = 'compacted_revision'), 0) AS compacted, coalesce((SELECT max(revision) FROM changes WHERE time < $1), 0) AS by_age,
             coalesce((SELECT revision FROM changes WHERE type <> $3 ORDER BY revision DESC LIMIT 1 OFFSET $2), 0) AS by_count`,
          [cutoffTime, keep, REVISION_MARK],
        );
        const row = r[0] as unknown as { compacted: string; by_age: string; by_count: string };
        const compacted = Number(row.compacted);
        // Everything at or below the cutoff goes, so "revision > compacted" is exactly what the log still holds.
        const cutoff = Math.min(head, Math.max(compacted, Number(row.by_count), Number(row.by_age)));
        if (cutoff <= compacted) return;
        await tx.unsafe(`DELETE FROM changes WHERE revision <= $1`, [cutoff]);
        await setMeta(tx, 'compacted_revision', cutoff);
      }),
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.statistics.close();
    this.notifier.clear();
    // In-flight queries get 2 s; a connection postgres.js lost mid-query would otherwise hold close() for the whole timeout.
    await this.pool.end({ timeout: 2 });
  }
}

// The PostgreSQL write path: a handful of set-based statements per chunk of rows, never a round trip per row.
import type postgres from 'postgres';
import { rowKeyString, type RowKey } from '../key.js';
import { parseLabelsJson, stampRevision } from '../object-columns.js';
import { fencedError } from '../errors.js';
import type { ResourceType, WriteFence } from '../types.js';
import { planWrite, prevSelectable, type CollapsedBatch, type ExistingRow, type PlannedUpsert, type WritePlan } from '../write-plan.js';
import type { Tx } from './transaction.js';

type Param = postgres.ParameterOrJSON<never>;

/** Rows per multi-row INSERT: ~16 parameters each, far below the 65,535-parameter limit; measured sweet spot 500–1000. */
const ROWS_PER_STATEMENT = 500;
/** Keys per existence lookup. */
const KEYS_PER_LOOKUP = 1000;

/**
 * Serialises every write transaction (pg_advisory_xact_lock, released at commit): revisions are taken from the
 * meta counter under this lock, so revision N+1 can never become visible before N — watchers read "everything
 * up to the head" without gaps.
 */
export const WRITE_LOCK = 0x636c7573; // "clus"

/**
 * Orders cluster status writes (one statement each, outside WRITE_LOCK) with lease takeovers: a fenced status write
 * takes it shared before its statement, a takeover exclusively, so the lease cannot change hands between a status
 * write's fence check and its commit.
 */
export const STATUS_LOCK = 0x63737473; // "csts"

/**
 * Takes WRITE_LOCK and reads the revision. With `fence` (Storage.fenceWrites), in the same statement, fails unless
 * its holder holds the lease: a takeover takes WRITE_LOCK too (tryAcquireLease), so the lease cannot change hands
 * before this transaction ends. Expiry is not looked at: an expired lease still ours was taken by nobody.
 */
export async function lockAndReadRevision(tx: Tx, fence?: WriteFence): Promise<number> {
  await tx.unsafe('SELECT pg_advisory_xact_lock($1)', [WRITE_LOCK]);
  const r = await tx.unsafe(
    `SELECT (SELECT value FROM meta WHERE key = 'revision') AS value, (SELECT value::jsonb ->> 'holder' FROM meta WHERE key = $1) AS holder`,
    [fence ? `lease:${fence.lease}` : ''],
    { prepare: true },
  );
  const row = r[0] as { value?: string | null; holder?: string | null } | undefined;
  if (fence !== undefined && row?.holder !== fence.holder) throw fencedError('write', fence.lease);
  return Number(row?.value ?? 0);
}

export async function setMeta(tx: Tx, key: string, value: number): Promise<void> {
  await tx.unsafe(`INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [key, String(value)]);
}

function chunks<T>(xs: T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

async function lookupExisting(tx: Tx, keys: RowKey[]): Promise<Map<string, ExistingRow>> {
  const out = new Map<string, ExistingRow>();
  for (const part of chunks(keys, KEYS_PER_LOOKUP)) {
    const cols = (f: (k: RowKey) => string): string[] => part.map(f);
    const rows = await tx.unsafe(
      `SELECT r.id, r.resource_version, r.size, r.labels::text AS labels, r.fields::text AS fields, r.cluster, r."group", r.version, r.resource, r.namespace, r.name
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS k(g, v, res, cl, ns, nm)
       JOIN resources r ON r."group" = k.g AND r.version = k.v AND r.resource = k.res AND r.cluster = k.cl AND r.namespace = k.ns AND r.name = k.nm`,
      [cols((k) => k.group), cols((k) => k.version), cols((k) => k.resource), cols((k) => k.cluster), cols((k) => k.namespace), cols((k) => k.name)] as Param[],
    );
    for (const r of rows as unknown as (RowKey & { id: string; resource_version: string; size: string; labels: string; fields: string | null })[]) {
      out.set(rowKeyString(r), { id: Number(r.id), resourceVersion: r.resource_version, size: Number(r.size), labels: r.labels, fields: r.fields });
    }
  }
  return out;
}

const UPSERT_COLUMNS = 17;

async function upsertRows(tx: Tx, rows: PlannedUpsert[], now: number): Promise<Map<number, number>> {
  const ids = new Map<number, number>();
  for (const part of chunks(rows, ROWS_PER_STATEMENT)) {
    const params: Param[] = [];
    const values = part.map((u, i) => {
      const c = u.cols;
      params.push(c.cluster, c.group, c.version, c.resource, c.kind, c.namespace, c.name, c.uid, c.ownerUid, c.memberRv, u.revision, c.createdAt, now, u.size, c.labelsJson, c.fieldsJson, stampRevision(u.template, u.revision));
      const b = i * UPSERT_COLUMNS;
      const p = (k: number): string => `$${b + k}`;
      // json parameters go in as text and are cast: a string bound as json would be stored as a JSON string.
      return `(${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}, ${p(8)}, ${p(9)}, ${p(10)}, ${p(11)}::bigint, ${p(12)}::bigint, ${p(13)}::bigint, ${p(14)}::bigint, ${p(15)}::text::json, ${p(16)}::text::json, ${p(17)}::text::json)`;
    });
    const res = await tx.unsafe(
      `INSERT INTO resources (cluster, "group", version, resource, kind, namespace, name, uid, owner_uid, resource_version, revision, created_at, synced_at, size, labels, fields, object)
       VALUES ${values.join(', ')}
       ON CONFLICT ("group", version, resource, cluster, namespace, name) DO UPDATE SET kind = excluded.kind, uid = excluded.uid, owner_uid = excluded.owner_uid,
         resource_version = excluded.resource_version, revision = excluded.revision, created_at = excluded.created_at, synced_at = excluded.synced_at,
         size = excluded.size, labels = excluded.labels, fields = excluded.fields, object = excluded.object
       RETURNING id, revision`,
      params,
      // Full chunks repeat the same text: prepare those; a remainder shape is one-off.
      { prepare: part.length === ROWS_PER_STATEMENT },
    );
    // Revisions are unique within the batch: they tell which returned id belongs to which row.
    for (const r of res as unknown as { id: string; revision: string }[]) ids.set(Number(r.revision), Number(r.id));
  }
  return ids;
}

async function insertLabels(tx: Tx, pairs: [string, string, number][]): Promise<void> {
  for (const part of chunks(pairs, 5000)) {
    await tx.unsafe(`INSERT INTO resource_labels (key, value, resource_id) SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])`, [
      part.map((p) => p[0]), part.map((p) => p[1]), part.map((p) => p[2]),
    ] as Param[]);
  }
}

async function deleteLabels(tx: Tx, pairs: [string, string, number][]): Promise<void> {
  for (const part of chunks(pairs, 5000)) {
    await tx.unsafe(
      `DELETE FROM resource_labels l USING unnest($1::text[], $2::text[], $3::bigint[]) AS x(k, v, id) WHERE l.key = x.k AND l.value = x.v AND l.resource_id = x.id`,
      [part.map((p) => p[0]), part.map((p) => p[1]), part.map((p) => p[2])] as Param[],
    );
  }
}

/** Plans and applies one collapsed batch inside `tx` (which must hold WRITE_LOCK: lockAndReadRevision). */
export async function applyBatch(tx: Tx, batch: CollapsedBatch, revision: number, now: number): Promise<WritePlan> {
  const plan = planWrite(batch, await lookupExisting(tx, batch.keys), revision);
  if (plan.upserts.length === 0 && plan.deletes.length === 0) return plan;

  const ids = await upsertRows(tx, plan.upserts, now);
  const addLabels: [string, string, number][] = [];
  const dropLabels: [string, string, number][] = [];
  for (const u of plan.upserts) {
    const id = ids.get(u.revision) as number;
    if (u.old?.labels === u.cols.labelsJson) continue; // a status update: label rows stay
    if (u.old !== undefined) for (const [k, v] of parseLabelsJson(u.old.labels)) dropLabels.push([k, v, id]);
    for (const [k, v] of u.cols.labels) addLabels.push([k, v, id]);
  }
  for (const d of plan.deletes) for (const [k, v] of parseLabelsJson(d.labels)) dropLabels.push([k, v, d.id]);
  await deleteLabels(tx, dropLabels);
  await insertLabels(tx, addLabels);

  for (const part of chunks(plan.upserts, 5000)) {
    const col = <T>(f: (u: PlannedUpsert) => T): T[] => part.map(f);
    const prev = part.map(prevSelectable);
    await tx.unsafe(
      `INSERT INTO changes (revision, resource_id, cluster, "group", version, resource, namespace, name, type, created_at, time, prev_labels, prev_fields)
       SELECT x.rev, x.id, x.cl, x.g, x.v, x.res, x.ns, x.nm, x.t, x.ca, $11::bigint, x.pl::json, x.pf::json
       FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::bigint[], $12::text[], $13::text[])
         AS x(rev, id, cl, g, v, res, ns, nm, t, ca, pl, pf)`,
      [
        col((u) => u.revision), col((u) => ids.get(u.revision) as number), col((u) => u.cols.cluster), col((u) => u.cols.group), col((u) => u.cols.version),
        col((u) => u.cols.resource), col((u) => u.cols.namespace), col((u) => u.cols.name), col((u) => (u.old === undefined ? 'ADDED' : 'MODIFIED')), col((u) => u.cols.createdAt), now,
        prev.map(([labels]) => labels), prev.map(([, fields]) => fields),
      ] as Param[],
    );
  }
  for (const part of chunks(plan.deletes, 5000)) {
    // One statement: the DELETED entries (last state, resourceVersion = the deletion's revision) and the deletion.
    // Both parts of a data-modifying WITH read the same snapshot, so the INSERT sees the rows being deleted.
    await tx.unsafe(
      `WITH x AS (SELECT * FROM unnest($1::bigint[], $2::bigint[]) AS x(id, rev)),
       logged AS (
         INSERT INTO changes (revision, resource_id, cluster, "group", version, resource, namespace, name, type, created_at, time, object, prev_labels, prev_fields)
         SELECT x.rev, r.id, r.cluster, r."group", r.version, r.resource, r.namespace, r.name, 'DELETED', r.created_at, $3::bigint,
                jsonb_set(r.object::jsonb, '{metadata,resourceVersion}', to_jsonb(x.rev::text))::json, r.labels, r.fields
         FROM resources r JOIN x ON r.id = x.id)
       DELETE FROM resources r USING x WHERE r.id = x.id`,
      [part.map((d) => d.id), part.map((d) => d.revision), now] as Param[],
    );
  }
  if (plan.types.length > 0) {
    const t = plan.types;
    // Booleans travel as text: postgres.js types a JS boolean array as a scalar boolean parameter.
    await tx.unsafe(
      `INSERT INTO resource_types (cluster, "group", version, resource, kind, namespaced, count, bytes)
       SELECT cl, g, v, res, k, ns::boolean, n, b FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[]) AS x(cl, g, v, res, k, ns, n, b)
       ON CONFLICT (cluster, "group", version, resource) DO UPDATE SET count = resource_types.count + excluded.count, bytes = resource_types.bytes + excluded.bytes,
         kind = CASE WHEN excluded.kind <> '' THEN excluded.kind ELSE resource_types.kind END, namespaced = resource_types.namespaced OR excluded.namespaced`,
      [t.map((x) => x.cluster), t.map((x) => x.group), t.map((x) => x.version), t.map((x) => x.resource), t.map((x) => x.kind), t.map((x) => String(x.namespaced)), t.map((x) => x.count), t.map((x) => x.bytes)] as Param[],
    );
  }
  await setMeta(tx, 'revision', plan.revision);
  // Delivered at commit, in commit order: apiservers in other processes wake up and read the change log.
  await tx.unsafe(`SELECT pg_notify('clusterpedia_revision', $1)`, [String(plan.revision)]);
  return plan;
}

/** cleanCluster / cleanResource: DELETED entries with the last state, label rows, rows and type rows, set-based. */
export async function cleanRows(tx: Tx, cluster: string, type: ResourceType | undefined, revision: number, now: number): Promise<{ count: number; revision: number }> {
  const where = type ? `r.cluster = $1 AND r."group" = $2 AND r.version = $3 AND r.resource = $4` : `r.cluster = $1`;
  const args: string[] = type ? [cluster, type.group, type.version, type.resource] : [cluster];
  const n = args.length;
  const logged = await tx.unsafe(
    `INSERT INTO changes (revision, resource_id, cluster, "group", version, resource, namespace, name, type, created_at, time, object, prev_labels, prev_fields)
     SELECT $${n + 1}::bigint + rn, id, cluster, "group", version, resource, namespace, name, 'DELETED', created_at, $${n + 2}::bigint,
            jsonb_set(object::jsonb, '{metadata,resourceVersion}', to_jsonb(($${n + 1}::bigint + rn)::text))::json, labels, fields
     FROM (SELECT row_number() OVER (ORDER BY r.id) AS rn, r.* FROM resources r WHERE ${where}) s`,
    [...args, revision, now] as Param[],
  );
  const count = logged.count;
  await tx.unsafe(
    `DELETE FROM resource_labels l USING resources r, json_each_text(r.labels) j WHERE ${where} AND l.key = j.key AND l.value = j.value AND l.resource_id = r.id`,
    args,
  );
  await tx.unsafe(`DELETE FROM resources r WHERE ${where}`, args);
  await tx.unsafe(`DELETE FROM resource_types r WHERE ${where}`, args);
  if (count > 0) {
    await setMeta(tx, 'revision', revision + count);
    await tx.unsafe(`SELECT pg_notify('clusterpedia_revision', $1)`, [String(revision + count)]);
  }
  return { count, revision: revision + count };
}

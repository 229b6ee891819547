// The PostgreSQL write path: a handful of set-based statements per chunk of rows, never a round trip per row.
import type postgres from 'postgres';
import { rowKeyString, type RowKey } from '../key.js';
import { parseLabelsJson, stampRevision } from '../object-columns.js';
import { fencedError } from '../errors.js';
import type { ResourceType, WriteFence } from '../types.js';
import { planWrite, prevSelectable, type CollapsedBatch, type ExistingRow, type PlannedUpsert, type WritePlan } from '../write-plan.js';
import { send, type Rows, type Tx } from './transaction.js';

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

/** WRITE_LOCK taken, then, once it is held, the revision and the fence holder read: two statements, one round trip. */
function sendLockAndRevision(tx: Tx, fence?: WriteFence): [Promise<Rows>, Promise<Rows>] {
  return [
    send(tx, `SELECT pg_advisory_xact_lock(${WRITE_LOCK})`),
    send(tx, `SELECT (SELECT value FROM meta WHERE key = 'revision') AS value, (SELECT value::jsonb ->> 'holder' FROM meta WHERE key = $1) AS holder`, [
      fence ? `lease:${fence.lease}` : '',
    ]),
  ];
}

function revisionOf(rows: Rows, fence?: WriteFence): number {
  const row = rows[0] as { value?: string | null; holder?: string | null } | undefined;
  if (fence !== undefined && row?.holder !== fence.holder) throw fencedError('write', fence.lease);
  return Number(row?.value ?? 0);
}

/**
 * Takes WRITE_LOCK and reads the revision. With `fence` (Storage.fenceWrites), in the same round trip, fails unless
 * its holder holds the lease: a takeover takes WRITE_LOCK too (tryAcquireLease), so the lease cannot change hands
 * before this transaction ends. Expiry is not looked at: an expired lease still ours was taken by nobody.
 */
export async function lockAndReadRevision(tx: Tx, fence?: WriteFence): Promise<number> {
  const [, rows] = await Promise.all(sendLockAndRevision(tx, fence));
  return revisionOf(rows, fence);
}

/** Sent now (send): awaited on its own, or with the statements sent beside it. */
export function setMeta(tx: Tx, key: string, value: number): Promise<Rows> {
  return send(tx, `INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [key, String(value)]);
}

function chunks<T>(xs: T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

/**
 * Chunks of at most `max` rows, a remainder cut in powers of two: every statement has one of a few shapes, each
 * prepared once per connection (37 rows go as 32 + 4 + 1).
 */
function shapedChunks<T>(xs: T[], max: number): T[][] {
  const out: T[][] = [];
  let i = 0;
  for (; xs.length - i >= max; i += max) out.push(xs.slice(i, i + max));
  for (let n = 2 ** Math.floor(Math.log2(max)); n >= 1 && i < xs.length; n /= 2) {
    if (xs.length - i >= n) {
      out.push(xs.slice(i, i + n));
      i += n;
    }
  }
  return out;
}

/** The stored rows of `keys`, by rowKeyString: the lookups sent now, read when awaited. */
function sendLookupExisting(tx: Tx, keys: RowKey[]): Promise<Map<string, ExistingRow>> {
  const sent = chunks(keys, KEYS_PER_LOOKUP).map((part) => {
    const cols = (f: (k: RowKey) => string): string[] => part.map(f);
    return send(
      tx,
      `SELECT r.id, r.resource_version, r.size, r.labels::text AS labels, r.fields::text AS fields, r.cluster, r."group", r.version, r.resource, r.namespace, r.name
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS k(g, v, res, cl, ns, nm)
       JOIN resources r ON r."group" = k.g AND r.version = k.v AND r.resource = k.res AND r.cluster = k.cl AND r.namespace = k.ns AND r.name = k.nm`,
      [cols((k) => k.group), cols((k) => k.version), cols((k) => k.resource), cols((k) => k.cluster), cols((k) => k.namespace), cols((k) => k.name)] as Param[],
    );
  });
  return Promise.all(sent).then((results) => {
    const out = new Map<string, ExistingRow>();
    for (const rows of results) {
      for (const r of rows as unknown as (RowKey & { id: string; resource_version: string; size: string; labels: string; fields: string | null })[]) {
        out.set(rowKeyString(r), { id: Number(r.id), resourceVersion: r.resource_version, size: Number(r.size), labels: r.labels, fields: r.fields });
      }
    }
    return out;
  });
}

const UPSERT_COLUMNS = 17;

/** The upserts, pipelined; resolves to each row's id by its revision (unique within the batch). */
function sendUpsertRows(tx: Tx, rows: PlannedUpsert[], now: number): Promise<Map<number, number>> {
  const sent = shapedChunks(rows, ROWS_PER_STATEMENT).map((part) => {
    const params: Param[] = [];
    const values = part.map((u, i) => {
      const c = u.cols;
      params.push(c.cluster, c.group, c.version, c.resource, c.kind, c.namespace, c.name, c.uid, c.ownerUid, c.memberRv, u.revision, c.createdAt, now, u.size, c.labelsJson, c.fieldsJson, stampRevision(u.template, u.revision));
      const b = i * UPSERT_COLUMNS;
      const p = (k: number): string => `$${b + k}`;
      // json parameters go in as text and are cast: a string bound as json would be stored as a JSON string.
      return `(${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}, ${p(8)}, ${p(9)}, ${p(10)}, ${p(11)}::bigint, ${p(12)}::bigint, ${p(13)}::bigint, ${p(14)}::bigint, ${p(15)}::text::json, ${p(16)}::text::json, ${p(17)}::text::json)`;
    });
    return send(
      tx,
      `INSERT INTO resources (cluster, "group", version, resource, kind, namespace, name, uid, owner_uid, resource_version, revision, created_at, synced_at, size, labels, fields, object)
       VALUES ${values.join(', ')}
       ON CONFLICT ("group", version, resource, cluster, namespace, name) DO UPDATE SET kind = excluded.kind, uid = excluded.uid, owner_uid = excluded.owner_uid,
         resource_version = excluded.resource_version, revision = excluded.revision, created_at = excluded.created_at, synced_at = excluded.synced_at,
         size = excluded.size, labels = excluded.labels, fields = excluded.fields, object = excluded.object
       RETURNING id, revision`,
      params,
    );
  });
  return Promise.all(sent).then((results) => {
    const ids = new Map<number, number>();
    for (const res of results) for (const r of res as unknown as { id: string; revision: string }[]) ids.set(Number(r.revision), Number(r.id));
    return ids;
  });
}

const INSERT_LABELS = `INSERT INTO resource_labels (key, value, resource_id) SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])`;
const DELETE_LABELS = `DELETE FROM resource_labels l USING unnest($1::text[], $2::text[], $3::bigint[]) AS x(k, v, id) WHERE l.key = x.k AND l.value = x.v AND l.resource_id = x.id`;

/** `statement` (INSERT_LABELS or DELETE_LABELS) over (key, value, resource id) pairs, 5,000 a statement. */
function sendLabelPairs(tx: Tx, statement: string, pairs: [string, string, number][]): Promise<Rows>[] {
  return chunks(pairs, 5000).map((part) => send(tx, statement, [part.map((p) => p[0]), part.map((p) => p[1]), part.map((p) => p[2])] as Param[]));
}

/**
 * Plans and applies one collapsed batch, under WRITE_LOCK: taken here, with the revision, the fence check and the
 * lookup of the batch's stored rows sent behind it (one round trip). Then the upserts (one round trip: the label and
 * change-log rows need their ids), then everything else at once.
 */
export async function lockAndApplyBatch(tx: Tx, batch: CollapsedBatch, now: number, fence?: WriteFence): Promise<WritePlan> {
  const [, rows, existing] = await Promise.all([...sendLockAndRevision(tx, fence), sendLookupExisting(tx, batch.keys)] as const);
  return applyPlanned(tx, batch, existing, revisionOf(rows, fence), now);
}

/** Plans and applies one collapsed batch inside `tx` (which must hold WRITE_LOCK: lockAndReadRevision). */
export async function applyBatch(tx: Tx, batch: CollapsedBatch, revision: number, now: number): Promise<WritePlan> {
  return applyPlanned(tx, batch, await sendLookupExisting(tx, batch.keys), revision, now);
}

async function applyPlanned(tx: Tx, batch: CollapsedBatch, existing: Map<string, ExistingRow>, revision: number, now: number): Promise<WritePlan> {
  const plan = planWrite(batch, existing, revision);
  if (plan.upserts.length === 0 && plan.deletes.length === 0) return plan;

  const ids = await sendUpsertRows(tx, plan.upserts, now);
  const addLabels: [string, string, number][] = [];
  const dropLabels: [string, string, number][] = [];
  for (const u of plan.upserts) {
    const id = ids.get(u.revision) as number;
    if (u.old?.labels === u.cols.labelsJson) continue; // a status update: label rows stay
    if (u.old !== undefined) for (const [k, v] of parseLabelsJson(u.old.labels)) dropLabels.push([k, v, id]);
    for (const [k, v] of u.cols.labels) addLabels.push([k, v, id]);
  }
  for (const d of plan.deletes) for (const [k, v] of parseLabelsJson(d.labels)) dropLabels.push([k, v, d.id]);
  // From here on nothing waits for an answer: the statements go in this order, and are awaited together.
  const sent: Promise<unknown>[] = [...sendLabelPairs(tx, DELETE_LABELS, dropLabels), ...sendLabelPairs(tx, INSERT_LABELS, addLabels)];

  for (const part of chunks(plan.upserts, 5000)) {
    const col = <T>(f: (u: PlannedUpsert) => T): T[] => part.map(f);
    const prev = part.map(prevSelectable);
    sent.push(send(
      tx,
      `INSERT INTO changes (revision, resource_id, cluster, "group", version, resource, namespace, name, type, created_at, time, prev_labels, prev_fields)
       SELECT x.rev, x.id, x.cl, x.g, x.v, x.res, x.ns, x.nm, x.t, x.ca, $11::bigint, x.pl::json, x.pf::json
       FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::bigint[], $12::text[], $13::text[])
         AS x(rev, id, cl, g, v, res, ns, nm, t, ca, pl, pf)`,
      [
        col((u) => u.revision), col((u) => ids.get(u.revision) as number), col((u) => u.cols.cluster), col((u) => u.cols.group), col((u) => u.cols.version),
        col((u) => u.cols.resource), col((u) => u.cols.namespace), col((u) => u.cols.name), col((u) => (u.old === undefined ? 'ADDED' : 'MODIFIED')), col((u) => u.cols.createdAt), now,
        prev.map(([labels]) => labels), prev.map(([, fields]) => fields),
      ] as Param[],
    ));
  }
  for (const part of chunks(plan.deletes, 5000)) {
    // One statement: the DELETED entries (last state, resourceVersion = the deletion's revision) and the deletion.
    // Both parts of a data-modifying WITH read the same snapshot, so the INSERT sees the rows being deleted.
    sent.push(send(
      tx,
      `WITH x AS (SELECT * FROM unnest($1::bigint[], $2::bigint[]) AS x(id, rev)),
       logged AS (
         INSERT INTO changes (revision, resource_id, cluster, "group", version, resource, namespace, name, type, created_at, time, object, prev_labels, prev_fields)
         SELECT x.rev, r.id, r.cluster, r."group", r.version, r.resource, r.namespace, r.name, 'DELETED', r.created_at, $3::bigint,
                jsonb_set(r.object::jsonb, '{metadata,resourceVersion}', to_jsonb(x.rev::text))::json, r.labels, r.fields
         FROM resources r JOIN x ON r.id = x.id)
       DELETE FROM resources r USING x WHERE r.id = x.id`,
      [part.map((d) => d.id), part.map((d) => d.revision), now] as Param[],
    ));
  }
  if (plan.types.length > 0) {
    const t = plan.types;
    // Booleans travel as text: postgres.js types a JS boolean array as a scalar boolean parameter.
    sent.push(send(
      tx,
      `INSERT INTO resource_types (cluster, "group", version, resource, kind, namespaced, count, bytes)
       SELECT cl, g, v, res, k, ns::boolean, n, b FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[]) AS x(cl, g, v, res, k, ns, n, b)
       ON CONFLICT (cluster, "group", version, resource) DO UPDATE SET count = resource_types.count + excluded.count, bytes = resource_types.bytes + excluded.bytes,
         kind = CASE WHEN excluded.kind <> '' THEN excluded.kind ELSE resource_types.kind END, namespaced = resource_types.namespaced OR excluded.namespaced`,
      [t.map((x) => x.cluster), t.map((x) => x.group), t.map((x) => x.version), t.map((x) => x.resource), t.map((x) => x.kind), t.map((x) => String(x.namespaced)), t.map((x) => x.count), t.map((x) => x.bytes)] as Param[],
    ));
  }
  sent.push(setMeta(tx, 'revision', plan.revision));
  // Delivered at commit, in commit order: apiservers in other processes wake up and read the change log.
  sent.push(send(tx, `SELECT pg_notify('clusterpedia_revision', $1)`, [String(plan.revision)]));
  await Promise.all(sent);
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

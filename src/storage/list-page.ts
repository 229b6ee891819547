// list(): one page read in one snapshot — revision, optional count, rows streamed — with keyset or offset paging.
import { sql, type SQL } from 'drizzle-orm';
import { decodeContinueToken, encodeContinueToken, type KeyValue } from './continue-token.js';
import { StorageError } from './errors.js';
import { chooseDrivingLabel } from './label-strategy.js';
import { checkKeyValues, keyColumns, keysetAfter, keyValues, orderBy, orderFingerprint, sortKeys, type SortKey } from './list-plan.js';
import { and, filterConditions, resourceColumns, setCondition, typeCondition, type ColumnRefs } from './list-sql.js';
import type { QueryDialect } from './query-dialect.js';
import { HEAD_REVISION, headRevisionOf, type FirstRead, type Snapshot } from './snapshot.js';
import { ROW_COLUMNS, rowColumns, toStoredRow } from './stored-row.js';
import type { JoinedPage, ListPage, ListQuery, ResourceType, StoredRow } from './types.js';

/** Pages up to this size are read at once and the connection is given back before the rows are served. */
const MATERIALISE_LIMIT = 1000;

/** Whether a page of `limit` rows is read at once (a limit of 1–1000), rather than streamed from a cursor. */
export function readAtOnce(limit: number | undefined): boolean {
  return limit !== undefined && limit > 0 && limit <= MATERIALISE_LIMIT;
}
/** Rows per cursor fetch when streaming. */
const CHUNK = 500;

/** The SQL of one list() call, built before a connection is taken. */
export interface ListStatements {
  page: SQL;
  /**
   * Statements read one after the other in place of `page`, one per cluster in key order, each given how many rows it
   * may return (0: all): the page ends as soon as it is full.
   */
  chain?: ((rows: number) => SQL)[];
  /**
   * The page's ids, stored sizes and sort keys, in page order, one row past the page (past 1000 rows when unlimited):
   * a joined read picks objects by id.
   */
  ids: SQL;
  count: SQL | undefined;
  /** The column of `page` (and `chain`) holding each object's bytes, when they are asked as bytes (Snapshot.all). */
  bytesColumn?: number;
  /**
   * For a streamed list whose objects are asked as bytes: the column a stream's first chunk may take as bytes
   * (Snapshot.chunks). Only the first: a list of up to a chunk (an owner search, a small unlimited list) skips the
   * decode and re-encode, and a long one does not pile up Buffers freed only by a GC.
   */
  firstChunkBytesColumn?: number;
  limit: number;
  offset: number | undefined;
  nextToken(lastKeys: KeyValue[]): string;
  keyCount: number;
}

/**
 * True when the matches are found as a set and then sorted (a driving label, owners, names, creation times, or an
 * order no index has), rather than read in order along an index — where a page stops after limit+1 rows anyway.
 */
function sortsMatches(q: ListQuery, drivingLabel: number | undefined): boolean {
  return drivingLabel !== undefined || q.owner !== undefined || q.names !== undefined || q.since !== undefined || q.before !== undefined || (q.orderBy?.length ?? 0) > 0;
}

/**
 * Whether a list in key order is read as one scan per cluster (QueryDialect.scanPerCluster): several clusters asked,
 * cluster the first sort key, and no numeric offset (which would have to skip rows across the scans).
 */
function perCluster(d: QueryDialect, q: ListQuery, keys: SortKey[], offset: number | undefined): boolean {
  const n = q.clusters?.op === 'in' ? new Set(q.clusters.values).size : 0;
  return d.scanPerCluster && offset === undefined && n > 1 && keys[0]?.id === 'cluster';
}

/** Text tuples compared element by element, byte-wise, as both dialects compare text. */
function bytewise(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const r = Buffer.compare(Buffer.from(a[i] ?? ''), Buffer.from(b[i] ?? ''));
    if (r !== 0) return r;
  }
  return 0;
}

/**
 * The asked clusters in the order of the first sort key (byte-wise, as both dialects compare text), from the cluster
 * a continue token stopped in: the ones before it have nothing left.
 */
function clustersInOrder(q: ListQuery, keys: SortKey[], after: KeyValue | undefined): string[] {
  const cmp = (a: string, b: string): number => bytewise([a], [b]) * (keys[0]?.desc ? -1 : 1);
  const from = typeof after === 'string' ? after : undefined;
  return [...new Set(q.clusters?.values)].filter((v) => from === undefined || cmp(v, from) >= 0).sort(cmp);
}

/** A list over more concrete types than this sorts their matches, as before (each type is one index scan). */
const MAX_MERGED_TYPES = 32;

/**
 * Whether a list over several types could be read type by type and merged (mergedTypes): a page (limit) in keyset
 * order, found by walking indexes rather than as a set to sort (sortsMatches).
 */
function mergeable(q: ListQuery, drivingLabel: number | undefined): boolean {
  return q.types.kind !== 'one' && (q.limit ?? 0) > 0 && !(q.continue && 'offset' in q.continue) && !sortsMatches(q, drivingLabel);
}

/** The types of a `many` filter when every entry names its version and resource; undefined otherwise. */
function concreteTypes(q: ListQuery): ResourceType[] | undefined {
  if (q.types.kind !== 'many') return undefined;
  const out: ResourceType[] = [];
  for (const e of q.types.entries) {
    if (e.version === undefined || e.resource === undefined) return undefined;
    out.push({ group: e.group, version: e.version, resource: e.resource });
  }
  return out;
}

/**
 * For a mergeable list whose types are given by group (collectionresources `kuberesources`, `any?groups=apps`), or
 * without a version, or not at all (`any?groups=*`): the stored types it covers (in the asked clusters), read from
 * resource_types just before the page's snapshot, to pass to listStatements. Undefined when the list needs none. A
 * type first written between the two reads is missing from that page, as a row written behind a continue token is
 * from the rest of a walk.
 */
export function storedTypesQuery(d: QueryDialect, q: ListQuery, drivingLabel: number | undefined): SQL | undefined {
  if (!mergeable(q, drivingLabel) || concreteTypes(q)) return undefined;
  const t = { group: sql.raw('t."group"'), version: sql.raw('t.version'), resource: sql.raw('t.resource') };
  const conds = [typeCondition(q.types, t), ...(q.clusters ? [setCondition(d, sql.raw('t.cluster'), q.clusters)] : [])];
  return sql`SELECT DISTINCT t."group", t.version, t.resource FROM resource_types t WHERE ${and(conds)} LIMIT ${MAX_MERGED_TYPES + 1}`;
}

/** The rows of storedTypesQuery as types. */
export function storedTypes(rows: unknown[][]): ResourceType[] {
  return rows.map((r) => ({ group: String(r[0]), version: String(r[1]), resource: String(r[2]) }));
}

/**
 * The concrete types of a list over several types read in the default order (cluster, namespace, name, then group,
 * version, resource; some of the first three may be pinned), a page at a time: each type's page can then be read
 * along its own key index and the pages merged (mergedTypesPage), where one query over all the types would sort every
 * match of every one of them (collectionresources `workloads` on a fleet with 100,000 Deployments sorted 100,000 rows
 * for each page of 500). `stored`: what storedTypesQuery found, for types not given whole. Undefined when the plan
 * does not apply.
 */
function mergedTypes(q: ListQuery, keys: SortKey[], drivingLabel: number | undefined, stored: ResourceType[] | undefined): ResourceType[] | undefined {
  if (!mergeable(q, drivingLabel)) return undefined;
  const given = concreteTypes(q) ?? stored;
  if (!given) return undefined;
  const types = new Map(given.map((t) => [JSON.stringify([t.group, t.version, t.resource]), t]));
  if (types.size < 1 || types.size > MAX_MERGED_TYPES) return undefined;
  const ids = keys.map((k) => k.id);
  const prefix = ids.slice(0, -3);
  const defaultOrder = ids.slice(-3).join() === 'group,version,resource' && keys.every((k) => !k.desc && !k.nullable)
    && prefix.join() === ['cluster', 'namespace', 'name'].filter((id) => prefix.includes(id)).join();
  return defaultOrder ? [...types.values()] : undefined;
}

/**
 * The ids of the page of a list over `types` (mergedTypes), one after the continue token's position: each type's
 * next `limit + 1` rows along its key index (the sort keys but the type's, pinned), merged and cut to `limit + 1`.
 * Within one type the token's position is a row-value bound on the remaining keys, inclusive for the types that sort
 * after the token's own (their rows at an equal prefix come after it).
 */
function mergedTypesPage(d: QueryDialect, q: ListQuery, keys: SortKey[], c: ColumnRefs, types: ResourceType[],
  after: KeyValue[] | undefined, limit: number): SQL {
  const prefix = keys.slice(0, -3);
  // The token's position: its type, and a row-value bound on the remaining keys.
  const token = after && {
    type: after.slice(-3).map((v) => String(v)),
    keys: sql`(${sql.join(prefix.map((k) => k.expr), sql`, `)})`,
    values: sql`(${sql.join(after.slice(0, -3).map((v) => sql`${v}`), sql`, `)})`,
  };
  const arms = types.map((t, i) => {
    const conds = filterConditions(d, { ...q, types: { kind: 'one', ...t } }, c);
    if (token) {
      const inclusive = bytewise([t.group, t.version, t.resource], token.type) > 0;
      if (prefix.length === 0) conds.push(inclusive ? sql`TRUE` : sql`FALSE`);
      else conds.push(sql`${token.keys} ${sql.raw(inclusive ? '>=' : '>')} ${token.values}`);
    }
    const order = prefix.length > 0 ? sql` ORDER BY ${orderBy(prefix)}` : sql``;
    return sql`SELECT * FROM (SELECT r.id, ${keyColumns(keys)} FROM resources r WHERE ${and(conds)}${order} LIMIT ${limit + 1}) ${sql.raw(`t${i}`)}`;
  });
  const merged = keys.map((_, i) => sql.raw(`m.k${i}`));
  return sql`SELECT m.id FROM (${sql.join(arms, sql` UNION ALL `)}) m ORDER BY ${sql.join(merged, sql`, `)} LIMIT ${limit + 1}`;
}

/**
 * A list's statements, with what chooses them read first through `rows`, before the page's snapshot: the label
 * requirement to drive from (chooseDrivingLabel) and the stored types a list over types not given whole covers.
 */
export async function planList(d: QueryDialect, q: ListQuery, rows: (statement: SQL) => Promise<unknown[][]>): Promise<ListStatements> {
  const driving = await chooseDrivingLabel(d, q, async (count) => Number((await rows(count))[0]?.[0] ?? 0));
  const typesQuery = storedTypesQuery(d, q, driving);
  return listStatements(d, q, driving, typesQuery ? storedTypes(await rows(typesQuery)) : undefined);
}

/**
 * `drivingLabel`: index in q.labels of the requirement to drive from (chooseDrivingLabel); `stored`: the stored types
 * a list over types given by group covers (storedTypesQuery).
 */
export function listStatements(d: QueryDialect, q: ListQuery, drivingLabel?: number, stored?: ResourceType[]): ListStatements {
  const c = resourceColumns('r');
  const keys = sortKeys(d, q, c);
  const fp = orderFingerprint(q, keys);
  const limit = q.limit !== undefined && q.limit > 0 ? Math.floor(q.limit) : 0;
  let keyset: SQL | undefined;
  let after: KeyValue[] | undefined;
  let offset: number | undefined;
  if (q.continue && 'token' in q.continue) {
    after = checkKeyValues(keys, decodeContinueToken(q.continue.token, fp, keys.length));
    keyset = keysetAfter(keys, after);
  } else if (q.continue && 'offset' in q.continue) {
    // Clusterpedia's numeric form; a negative offset is no offset, as there.
    offset = Math.max(0, Math.floor(q.continue.offset));
  }
  const whereOf = (f: ListQuery): SQL => and([...filterConditions(d, f, c, drivingLabel), ...(keyset ? [keyset] : [])]);
  const where = whereOf(q);
  // Objects come as bytes only in pages read at once: a streamed list would leave its Buffers (external memory,
  // freed only by a GC) piling up by the tens of MB, where text is freed as each write completes.
  const objectBytes = q.objectBytes === true && readAtOnce(limit);
  const cols = rowColumns(d, { ...c, uid: sql.raw('r.uid'), revision: sql.raw('r.revision') }, { onlyMetadata: q.onlyMetadata === true, objectBytes, keysOnly: q.keysOnly === true });
  // limit+1: the extra row only tells whether there is a next page; it is never served.
  const pagingOf = (n: number): SQL => sql.join(
    [n > 0 ? sql`LIMIT ${n + 1}` : undefined, offset !== undefined ? (n > 0 ? sql`OFFSET ${offset}` : sql`LIMIT ${Number.MAX_SAFE_INTEGER} OFFSET ${offset}`) : undefined].filter(
      (x): x is SQL => x !== undefined,
    ),
    sql` `,
  );
  const paging = pagingOf(limit);
  const select = sql`SELECT ${cols}, ${keyColumns(keys)} FROM resources r`;
  const types = mergedTypes(q, keys, drivingLabel, stored);
  const merged = types ? d.inSubquery(sql.raw('r.id'), mergedTypesPage(d, q, keys, c, types, after, limit)) : undefined;
  // An unlimited list is joined only if it fits in a page read at once: its ids are read up to one row more.
  const ids = merged
    ? sql`SELECT r.id, r.size, ${keyColumns(keys)} FROM resources r WHERE ${merged} ORDER BY ${orderBy(keys)}`
    : sql`SELECT r.id, r.size, ${keyColumns(keys)} FROM resources r WHERE ${where} ORDER BY ${orderBy(keys)} ${pagingOf(limit > 0 ? limit : MATERIALISE_LIMIT)}`;
  const page = merged
    ? sql`${select} WHERE ${merged} ORDER BY ${orderBy(keys)}`
    : limit > 0 && sortsMatches(q, drivingLabel)
    ? // Choose the page on narrow rows, then read only its objects: otherwise every match carries its 4 KB object
      // into the sort, and PostgreSQL detoasts and renders each one. Measured at 200k rows, 4,000 matches of a
      // driving label: PostgreSQL 130 → 38 ms, SQLite 11 → 9 ms.
      sql`${select} WHERE ${d.inSubquery(sql.raw('r.id'), sql`SELECT r.id FROM resources r WHERE ${where} ORDER BY ${orderBy(keys)} ${paging}`)} ORDER BY ${orderBy(keys)}`
    : sql`${select} WHERE ${where} ORDER BY ${orderBy(keys)} ${paging}`;
  const count = q.withRemainingCount ? sql`SELECT count(*) FROM resources r WHERE ${where}` : undefined;
  // A list in cluster order is each cluster's list in turn: one ordered scan per cluster, read one after the other
  // until the page is full. Not where the matches are sorted anyway (a page with sortsMatches), nor with a driving
  // label, whose id set each scan would compute again.
  const chain = !merged && perCluster(d, q, keys, offset) && drivingLabel === undefined && (limit === 0 || !sortsMatches(q, drivingLabel))
    ? clustersInOrder(q, keys, after?.[0]).map((v) => (rows: number): SQL =>
      sql`${select} WHERE ${whereOf({ ...q, clusters: { op: 'in', values: [v] } })} ORDER BY ${orderBy(keys)}${rows > 0 ? sql` LIMIT ${rows}` : sql``}`)
    : undefined;
  return {
    page,
    ...(chain ? { chain } : {}),
    ids,
    count,
    ...(objectBytes ? { bytesColumn: ROW_COLUMNS - 1 } : {}),
    ...(q.objectBytes === true && !objectBytes && q.keysOnly !== true ? { firstChunkBytesColumn: ROW_COLUMNS - 1 } : {}),
    limit,
    offset,
    keyCount: keys.length,
    nextToken: (last) => (offset !== undefined ? String(offset + limit) : encodeContinueToken(keyValues(keys, last), fp)),
  };
}

/**
 * What readPage reads first on its snapshot after the revision, known before the snapshot opens: the count, then the
 * page, read at once or through a cursor; a chain's statements are built as it goes, so only its count.
 */
export function firstRead(st: ListStatements): FirstRead | undefined {
  const all: FirstRead['all'] = st.count ? [{ q: st.count }] : [];
  if (st.chain) return all.length > 0 ? { all } : undefined;
  if (readAtOnce(st.limit)) return { all: [...all, { q: st.page, ...(st.bytesColumn !== undefined ? { bytesColumn: st.bytesColumn } : {}) }] };
  return { all, cursor: { q: st.page, size: CHUNK, ...(st.firstChunkBytesColumn !== undefined ? { bytesColumn: st.firstChunkBytesColumn } : {}) } };
}

/**
 * Runs `st` on `snap`: the revision first (it fixes the snapshot), the count, then the rows. Small pages are read
 * at once and the snapshot released; large or unlimited lists stream from a cursor, release the snapshot when the
 * rows end, are abandoned (`return()`), or `signal` aborts while the consumer is not reading.
 */
export async function readPage(snap: Snapshot, st: ListStatements, signal: AbortSignal | undefined): Promise<ListPage> {
  let released = false;
  const release = async (): Promise<void> => {
    if (released) return;
    released = true;
    await snap.release();
  };
  try {
    if (signal?.aborted) throw abortError(signal);
    const { revision, remainingItemCount } = await pageHead(snap, st);
    let lastKeys: unknown[] | undefined;
    let more = false;
    const take = (r: unknown[], served: number): StoredRow | undefined => {
      if (st.limit > 0 && served >= st.limit) {
        more = true;
        return undefined;
      }
      lastKeys = r.slice(ROW_COLUMNS, ROW_COLUMNS + st.keyCount);
      return toStoredRow(r);
    };
    const continueToken = (): string | undefined => (more && lastKeys ? st.nextToken(lastKeys as KeyValue[]) : undefined);

    if (readAtOnce(st.limit)) {
      const all = st.chain ? await readChain(snap, st.chain, st.limit + 1, st.bytesColumn) : await snap.all(st.page, st.bytesColumn);
      await release();
      const rows: StoredRow[] = [];
      for (const r of all) {
        const row = take(r, rows.length);
        if (!row) break;
        rows.push(row);
      }
      return { revision, rows: fromArray(rows), continueToken, remainingItemCount };
    }
    return { revision, rows: stream(snap, st, signal, take, release), continueToken, remainingItemCount };
  } catch (e: unknown) {
    await release();
    throw e;
  }
}

/** The revision (it fixes the snapshot) and, when asked, the count of what follows the page. */
async function pageHead(snap: Snapshot, st: ListStatements): Promise<{ revision: string; remainingItemCount?: number }> {
  const revision = snap.revision ?? headRevisionOf((await snap.all(HEAD_REVISION))[0]?.[0]);
  if (!st.count) return { revision };
  const total = Number((await snap.all(st.count))[0]?.[0] ?? 0);
  // In this snapshot the page holds min(limit, total after the start) rows: what follows it is the rest.
  return { revision, remainingItemCount: st.limit > 0 ? Math.max(0, total - (st.offset ?? 0) - st.limit) : 0 };
}

/**
 * A page's rows, read at once, as a JoinedPage, for a backend that cannot join them in SQL as it reads (PostgreSQL:
 * string_agg was no faster): one buffer per object, the bytes it was read as (ListQuery.objectBytes) by reference.
 */
export async function joinRows(page: ListPage): Promise<JoinedPage> {
  const objects: Buffer[] = [];
  for await (const row of page.rows) objects.push(row.bytes ?? Buffer.from(row.object));
  const { remainingItemCount } = page;
  return { revision: page.revision, count: objects.length, objects, continueToken: () => page.continueToken(), ...(remainingItemCount !== undefined ? { remainingItemCount } : {}) };
}

/** Whether a page of `limit` rows may be read joined (readJoinedPage): read at once, or unlimited (if it turns out small). */
export function joinable(limit: number | undefined): boolean {
  return (limit ?? 0) <= MATERIALISE_LIMIT;
}

/**
 * Reads a page as its objects joined: the ids first, then the objects of up to `groupBytes` of stored size at a
 * time, each group one buffer from `objectsOf(ids)` (in the order of `ids`, comma-separated). For a joinable() limit;
 * undefined when there is none and the list holds more than 1000 rows (it streams instead).
 */
export async function readJoinedPage(snap: Snapshot, st: ListStatements, objectsOf: (ids: number[]) => SQL, groupBytes: number,
  signal: AbortSignal | undefined): Promise<JoinedPage | undefined> {
  try {
    if (signal?.aborted) throw abortError(signal);
    const { revision, remainingItemCount } = await pageHead(snap, st);
    const keyed = await snap.all(st.ids);
    const cap = st.limit > 0 ? st.limit : MATERIALISE_LIMIT;
    if (st.limit === 0 && keyed.length > cap) return undefined;
    const served = keyed.slice(0, cap);
    const last = st.limit > 0 && keyed.length > st.limit ? served.at(-1) : undefined;
    const objects: Buffer[] = [];
    let ids: number[] = [];
    let bytes = 0;
    const flush = async (): Promise<void> => {
      if (ids.length === 0) return;
      const joined = (await snap.all(objectsOf(ids)))[0]?.[0];
      if (!Buffer.isBuffer(joined)) throw new StorageError('Internal', `a joined read of ${ids.length} objects returned no bytes`, false);
      objects.push(joined);
      ids = [];
      bytes = 0;
    };
    for (const r of served) {
      const size = Number(r[1]);
      if (ids.length > 0 && bytes + size > groupBytes) await flush();
      ids.push(Number(r[0]));
      bytes += size;
    }
    await flush();
    const token = last ? st.nextToken(last.slice(2, 2 + st.keyCount) as KeyValue[]) : undefined;
    return { revision, count: served.length, objects, continueToken: () => token, ...(remainingItemCount !== undefined ? { remainingItemCount } : {}) };
  } finally {
    await snap.release();
  }
}

/** The rows of `chain`'s statements in turn, until `rows` are read. */
async function readChain(snap: Snapshot, chain: ((rows: number) => SQL)[], rows: number, bytesColumn: number | undefined): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for (const statement of chain) {
    if (out.length >= rows) break;
    out.push(...(await snap.all(statement(rows - out.length), bytesColumn)));
  }
  return out;
}

async function* fromArray(rows: StoredRow[]): AsyncGenerator<StoredRow> {
  yield* rows;
}

function abortError(signal: AbortSignal): StorageError {
  return new StorageError('Unavailable', 'list aborted by the caller', false, { cause: signal.reason });
}

function stream(
  snap: Snapshot,
  st: ListStatements,
  signal: AbortSignal | undefined,
  take: (r: unknown[], served: number) => StoredRow | undefined,
  release: () => Promise<void>,
): AsyncIterable<StoredRow> {
  let cursor: AsyncIterator<unknown[][], undefined> | undefined;
  let busy = false; // a cursor fetch is in flight: closing it now would race the driver
  const close = async (): Promise<void> => {
    const c = cursor;
    cursor = undefined;
    try {
      await c?.return?.();
    } finally {
      await release();
    }
  };
  // The client went away while the consumer is not pulling rows: give the connection back now.
  const onAbort = (): void => {
    if (!busy) void close();
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  return {
    async *[Symbol.asyncIterator]() {
      try {
        const statements = st.chain?.map((statement) => statement(0)) ?? [st.page];
        let at = 0;
        cursor = snap.chunks(statements[at++] ?? st.page, CHUNK, st.firstChunkBytesColumn);
        let served = 0;
        for (;;) {
          if (signal?.aborted || !cursor) return;
          busy = true;
          let next: IteratorResult<unknown[][], undefined>;
          try {
            next = await cursor.next();
            if (next.done && at < statements.length) {
              // This statement is read: the next one, on the same snapshot.
              await cursor.return?.();
              cursor = snap.chunks(statements[at++] ?? st.page, CHUNK);
              continue;
            }
          } finally {
            busy = false;
          }
          if (next.done) return;
          for (const r of next.value) {
            const row = take(r, served);
            if (!row) return;
            served++;
            yield row;
            if (!cursor) return; // closed by an abort while suspended
          }
        }
      } finally {
        signal?.removeEventListener('abort', onAbort);
        await close();
      }
    },
  };
}

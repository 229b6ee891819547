// Ordering of a list: sort keys (with the unique tiebreaker), ORDER BY, and the keyset predicate of a continue token.
import { sql, type SQL } from 'drizzle-orm';
import { readsFieldLabelPath } from '../kube/field-labels.js';
import type { FieldPathSegment } from '../kube/requirement.js';
import { fingerprint, type KeyValue } from './continue-token.js';
import { StorageError } from './errors.js';
import type { ColumnRefs } from './list-sql.js';
import type { JsonStep, QueryDialect } from './query-dialect.js';
import type { ListQuery, OrderColumn, OrderTerm } from './types.js';

/** One ORDER BY key. */
export interface SortKey {
  expr: SQL;
  desc: boolean;
  /** Only JSON-path keys can be NULL (absent): first when ascending, last when descending. */
  nullable: boolean;
  type: 'text' | 'int';
  /** Stable name for the token fingerprint. */
  id: string;
}

type KeyColumn = 'cluster' | 'namespace' | 'name' | 'group' | 'version' | 'resource';

/**
 * The sort keys of `q`: the asked order (default cluster, namespace, name), then whatever of the unique key
 * (cluster, namespace, name, + group, version, resource across types) it lacks, so the order is total. Columns a
 * filter pins to one value are dropped: they do not change the order, and dropping them lets e.g. a one-namespace
 * page walk the (…, namespace, cluster, name) index with a row-value bound.
 */
export function sortKeys(d: QueryDialect, q: ListQuery, c: ColumnRefs): SortKey[] {
  const single = (f: ListQuery['clusters']): boolean => f?.op === 'in' && new Set(f.values).size === 1;
  const pinned = new Set<string>();
  if (single(q.clusters)) pinned.add('cluster');
  if (single(q.namespaces)) pinned.add('namespace');
  if (single(q.names)) pinned.add('name');
  if (q.types.kind === 'one') for (const k of ['group', 'version', 'resource']) pinned.add(k);

  const unique: KeyColumn[] = q.types.kind === 'one' ? ['cluster', 'namespace', 'name'] : ['cluster', 'namespace', 'name', 'group', 'version', 'resource'];
  const asked: OrderTerm[] = q.orderBy && q.orderBy.length > 0 ? q.orderBy : unique.map((column) => ({ column, desc: false }));
  const terms: OrderTerm[] = [...asked];
  for (const column of unique) if (!asked.some((t) => 'column' in t && t.column === column)) terms.push({ column, desc: false });

  const keys: SortKey[] = [];
  const seen = new Set<string>();
  for (const t of terms) {
    for (const k of termKeys(d, t, c)) {
      if (pinned.has(k.id) || seen.has(k.id)) continue;
      seen.add(k.id);
      keys.push(k);
    }
  }
  // Everything pinned (one object by its full key): any key will do, ORDER BY just needs one.
  if (keys.length === 0) keys.push({ expr: c.name, desc: false, nullable: false, type: 'text', id: 'name' });
  return keys;
}

function termKeys(d: QueryDialect, t: OrderTerm, c: ColumnRefs): SortKey[] {
  if ('path' in t) {
    const steps = pathSteps(t.path);
    // A kube field label (`.status.phase`) is read from the row's small fields document, to the same value.
    const doc = readsFieldLabelPath(t.path) ? c.fieldsDoc : c.doc;
    return [{ expr: d.bytewise(d.jsonText(doc, steps)), desc: t.desc, nullable: true, type: 'text', id: `path:${JSON.stringify(steps)}` }];
  }
  const col = t.column satisfies OrderColumn;
  const text = (expr: SQL): SortKey => ({ expr, desc: t.desc, nullable: false, type: 'text', id: col });
  switch (col) {
    case 'created_at':
      return [{ expr: c.createdAt, desc: t.desc, nullable: false, type: 'int', id: col }];
    case 'resource_version':
      // Decimal RVs order numerically as (length, text); no CAST, which could overflow or fail on odd RVs.
      return [
        { expr: sql`length(${c.resourceVersion})`, desc: t.desc, nullable: false, type: 'int', id: 'resource_version_length' },
        { expr: c.resourceVersion, desc: t.desc, nullable: false, type: 'text', id: col },
      ];
    case 'cluster':
      return [text(c.cluster)];
    case 'namespace':
      return [text(c.namespace)];
    case 'name':
      return [text(c.name)];
    case 'group':
      return [text(c.group)];
    case 'version':
      return [text(c.version)];
    case 'resource':
      return [text(c.resource)];
    case 'kind':
      return [text(c.kind)];
  }
}

function pathSteps(path: FieldPathSegment[]): JsonStep[] {
  const steps: JsonStep[] = [];
  for (const s of path) {
    steps.push({ key: s.name });
    if (s.index !== undefined) steps.push({ index: s.index });
  }
  return steps;
}

/** The fingerprint a continue token must carry to be replayed against this query. */
export function orderFingerprint(q: ListQuery, keys: SortKey[]): string {
  return fingerprint({ types: q.types, keys: keys.map((k) => `${k.id}${k.desc ? '-' : '+'}`) });
}

/** ORDER BY keys; NULLS only on nullable keys, so PostgreSQL can still walk a plain btree for the others. */
export function orderBy(keys: SortKey[]): SQL {
  return sql.join(
    keys.map((k) => sql`${k.expr}${sql.raw(k.desc ? ' DESC' : ' ASC')}${sql.raw(k.nullable ? (k.desc ? ' NULLS LAST' : ' NULLS FIRST') : '')}`),
    sql`, `,
  );
}

/** The keys as selected columns k0…kn, read back to build the next token. */
export function keyColumns(keys: SortKey[]): SQL {
  return sql.join(keys.map((k, i) => sql`${k.expr} AS ${sql.raw(`k${i}`)}`), sql`, `);
}

/** Normalises values read back from k0…kn (drivers return 64-bit integers as strings). */
export function keyValues(keys: SortKey[], raw: unknown[]): KeyValue[] {
  return keys.map((k, i) => {
    const v = raw[i];
    if (v === null || v === undefined) return null;
    return k.type === 'int' ? Number(v) : String(v);
  });
}

/**
 * The values of a decoded continue token, checked against the keys they will be compared with: an integer key
 * takes a safe integer, a text key a string, null only a nullable (JSON-path) key. A token we issued always
 * passes; a forged one that does not is Invalid (400) here, instead of reaching the driver and failing there as an
 * internal error (PostgreSQL: `invalid input syntax for type bigint: ""` for a string where created_at goes).
 */
export function checkKeyValues(keys: SortKey[], values: KeyValue[]): KeyValue[] {
  const ok = keys.length === values.length && keys.every((k, i) => {
    const v = values[i];
    if (v === null) return k.nullable;
    return k.type === 'int' ? typeof v === 'number' && Number.isSafeInteger(v) : typeof v === 'string';
  });
  if (!ok) throw new StorageError('Invalid', 'continue token is malformed', false);
  return values;
}

/**
 * Rows strictly after `values` in the order of `keys`. All-non-null keys in one direction use a row-value
 * comparison, which both planners turn into an index range; otherwise the lexicographic OR expansion, with a
 * redundant bound on the first key so an index can still seek.
 */
export function keysetAfter(keys: SortKey[], values: KeyValue[]): SQL {
  const first = keys[0];
  if (!first) return sql`FALSE`;
  const uniform = keys.every((k) => !k.nullable && k.desc === first.desc);
  if (uniform) {
    const op = sql.raw(first.desc ? '<' : '>');
    if (keys.length === 1) return sql`${first.expr} ${op} ${values[0]}`;
    return sql`(${sql.join(keys.map((k) => k.expr), sql`, `)}) ${op} (${sql.join(values.map((v) => sql`${v}`), sql`, `)})`;
  }
  const branches: SQL[] = [];
  for (let i = 0; i < keys.length; i++) {
    const parts: SQL[] = [];
    for (let j = 0; j < i; j++) parts.push(equalKey(keys[j] as SortKey, values[j] ?? null));
    parts.push(afterKey(keys[i] as SortKey, values[i] ?? null));
    branches.push(sql`(${sql.join(parts, sql` AND `)})`);
  }
  const expansion = sql`(${sql.join(branches, sql` OR `)})`;
  const v0 = values[0] ?? null;
  if (first.nullable || v0 === null) return expansion;
  return sql`${first.expr} ${sql.raw(first.desc ? '<=' : '>=')} ${v0} AND ${expansion}`;
}

function equalKey(k: SortKey, v: KeyValue): SQL {
  return v === null ? sql`${k.expr} IS NULL` : sql`${k.expr} = ${v}`;
}

function afterKey(k: SortKey, v: KeyValue): SQL {
  if (!k.desc) return v === null ? sql`${k.expr} IS NOT NULL` : sql`${k.expr} > ${v}`;
  if (v === null) return sql`FALSE`;
  return k.nullable ? sql`(${k.expr} < ${v} OR ${k.expr} IS NULL)` : sql`${k.expr} < ${v}`;
}

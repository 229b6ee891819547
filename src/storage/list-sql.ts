// The WHERE of list() and changesSince(), built once for both dialects from the parsed query (never from SQL text).
import { sql, type SQL } from 'drizzle-orm';
import { readsOnlyFieldLabelPaths } from '../kube/field-labels.js';
import { compareInt } from '../kube/match.js';
import { parseInt64 } from '../kube/selector-syntax.js';
import type { FieldPathSegment, FieldRequirement, LabelRequirement } from '../kube/requirement.js';
import type { JsonStep, QueryDialect } from './query-dialect.js';
import type { ListQuery, OwnerFilter, SetFilter, SqlParam, TypeFilter, WhereSql } from './types.js';

/** SQL expressions for the columns a filter reads (a resources row, or a change entry joined to its row). */
export interface ColumnRefs {
  id: SQL;
  cluster: SQL;
  group: SQL;
  version: SQL;
  resource: SQL;
  kind: SQL;
  namespace: SQL;
  name: SQL;
  ownerUid: SQL;
  resourceVersion: SQL;
  createdAt: SQL;
  /** The JSON document. */
  doc: SQL;
  /**
   * A JSON document that holds what `doc` holds at FIELD_LABEL_PATHS (status.phase, spec.nodeName, …): the small
   * `fields` column where the row has one (object-columns.ts selectableFields), else the object.
   */
  fieldsDoc: SQL;
  /** A JSON document holding the labels map at `labelsPath` (the small `labels` column, or the object). */
  labels: SQL;
  labelsPath: string[];
}

/** Columns of `resources` under an alias. */
export function resourceColumns(alias: string): ColumnRefs {
  const c = (name: string): SQL => sql.raw(`${alias}."${name}"`);
  return {
    id: c('id'), cluster: c('cluster'), group: c('group'), version: c('version'), resource: c('resource'), kind: c('kind'),
    namespace: c('namespace'), name: c('name'), ownerUid: c('owner_uid'), resourceVersion: c('resource_version'), createdAt: c('created_at'), doc: c('object'),
    fieldsDoc: sql.raw(`COALESCE(${alias}."fields", ${alias}."object")`), labels: c('labels'), labelsPath: [],
  };
}

type Filter = Pick<ListQuery, 'types' | 'clusters' | 'namespaces' | 'names' | 'labels' | 'fields' | 'fuzzyNames' | 'since' | 'before' | 'owner' | 'where'>;

/**
 * Every condition of `q`, to be ANDed. Label requirements are evaluated on the labels JSON, except
 * `q.labels[drivingLabel]`, which becomes an `id IN (…resource_labels…)` range that drives the query (see
 * label-strategy.ts for how it is chosen).
 */
export function filterConditions(d: QueryDialect, q: Filter, c: ColumnRefs, drivingLabel?: number): SQL[] {
  const out: SQL[] = [typeCondition(q.types, c)];
  if (q.clusters) out.push(setCondition(d, c.cluster, q.clusters));
  if (q.namespaces) out.push(setCondition(d, c.namespace, q.namespaces));
  if (q.names) out.push(setCondition(d, c.name, q.names));
  if (q.since) out.push(sql`${c.createdAt} >= ${q.since.getTime()}`);
  if (q.before) out.push(sql`${c.createdAt} < ${q.before.getTime()}`);
  for (const s of q.fuzzyNames ?? []) out.push(d.contains(c.name, s));
  (q.labels ?? []).forEach((r, i) => out.push(i === drivingLabel ? labelDrivingCondition(d, r, c.id) : labelJsonCondition(d, r, c)));
  // A field label reads the row's small `fields` document instead of parsing the object.
  for (const r of q.fields ?? []) out.push(fieldCondition(d, r, readsOnlyFieldLabelPaths(r) ? c.fieldsDoc : c.doc));
  if (q.owner) {
    const owner = ownerCondition(d, q.owner, q, c);
    if (owner) out.push(owner);
  }
  if (q.where) out.push(whereCondition(d, q.where, c));
  return out;
}

/**
 * A caller's condition, on a subquery of the resources table of its own: its column names mean that table's
 * whatever the shape of the outer query, and the text (checked to be one expression) is parenthesised there.
 */
function whereCondition(d: QueryDialect, w: WhereSql, c: ColumnRefs): SQL {
  const one = (v: string | number | boolean | null): SQL => sql`${typeof v === 'boolean' ? d.bool(v) : v}`;
  const bound = (p: SqlParam): SQL => {
    if (!Array.isArray(p)) return one(p);
    return p.length === 0 ? sql`(NULL)` : sql`(${sql.join(p.map(one), sql`, `)})`;
  };
  const parts: SQL[] = [];
  w.pieces.forEach((piece, i) => {
    parts.push(sql.raw(piece));
    const p = w.params[i];
    if (p !== undefined) parts.push(bound(p));
  });
  return sql`${c.id} IN (SELECT id FROM resources WHERE (${sql.join(parts, sql``)}))`;
}

export function and(conds: SQL[]): SQL {
  return conds.length === 0 ? sql`TRUE` : sql.join(conds.map((x) => sql`(${x})`), sql` AND `);
}

export function typeCondition(t: TypeFilter, c: Pick<ColumnRefs, 'group' | 'version' | 'resource'>): SQL {
  if (t.kind === 'all') return sql`TRUE`;
  if (t.kind === 'one') return sql`${c.group} = ${t.group} AND ${c.version} = ${t.version} AND ${c.resource} = ${t.resource}`;
  if (t.entries.length === 0) return sql`FALSE`;
  return anyOf(
    t.entries.map((e) => {
      const parts = [sql`${c.group} = ${e.group}`];
      if (e.version !== undefined) parts.push(sql`${c.version} = ${e.version}`);
      if (e.resource !== undefined) parts.push(sql`${c.resource} = ${e.resource}`);
      return sql`(${sql.join(parts, sql` AND `)})`;
    }),
  );
}

/** Alternatives up to which `anyOf` writes one flat chain: the lists people ask for, as they always were. */
const FLAT_OR = 32;

/**
 * `a OR b OR …`. A long chain nests one level per OR in the parse tree, and SQLite refuses a tree deeper than 1,000
 * (`any?groups=` with a thousand groups was a 400), so past FLAT_OR alternatives it is written as a balanced tree:
 * the same condition, nested log₂(n) deep.
 */
function anyOf(alternatives: SQL[]): SQL {
  if (alternatives.length <= FLAT_OR) return sql.join(alternatives, sql` OR `);
  const half = alternatives.length >> 1;
  return sql`(${anyOf(alternatives.slice(0, half))}) OR (${anyOf(alternatives.slice(half))})`;
}

export function setCondition(d: QueryDialect, col: SQL, f: SetFilter): SQL {
  const values = [...new Set(f.values)];
  if (values.length === 0) return f.op === 'in' ? sql`FALSE` : sql`TRUE`;
  if (values.length === 1) return f.op === 'in' ? sql`${col} = ${values[0]}` : sql`${col} <> ${values[0]}`;
  return f.op === 'in' ? d.inList(col, values) : sql`NOT (${d.inList(col, values)})`;
}

/** The label rows matching a positive requirement (=, ==, in, exists, gt, lt), or undefined for negated ones. */
export function labelRowsCondition(d: QueryDialect, r: LabelRequirement): SQL | undefined {
  const value = sql.raw('l.value');
  switch (r.operator) {
    case '=':
    case '==':
      return sql`l.key = ${r.key} AND l.value = ${r.values[0] ?? ''}`;
    case 'in':
      return r.values.length === 0 ? undefined : sql`l.key = ${r.key} AND ${d.inList(value, r.values)}`;
    case 'exists':
      return sql`l.key = ${r.key}`;
    case 'gt':
    case 'lt':
      return sql`l.key = ${r.key} AND ${integerCompare(d, value, r.operator, r.values[0])}`;
    default:
      return undefined;
  }
}

/** A selective positive requirement as a range of the resource_labels primary key (key, value, resource_id). */
function labelDrivingCondition(d: QueryDialect, r: LabelRequirement, id: SQL): SQL {
  const rows = labelRowsCondition(d, r);
  return rows ? d.inSubquery(id, sql`SELECT l.resource_id FROM resource_labels l WHERE ${rows}`) : sql`FALSE`;
}

/** A label requirement is a field requirement on the labels map (identical semantics for string values). */
function labelJsonCondition(d: QueryDialect, r: LabelRequirement, c: ColumnRefs): SQL {
  const path = [...c.labelsPath, r.key].map((name) => ({ name }));
  return fieldCondition(d, { path, operator: r.operator, values: r.values }, c.labels);
}

/**
 * A field requirement. `!=`, `notin` and `!` are exactly NOT of `=`, `in` and exists, and every positive form is
 * two-valued (never NULL), so the negation of "absent" is TRUE. A list segment means "some element" for the
 * positive form (so the negated form means "no element").
 */
export function fieldCondition(d: QueryDialect, r: FieldRequirement, doc: SQL): SQL {
  if (r.orPath) return fallbackFieldCondition(d, r, r.orPath, doc);
  // The text of an object or array starts with { or [: a test for other values may read objects as text (loose).
  const loose = r.values.every((v) => !/^[{[]/.test(v));
  const present = (): SQL => positiveField(d, doc, r.path, () => sql`TRUE`, true, false);
  // A Kubernetes field label's absent value (field-labels.ts): when the test holds for it, an absent field matches.
  const orAbsent = (positive: SQL, holdsForAbsent: boolean): SQL =>
    r.absentAs !== undefined && holdsForAbsent ? sql`(${positive} OR NOT (${present()}))` : positive;
  const absent = r.absentAs;
  switch (r.operator) {
    case '=':
    case '==':
      return orAbsent(positiveField(d, doc, r.path, (v) => sql`${v} = ${r.values[0] ?? ''}`, false, loose), absent === r.values[0]);
    case '!=':
      return sql`NOT (${orAbsent(positiveField(d, doc, r.path, (v) => sql`${v} = ${r.values[0] ?? ''}`, false, loose), absent === r.values[0])})`;
    case 'in':
      return r.values.length === 0 ? sql`FALSE` : orAbsent(positiveField(d, doc, r.path, (v) => d.inList(v, r.values), false, loose), absent !== undefined && r.values.includes(absent));
    case 'notin':
      return r.values.length === 0 ? sql`TRUE` : sql`NOT (${orAbsent(positiveField(d, doc, r.path, (v) => d.inList(v, r.values), false, loose), absent !== undefined && r.values.includes(absent))})`;
    case 'exists':
      return present();
    case '!':
      return sql`NOT (${present()})`;
    case 'gt':
    case 'lt': {
      const op = r.operator;
      // integerOf passes only [+-]?[0-9]+: never an object's text.
      return orAbsent(positiveField(d, doc, r.path, (v) => integerCompare(d, v, op, r.values[0]), false, true), absent !== undefined && compareInt(absent, op, r.values[0]));
    }
  }
}

/**
 * A field label that reads `orPath` when the value at its own path is absent or "" (field-labels.ts `or`): the
 * positive form holds on the own value when there is one, else on the other; the negated forms are its NOT, as above.
 */
function fallbackFieldCondition(d: QueryDialect, r: FieldRequirement, orPath: FieldPathSegment[], doc: SQL): SQL {
  const { orPath: _, ...own } = r;
  const positive = ({ '!=': '=', notin: 'in', '!': 'exists' } as const)[r.operator as '!=' | 'notin' | '!'] ?? r.operator;
  // Set: present (not absent, not a JSON null) and not "". An object or a list counts as set, as in match.ts.
  const set = sql`(${positiveField(d, doc, r.path, () => sql`TRUE`, true, false)} AND NOT (${positiveField(d, doc, r.path, (v) => sql`${v} = ''`, false, false)}))`;
  const held = sql`((${set} AND ${fieldCondition(d, { ...own, operator: positive }, doc)}) OR (NOT (${set}) AND ${fieldCondition(d, { ...own, path: orPath, operator: positive }, doc)}))`;
  return positive === r.operator ? held : sql`NOT ${held}`;
}

function integerCompare(d: QueryDialect, text: SQL, op: 'gt' | 'lt', bound: string | undefined): SQL {
  const n = bound === undefined ? undefined : parseInt64(bound);
  // The parser only lets int64 integers through; anything else cannot match rather than erroring in SQL.
  if (n === undefined) return sql`FALSE`;
  return sql`COALESCE(${d.integerOf(text)} ${sql.raw(op === 'gt' ? '>' : '<')} ${d.int64(n)}, FALSE)`;
}

/**
 * `test(valueText)` on the value at `path`, descending into list segments as "some element". `test` must be NULL or
 * FALSE for a NULL value; with `loose` it must also fail for the JSON text of any object or array (jsonTextLoose).
 */
function positiveField(d: QueryDialect, doc: SQL, path: FieldPathSegment[], test: (v: SQL) => SQL, presence: boolean, loose: boolean): SQL {
  const steps: JsonStep[] = [];
  for (let i = 0; i < path.length; i++) {
    const seg = path[i] as FieldPathSegment;
    steps.push({ key: seg.name });
    if (seg.list) {
      const rest = path.slice(i + 1);
      if (rest.length === 0) return sql`FALSE`; // the grammar forbids a list as the last segment
      return d.someElement(doc, steps, (el) => positiveField(d, el, rest, test, presence, loose));
    }
    if (seg.index !== undefined) steps.push({ index: seg.index });
  }
  if (presence) return d.jsonPresent(doc, steps);
  // `v` appears once: neither dialect reuses a repeated expression, and each use reads the document again.
  const v = loose && d.jsonTextLoose ? d.jsonTextLoose(doc, steps) : d.jsonText(doc, steps);
  return sql`COALESCE(${test(v)}, FALSE)`;
}

/**
 * Owner search (reference §2.8) inside the one cluster of the query: the uid (or the uids of rows named
 * `name`, optionally of one group/resource and, with namespaces, in those namespaces or cluster-scoped), then
 * `seniority` generations down through (cluster, owner_uid) — each level an index range, never a scan.
 */
function ownerCondition(d: QueryDialect, o: OwnerFilter, q: Filter, c: ColumnRefs): SQL | undefined {
  const cluster = q.clusters?.op === 'in' && q.clusters.values.length === 1 ? q.clusters.values[0] : undefined;
  if (cluster === undefined) return undefined; // the API layer rejects owner search without exactly one cluster
  let owners: SQL;
  if (o.uid !== undefined && o.uid !== '') {
    owners = sql`SELECT CAST(${o.uid} AS TEXT)`;
  } else if (o.name !== undefined && o.name !== '') {
    const conds = [sql`o.cluster = ${cluster}`, sql`o.name = ${o.name}`, sql`o.uid <> ''`];
    if (o.groupResource) conds.push(sql`o."group" = ${o.groupResource.group} AND o.resource = ${o.groupResource.resource}`);
    const ns = q.namespaces;
    if (ns && ns.values.length > 0) {
      conds.push(ns.op === 'in' ? d.inList(sql.raw('o.namespace'), [...ns.values, '']) : sql`(o.namespace = '' OR NOT (${d.inList(sql.raw('o.namespace'), ns.values)}))`);
    }
    owners = sql`SELECT o.uid FROM resources o WHERE ${and(conds)}`;
  } else {
    return undefined;
  }
  for (let level = 0; level < Math.max(0, Math.floor(o.seniority)); level++) {
    const alias = `o${level}`;
    const a = sql.raw(alias);
    owners = sql`SELECT ${a}.uid FROM resources ${a} WHERE ${a}.cluster = ${cluster} AND ${d.inSubquery(sql.raw(`${alias}.owner_uid`), owners)} AND ${a}.uid <> ''`;
  }
  // An id set computed first (each level once), so the query is driven from (cluster, owner_uid), never by
  // walking the order index or nesting semi-joins.
  return d.inSubquery(c.id, sql`SELECT x.id FROM resources x WHERE x.cluster = ${cluster} AND ${d.inSubquery(sql.raw('x.owner_uid'), owners)}`);
}

// PostgreSQL pieces of the shared query builder: JSON paths as bound text[] for #> / #>>, json_array_elements for lists.
// Documents are `json` columns (schema.ts), so the json_* functions, not the jsonb_* ones.
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { JsonStep, QueryDialect } from '../query-dialect.js';

const dialect = new PgDialect();

/** `#>` path text[]; keys are array elements, so no character in a key needs escaping. */
function pgPath(steps: JsonStep[]): SQL {
  return sql`${sql.param(steps.map((s) => ('key' in s ? s.key : String(s.index))))}::text[]`;
}

/**
 * `#>` reads an element '0' of an array but also a key "0" of an object, where SQLite's `[0]` only indexes
 * arrays: each index step is guarded so both dialects agree.
 */
function indexGuards(doc: SQL, steps: JsonStep[]): SQL[] {
  const guards: SQL[] = [];
  steps.forEach((s, i) => {
    if ('index' in s) guards.push(sql`json_typeof(${doc} #> ${pgPath(steps.slice(0, i))}) = 'array'`);
  });
  return guards;
}

function guarded(doc: SQL, steps: JsonStep[], expr: SQL): SQL {
  const g = indexGuards(doc, steps);
  if (g.length === 0) return expr;
  return sql`(CASE WHEN ${sql.join(g, sql` AND `)} THEN ${expr} END)`;
}

export const postgresQuery: QueryDialect = {
  render(q: SQL) {
    const r = dialect.sqlToQuery(q);
    return { sql: r.sql, params: r.params };
  },
  jsonText(doc, steps) {
    const p = pgPath(steps);
    // #>> renders strings unquoted and numbers/booleans as their JSON text; objects, arrays and null are NULL.
    return guarded(doc, steps, sql`(CASE WHEN json_typeof(${doc} #> ${p}) IN ('string', 'number', 'boolean') THEN ${doc} #>> ${p} END)`);
  },
  jsonTextLoose(doc, steps) {
    // #>> alone: JSON null is NULL, scalars their text, objects and arrays their JSON text (one parse of the row).
    return guarded(doc, steps, sql`(${doc} #>> ${pgPath(steps)})`);
  },
  jsonPresent(doc, steps) {
    return sql`COALESCE(${guarded(doc, steps, sql`json_typeof(${doc} #> ${pgPath(steps)})`)}, 'null') <> 'null'`;
  },
  someElement(doc, steps, pred) {
    const p = pgPath(steps);
    const el = sql.raw('e.value');
    // json_array_elements raises on a non-array: feed it an empty array instead.
    return sql`EXISTS (SELECT 1 FROM json_array_elements(${guarded(doc, steps, sql`CASE WHEN json_typeof(${doc} #> ${p}) = 'array' THEN ${doc} #> ${p} END`)}) AS e(value) WHERE ${pred(el)})`;
  },
  integerOf(text) {
    // CASE guarantees the casts only run on text that is an integer of at most 19 significant digits (AND would not);
    // numeric then holds what bigint would refuse, to be told apart from int64's range.
    return sql`(CASE WHEN ${text} ~ '^[+-]?0*[0-9]{1,19}$' THEN (CASE WHEN (${text})::numeric BETWEEN -9223372036854775808 AND 9223372036854775807 THEN (${text})::numeric END) END)`;
  },
  int64(n) {
    return sql`${n.toString()}::numeric`;
  },
  bytewise(expr) {
    return sql`(${expr}) COLLATE "C"`;
  },
  inList(expr, values) {
    return sql`${expr} = ANY(${sql.param(values)}::text[])`;
  },
  inSubquery(expr, subquery) {
    // ARRAY(subquery) is an InitPlan: computed once, then an index condition `= ANY(…)`. As a plain IN the planner
    // may choose nested semi-joins; with statistics that predate a new cluster (estimated 1 row) that plan took
    // 263 s for an owner search on 20k rows.
    return sql`${expr} = ANY(ARRAY(${subquery}))`;
  },
  contains(expr, needle) {
    return sql`strpos(${expr}, ${needle}) > 0`;
  },
  // PostgreSQL 15 cannot use `cluster = ANY(…)` in resources_key and keep the key order, so it walked the index in
  // order and filtered on cluster, fetching every row of the clusters in between, or, unlimited, sorted every match
  // with its object before the first row. Reading each cluster's ordered list in turn until the page is full
  // (list-page.ts), 200,000 pods in 100 clusters (2026-11-30): a 500-row page of clusters 97 and 98 83 → 34 ms, of
  // clusters 90–99 74 → 26 ms, of all 100 17 → 25 ms; unlimited, 10 of the 100, first row 886 → 17 ms.
  scanPerCluster: true,
  bool: (v) => v,
  // postgres.js decodes every text column; bytes would have to come as bytea, hex-encoded on the wire: text it is.
  objectText(doc, onlyMetadata) {
    if (!onlyMetadata) return sql`(${doc})::text`;
    return sql`json_build_object('apiVersion', ${doc} -> 'apiVersion', 'kind', ${doc} -> 'kind', 'metadata', ${doc} -> 'metadata')::text`;
  },
};

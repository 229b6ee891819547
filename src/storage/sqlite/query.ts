// SQLite pieces of the shared query builder: JSON paths as bound `$."a"."b"[0]` strings, json_each for lists.
import { sql, type SQL } from 'drizzle-orm';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import type { JsonStep, QueryDialect } from '../query-dialect.js';

const dialect = new SQLiteSyncDialect();

/**
 * A JSON path with every key double-quoted and JSON-escaped (SQLite ≥ 3.45 honours the escapes), so keys with
 * dots, brackets, quotes or backslashes address exactly one key. It is bound as a parameter, never spliced.
 */
export function sqlitePath(steps: JsonStep[]): string {
  return '$' + steps.map((s) => ('key' in s ? `.${JSON.stringify(s.key)}` : `[${s.index}]`)).join('');
}

export const sqliteQuery: QueryDialect = {
  render(q: SQL) {
    const r = dialect.sqlToQuery(q);
    return { sql: r.sql, params: r.params };
  },
  jsonText(doc, steps) {
    const p = sqlitePath(steps);
    // ->> unquotes strings; -> keeps numbers and booleans as their JSON text ('1.5', 'true').
    return sql`(CASE json_type(${doc}, ${p}) WHEN 'text' THEN ${doc} ->> ${p} WHEN 'integer' THEN ${doc} -> ${p} WHEN 'real' THEN ${doc} -> ${p} WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' END)`;
  },
  jsonPresent(doc, steps) {
    return sql`(COALESCE(json_type(${doc}, ${sqlitePath(steps)}), 'null') <> 'null')`;
  },
  someElement(doc, steps, pred) {
    const p = sqlitePath(steps);
    // json_each also walks objects and scalars: require an array, and descend only into containers (json_type
    // on a scalar element's text would be a malformed-JSON error).
    const el = sql.raw('e.value');
    return sql`(json_type(${doc}, ${p}) = 'array' AND EXISTS (SELECT 1 FROM json_each(${doc}, ${p}) e WHERE e.type IN ('object', 'array') AND ${pred(el)}))`;
  },
  integerOf(text) {
    // One sign at most, then digits only; without the sign and leading zeros at most 19 digits and within int64.
    // CAST alone would read a prefix ("12a" is 12) and clamp what overflows.
    const digits = sql`ltrim(${text}, '+-')`;
    const significant = sql`ltrim(${text}, '+-0')`;
    return sql`(CASE WHEN ${text} NOT GLOB '[+-][+-]*' AND ${digits} <> '' AND ${digits} NOT GLOB '*[^0-9]*' AND (length(${significant}) < 19 OR (length(${significant}) = 19 AND (${significant} <= '9223372036854775807' OR (${text} GLOB '-*' AND ${significant} = '9223372036854775808')))) THEN CAST(${text} AS INTEGER) END)`;
  },
  int64(n) {
    return sql`CAST(${n.toString()} AS INTEGER)`;
  },
  bytewise(expr) {
    return expr; // BINARY, SQLite's default collation, is memcmp over UTF-8
  },
  inList(expr, values) {
    return sql`${expr} IN ${values}`;
  },
  inSubquery(expr, subquery) {
    // SQLite evaluates an uncorrelated IN subquery once, into an ephemeral index.
    return sql`${expr} IN (${subquery})`;
  },
  contains(expr, needle) {
    return sql`instr(${expr}, ${needle}) > 0`;
  },
  // SQLite walks `cluster IN (…)` on resources_key value by value, in order: one scan already reads only the page.
  scanPerCluster: false,
  bool: (v) => (v ? 1 : 0),
  objectText(doc, onlyMetadata, bytes) {
    const text = onlyMetadata ? sql`json_object('apiVersion', ${doc} -> '$.apiVersion', 'kind', ${doc} -> '$.kind', 'metadata', ${doc} -> '$.metadata')` : doc;
    // A TEXT value CAST to BLOB is the same UTF-8 bytes; better-sqlite3 returns a BLOB as a Buffer.
    return bytes ? sql`CAST(${text} AS BLOB)` : text;
  },
};

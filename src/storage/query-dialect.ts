// What the shared query builder needs from a dialect: JSON access, text comparison, rendering. Implemented in
// sqlite/query.ts and postgres/query.ts (polymorphism instead of `switch (dialect)`, STYLE §6).
import type { SQL } from 'drizzle-orm';

/** One step of a JSON path: an object key or an array index. */
export type JsonStep = { key: string } | { index: number };

export interface QueryDialect {
  /** Turns a drizzle SQL into the driver's text and parameters. */
  render(q: SQL): { sql: string; params: unknown[] };
  /**
   * The value at `path` of the JSON document `doc` rendered as text: strings raw, numbers as JSON text, booleans
   * 'true'/'false'; NULL when absent, JSON null, an object or an array. `path` is bound, never spliced.
   */
  jsonText(doc: SQL, path: JsonStep[]): SQL;
  /**
   * jsonText, except that an object or array comes as its JSON text rather than NULL: for tests no such text can pass
   * (a value that does not start with `{` or `[`). Where a dialect parses the document for each access (PostgreSQL
   * `json`), this reads it once instead of twice. Absent: jsonText is used.
   */
  jsonTextLoose?(doc: SQL, path: JsonStep[]): SQL;
  /** TRUE when something other than JSON null is at `path` (objects and arrays included), else FALSE (never NULL). */
  jsonPresent(doc: SQL, path: JsonStep[]): SQL;
  /** TRUE when the value at `path` is an array with an element `e` for which `pred(e)` is TRUE; FALSE otherwise. */
  someElement(doc: SQL, path: JsonStep[], pred: (element: SQL) => SQL): SQL;
  /**
   * The integer a text is where Go's strconv.ParseInt(text, 10, 64) reads one (an optional sign, digits, leading zeros
   * allowed, within int64), else NULL: kube's Gt/Lt. Compared with `int64`'s value.
   */
  integerOf(text: SQL): SQL;
  /** An int64 as a value `integerOf`'s result compares with. */
  int64(n: bigint): SQL;
  /** `expr` compared and ordered byte-wise (SQLite BINARY; PostgreSQL COLLATE "C"). */
  bytewise(expr: SQL): SQL;
  /** `expr` = any of `values` (non-empty). */
  inList(expr: SQL, values: string[]): SQL;
  /**
   * `expr` IN the rows of an uncorrelated `subquery`, computed once before the outer query runs (an id set that
   * drives it), whatever the planner's statistics say.
   */
  inSubquery(expr: SQL, subquery: SQL): SQL;
  /** TRUE when `needle` occurs in `expr` (case-sensitive; no pattern characters). */
  contains(expr: SQL, needle: string): SQL;
  /**
   * The served JSON of `doc`: whole, or only {apiVersion, kind, metadata}; as its UTF-8 bytes when `bytes` is set and
   * the driver can hand them over without a decode (else as text).
   */
  objectText(doc: SQL, onlyMetadata: boolean, bytes: boolean): SQL;
  /**
   * Whether a list of several clusters in cluster order reads each cluster's ordered list in turn, on one snapshot,
   * until the page is full (ListStatements.chain), rather than one scan with `cluster IN (…)`.
   */
  readonly scanPerCluster: boolean;
  /** A boolean as the driver binds it (better-sqlite3 takes no booleans: 1 and 0, as SQLite stores them). */
  bool(v: boolean): boolean | number;
}

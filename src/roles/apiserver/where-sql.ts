// Clusterpedia's parameterised SQL filter (reference §2.10, gate AllowParameterizedSQLQuery), behind
// --allow-parameterized-sql-query: `whereSQLStatement` with `?` placeholders, bound from `whereSQLJSONParams` (base64
// of a JSON array; an array element fills `IN ?`) or else the repeated `whereSQLParam`. The raw `whereSQL` is never
// honoured. The statement is checked to be one expression (balanced parentheses, no `;`, no comments), so ANDing it
// with the other filters cannot be escaped; what it may read is the whole database, which is why the flag exists.
import { badRequest, invalid } from '../../kube/status.js';
import { goQuote } from '../../kube/selector-syntax.js';
import { isStorageError } from '../../storage/errors.js';
import type { SqlParam, WhereSql } from '../../storage/types.js';

const STATEMENT = 'whereSQLStatement';
const JSON_PARAMS = 'whereSQLJSONParams';

const fieldInvalid = (field: string, value: string, detail: string): Error =>
  invalid(`${field}: Invalid value: ${goQuote(value)}: ${detail}`, [{ reason: 'FieldValueInvalid', message: `Invalid value: ${goQuote(value)}: ${detail}`, field }]);

/** Outside quotes: other quoting (PostgreSQL $$…$$, SQLite `…` and […]), escapes and blocks (`;` has its own message). */
const FORBIDDEN = new Set(['$', '`', '[', ']', '\\', '{', '}']);

/**
 * The statement cut at its placeholders (one more piece than placeholders), or the reason it is not one expression.
 * Its quoting is limited to what both databases read alike — '…' with '' inside, "…" with "" inside, no prefix
 * (E'…', U&'…'), no backslash — so that the parentheses this check balances are those the database sees.
 */
function pieces(statement: string): string[] | string {
  let depth = 0;
  const out: string[] = [];
  let from = 0;
  for (let i = 0; i < statement.length; i++) {
    const ch = statement[i] ?? '';
    const next = statement[i + 1];
    if (ch === "'" || ch === '"') {
      if (i > 0 && /[A-Za-z0-9_&]/.test(statement[i - 1] ?? '')) return 'prefixed quotes (E\'…\', U&\'…\', X\'…\') are not allowed';
      let close = statement.indexOf(ch, i + 1);
      // A doubled quote continues the same literal.
      while (close >= 0 && statement[close + 1] === ch) close = statement.indexOf(ch, close + 2);
      if (close < 0) return 'unterminated quote';
      if (statement.slice(i, close).includes('\\')) return 'backslashes are not allowed';
      i = close;
      continue;
    }
    if (ch === ';') return 'more than one statement (";")';
    if ((ch === '-' && next === '-') || (ch === '/' && next === '*')) return 'comments are not allowed';
    if (FORBIDDEN.has(ch)) return `${JSON.stringify(ch)} is not allowed outside quotes`;
    if (ch === '(') depth++;
    if (ch === ')' && --depth < 0) return 'unbalanced parentheses';
    if (ch === '?') {
      out.push(statement.slice(from, i));
      from = i + 1;
    }
  }
  out.push(statement.slice(from));
  return depth === 0 ? out : 'unbalanced parentheses';
}

function jsonParams(encoded: string): SqlParam[] {
  let text: string;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0) {
    throw fieldInvalid(JSON_PARAMS, encoded, 'failed to decode base64 string: illegal base64 data');
  }
  try {
    text = Buffer.from(encoded, 'base64').toString('utf8');
  } catch (e: unknown) {
    throw fieldInvalid(JSON_PARAMS, encoded, `failed to decode base64 string: ${(e as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e: unknown) {
    throw fieldInvalid(JSON_PARAMS, encoded, `failed to unmarshal decoded base64 string to JSON array: ${(e as Error).message}`);
  }
  if (!Array.isArray(value)) throw fieldInvalid(JSON_PARAMS, encoded, 'failed to unmarshal decoded base64 string to JSON array: not an array');
  const scalar = (v: unknown): v is string | number | boolean | null => v === null || ['string', 'number', 'boolean'].includes(typeof v);
  return value.map((v: unknown, i) => {
    if (scalar(v)) return v;
    if (Array.isArray(v) && v.every(scalar)) return v;
    throw fieldInvalid(JSON_PARAMS, encoded, `element ${i} is neither a value nor an array of values`);
  });
}

/**
 * The filter the query asks for, when the flag allows it; undefined when it does not (the keys are then ignored, as
 * Clusterpedia ignores them with its gates off) or when no statement is given.
 */
export function parseWhereSql(query: URLSearchParams, allowed: boolean): WhereSql | undefined {
  if (!allowed) return undefined;
  const statement = query.get(STATEMENT) ?? '';
  const encoded = query.get(JSON_PARAMS);
  const plain = query.getAll('whereSQLParam');
  // JSON parameters win over whereSQLParam (reference §2.10).
  const params = encoded !== null ? jsonParams(encoded) : plain;
  if (statement.trim() === '') {
    if (encoded !== null || plain.length > 0) {
      throw invalid(`${STATEMENT}: Required value: required when either whereSQLParam or whereSQLJSONParams was provided`, [{ reason: 'FieldValueRequired', message: 'Required value: required when either whereSQLParam or whereSQLJSONParams was provided', field: STATEMENT }]);
    }
    return undefined;
  }
  const cut = pieces(statement);
  if (typeof cut === 'string') throw fieldInvalid(STATEMENT, statement, cut);
  const n = cut.length - 1;
  if (n !== params.length) throw fieldInvalid(STATEMENT, statement, `${n} placeholder(s) but ${params.length} parameter(s)`);
  return { pieces: cut, params };
}

/**
 * What a list with a caller's statement failed with: the database's verdict on the statement (an unknown column or
 * function, a type error) is the caller's mistake, a 400 that says so; anything else is left as it is.
 */
export function whereSqlError(e: unknown, where: WhereSql | undefined): unknown {
  if (!where || !isStorageError(e) || (e.code !== 'Internal' && e.code !== 'SchemaMismatch')) return e;
  return badRequest(`whereSQLStatement: the database rejected the query: ${e.message}`);
}

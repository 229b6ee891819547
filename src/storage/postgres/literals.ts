// A read statement with its parameters written into its text as literals. postgres.js asks the server to describe
// every unprepared statement that has parameters before it binds them — a round trip of its own, during which
// nothing queued behind it is sent. A list's statements vary with its filters, so they are not prepared; written
// out, they go in one round trip, and a cursor's DECLARE goes out together with its first FETCH.
import type { SQL } from 'drizzle-orm';
import type postgres from 'postgres';
import { postgresQuery } from './query.js';

/**
 * E'…' with backslashes and quotes escaped: read the same whatever standard_conforming_strings says. The connection's
 * client_encoding is UTF8 (postgres.js sets it), in which no byte of a multi-byte character is a quote or a backslash.
 * Undefined for text holding U+0000, which no literal can carry: bound as a parameter, it gets the server's own error.
 */
function quoted(s: string): string | undefined {
  if (s.includes('\0')) return undefined;
  return `E'${s.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

/**
 * A value as a literal of unknown type, which the server types from where it stands, as it types a parameter:
 * numbers and booleans are quoted too (a bare 5 would be an integer, and `name = 5` no comparison). An array of text
 * is an ARRAY of such literals, or '{}' when empty (every array here stands before a cast, `::text[]`); ARRAY[…] is
 * text[] wherever it stands, so an array of anything else is left to binding, as is what has no literal form here.
 */
function literal(v: unknown): string | undefined {
  if (v === null) return 'NULL';
  if (typeof v === 'string') return quoted(v);
  if (typeof v === 'number') return Number.isFinite(v) ? quoted(String(v)) : undefined;
  if (typeof v === 'bigint' || typeof v === 'boolean') return quoted(String(v));
  if (Array.isArray(v)) {
    if (v.length === 0) return `'{}'`;
    const items: string[] = [];
    for (const x of v as unknown[]) {
      const l = typeof x === 'string' ? quoted(x) : undefined;
      if (l === undefined) return undefined;
      items.push(l);
    }
    return `ARRAY[${items.join(', ')}]`;
  }
  return undefined;
}

/**
 * `text` with each placeholder `$n` replaced by the literal of `params[n - 1]`; placeholders are only looked for
 * outside quoted text ('…') and quoted identifiers ("…"). Undefined when a value has no literal form (the caller
 * binds the parameters instead), or `text` names a parameter `params` lacks.
 */
export function withLiterals(text: string, params: readonly unknown[]): string | undefined {
  if (params.length === 0) return text;
  const literals: (string | undefined)[] = [];
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"') {
      // To the closing quote; a doubled one is the character itself (standard strings, quoted identifiers).
      for (i++; i < text.length; i++) {
        if (text[i] !== c) continue;
        if (text[i + 1] === c) i++;
        else break;
      }
      continue;
    }
    if (c !== '$') continue;
    let end = i + 1;
    while (end < text.length && text.charCodeAt(end) >= 48 && text.charCodeAt(end) <= 57) end++;
    if (end === i + 1) continue;
    const n = Number(text.slice(i + 1, end));
    if (n < 1 || n > params.length) return undefined;
    const l = (literals[n - 1] ??= literal(params[n - 1]));
    if (l === undefined) return undefined;
    out += text.slice(from, i) + l;
    from = end;
    i = end - 1;
  }
  return out + text.slice(from);
}

/**
 * `q` after `prefix` on `db`, unprepared (list filters vary, and postgres.js would keep every shape prepared on every
 * connection), its parameters written in as literals; `described` when they could not be, and postgres.js asks the
 * server to describe it first, a round trip of its own.
 */
export function unprepared(db: Pick<postgres.Sql, 'unsafe'>, q: SQL, prefix = ''): { query: postgres.PendingQuery<postgres.Row[]>; described: boolean } {
  const r = postgresQuery.render(q);
  const text = withLiterals(r.sql, r.params);
  if (text !== undefined) return { query: db.unsafe(prefix + text, [], { prepare: false }), described: false };
  return { query: db.unsafe(prefix + r.sql, r.params as postgres.ParameterOrJSON<never>[], { prepare: false }), described: r.params.length > 0 };
}

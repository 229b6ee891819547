// A list's statements go to PostgreSQL with their parameters written in as literals (src/storage/postgres/literals.ts),
// so that a cursor's DECLARE and FETCH go out in one round trip. Whatever a value holds — quotes, backslashes, a
// placeholder, an attempt to end the statement — the server must read the literal as the value a bound parameter
// carries, under either setting of standard_conforming_strings.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withLiterals } from '../../src/storage/postgres/literals.js';
import { freshPostgresDatabase } from '../support/postgres.js';

describe('withLiterals', () => {
  it('replaces placeholders outside quoted text and quoted identifiers only', () => {
    expect(withLiterals(`SELECT '$1', "a$1""$2", $2 FROM t WHERE x = $1 AND y = 'it''s $2'`, ['a', 'b']))
      .toBe(`SELECT '$1', "a$1""$2", E'b' FROM t WHERE x = E'a' AND y = 'it''s $2'`);
  });

  it('reads $10 as the tenth parameter, not the first followed by a 0', () => {
    const params = Array.from({ length: 10 }, (_, i) => `p${i + 1}`);
    expect(withLiterals('SELECT $10, $1', params)).toBe(`SELECT E'p10', E'p1'`);
  });

  it('quotes numbers and booleans, so the server types them from where they stand', () => {
    expect(withLiterals('SELECT $1, $2, $3, $4', [5, -1.5, true, null])).toBe(`SELECT E'5', E'-1.5', E'true', NULL`);
    expect(withLiterals('SELECT $1::text[], $2::text[]', [[], ['a', "b'c"]])).toBe(`SELECT '{}'::text[], ARRAY[E'a', E'b''c']::text[]`);
  });

  it('leaves to binding what has no literal form, and a placeholder with no parameter', () => {
    for (const v of ['a\0b', ['a\0b'], { a: 1 }, [['nested']], [{ a: 1 }], [1, 2], Number.NaN, Number.POSITIVE_INFINITY, undefined]) {
      expect(withLiterals('SELECT $1', [v]), JSON.stringify(v) ?? String(v)).toBeUndefined();
    }
    expect(withLiterals('SELECT $2', ['a'])).toBeUndefined();
    expect(withLiterals('SELECT $0', ['a'])).toBeUndefined();
  });

  it('passes a statement without parameters through as it is', () => {
    expect(withLiterals(`SELECT '$1'`, [])).toBe(`SELECT '$1'`);
  });
});

describe('literals on PostgreSQL read as the bound parameter would', () => {
  let db: { url: string; drop: () => Promise<void> };
  let sql: postgres.Sql;

  beforeAll(async () => {
    db = await freshPostgresDatabase('cp_literals');
    sql = postgres(db.url, { max: 1, onnotice: () => {} });
  });

  afterAll(async () => {
    await sql?.end();
    await db?.drop();
  });

  const strings = [
    '', 'plain', "it's", "''", "'", '\\', "\\'", "\\''", "E'x'", '$1', '$$', '$1 $2', "'); DROP TABLE meta; --", '"quoted"', 'a\\nb',
    'line\nbreak\ttab', 'grüße ✓ 日本語 🚀', '\u00a0\u2028\ufeff', '%_*?', 'x'.repeat(10_000) + "'",
  ];
  // Each statement as the list queries use parameters: compared with text, cast, as a LIMIT, as an array with ANY.
  const cases: [string, unknown[]][] = [
    ...strings.map((s): [string, unknown[]] => ['SELECT $1::text AS v', [s]]),
    ...strings.map((s): [string, unknown[]] => [`SELECT $1 = $2::text AS v, length($1) AS n`, [s, s]]),
    ['SELECT $1::text[] AS v', [strings]],
    ['SELECT $1::text[] AS v', [[]]],
    [`SELECT 'it''s' = ANY($1::text[]) AS v`, [["it's", 'b']]],
    ['SELECT x FROM generate_series(1, 10) x WHERE x >= $1 ORDER BY x LIMIT $2', [3, 4]],
    ['SELECT $1::bigint + 1 AS v', [9_007_199_254_740_991]],
    [`SELECT $1::bigint AS v`, ['-42']],
    [`SELECT $1::boolean AS v`, [false]],
    [`SELECT coalesce($1, 'none') AS v`, [null]],
  ];

  for (const conforming of ['on', 'off']) {
    it(`with standard_conforming_strings ${conforming}`, async () => {
      await sql.unsafe(`SET standard_conforming_strings = ${conforming}`);
      for (const [text, params] of cases) {
        const inlined = withLiterals(text, params);
        expect(inlined, text).toBeDefined();
        const bound = await sql.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: false });
        const literal = await sql.unsafe(inlined ?? '', [], { prepare: false });
        expect(literal, `${text} ${JSON.stringify(params).slice(0, 80)}`).toEqual(bound);
      }
      // Nothing a value held ran as SQL.
      expect((await sql.unsafe(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`))[0]).toEqual({ n: 0 });
    });
  }
});

// whereSQL (reference §2.10, API.md §4): ignored unless --allow-parameterized-sql-query, and then only the
// parameterised form, checked to be one expression so that it cannot undo the other filters. Both backends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/lib/log.js';
import { openStorage } from '../../../src/storage/open.js';
import type { Storage } from '../../../src/storage/types.js';
import { startTestApiserver, type TestApiserver } from '../../support/apiserver.js';
import { healthyStatus, pod } from '../../support/fixtures.js';
import { freshPostgresDatabase } from '../../support/postgres.js';

const P = '/apis/clusterpedia.io/v1beta1/resources';
const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64');

function contract(backend: string, target: () => Promise<{ url: string; drop: () => Promise<void> }>): void {
  describe(backend, () => {
    let storage: Storage;
    let allowed: TestApiserver;
    let gated: TestApiserver;
    let drop: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      const t = await target();
      drop = t.drop;
      storage = await openStorage({ url: t.url }, { logger: silentLogger() });
      await storage.migrate();
      await storage.write({
        upserts: ['web-1', 'web-2', 'db-1'].flatMap((n) => [pod('c1', 'default', n), pod('c2', 'default', n)]),
        deletes: [],
      });
      for (const c of ['c1', 'c2']) await storage.putClusterStatus(c, healthyStatus(c, true));
      allowed = await startTestApiserver(storage, (o) => {
        o.allowParameterizedSqlQuery = true;
      });
      gated = await startTestApiserver(storage);
    });

    afterAll(async () => {
      await allowed?.stop();
      await gated?.stop();
      await storage?.close();
      await drop?.();
    });

    async function names(api: TestApiserver, query: string, path = `${P}/api/v1/pods`): Promise<string[]> {
      const r = await fetch(`${api.base}${path}?${query}`);
      const body = (await r.json()) as { items?: { metadata: { name: string; annotations: Record<string, string> } }[]; message?: string };
      expect(r.status, body.message).toBe(200);
      return (body.items ?? []).map((i) => `${i.metadata.annotations['shadow.clusterpedia.io/cluster-name']}/${i.metadata.name}`).sort();
    }

    async function status(api: TestApiserver, query: string): Promise<{ code: number; reason: string; message: string }> {
      const r = await fetch(`${api.base}${P}/api/v1/pods?${query}`);
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      return (await r.json()) as { code: number; reason: string; message: string };
    }

    const stmt = (s: string): string => `whereSQLStatement=${encodeURIComponent(s)}`;

    it('without the flag every whereSQL key is ignored, as with Clusterpedia\'s gates off', async () => {
      expect(await names(gated, `${stmt('name = ?')}&whereSQLParam=db-1`)).toHaveLength(6);
      expect(await names(gated, 'whereSQLJSONParams=not-base64!')).toHaveLength(6);
    });

    it('binds whereSQLParam values to the placeholders, ANDed with the other filters', async () => {
      expect(await names(allowed, `${stmt('name = ?')}&whereSQLParam=db-1`)).toEqual(['c1/db-1', 'c2/db-1']);
      expect(await names(allowed, `${stmt('name = ? OR name = ?')}&whereSQLParam=db-1&whereSQLParam=web-2&clusters=c2`)).toEqual(['c2/db-1', 'c2/web-2']);
      expect(await names(allowed, `${stmt('name = ?')}&whereSQLParam=db-1`, `${P}/clusters/c1/api/v1/pods`)).toEqual(['c1/db-1']);
    });

    it('whereSQLJSONParams: an array fills IN ?, values keep their JSON types, and they win over whereSQLParam', async () => {
      expect(await names(allowed, `${stmt('name IN ? AND cluster = ?')}&whereSQLJSONParams=${encodeURIComponent(b64([['web-1', 'db-1'], 'c1']))}`)).toEqual(['c1/db-1', 'c1/web-1']);
      expect(await names(allowed, `${stmt('name IN ?')}&whereSQLJSONParams=${encodeURIComponent(b64([[]]))}`)).toEqual([]);
      expect(await names(allowed, `${stmt('name = ?')}&whereSQLJSONParams=${encodeURIComponent(b64(['web-2']))}&whereSQLParam=db-1`)).toEqual(['c1/web-2', 'c2/web-2']);
    });

    it('a quoted ? is text, not a placeholder; the raw whereSQL is never honoured', async () => {
      expect(await names(allowed, `${stmt("name <> 'what?' AND name = ?")}&whereSQLParam=web-1`)).toEqual(['c1/web-1', 'c2/web-1']);
      expect(await names(allowed, `${stmt("name <> 'it''s (' AND (name = ?)")}&whereSQLParam=db-1`)).toEqual(['c1/db-1', 'c2/db-1']);
      expect(await names(allowed, `whereSQL=${encodeURIComponent("name = 'db-1'")}`)).toHaveLength(6);
    });

    it('works for collection resources too', async () => {
      expect(await names(allowed, `resources=/pods&${stmt('name = ?')}&whereSQLParam=web-2`, '/apis/clusterpedia.io/v1beta1/collectionresources/any')).toEqual(['c1/web-2', 'c2/web-2']);
    });

    it.each([
      ['whereSQLParam without a statement', 'whereSQLParam=x', 422, /^whereSQLStatement: Required value: required when either whereSQLParam or whereSQLJSONParams was provided/],
      ['bad base64', `${stmt('name = ?')}&whereSQLJSONParams=%25%25`, 422, /^whereSQLJSONParams: .*failed to decode base64 string/],
      ['base64 of something else than a JSON array', `${stmt('name = ?')}&whereSQLJSONParams=${encodeURIComponent(b64({ a: 1 }))}`, 422, /failed to unmarshal decoded base64 string to JSON array/],
      ['an object among the JSON parameters', `${stmt('name = ?')}&whereSQLJSONParams=${encodeURIComponent(b64([{ a: 1 }]))}`, 422, /element 0 is neither a value nor an array of values/],
      ['fewer parameters than placeholders', `${stmt('name = ? AND cluster = ?')}&whereSQLParam=x`, 422, /2 placeholder\(s\) but 1 parameter\(s\)/],
      ['a way out of the parentheses', `${stmt('1=1) OR (1=1')}`, 422, /unbalanced parentheses/],
      ['a second statement', `${stmt("1=1; DELETE FROM resources")}`, 422, /more than one statement/],
      ['a comment', `${stmt('name = ? -- and the rest')}&whereSQLParam=x`, 422, /comments are not allowed/],
      ['an unterminated quote', `${stmt("name = 'x")}`, 422, /unterminated quote/],
      ['positional parameters', `${stmt('name = $1')}`, 422, /"\$" is not allowed outside quotes/],
      // Quoting one database reads differently from this check would hide parentheses from it.
      ['PostgreSQL dollar quotes', `${stmt('$$(($$ )) OR 1=1 OR (( $$))$$')}`, 422, /"\$" is not allowed outside quotes/],
      ['an E-string', `${stmt("name = E'\\'' ) OR (1=1 OR name = '")}`, 422, /prefixed quotes/],
      ['a backslash in a literal', `${stmt("name = '\\'")}`, 422, /backslashes are not allowed/],
      ['SQLite bracket quoting', `${stmt('[(] = 1')}`, 422, /"\[" is not allowed outside quotes/],
      ['SQLite backtick quoting', `${stmt('`(` = 1')}`, 422, /"`" is not allowed outside quotes/],
      ['a column the table does not have', `${stmt('no_such_column = ?')}&whereSQLParam=x`, 400, /^whereSQLStatement: the database rejected the query: /],
      ['with watch=true', `${stmt('name = ?')}&whereSQLParam=x&watch=true`, 400, /^watch: whereSQLStatement is not supported with watch=true$/],
    ])('%s: %s', async (_what, query, code, message) => {
      const st = await status(allowed, query);
      expect(st.code).toBe(code);
      expect(st.reason).toBe(code === 422 ? 'Invalid' : 'BadRequest');
      expect(st.message).toMatch(message);
    });

    it('the rows are all still there afterwards', async () => {
      expect(await names(allowed, '')).toHaveLength(6);
    });
  });
}

contract('sqlite', async () => ({ url: 'sqlite::memory:', drop: async () => {} }));
contract('postgres', () => freshPostgresDatabase('cp_where_sql'));

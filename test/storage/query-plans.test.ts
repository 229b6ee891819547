// SQLite query plans: the indexes exist for the queries users run most, and the planner uses them (EXPLAIN QUERY
// PLAN on a populated, analysed database). PostgreSQL plans verified at 100k rows are quoted in label-strategy.ts
// and the benchmark; its planner decides with statistics.
import Database from 'better-sqlite3';
import { sql, type SQL } from 'drizzle-orm';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/lib/log.js';
import { changesQuery } from '../../src/storage/changes-sql.js';
import { encodeContinueToken } from '../../src/storage/continue-token.js';
import { listStatements, storedTypes, storedTypesQuery } from '../../src/storage/list-page.js';
import { orderFingerprint, sortKeys } from '../../src/storage/list-plan.js';
import { resourceColumns } from '../../src/storage/list-sql.js';
import { openStorage } from '../../src/storage/open.js';
import { sqliteQuery } from '../../src/storage/sqlite/query.js';
import type { ListQuery } from '../../src/storage/types.js';
import { obj, pod, PODS } from './fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-plans-'));
let db: Database.Database;

beforeAll(async () => {
  const s = await openStorage({ url: `sqlite:${join(dir, 'p.db')}` }, { logger: silentLogger() });
  await s.migrate();
  const batch = [];
  for (let c = 0; c < 10; c++) {
    for (let d = 0; d < 20; d++) batch.push(obj('deployments', { cluster: `c${c}`, namespace: `ns-${d % 5}`, name: `d${d}`, uid: `d-${c}-${d}` }));
    for (let i = 0; i < 400; i++) {
      batch.push(pod({ cluster: `c${c}`, namespace: `ns-${i % 5}`, name: `p${i}`, owner: `d-${c}-${i % 20}`, labels: { tier: i % 2 ? 'a' : 'b', team: `t${i % 100}` }, created: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString() }));
    }
  }
  await s.write({ upserts: batch, deletes: [] });
  await s.close();
  db = new Database(join(dir, 'p.db'));
  db.exec('ANALYZE');
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function plan(q: SQL): string {
  const r = sqliteQuery.render(q);
  return (db.prepare(`EXPLAIN QUERY PLAN ${r.sql}`).all(...(r.params as unknown[])) as { detail: string }[]).map((x) => x.detail).join('\n');
}

const page = (q: ListQuery, driving?: number): string => plan(listStatements(sqliteQuery, q, driving).page);

describe('sqlite query plans', () => {
  it('a namespace page across clusters walks resources_namespace in order (no sort)', () => {
    const p = page({ types: PODS, namespaces: { op: 'in', values: ['ns-1'] }, limit: 500 });
    expect(p).toMatch(/SEARCH r USING INDEX resources_namespace \(group=\? AND version=\? AND resource=\? AND namespace=\?\)/);
    expect(p).not.toMatch(/TEMP B-TREE/);
  });

  it('a page of several clusters walks resources_key cluster by cluster, in order (no sort; PostgreSQL needs one scan per cluster)', () => {
    const p = page({ types: PODS, clusters: { op: 'in', values: ['c7', 'c2'] }, limit: 500 });
    expect(p).toMatch(/SEARCH r USING INDEX resources_key \(group=\? AND version=\? AND resource=\? AND cluster=\?\)/);
    expect(p).not.toMatch(/TEMP B-TREE/);
  });

  it('a keyset page seeks the unique key with a row-value bound (page 200 costs what page 1 does)', () => {
    const q: ListQuery = { types: PODS, limit: 500 };
    const token = encodeContinueToken(['c3', 'ns-2', 'p17'], orderFingerprint(q, sortKeys(sqliteQuery, q, resourceColumns('r'))));
    const p = page({ ...q, continue: { token } });
    expect(p).toMatch(/SEARCH r USING INDEX resources_key \(group=\? AND version=\? AND resource=\? AND \(cluster,namespace,name\)>\(\?,\?,\?\)\)/);
    expect(p).not.toMatch(/TEMP B-TREE/);
    // With the namespace pinned, the bound is (cluster, name) on resources_namespace.
    const q2: ListQuery = { types: PODS, namespaces: { op: 'in', values: ['ns-1'] }, limit: 500 };
    const t2 = encodeContinueToken(['c3', 'p17'], orderFingerprint(q2, sortKeys(sqliteQuery, q2, resourceColumns('r'))));
    expect(page({ ...q2, continue: { token: t2 } })).toMatch(/USING INDEX resources_namespace \(.*namespace=\? AND \(cluster,name\)>\(\?,\?\)\)/);
  });

  it('a page over several types reads a page of each along its index and sorts only those (collectionresources)', () => {
    const types: ListQuery['types'] = { kind: 'many', entries: [{ group: 'apps', version: 'v1', resource: 'deployments' }, { group: '', version: 'v1', resource: 'pods' }] };
    const tokenFor = (q: ListQuery, values: string[]): string => encodeContinueToken(values, orderFingerprint(q, sortKeys(sqliteQuery, q, resourceColumns('r'))));
    const q: ListQuery = { types, limit: 500 };
    const inNs: ListQuery = { ...q, namespaces: { op: 'in', values: ['ns-1'] } };
    const plans: [string, RegExp][] = [
      [page(q), /SEARCH r USING COVERING INDEX resources_key \(group=\? AND version=\? AND resource=\?\)/g],
      [page({ ...q, continue: { token: tokenFor(q, ['c3', 'ns-1', 'p7', '', 'v1', 'pods']) } }),
        /SEARCH r USING COVERING INDEX resources_key \(group=\? AND version=\? AND resource=\? AND \(cluster,namespace,name\)>\(\?,\?,\?\)\)/g],
      [page({ ...inNs, continue: { token: tokenFor(inNs, ['c3', 'p7', '', 'v1', 'pods']) } }),
        /SEARCH r USING COVERING INDEX resources_namespace \(group=\? AND version=\? AND resource=\? AND namespace=\? AND \(cluster,name\)>\(\?,\?\)\)/g],
    ];
    for (const [p, arm] of plans) {
      expect(p.match(arm), p).toHaveLength(2);
      // The sorts are of the merged pages (at most 2 × 501 ids) and of the page itself, after every arm.
      expect(p.slice(0, p.indexOf('SCAN m')), p).not.toMatch(/TEMP B-TREE/);
    }
    // Types given by group or without their version: the stored ones are read first (resource_types), then merged too.
    const byGroup: ListQuery = { types: { kind: 'many', entries: [{ group: 'apps' }, { group: '', resource: 'pods' }] }, limit: 500 };
    expect(page(byGroup)).not.toMatch(/UNION ALL/);
    const typesSql = sqliteQuery.render(storedTypesQuery(sqliteQuery, byGroup, undefined) ?? sql`SELECT 1`);
    const stored = storedTypes(db.prepare(typesSql.sql).raw(true).all(...(typesSql.params as unknown[])) as unknown[][]);
    expect(stored.map((t) => `${t.group}/${t.version}/${t.resource}`).sort()).toEqual(['/v1/pods', 'apps/v1/deployments']);
    expect(plan(listStatements(sqliteQuery, byGroup, undefined, stored).page).match(plans[0]?.[1] ?? /^$/)).toHaveLength(2);
    // Every type (any?groups=*): every stored one.
    const every = sqliteQuery.render(storedTypesQuery(sqliteQuery, { types: { kind: 'all' }, limit: 500 }, undefined) ?? sql`SELECT 1`);
    expect(storedTypes(db.prepare(every.sql).raw(true).all(...(every.params as unknown[])) as unknown[][]).map((t) => t.resource).sort()).toEqual(['deployments', 'pods']);
    // Nothing to look up for types given whole, nor for what is not read a page at a time in key order.
    expect(storedTypesQuery(sqliteQuery, q, undefined)).toBeUndefined();
    expect(storedTypesQuery(sqliteQuery, { ...byGroup, limit: 0 }, undefined)).toBeUndefined();
    expect(storedTypesQuery(sqliteQuery, { ...byGroup, orderBy: [{ column: 'name', desc: true }] }, undefined)).toBeUndefined();
  });

  it('one object by its key is one index seek', () => {
    const p = page({ types: PODS, clusters: { op: 'in', values: ['c1'] }, namespaces: { op: 'in', values: ['ns-1'] }, names: { op: 'in', values: ['p6'] } });
    expect(p).toMatch(/SEARCH r USING INDEX resources_(key|namespace) \(.*cluster=\?.*name=\?\)/);
  });

  it('a driving label requirement seeks the resource_labels primary key; others read the labels column', () => {
    const q: ListQuery = { types: PODS, labels: [{ key: 'team', operator: '=', values: ['t7'] }, { key: 'tier', operator: '!=', values: ['a'] }], limit: 500 };
    expect(page(q, 0)).toMatch(/SEARCH l USING PRIMARY KEY \(key=\? AND value=\?\)/);
    expect(page(q, 0)).toMatch(/SEARCH r USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    // Not driving: the order index is walked and each row checked (a label matching half the rows).
    expect(page(q, undefined)).toMatch(/SEARCH r USING INDEX resources_key \(group=\? AND version=\? AND resource=\?\)/);
    expect(page(q, undefined)).not.toMatch(/resource_labels/);
  });

  it('owner search descends through resources_owner and resources_name', () => {
    const p = page({ types: PODS, clusters: { op: 'in', values: ['c1'] }, owner: { name: 'd3', groupResource: { group: 'apps', resource: 'deployments' }, seniority: 0 } });
    expect(p).toMatch(/USING (COVERING )?INDEX resources_owner \(cluster=\? AND owner_uid=\?\)/);
    expect(p).toMatch(/USING INDEX resources_name \(name=\? AND cluster=\?\)/);
  });

  it('names across clusters use resources_name; since/before use resources_created', () => {
    expect(page({ types: PODS, names: { op: 'in', values: ['p1', 'p2'] } })).toMatch(/USING INDEX resources_name \(name=\?\)/);
    expect(page({ types: PODS, since: new Date('2024-01-01T00:10:00Z'), before: new Date('2024-01-01T00:11:00Z') })).toMatch(
      /USING INDEX resources_created \(group=\? AND version=\? AND resource=\? AND created_at>\? AND created_at<\?\)/,
    );
  });

  it('changesSince is a rowid range of the change log', () => {
    expect(plan(changesQuery(sqliteQuery, { types: PODS }, 10, sql`${100}`, 500))).toMatch(/SEARCH c USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/);
  });
});

// Contract: migrations (idempotent, concurrent, refusing a newer schema), the unmigrated storage, and injection
// strings in every string parameter.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ListQuery, Storage } from '../../src/storage/types.js';
import { drain, ids, path, pod, PODS, revisionsOf, type Harness, type OpenHarness } from './fixtures.js';

/** The migrations of each dialect, in order (PostgreSQL's third turned jsonb columns into json, SQLite has text; its sixth compresses objects with lz4). */
const MIGRATIONS_OF: Record<Storage['dialect'], string[]> = {
  sqlite: ['0000_init', '0001_event_involved_uid', '0002_change_prev_labels', '0003_selectable_fields', '0004_fields_before_object'],
  postgres: ['0000_init', '0001_event_involved_uid', '0002_object_json', '0003_change_prev_labels', '0004_selectable_fields', '0005_object_lz4'],
};

const INJECTIONS = [`' OR 1=1 --`, `"; DROP TABLE resources; --`, `%`, `_`, `') OR ('1'='1`, `\\`, `$1`, `?`];

export function lifecycleContract(open: OpenHarness): void {
  describe('lifecycle', () => {
    let h: Harness;
    let s: Storage;
    let MIGRATIONS: string[];
    beforeEach(async () => {
      h = await open();
      s = h.storage;
      MIGRATIONS = MIGRATIONS_OF[s.dialect];
    });
    afterEach(async () => h.cleanup());

    it('migrate: dry run plans, the first run applies, the second is a no-op', async () => {
      const all = { from: 0, to: MIGRATIONS.length, applied: [...MIGRATIONS] };
      expect(await s.migrate({ dryRun: true })).toEqual(all);
      expect(await s.migrate({ dryRun: true })).toEqual(all);
      expect(await s.migrate()).toEqual(all);
      expect(await s.migrate()).toEqual({ from: MIGRATIONS.length, to: MIGRATIONS.length, applied: [] });
      await s.ping();
    });

    it('an unmigrated storage is reported as such, never silently created', async () => {
      await expect(s.list({ types: PODS })).rejects.toMatchObject({ code: 'SchemaMismatch', message: expect.stringMatching(/not migrated/) });
      await expect(s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'a' })], deletes: [] })).rejects.toMatchObject({ code: 'SchemaMismatch' });
    });

    it('two processes migrating at once: one applies, the other finds nothing to do, both succeed', async () => {
      const other = await h.openAnother();
      try {
        const plans = await Promise.all([s.migrate(), other.migrate()]);
        expect(plans.map((p) => p.applied.length).sort()).toEqual([0, MIGRATIONS.length]);
        await other.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'a' })], deletes: [] });
        expect(await ids(s, { types: PODS })).toEqual(['c/ns/a']);
      } finally {
        await other.close();
      }
    });

    it('a schema newer than this binary is refused (SchemaMismatch) at open and by migrate', async () => {
      await s.migrate();
      await h.addNewerMigration();
      await expect(h.openAnother()).rejects.toMatchObject({
        code: 'SchemaMismatch',
        retryable: false,
        message: `database schema version ${MIGRATIONS.length + 1} is newer than this clusterpedia (knows up to ${MIGRATIONS.length}); upgrade clusterpedia`,
      });
      await expect(s.migrate()).rejects.toMatchObject({ code: 'SchemaMismatch' });
    });

    it('injection strings in every string parameter match nothing and change nothing', async () => {
      await s.migrate();
      const rev = await revisionsOf(s);
      await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'a', labels: { app: 'x' }, fields: { status: { phase: 'Running' } } })], deletes: [] });
      for (const x of INJECTIONS) {
        const queries: Partial<ListQuery>[] = [
          { clusters: { op: 'in', values: [x] } },
          { namespaces: { op: 'in', values: [x, 'ns-none'] } },
          { names: { op: 'in', values: [x] } },
          { labels: [{ key: x, operator: '=', values: ['x'] }] },
          { labels: [{ key: 'app', operator: 'in', values: [x] }] },
          { labels: [{ key: x, operator: 'exists', values: [] }] },
          { fields: [{ path: path('status', x), operator: '=', values: ['Running'] }] },
          { fields: [{ path: path('status', 'phase'), operator: '=', values: [x] }] },
          { fields: [{ path: [{ name: x, list: true }, { name: x }], operator: 'in', values: [x] }] },
          { fuzzyNames: [x] },
          { clusters: { op: 'in', values: ['c'] }, owner: { name: x, groupResource: { group: x, resource: x }, seniority: 1 } },
          { clusters: { op: 'in', values: ['c'] }, owner: { uid: x, seniority: 0 } },
          { types: { kind: 'one', group: x, version: x, resource: x } },
          { types: { kind: 'many', entries: [{ group: x, resource: x }] } },
        ];
        for (const q of queries) expect(await ids(s, { types: PODS, ...q })).toEqual([]);
        // Negations of injected values match the one row, as any other unknown value would.
        expect(await ids(s, { types: PODS, labels: [{ key: x, operator: '!', values: [] }] })).toEqual(['c/ns/a']);
        expect(await ids(s, { types: PODS, orderBy: [{ path: path(x), desc: true }] })).toEqual(['c/ns/a']);
        expect(await s.get({ cluster: x, group: x, version: x, resource: x, namespace: x, name: x })).toBeUndefined();
        expect((await s.resourceVersions(x, { group: x, version: x, resource: x })).size).toBe(0);
        expect(await s.cleanCluster(x)).toBe(0);
        expect(await s.cleanResource('c', { group: x, version: 'v1', resource: 'pods' })).toBe(0);
        await s.write({ upserts: [], deletes: [{ cluster: 'c', group: '', version: 'v1', resource: 'pods', namespace: 'ns', name: x }] });
        const ch = await s.changesSince(rev(0), { types: PODS, clusters: { op: 'in', values: [x] }, labels: [{ key: x, operator: '=', values: [x] }] }, 10);
        expect(ch.expired ? 'expired' : ch.changes).toEqual([]);
      }
      expect((await drain(await s.list({ types: { kind: 'all' } }))).map((r) => r.name)).toEqual(['a']);
      expect(await s.currentRevision()).toBe(rev(1));
    });
  });
}

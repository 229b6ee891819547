// Contract: paging — reference §9.1 P* adapted to keyset tokens and the numeric offset form, remainingItemCount,
// long keyset walks in several orders, foreign tokens, and streamed lists that are abandoned.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStorageError } from '../../src/storage/errors.js';
import type { ListQuery, OrderTerm, Storage, StoredRow } from '../../src/storage/types.js';
import { fixture } from './contract-queries.js';
import { drain, id, ids, migratedStorage, obj, path, pod, PODS, walk, type Harness, type OpenHarness } from './fixtures.js';

const ALL = ['c1/ns-1/name-1', 'c1/ns-1/name-2', 'c1/ns-2/name-1', 'c2/ns-1/name-1', 'c2/ns-2/name-3', 'c3/ns-1/name-2'];

/** 1,000 pods over 3 clusters × 4 namespaces, some without status.phase, shuffled names. */
function manyPods(): ReturnType<typeof pod>[] {
  const out = [];
  for (let i = 0; i < 1000; i++) {
    const n = (i * 7919) % 1000; // a permutation: insertion order differs from every sort order
    out.push(
      pod({
        cluster: `c${n % 3}`, namespace: `ns-${n % 4}`, name: `p-${String(n).padStart(4, '0')}`, rv: String(1000 + n),
        created: new Date(Date.UTC(2023, 0, 1) + (n % 50) * 60_000).toISOString(), labels: { half: n % 2 === 0 ? 'even' : 'odd', team: `t-${n % 100}` },
        fields: n % 5 === 0 ? {} : { status: { phase: ['Running', 'Pending', 'Failed', 'Succeeded'][n % 4] } },
      }),
    );
  }
  return out;
}

/** Writes manyPods() in batches of 250, in an order unlike every sort order. */
export async function writeManyPods(s: Storage): Promise<void> {
  const objs = manyPods();
  for (let i = 0; i < objs.length; i += 250) await s.write({ upserts: objs.slice(i, i + 250), deletes: [] });
}

export function pagingContract(open: OpenHarness): void {
  describe('paging', () => {
    const storage = migratedStorage(open, async (st) => {
      await st.write({ upserts: fixture, deletes: [] });
    });
    let s: Storage;
    beforeAll(() => {
      s = storage();
    });

    it('P1: limit returns at most limit rows and a token for the rest', async () => {
      const page = await s.list({ types: PODS, limit: 2 });
      expect((await drain(page)).map(id)).toEqual(ALL.slice(0, 2));
      const token = page.continueToken();
      expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
      const next = await s.list({ types: PODS, limit: 2, continue: { token: token as string } });
      expect((await drain(next)).map(id)).toEqual(ALL.slice(2, 4));
    });

    it('P2–P4: limit 0 or absent is unlimited, with no token', async () => {
      const page = await s.list({ types: PODS, limit: 0 });
      expect((await drain(page)).map(id)).toEqual(ALL);
      expect(page.continueToken()).toBeUndefined();
      expect(await ids(s, { types: PODS })).toEqual(ALL);
    });

    it('P5–P8: numeric offset; negative is none; next token is offset + limit', async () => {
      expect(await ids(s, { types: PODS, continue: { offset: 1 } })).toEqual(ALL.slice(1));
      expect(await ids(s, { types: PODS, continue: { offset: -1 } })).toEqual(ALL);
      const page = await s.list({ types: PODS, limit: 2, continue: { offset: 1 }, withRemainingCount: true });
      expect((await drain(page)).map(id)).toEqual(ALL.slice(1, 3));
      expect(page.continueToken()).toBe('3');
      expect(page.remainingItemCount).toBe(3);
      const last = await s.list({ types: PODS, limit: 2, continue: { offset: 4 } });
      expect((await drain(last)).map(id)).toEqual(ALL.slice(4));
      expect(last.continueToken()).toBeUndefined();
    });

    it('remainingItemCount counts the matching rows after the page, on keyset pages too', async () => {
      const first = await s.list({ types: PODS, limit: 2, withRemainingCount: true });
      expect(first.remainingItemCount).toBe(4);
      await drain(first);
      const second = await s.list({ types: PODS, limit: 2, withRemainingCount: true, continue: { token: first.continueToken() as string } });
      expect(second.remainingItemCount).toBe(2);
      const filtered = await s.list({ types: PODS, limit: 1, withRemainingCount: true, labels: [{ key: 'key1', operator: '=', values: ['value1'] }] });
      expect(filtered.remainingItemCount).toBe(1);
      expect((await s.list({ types: PODS, limit: 2 })).remainingItemCount).toBeUndefined();
    });

    it('the page revision is the storage revision at the time of the list', async () => {
      const page = await s.list({ types: PODS, limit: 1 });
      expect(page.revision).toBe(await s.currentRevision());
    });

    it('a token is rejected (Invalid) for another order, other types, or when malformed', async () => {
      const page = await s.list({ types: PODS, limit: 2 });
      await drain(page);
      const token = page.continueToken() as string;
      const reject = async (q: ListQuery): Promise<void> => {
        const e: unknown = await s.list(q).then(() => undefined, (x: unknown) => x);
        expect(isStorageError(e) && e.code).toBe('Invalid');
      };
      await reject({ types: PODS, limit: 2, orderBy: [{ column: 'name', desc: true }], continue: { token } });
      await reject({ types: { kind: 'one', group: 'apps', version: 'v1', resource: 'deployments' }, limit: 2, continue: { token } });
      await reject({ types: PODS, limit: 2, continue: { token: 'not-a-token' } });
      await reject({ types: PODS, limit: 2, continue: { token: Buffer.from('{"v":1,"f":"x","k":[]}').toString('base64url') } });
    });
  });

  describe('keyset walks over several types', () => {
    let h: Harness;
    let s: Storage;
    const TYPES = ['pods', 'deployments', 'statefulsets', 'widgets'] as const;
    const key = (r: StoredRow): string => `${r.cluster}/${r.namespace}/${r.name}/${r.group}/${r.version}/${r.resource}`;
    const bytes = (r: StoredRow): Buffer[] => [r.cluster, r.namespace, r.name, r.group, r.version, r.resource].map((x) => Buffer.from(x));
    const byteOrder = (a: StoredRow, b: StoredRow): number => {
      const [x, y] = [bytes(a), bytes(b)];
      for (let i = 0; i < x.length; i++) {
        const c = Buffer.compare(x[i] as Buffer, y[i] as Buffer);
        if (c !== 0) return c;
      }
      return 0;
    };
    let all: StoredRow[];
    beforeAll(async () => {
      h = await open();
      s = h.storage;
      await s.migrate();
      // 4 types × 150 objects over 3 clusters × 3 namespaces, names shared across types (the type breaks the ties).
      const upserts = TYPES.flatMap((t, ti) => Array.from({ length: 150 }, (_, i) => {
        const n = (i * 37 + ti * 11) % 150;
        return obj(t, { cluster: `c${n % 3}`, namespace: `ns-${Math.floor(n / 3) % 3}`, name: `w-${String(n % 60).padStart(2, '0')}`, labels: { half: n % 2 === 0 ? 'even' : 'odd' } });
      }));
      // The same widgets stored at a second version too, for types given by group: one more tie-breaker.
      for (let n = 0; n < 40; n++) {
        const w = obj('widgets', { cluster: `c${n % 3}`, namespace: `ns-${Math.floor(n / 3) % 3}`, name: `w-${String(n).padStart(2, '0')}` });
        upserts.push({ ...w, version: 'v2', object: { ...w.object, apiVersion: 'example.io/v2' } });
      }
      for (let i = 0; i < upserts.length; i += 100) await s.write({ upserts: upserts.slice(i, i + 100), deletes: [] });
      all = await drain(await s.list({ types: { kind: 'all' } }));
    });
    afterAll(async () => h.cleanup());

    const of = (...names: (typeof TYPES)[number][]): ListQuery['types'] => ({
      kind: 'many',
      entries: names.map((t) => ({ ...{ pods: { group: '', resource: 'pods' }, deployments: { group: 'apps', resource: 'deployments' }, statefulsets: { group: 'apps', resource: 'statefulsets' }, widgets: { group: 'example.io', resource: 'widgets' } }[t], version: 'v1' })),
    });

    it('a list over several types in the default order pages through every row once, in byte order of the whole key', async () => {
      const cases: [Partial<ListQuery>, (r: StoredRow) => boolean][] = [
        [{}, () => true],
        [{ namespaces: { op: 'in', values: ['ns-1'] } }, (r) => r.namespace === 'ns-1'],
        [{ clusters: { op: 'in', values: ['c2'] } }, (r) => r.cluster === 'c2'],
        [{ clusters: { op: 'in', values: ['c2', 'c0'] }, labels: [{ key: 'half', operator: '=', values: ['odd'] }] }, (r) => r.cluster !== 'c1' && (JSON.parse(r.object) as { metadata: { labels?: Record<string, string> } }).metadata.labels?.['half'] === 'odd'],
        [{ clusters: { op: 'in', values: ['c1'] }, namespaces: { op: 'in', values: ['ns-0'] } }, (r) => r.cluster === 'c1' && r.namespace === 'ns-0'],
      ];
      // Types given whole, and by group or without a version (collectionresources kuberesources, any?groups=…).
      const typeSets: ListQuery['types'][] = [
        of('pods', 'deployments', 'statefulsets', 'widgets'), of('statefulsets', 'deployments'), of('widgets', 'pods', 'widgets'),
        { kind: 'many', entries: [{ group: 'apps' }] },
        { kind: 'many', entries: [{ group: 'example.io', resource: 'widgets' }, { group: '', resource: 'pods' }] },
        { kind: 'many', entries: [{ group: 'example.io' }, { group: 'apps', version: 'v1', resource: 'statefulsets' }] },
        { kind: 'all' },
      ];
      for (const types of typeSets) {
        const covers = (r: StoredRow): boolean => types.kind === 'all' || (types.kind === 'many'
          && types.entries.some((e) => e.group === r.group && (e.version ?? r.version) === r.version && (e.resource ?? r.resource) === r.resource));
        for (const [filter, keep] of cases) {
          const q: ListQuery = { types, ...filter };
          const expected = all.filter((r) => covers(r) && keep(r)).sort(byteOrder).map(key);
          expect(expected.length, JSON.stringify(q)).toBeGreaterThan(5);
          expect((await drain(await s.list(q))).map(key), JSON.stringify(q)).toEqual(expected);
          // Pages of one on the smaller sets (every row a page boundary, ties between types included), else of 7 and 500.
          for (const limit of expected.length <= 120 ? [1, 7] : [7, 500]) {
            const { rows, pages } = await walk(s, q, limit);
            expect(rows.map(key), `${JSON.stringify(q)} limit ${limit}`).toEqual(expected);
            expect(pages).toBe(Math.max(1, Math.ceil(expected.length / limit)));
          }
        }
      }
      const page = await s.list({ types: of('deployments', 'pods'), limit: 10, withRemainingCount: true });
      expect((await drain(page)).length).toBe(10);
      expect(page.remainingItemCount).toBe(all.filter((r) => r.resource === 'deployments' || r.resource === 'pods').length - 10);
    });

    it('a list over more than a thousand types or groups reads as one over few (SQLite refuses an OR chain 1,000 deep)', async () => {
      const typeSets: [ListQuery['types'], (r: StoredRow) => boolean][] = [
        [{ kind: 'many', entries: [...Array.from({ length: 1500 }, (_, i) => ({ group: `g${i}.example` })), { group: 'apps' }] }, (r) => r.group === 'apps'],
        [
          { kind: 'many', entries: [...Array.from({ length: 1200 }, (_, i) => ({ group: 'example.io', resource: `r${i}` })), { group: '', resource: 'pods' }, { group: 'example.io', resource: 'widgets' }] },
          (r) => r.resource === 'pods' || r.resource === 'widgets',
        ],
      ];
      for (const [types, keep] of typeSets) {
        const expected = all.filter(keep).sort(byteOrder).map(key);
        expect(expected.length).toBeGreaterThan(50);
        expect((await drain(await s.list({ types }))).map(key)).toEqual(expected);
        const { rows } = await walk(s, { types, clusters: { op: 'in', values: ['c1', 'c2'] } }, 25);
        expect(rows.map(key)).toEqual(all.filter((r) => keep(r) && r.cluster !== 'c0').sort(byteOrder).map(key));
      }
    });
  });

  describe('keyset walks over 1,000 rows', () => {
    const storage = migratedStorage(open, writeManyPods);
    let s: Storage;
    let all: StoredRow[];
    beforeAll(async () => {
      s = storage();
      all = await drain(await s.list({ types: PODS }));
    });

    const orders: [string, OrderTerm[] | undefined][] = [
      ['default', undefined],
      ['name desc', [{ column: 'name', desc: true }]],
      ['status.phase asc (absent first) then created_at desc', [{ path: path('status', 'phase'), desc: false }, { column: 'created_at', desc: true }]],
      ['status.phase desc (absent last)', [{ path: path('status', 'phase'), desc: true }]],
      ['resource_version desc', [{ column: 'resource_version', desc: true }]],
    ];
    for (const [name, orderBy] of orders) {
      it(`limit 7 returns every row exactly once, in order: ${name}`, async () => {
        const q: ListQuery = { types: PODS, ...(orderBy ? { orderBy } : {}) };
        const full = (await drain(await s.list(q))).map(id);
        expect(full).toHaveLength(1000);
        expect(new Set(full).size).toBe(1000);
        const { rows, pages } = await walk(s, q, 7);
        expect(rows.map(id)).toEqual(full);
        expect(pages).toBe(Math.ceil(1000 / 7));
      });
    }

    it('keyset pages with filters: one namespace, one cluster, a label matching half', async () => {
      const q: ListQuery = { types: PODS, namespaces: { op: 'in', values: ['ns-1'] }, labels: [{ key: 'half', operator: '=', values: ['even'] }] };
      const expected = all.filter((r) => r.namespace === 'ns-1' && Number(r.name.slice(2)) % 2 === 0).map(id);
      expect((await walk(s, q, 9)).rows.map(id)).toEqual(expected);
      const q2: ListQuery = { types: PODS, clusters: { op: 'in', values: ['c2'] }, labels: [{ key: 'team', operator: 'in', values: ['t-1', 't-2'] }] };
      const expected2 = all.filter((r) => r.cluster === 'c2' && ['t-1', 't-2'].includes(`t-${Number(r.name.slice(2)) % 100}`)).map(id);
      expect(expected2.length).toBeGreaterThan(0);
      expect((await walk(s, q2, 3)).rows.map(id)).toEqual(expected2);
    });

    it('keyset pages over several clusters (PostgreSQL reads one scan per cluster) walk every row once, in order', async () => {
      for (const clusters of [['c2', 'c0'], ['c0', 'c1', 'c2'], ['c1', 'c2', 'c1']]) {
        for (const extra of [{}, { namespaces: { op: 'in', values: ['ns-1', 'ns-3'] } }, { labels: [{ key: 'half', operator: '=', values: ['odd'] }] }] as Partial<ListQuery>[]) {
          const q: ListQuery = { types: PODS, clusters: { op: 'in', values: clusters }, ...extra };
          const expected = (await drain(await s.list(q))).map(id);
          expect(expected.length).toBeGreaterThan(20);
          expect(expected.every((x) => clusters.includes(x.split('/')[0] ?? ''))).toBe(true);
          expect(expected).toEqual([...expected].sort());
          const { rows, pages } = await walk(s, q, 7);
          expect(rows.map(id), JSON.stringify(q)).toEqual(expected);
          expect(pages).toBe(Math.ceil(expected.length / 7));
        }
      }
      const page = await s.list({ types: PODS, clusters: { op: 'in', values: ['c0', 'c2'] }, limit: 100, withRemainingCount: true });
      expect((await drain(page)).length).toBe(100);
      expect(page.remainingItemCount).toBe(all.filter((r) => r.cluster !== 'c1').length - 100);
      // Descending cluster order: the clusters come last first.
      const desc = (await drain(await s.list({ types: PODS, clusters: { op: 'in', values: ['c0', 'c2'] }, orderBy: [{ column: 'cluster', desc: true }] }))).map(id);
      expect(desc).toEqual([...all.filter((r) => r.cluster === 'c2'), ...all.filter((r) => r.cluster === 'c0')].map(id));
    });

    it('an unlimited list over several clusters abandoned anywhere, between clusters too, releases its connection', async () => {
      const q: ListQuery = { types: PODS, clusters: { op: 'in', values: ['c2', 'c0'] } };
      const first = all.filter((r) => r.cluster === 'c0').length;
      for (let i = 0; i < 12; i++) {
        const ac = new AbortController();
        let n = 0;
        for await (const _ of (await s.list(q, ac.signal)).rows) {
          if (++n === first + (i % 3) - 1) ac.abort(); // just before, at and after the switch to the second cluster
          if (n > first + 5) break;
        }
        expect(n).toBeLessThanOrEqual(first + 2);
        for await (const _ of (await s.list(q)).rows) break;
      }
      expect((await drain(await s.list(q))).length).toBe(all.filter((r) => r.cluster !== 'c1').length);
    });

    it('a streamed list abandoned by an aborted client releases its connection', async () => {
      for (let i = 0; i < 12; i++) {
        const ac = new AbortController();
        const page = await s.list({ types: PODS }, ac.signal);
        let n = 0;
        for await (const _ of page.rows) {
          if (++n === 3) ac.abort();
          if (n > 10) break;
        }
        expect(n).toBeLessThanOrEqual(4);
      }
      for (let i = 0; i < 12; i++) {
        // Aborted before a row was read, and never iterated.
        const ac = new AbortController();
        await s.list({ types: PODS }, ac.signal);
        ac.abort();
      }
      for (let i = 0; i < 12; i++) {
        // Consumer stops early without an abort (for-await `break` calls return()).
        for await (const _ of (await s.list({ types: PODS })).rows) break;
      }
      expect(await drain(await s.list({ types: PODS }))).toHaveLength(1000);
    });

    it('an already-aborted signal fails the list without taking a connection for long', async () => {
      const ac = new AbortController();
      ac.abort();
      const e: unknown = await s.list({ types: PODS }, ac.signal).then(() => undefined, (x: unknown) => x);
      expect(isStorageError(e)).toBe(true);
      expect(await drain(await s.list({ types: PODS, limit: 5 }))).toHaveLength(5);
    });
  });
}

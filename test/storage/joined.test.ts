// listJoined: a page read at once comes as buffers of objects instead of rows (SQLite joins them in SQL; PostgreSQL
// hands over each object's bytes as received). It must be the page list() gives — same objects in the same order,
// same token, count and revision — for every order and filter form, and a page of large objects spans several
// buffers without losing or reordering one. SQLite also joins an unlimited list that turns out small; PostgreSQL
// streams every unlimited list.
import { describe, expect, it } from 'vitest';
import { isStorageError } from '../../src/storage/errors.js';
import type { JoinedPage, ListQuery, Storage } from '../../src/storage/types.js';
import { writeManyPods } from './contract-paging.js';
import { drain, migratedStorage, obj, path, pod, PODS, type Harness } from './fixtures.js';
import { postgresHarness } from './harness-postgres.js';
import { sqliteHarness } from './harness-sqlite.js';

function joined(st: Storage, q: ListQuery): Promise<JoinedPage | undefined> {
  if (!st.listJoined) throw new Error(`the ${st.dialect} storage joins pages`);
  return st.listJoined(q);
}

/** The text of a joined page's items, as a JSON list would carry them. */
const itemsText = (p: JoinedPage): string => p.objects.map((b) => b.toString('utf8')).join(',');

/** Walks `q` with `limit` both ways, page by page, and checks each pair; returns the number of rows walked. */
async function walkBoth(s: Storage, q: ListQuery, limit: number): Promise<number> {
  let token: string | undefined;
  let rows = 0;
  for (let pages = 0; pages < 10_000; pages++) {
    const pq: ListQuery = { ...q, limit, ...(token ? { continue: { token } } : {}) };
    const listed = await s.list(pq);
    const expected = await drain(listed);
    const got = await joined(s, pq);
    if (!got) throw new Error(`limit ${limit} was not joined`);
    expect(itemsText(got)).toBe(expected.map((r) => r.object).join(','));
    expect(got.count).toBe(expected.length);
    expect(got.continueToken()).toBe(listed.continueToken());
    expect(got.remainingItemCount).toBe(listed.remainingItemCount);
    expect(got.revision).toBe(listed.revision);
    rows += expected.length;
    token = listed.continueToken();
    if (!token) return rows;
  }
  throw new Error('continue tokens never end');
}

function joinedContract(dialect: string, open: () => Promise<Harness>, joinsSmallUnlimited: boolean): void {
  describe(`listJoined: ${dialect}`, () => {
    // Written in an order unlike every sort order, so ids (the joined read's order) never follow the keys by chance.
    const storage = migratedStorage(open, writeManyPods);

    const forms: [string, ListQuery][] = [
      ['default order', { types: PODS }],
      ['name desc', { types: PODS, orderBy: [{ column: 'name', desc: true }] }],
      ['status.phase then created_at desc', { types: PODS, orderBy: [{ path: path('status', 'phase'), desc: false }, { column: 'created_at', desc: true }] }],
      ['one namespace, with remainingItemCount', { types: PODS, namespaces: { op: 'in', values: ['ns-1'] }, withRemainingCount: true }],
      ['a label driving the query (sorted matches)', { types: PODS, labels: [{ key: 'team', operator: 'in', values: ['t-1', 't-2', 't-3'] }] }],
      ['a label matching half, one cluster', { types: PODS, clusters: { op: 'in', values: ['c2'] }, labels: [{ key: 'half', operator: '=', values: ['even'] }] }],
      ['created since', { types: PODS, since: new Date(Date.UTC(2023, 0, 1) + 20 * 60_000) }],
      ['metadata only', { types: PODS, onlyMetadata: true }],
    ];
    for (const [name, q] of forms) {
      it(`serves list()'s pages, walked with limit 7 and 500: ${name}`, async () => {
        const total = (await drain(await storage().list(q))).length;
        expect(total).toBeGreaterThan(7);
        expect(await walkBoth(storage(), q, 7)).toBe(total);
        expect(await walkBoth(storage(), q, 500)).toBe(total);
        // Unlimited, and no more than a page read at once.
        if (joinsSmallUnlimited) expect(await walkBoth(storage(), q, 0)).toBe(total);
        else expect(await joined(storage(), q)).toBeUndefined();
      });
    }

    it('serves the numeric offset form too', async () => {
      for (const [offset, rest, token] of [[900, 60, '940'], [950, 10, '990'], [980, 0, undefined]] as const) {
        const q: ListQuery = { types: PODS, limit: 40, continue: { offset }, withRemainingCount: true };
        const expected = await drain(await storage().list(q));
        const got = await joined(storage(), q);
        expect(got && itemsText(got)).toBe(expected.map((r) => r.object).join(','));
        expect(got?.continueToken()).toBe(token);
        expect(got?.remainingItemCount).toBe(rest);
      }
    });

    it('an empty page has no buffers', async () => {
      for (const limit of joinsSmallUnlimited ? [10, 0] : [10]) {
        const none = await joined(storage(), { types: PODS, namespaces: { op: 'in', values: ['nowhere'] }, limit });
        expect(none?.objects).toEqual([]);
        expect(none?.count).toBe(0);
        expect(none?.continueToken()).toBeUndefined();
      }
    });

    it('a malformed token is Invalid, as in list()', async () => {
      const e: unknown = await joined(storage(), { types: PODS, limit: 5, continue: { token: 'not-a-token' } }).then(() => undefined, (x: unknown) => x);
      expect(isStorageError(e) && e.code).toBe('Invalid');
    });

    it('an aborted caller gets an error and the connection back', async () => {
      const ac = new AbortController();
      ac.abort();
      for (let i = 0; i < 12; i++) {
        const e: unknown = await storage().listJoined?.({ types: PODS, limit: 5 }, ac.signal).then(() => undefined, (x: unknown) => x);
        expect(isStorageError(e)).toBe(true);
      }
      expect((await joined(storage(), { types: PODS, limit: 5 }))?.count).toBe(5);
    });

    it('splits a page of large objects into several buffers, in order, none lost', async () => {
      // 24 ConfigMap-sized widgets of ~1 MB: 24 MB of objects, more than one joined buffer holds.
      const big = Array.from({ length: 24 }, (_, i) =>
        obj('widgets', { cluster: 'c1', namespace: 'big', name: `w-${String(23 - i).padStart(2, '0')}`, fields: { data: `${i}:${'x'.repeat(1_000_000)}` } }),
      );
      await storage().write({ upserts: big, deletes: [] });
      const q: ListQuery = { types: { kind: 'one', group: 'example.io', version: 'v1', resource: 'widgets' }, namespaces: { op: 'in', values: ['big'] }, limit: 30 };
      const got = await joined(storage(), q);
      expect(got?.objects.length).toBeGreaterThan(1);
      expect(got?.count).toBe(24);
      const expected = await drain(await storage().list(q));
      expect(got && itemsText(got)).toBe(expected.map((r) => r.object).join(','));
      const names = (JSON.parse(`[${got ? itemsText(got) : ''}]`) as { metadata: { name: string } }[]).map((o) => o.metadata.name);
      expect(names).toEqual([...names].sort());
    });

    it('a keys-only list is not joined (there are no objects to join): the caller reads list()', async () => {
      expect(await joined(storage(), { types: PODS, limit: 10, keysOnly: true })).toBeUndefined();
    });

    it('a list that streams is not joined: a limit over 1000, or no limit and more than 1000 rows', async () => {
      if (joinsSmallUnlimited) expect((await joined(storage(), { types: PODS }))?.count).toBe(1000);
      expect((await joined(storage(), { types: PODS, limit: 1000 }))?.count).toBe(1000);
      expect(await joined(storage(), { types: PODS, limit: 1001 })).toBeUndefined();
      await storage().write({ upserts: [pod({ cluster: 'c9', namespace: 'extra', name: 'one-more' })], deletes: [] });
      expect(await joined(storage(), { types: PODS })).toBeUndefined();
      if (joinsSmallUnlimited) expect(await joined(storage(), { types: PODS, continue: { offset: 1 } })).toBeDefined();
      expect((await joined(storage(), { types: PODS, limit: 1000 }))?.count).toBe(1000);
    });
  });
}

joinedContract('sqlite', sqliteHarness, true);
joinedContract('postgres', postgresHarness, false);

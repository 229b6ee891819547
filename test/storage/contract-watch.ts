// Contract: the change log behind watch — changesSince filters, skipped superseded entries, expiry, notifications.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChangesResult, KeyFilter, Storage, UpsertObject, WatchFilter } from '../../src/storage/types.js';
import { obj, path, pod, PODS, revisionsOf, type Harness, type OpenHarness } from './fixtures.js';

/** The entries as "<revision since the store's origin> <type> <key>". */
function summary(r: ChangesResult, origin: bigint): string[] {
  if (r.expired) throw new Error(`expired at ${r.oldestRevision}`);
  return r.changes.map((c) => `${BigInt(c.revision) - origin} ${c.type} ${c.row.cluster}/${c.row.namespace}/${c.row.name}`);
}

export function watchContract(open: OpenHarness): void {
  describe('change log', () => {
    let h: Harness;
    let s: Storage;
    let rev: (n: number) => string;
    let origin: bigint;
    beforeEach(async () => {
      h = await open({ changeLogRevisions: 5 });
      s = h.storage;
      await s.migrate();
      rev = await revisionsOf(s);
      origin = BigInt(rev(0));
    });
    afterEach(async () => h.cleanup());

    const all: WatchFilter = { types: { kind: 'all' } };

    it('entries after a revision, oldest first; superseded ADDED/MODIFIED entries are skipped; DELETED carries the last state', async () => {
      await s.write({ upserts: [pod({ cluster: 'c1', namespace: 'ns', name: 'a', rv: '1', labels: { app: 'x' } }), pod({ cluster: 'c1', namespace: 'ns', name: 'b', rv: '1' })], deletes: [] });
      await s.write({ upserts: [pod({ cluster: 'c1', namespace: 'ns', name: 'a', rv: '2', labels: { app: 'x' } })], deletes: [] });
      await s.write({ upserts: [], deletes: [{ cluster: 'c1', group: '', version: 'v1', resource: 'pods', namespace: 'ns', name: 'b' }] });
      const r = await s.changesSince(rev(0), all, 100);
      expect(summary(r, origin)).toEqual(['3 MODIFIED c1/ns/a', '4 DELETED c1/ns/b']);
      expect(r.expired ? '' : r.revision).toBe(rev(4));
      const del = r.expired ? undefined : r.changes[1];
      expect(del?.row).toMatchObject({ kind: 'Pod', uid: 'uid-c1-ns-b', resourceVersion: '1', revision: rev(4), createdAt: '2022-01-01T00:00:00Z' });
      expect(JSON.parse(del?.row.object ?? '{}')).toMatchObject({ metadata: { name: 'b', resourceVersion: rev(4) } });
      const mod = r.expired ? undefined : r.changes[0];
      expect(JSON.parse(mod?.row.object ?? '{}')).toMatchObject({ metadata: { name: 'a', resourceVersion: rev(3) } });
      expect(summary(await s.changesSince(rev(3), all, 100), origin)).toEqual(['4 DELETED c1/ns/b']);
      expect(await s.changesSince(rev(4), all, 100)).toEqual({ expired: false, changes: [], revision: rev(4) });
    });

    it('filters: types, clusters, namespaces, names, labels (also of deleted objects), fields, fuzzy names, since/before', async () => {
      await s.write({
        upserts: [
          pod({ cluster: 'c1', namespace: 'ns-1', name: 'a', labels: { app: 'x' }, fields: { status: { phase: 'Running' } }, created: '2022-03-01T00:00:00Z' }),
          pod({ cluster: 'c2', namespace: 'ns-2', name: 'b', labels: { app: 'y' }, created: '2022-03-10T00:00:00Z' }),
          obj('nodes', { cluster: 'c1', name: 'n' }),
        ],
        deletes: [],
      });
      await s.write({ upserts: [], deletes: [{ cluster: 'c1', group: '', version: 'v1', resource: 'pods', namespace: 'ns-1', name: 'a' }] });
      const q = async (f: Partial<WatchFilter>): Promise<string[]> => summary(await s.changesSince(rev(0), { types: PODS, ...f }, 100), origin);
      expect(await q({})).toEqual(['2 ADDED c2/ns-2/b', '4 DELETED c1/ns-1/a']);
      expect(await q({ types: { kind: 'one', group: '', version: 'v1', resource: 'nodes' } })).toEqual(['3 ADDED c1//n']);
      expect(await q({ clusters: { op: 'notin', values: ['c2'] } })).toEqual(['4 DELETED c1/ns-1/a']);
      expect(await q({ namespaces: { op: 'in', values: ['ns-2'] } })).toEqual(['2 ADDED c2/ns-2/b']);
      expect(await q({ names: { op: 'in', values: ['a'] } })).toEqual(['4 DELETED c1/ns-1/a']);
      expect(await q({ labels: [{ key: 'app', operator: '=', values: ['x'] }] })).toEqual(['4 DELETED c1/ns-1/a']);
      expect(await q({ labels: [{ key: 'app', operator: '!=', values: ['x'] }] })).toEqual(['2 ADDED c2/ns-2/b']);
      expect(await q({ fields: [{ path: path('status', 'phase'), operator: '=', values: ['Running'] }] })).toEqual(['4 DELETED c1/ns-1/a']);
      expect(await q({ fuzzyNames: ['b'] })).toEqual(['2 ADDED c2/ns-2/b']);
      expect(await q({ since: new Date('2022-03-05T00:00:00Z') })).toEqual(['2 ADDED c2/ns-2/b']);
      expect(await q({ before: new Date('2022-03-05T00:00:00Z') })).toEqual(['4 DELETED c1/ns-1/a']);
      // Nothing matches: the caller is still current up to the head.
      expect(await s.changesSince(rev(0), { types: PODS, names: { op: 'in', values: ['zzz'] } }, 100)).toEqual({ expired: false, changes: [], revision: rev(4) });
    });

    it('a new store starts at its creation time in microseconds: a revision an earlier store issued is expired in it', async () => {
      // This store was created (migrated) in beforeEach, within the last minute.
      expect(origin).toBeLessThanOrEqual(BigInt(Date.now()) * 1000n);
      expect(origin).toBeGreaterThan(BigInt(Date.now() - 60_000) * 1000n);
      expect(await s.changesSince(String(origin - 1n), all, 100)).toEqual({ expired: true, oldestRevision: rev(0) });
      expect((await s.changesSince('1', all, 100)).expired).toBe(true);
      expect(await s.changesSince(rev(0), all, 100)).toEqual({ expired: false, changes: [], revision: rev(0) });
      expect((await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'a' })], deletes: [] })).revision).toBe(rev(1));
      // Migrating again (every start does) keeps the store's revisions.
      await s.migrate();
      expect(await s.currentRevision()).toBe(rev(1));
      expect(summary(await s.changesSince(rev(0), all, 100), origin)).toEqual(['1 ADDED c/ns/a']);
    });

    it('limit: at most `limit` entries, and the revision returned is the last one delivered', async () => {
      for (let i = 0; i < 4; i++) await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: `p${i}` })], deletes: [] });
      const r = await s.changesSince(rev(0), all, 2);
      expect(summary(r, origin)).toEqual(['1 ADDED c/ns/p0', '2 ADDED c/ns/p1']);
      expect(r.expired ? '' : r.revision).toBe(rev(2));
      expect(summary(await s.changesSince(rev(2), all, 2), origin)).toEqual(['3 ADDED c/ns/p2', '4 ADDED c/ns/p3']);
    });

    it('compaction keeps the window (changeLogRevisions: 5); an older revision is expired; a revision from the future too', async () => {
      for (let i = 0; i < 10; i++) await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: `p${i}` })], deletes: [] });
      expect(summary(await s.changesSince(rev(0), all, 100), origin)).toHaveLength(10);
      await s.compact();
      expect(await s.changesSince(rev(4), all, 100)).toEqual({ expired: true, oldestRevision: rev(5) });
      expect(summary(await s.changesSince(rev(5), all, 100), origin)).toEqual(['6 ADDED c/ns/p5', '7 ADDED c/ns/p6', '8 ADDED c/ns/p7', '9 ADDED c/ns/p8', '10 ADDED c/ns/p9']);
      expect((await s.changesSince(rev(11), all, 100)).expired).toBe(true);
      await s.compact();
      expect((await s.changesSince(rev(5), all, 100)).expired).toBe(false);
    });

    it('changedBetween: any entry in the range matching types, clusters, namespaces, names, creation times, also one superseded since; expired before the window', async () => {
      await s.write({ upserts: [pod({ cluster: 'c1', namespace: 'ns-1', name: 'a', rv: '1', created: '2022-03-01T00:00:00Z' }), obj('nodes', { cluster: 'c1', name: 'n' })], deletes: [] });
      await s.write({ upserts: [pod({ cluster: 'c1', namespace: 'ns-1', name: 'a', rv: '2', created: '2022-03-01T00:00:00Z' })], deletes: [] });
      await s.write({ upserts: [pod({ cluster: 'c2', namespace: 'ns-2', name: 'b', rv: '1' })], deletes: [] });
      const changed = async (after: number, upTo: number, f: Partial<WatchFilter> = {}): Promise<boolean> => {
        const r = await s.changedBetween(rev(after), rev(upTo), { types: PODS, ...f });
        if (r.expired) throw new Error(`expired at ${r.oldestRevision}`);
        return r.changed;
      };
      // Revision 3 (a's second write) superseded the entry at 1, which changesSince skips; this one does not.
      expect(summary(await s.changesSince(rev(0), { types: PODS }, 100), origin)).toEqual(['3 MODIFIED c1/ns-1/a', '4 ADDED c2/ns-2/b']);
      expect(await changed(0, 1)).toBe(true);
      expect(await changed(1, 2)).toBe(false); // the node
      expect(await changed(1, 2, { types: { kind: 'one', group: '', version: 'v1', resource: 'nodes' } })).toBe(true);
      expect(await changed(3, 4, { clusters: { op: 'in', values: ['c1'] } })).toBe(false);
      expect(await changed(3, 4, { namespaces: { op: 'in', values: ['ns-2'] } })).toBe(true);
      expect(await changed(0, 4, { names: { op: 'in', values: ['zz'] } })).toBe(false);
      expect(await changed(0, 4, { fuzzyNames: ['b'] })).toBe(true);
      expect(await changed(0, 3, { since: new Date('2022-04-01T00:00:00Z') })).toBe(false);
      expect(await changed(0, 3, { before: new Date('2022-04-01T00:00:00Z') })).toBe(true);
      expect(await changed(4, 4)).toBe(false);
      for (let i = 0; i < 8; i++) await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: `p${i}` })], deletes: [] });
      await s.compact();
      expect(await s.changedBetween(rev(2), rev(12), { types: PODS })).toEqual({ expired: true, oldestRevision: rev(7) });
      expect(await s.changedBetween(rev(7), rev(12), { types: PODS })).toEqual({ expired: false, changed: true });
    });

    it('selectorHistory: every entry in the range, superseded ones too, with the labels and fields a change or a deletion replaced; pages; expired before the window', async () => {
      const a = (rv: string, labels: Record<string, string>, status: Record<string, string> = { phase: 'Running' }): UpsertObject =>
        pod({ cluster: 'c1', namespace: 'ns', name: 'a', rv, labels, fields: { status } });
      await s.write({ upserts: [a('1', { app: 'x' }), pod({ cluster: 'c1', namespace: 'ns', name: 'b', rv: '1', labels: { app: 'y', tier: 'web' } })], deletes: [] });
      await s.write({ upserts: [a('2', { app: 'x' }, { phase: 'Succeeded' })], deletes: [] }); // labels as they were, a field label not
      await s.write({ upserts: [a('3', { app: 'z' })], deletes: [] });
      await s.write({ upserts: [a('4', { app: 'z' }, { phase: 'Running', hostIP: '10.0.0.1' })], deletes: [] }); // no field label either
      await s.write({ upserts: [], deletes: [{ cluster: 'c1', group: '', version: 'v1', resource: 'pods', namespace: 'ns', name: 'b' }] });
      await s.write({ upserts: [obj('nodes', { cluster: 'c1', name: 'n', labels: { role: 'w' } })], deletes: [] });
      await s.write({ upserts: [pod({ cluster: 'c2', namespace: 'ns', name: 'c', labels: { app: 'q' } }), pod({ cluster: 'c2', namespace: 'ns', name: 'd' })], deletes: [] });
      expect(await s.cleanCluster('c2')).toBe(2);
      const head = await s.currentRevision();
      const text = (json: string | undefined): string => (json === undefined ? '' : ` ${JSON.stringify(JSON.parse(json))}`);
      const history = async (after: number, f: Partial<KeyFilter> = {}, limit = 100): Promise<string[]> => {
        const r = await s.selectorHistory(rev(after), head, { types: PODS, ...f }, limit);
        if (r.expired) throw new Error(`expired at ${r.oldestRevision}`);
        return r.entries.map((e) => `${BigInt(e.revision) - origin} ${e.type} ${e.cluster}/${e.namespace}/${e.name}${text(e.prevLabels)}${text(e.prevFields)}`);
      };
      expect(await history(0)).toEqual([
        '1 ADDED c1/ns/a', '2 ADDED c1/ns/b', '3 MODIFIED c1/ns/a {"app":"x"} {"status":{"phase":"Running"}}', '4 MODIFIED c1/ns/a {"app":"x"} {"status":{"phase":"Succeeded"}}',
        '5 MODIFIED c1/ns/a', '6 DELETED c1/ns/b {"app":"y","tier":"web"} {}', '8 ADDED c2/ns/c', '9 ADDED c2/ns/d', '10 DELETED c2/ns/c {"app":"q"} {}', '11 DELETED c2/ns/d {} {}',
      ]);
      expect(await history(4, { clusters: { op: 'in', values: ['c1'] } })).toEqual(['5 MODIFIED c1/ns/a', '6 DELETED c1/ns/b {"app":"y","tier":"web"} {}']);
      expect(await history(0, { types: { kind: 'one', group: '', version: 'v1', resource: 'nodes' } })).toEqual(['7 ADDED c1//n']);
      // Pages: `revision` is where the next one starts, the upper bound once none is left.
      const first = await s.selectorHistory(rev(0), head, { types: PODS }, 2);
      expect(first).toMatchObject({ expired: false, revision: rev(2) });
      expect(await s.selectorHistory(rev(10), head, { types: PODS }, 2)).toMatchObject({ expired: false, revision: head });
      expect(await history(11)).toEqual([]);
      await s.compact();
      const compacted = await s.selectorHistory(rev(2), head, { types: PODS }, 100);
      expect(compacted).toMatchObject({ expired: true });
      const oldest = compacted.expired ? Number(BigInt(compacted.oldestRevision) - origin) : 0;
      expect(oldest).toBeGreaterThan(2);
      expect(await history(oldest)).toHaveLength(11 - oldest - (oldest < 7 ? 1 : 0));
    });

    it('bumpRevision (storage went back): new revisions start past the one given, every older one is expired', async () => {
      for (let i = 0; i < 3; i++) await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: `p${i}` })], deletes: [] });
      await s.bumpRevision(rev(10));
      expect(await s.currentRevision()).toBe(rev(11));
      for (const old of [0, 3, 10]) expect((await s.changesSince(rev(old), all, 100)).expired).toBe(true);
      expect(await s.changesSince(rev(11), all, 100)).toEqual({ expired: false, changes: [], revision: rev(11) });
      await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'after' })], deletes: [] });
      expect(summary(await s.changesSince(rev(11), all, 100), origin)).toEqual(['12 ADDED c/ns/after']);
      // Given a revision below the head, it moves past the head.
      await s.bumpRevision(rev(1));
      expect(await s.currentRevision()).toBe(rev(13));
    });

    it('advanceRevision jumps the revision without losing the log: a watch from before goes on; compaction counts entries', async () => {
      for (let i = 0; i < 3; i++) await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: `p${i}` })], deletes: [] });
      // Each answers the revision it found: the write queue checks it for a rewind.
      expect(await s.advanceRevision(rev(1_000_000))).toBe(rev(3));
      expect(await s.currentRevision()).toBe(rev(1_000_000));
      expect(await s.advanceRevision(rev(10))).toBe(rev(1_000_000));
      expect(await s.currentRevision()).toBe(rev(1_000_000));
      for (let i = 3; i < 6; i++) await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: `p${i}` })], deletes: [] });
      expect(summary(await s.changesSince(rev(2), all, 100), origin)).toEqual(['3 ADDED c/ns/p2', '1000001 ADDED c/ns/p3', '1000002 ADDED c/ns/p4', '1000003 ADDED c/ns/p5']);
      // changeLogRevisions 5: the newest five entries stay, however far apart their revisions are.
      await s.compact();
      expect(await s.changesSince(rev(0), all, 100)).toEqual({ expired: true, oldestRevision: rev(1) });
      expect(summary(await s.changesSince(rev(1), all, 100), origin)).toHaveLength(5);
    });

    it('a revision storage went back past is expired, even once the revision moved up beyond it', async () => {
      // Clients hold the head a list answered and the revisions of the entries they were sent; then storage loses the
      // last commits (PostgreSQL with synchronous_commit=off crashing, a restore, a failover behind) and a synchro
      // starting moves the revision up to the clock: revisions between are ones no entry has any more.
      await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'p0' })], deletes: [] });
      await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'p1' })], deletes: [] });
      const listed = await s.currentRevision();
      expect(listed).toBe(rev(2));
      expect(await s.advanceRevision(rev(1_000_000))).toBe(rev(2));
      const jumped = await s.currentRevision();
      await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'p2' })], deletes: [] });
      // rev(3) .. rev(999_999) were never issued by the storage as it stands: what a client holding one saw is gone.
      for (const lost of [3, 7, 999_999]) {
        expect(await s.changesSince(rev(lost), all, 100)).toEqual({ expired: true, oldestRevision: rev(0), lost: true });
        expect(await s.changedBetween(rev(lost), rev(1_000_001), all)).toEqual({ expired: true, oldestRevision: rev(0), lost: true });
      }
      // Every revision handed out stays good: the store's origin, each entry's, a list's head, the jump's target.
      expect(summary(await s.changesSince(rev(0), all, 100), origin)).toEqual(['1 ADDED c/ns/p0', '2 ADDED c/ns/p1', '1000001 ADDED c/ns/p2']);
      expect(summary(await s.changesSince(rev(1), all, 100), origin)).toEqual(['2 ADDED c/ns/p1', '1000001 ADDED c/ns/p2']);
      expect(summary(await s.changesSince(listed, all, 100), origin)).toEqual(['1000001 ADDED c/ns/p2']);
      expect(summary(await s.changesSince(jumped, all, 100), origin)).toEqual(['1000001 ADDED c/ns/p2']);
      expect(await s.changesSince(rev(1_000_001), all, 100)).toEqual({ expired: false, changes: [], revision: rev(1_000_001) });
      expect(await s.changedBetween(jumped, rev(1_000_001), all)).toEqual({ expired: false, changed: true });
      expect(await s.changedBetween(listed, jumped, all)).toEqual({ expired: false, changed: false });
    });

    it('age-based compaction drops entries older than changeLogMaxAgeMs', async () => {
      const aged = await h.openAnother({ changeLogMaxAgeMs: 0, changeLogRevisions: 1_000_000 });
      try {
        for (let i = 0; i < 3; i++) await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: `p${i}` })], deletes: [] });
        await new Promise((r) => setTimeout(r, 5));
        await aged.compact();
        expect(await s.changesSince(rev(2), all, 100)).toEqual({ expired: true, oldestRevision: rev(3) });
        expect(await s.changesSince(rev(3), all, 100)).toEqual({ expired: false, changes: [], revision: rev(3) });
      } finally {
        await aged.close();
      }
    });

    it('subscribe: listeners hear each new revision after commit; unsubscribe stops it', async () => {
      const heard: string[] = [];
      const off = s.subscribe((r) => heard.push(r));
      await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'a' })], deletes: [] });
      await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'a' })], deletes: [] }); // replay: no revision
      await s.cleanCluster('c');
      await new Promise((r) => setTimeout(r, 50));
      off();
      await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'b' })], deletes: [] });
      await new Promise((r) => setTimeout(r, 50));
      expect(heard).toEqual([rev(1), rev(2)]);
    });
  });
}

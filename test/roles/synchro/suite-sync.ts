// The synchro integration suite, written once and run per storage backend: convergence and recovery.
import { afterEach, describe, expect, it } from 'vitest';
import { pediaClusterFor, startSimulatedCluster, type SimCluster } from '../../../src/sim/index.js';
import type { SynchroParts } from '../../../src/roles/synchro/run.js';
import { loadReports } from '../../../src/cmd/show-model.js';
import { Harness, SYNC, waitFor, type Backend, type StoredSyncCondition } from './harness.js';
import type { Storage } from '../../../src/storage/types.js';
import { recordingLogger } from '../../support/log.js';

const PODS = '/api/v1/pods';

/**
 * Makes the first call of `storage[method]` for which `counts` holds never answer, as one on a connection that died
 * without a word; the others go through. `calls`: how many calls `counts` held for, the hung one included.
 */
function hangFirst<K extends 'resourceVersions' | 'putClusterStatus'>(storage: Storage, method: K,
  counts: (...args: Parameters<Storage[K]>) => boolean = () => true): { calls: number } {
  const real = (storage[method] as (...a: Parameters<Storage[K]>) => ReturnType<Storage[K]>).bind(storage);
  const seen = { calls: 0 };
  storage[method] = ((...args: Parameters<Storage[K]>) => {
    if (counts(...args) && seen.calls++ === 0) return new Promise<never>(() => undefined);
    return real(...args);
  }) as Storage[K];
  return seen;
}

export function syncSuite(backend: Backend): void {
  describe(`synchro over ${backend.name}: convergence`, () => {
    let h: Harness | undefined;
    afterEach(async () => {
      await h?.close();
      h = undefined;
    });

    it('leading on the storage lease: a leader whose lease another took writes nothing more, and steps down', async () => {
      h = await Harness.start(backend, { clusters: 1, pods: 10 });
      const name = 'fenced-synchro';
      const thief = h.leaseThief(name);
      const log = recordingLogger<{ level: number; msg: string; err?: string }>();
      await h.startSynchro({ leaderElection: { enabled: true, name, leaseDurationMs: 10_000, renewDeadlineMs: 8000, retryPeriodMs: 100 } }, { logger: log.logger });
      await h.converged();
      const ended = h.ended();
      // Another writer takes the lease over; the leader does not know yet, and syncs on.
      await thief.steal();
      const c = h.clusters[0]!;
      const ns = c.store.list('pods')[0]!.metadata.namespace!;
      c.store.create('pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'after-takeover', namespace: ns }, spec: { containers: [{ name: 'x', image: 'busybox' }] } });
      await waitFor(() => h!.parts!.queue.storageError.includes('no longer holds storage lease fenced-synchro'), 5000, () => `writes not refused: "${h!.parts!.queue.storageError}"; log: ${log.lines.map((l) => l.msg).join('; ')}`);
      // Its next renewal finds the lease taken: it steps down.
      thief.reveal();
      expect(await ended).toMatchObject({ code: 'LeadershipLost' });
      expect((await h.stored(c.name, { group: '', version: 'v1', resource: 'pods' })).has(`${ns}/after-takeover`)).toBe(false);
      // Said as what it is: refused, not storage down.
      expect(log.lines.filter((l) => l.err?.includes('no longer holds storage lease')).map((l) => l.msg)).toContain('write refused; retrying');
      expect(log.lines.map((l) => l.msg)).not.toContain('storage unavailable; retrying write');
    });

    it('two clusters with pods, owners and CRDs converge to storage exactly; status says Ready', async () => {
      h = await Harness.start(backend);
      await h.startSynchro();
      await h.converged();
      for (const c of h.clusters) {
        // The rows can be stored before the list's end is: the status that says so follows within a status interval.
        await waitFor(async () => (await h!.condition(c.name, 'Ready'))?.status === 'True' && (await h!.syncCondition(c.name))?.status === 'Syncing',
          10_000, () => `${c.name} not Ready and Syncing`);
        const rec = (await h.status(c.name))!;
        expect(rec.status.version).toBe('v1.32.0-sim');
        expect(rec.status.apiserver).toBe(c.url);
        expect(JSON.stringify(rec)).not.toContain('tokenData');
        const groups = rec.status.syncResources as { group: string; resources: { name: string; syncConditions: { status: string; count: number; initialListPhase: boolean }[] }[] }[];
        const pods = groups.find((g) => g.group === '')!.resources.find((r) => r.name === 'pods')!;
        expect(pods.syncConditions[0]).toMatchObject({ status: 'Syncing', count: c.store.count('pods'), initialListPhase: false });
        expect(groups.map((g) => g.group)).toEqual(['', 'apps', 'stable.example.com', 'cert-manager.io']);
        // A custom resource carries the names the member's discovery gives it (its CRD is not synced here); a
        // built-in, whose names clusterpedia knows, none.
        expect(groups.find((g) => g.group === 'cert-manager.io')!.resources.find((r) => r.name === 'certificates'))
          .toMatchObject({ singularName: 'certificate', shortNames: ['cert', 'certs'], categories: ['cert-manager'] });
        expect(pods).not.toHaveProperty('shortNames');
      }
      // The first member speaks HTTP/2 (harness.ts): its lists and watches share one connection; the other's watches
      // hold one each.
      const [h2, h1] = h.clusters;
      expect(h2!.openWatches).toBeGreaterThanOrEqual(6);
      expect(h2!.openHttp2Connections).toBe(1);
      expect(h2!.openConnections).toBe(1);
      expect(h1!.openHttp2Connections).toBe(0);
      expect(h1!.openConnections).toBeGreaterThanOrEqual(h1!.openWatches);
    });

    it('churn converges, and dropped watches (clean or aborted) lose nothing and never relist', async () => {
      h = await Harness.start(backend);
      await h.startSynchro();
      await h.converged();
      const since = Date.now();
      for (const c of h.clusters) c.churn.start(300);
      for (let i = 0; i < 4; i++) {
        await new Promise((r) => setTimeout(r, 300));
        for (const c of h.clusters) c.faults.dropWatches({ abort: i % 2 === 1 });
      }
      for (const c of h.clusters) c.churn.stop();
      await h.converged();
      for (const c of h.clusters) {
        expect(c.churn.operations).toBeGreaterThan(50);
        expect(h.lists(c, PODS, since)).toBe(0);
        // Each drop that found the pods watch open was followed by a new watch, never by a list.
        expect(h.watches(c, PODS, since).length).toBeGreaterThanOrEqual(2);
      }
    });

    it('counts and the last event time reach the stored status while nothing else changes', async () => {
      h = await Harness.start(backend);
      await h.startSynchro();
      await h.converged();
      const [c] = h.clusters;
      await waitFor(async () => (await h!.condition(c!.name, 'Ready'))?.status === 'True', 10_000, () => 'not Ready');
      const pods = async (): Promise<StoredSyncCondition> => (await h!.syncCondition(c!.name))!;
      const since = Date.now();
      c!.churn.start(100);
      await new Promise((r) => setTimeout(r, 500));
      c!.churn.stop();
      await h.converged();
      // Status intervals of 50 ms here: stale counts are written within 250 ms; a state change is not what carries them.
      let seen = '';
      await waitFor(async () => {
        const p = await pods();
        seen = JSON.stringify(p);
        return p.lastEventTime !== undefined && Date.parse(p.lastEventTime) >= since && p.count === c!.store.count('pods');
      }, 5_000, () => `stored pods status: ${seen}, member has ${c!.store.count('pods')}`);
    });

    it('the stored count follows a long initial list page by page', async () => {
      h = await Harness.start(backend, { clusters: 1, pods: 200 });
      const [c] = h.clusters;
      // Pods only: no other resource's list or watch changes the state (and writes the status) meanwhile.
      h.writeClusters([pediaClusterFor(c!, [{ group: '', resources: ['pods'] }])]);
      c!.faults.slow(100);
      await h.startSynchro({ pageSize: 10 });
      const pods = (): Promise<StoredSyncCondition | undefined> => h!.syncCondition(c!.name);
      // 20 pages of 100 ms: the list's start and end are state changes; the counts between them are not.
      // A status written before the list starts (the resource Pending) is not its end.
      const counts = new Set<number>();
      let listing = false;
      await waitFor(async () => {
        const p = await pods();
        listing ||= p?.initialListPhase === true;
        if (p?.initialListPhase && p.count > 0 && p.count < 200) counts.add(p.count);
        return counts.size >= 4 || (listing && p?.initialListPhase === false);
      }, 15_000, () => 'the initial list did not end');
      expect([...counts].length, `stored counts seen mid-list: ${[...counts].join(', ')}`).toBeGreaterThanOrEqual(4);
      c!.faults.slow(0);
      await waitFor(async () => (await pods())?.count === 200, 10_000, () => 'pods count never reached 200');
    });

    it('a PediaCluster\'s labels reach its stored record, and a change of labels alone restarts nothing', async () => {
      h = await Harness.start(backend, { clusters: 1 });
      const [c] = h.clusters;
      const withLabels = (labels: Record<string, unknown>): Record<string, unknown> => {
        const pc = pediaClusterFor(c!, SYNC) as { metadata: Record<string, unknown> };
        return { ...pc, metadata: { ...pc.metadata, labels } };
      };
      // A non-string value (a file is not checked against a schema) is left out, not stored.
      h.writeClusters([withLabels({ env: 'prod', replicas: 3 })]);
      await h.startSynchro();
      await h.converged();
      const labels = async (): Promise<unknown> => (await h!.status(c!.name))?.spec.labels;
      await waitFor(async () => JSON.stringify(await labels()) === '{"env":"prod"}', 5_000, () => 'labels not stored');
      const since = Date.now();
      h.writeClusters([withLabels({ env: 'staging', tier: 'gold' })]);
      let seen: unknown;
      await waitFor(async () => JSON.stringify(seen = await labels()) === '{"env":"staging","tier":"gold"}', 10_000, () => `stored labels: ${JSON.stringify(seen)}`);
      expect(h.lists(c!, PODS, since)).toBe(0);
      // show clusters prints them as the cluster's labels, not inside its spec.
      const [report] = await loadReports(h.storage);
      expect(report).toMatchObject({ name: c!.name, labels: { env: 'staging', tier: 'gold' } });
      expect(report!.spec).not.toHaveProperty('labels');
    });

    it('410 Expired relists and deletes what vanished while disconnected', async () => {
      h = await Harness.start(backend);
      await h.startSynchro();
      await h.converged();
      const [c] = h.clusters;
      await c!.faults.down();
      const victims = c!.snapshot('pods').slice(0, 5);
      for (const p of victims) c!.store.delete('pods', p.metadata.namespace, p.metadata.name!, { propagationPolicy: 'Background' });
      c!.churn.step(30);
      c!.faults.compact();
      const since = Date.now();
      await c!.faults.up();
      await h.converged();
      expect(h.lists(c!, PODS, since)).toBeGreaterThanOrEqual(1);
      const stored = await h.stored(c!.name, { group: '', version: 'v1', resource: 'pods' });
      for (const p of victims) expect(stored.has(`${p.metadata.namespace}/${p.metadata.name}`)).toBe(false);
    });

    it('a restart resumes every watch from the committed resourceVersion in the stored status instead of listing', async () => {
      h = await Harness.start(backend);
      await h.startSynchro();
      await h.converged();
      await h.stopSynchro();
      const [c] = h.clusters;
      const resumeRv = (await h.syncCondition(c!.name))!.resourceVersion;
      // The list's RV (newer than any pod's): resuming from the highest pod RV would hit the compacted history.
      const podRvs = [...(await h.stored(c!.name, { group: '', version: 'v1', resource: 'pods' })).values()].map((o) => Number(o.metadata.resourceVersion));
      expect(Number(resumeRv)).toBeGreaterThanOrEqual(Math.max(...podRvs));
      c!.churn.step(20);
      const since = Date.now();
      await h.startSynchro();
      await h.converged();
      expect(h.lists(c!, PODS, since)).toBe(0);
      // One read of one pod says the member is not behind the stored resourceVersion.
      expect(h.probes(c!, PODS, since)).toBe(1);
      expect(h.watches(c!, PODS, since)[0]?.resourceVersion).toBe(resumeRv);
    });

    it('a member restored from a backup (its resourceVersions went back) is listed again at a restart, not watched from where it was', async () => {
      h = await Harness.start(backend, { clusters: 1, pods: 20 });
      const [before] = h.clusters;
      // Far ahead of what a cluster generated afresh reaches: a watch from there would wait in silence for good.
      before!.churn.step(300);
      await h.startSynchro();
      await h.converged();
      await h.stopSynchro();
      const port = Number(new URL(before!.url).port);
      await before!.stop();
      // The same cluster name and address, other objects, resourceVersions from an older point in time.
      const restored = await startSimulatedCluster({ name: before!.name, seed: 77, pods: 20, tls: true, port });
      try {
        expect(restored.store.revision).toBeLessThan(before!.store.revision);
        h.writeClusters([pediaClusterFor(restored, SYNC)]);
        const since = Date.now();
        await h.startSynchro();
        await h.converged(20_000, [restored]);
        expect(h.lists(restored, PODS, since)).toBeGreaterThan(0);
      } finally {
        await restored.stop();
      }
    });

    it('a restart in the middle of the initial list loses nothing: it lists again rather than watch from a listed row', async () => {
      h = await Harness.start(backend, { clusters: 1, pods: 300 });
      const [c] = h.clusters;
      // The pod listed first gets the newest resourceVersion: watching from the highest RV among the rows stored so
      // far would start after it, and the pods of the pages not yet listed would never come.
      const first = c!.snapshot('pods')[0]!;
      c!.store.patch('pods', first.metadata.namespace, first.metadata.name!, { metadata: { labels: { touched: 'yes' } } });
      c!.faults.slow(50);
      await h.startSynchro({ pageSize: 20 });
      const pods = async (): Promise<number> => (await h!.stored(c!.name, { group: '', version: 'v1', resource: 'pods' })).size;
      await waitFor(async () => (await pods()) >= 20, 10_000, () => 'no page stored');
      const stored = await pods();
      await h.stopSynchro();
      expect(stored).toBeLessThan(c!.store.count('pods'));
      c!.faults.slow(0);
      const since = Date.now();
      await h.startSynchro();
      await h.converged();
      expect(h.lists(c!, PODS, since)).toBeGreaterThan(0);
    });

    it('storage restored from a backup while the synchro runs: it notices the revision went back and lists again, losing nothing', async () => {
      h = await Harness.start(backend, { clusters: 1, pods: 30 });
      await h.startSynchro();
      await h.converged();
      const [c] = h.clusters;
      const restore = await backend.backup(h.url);
      // Changes committed after the backup: a restore (or a failover to a replica behind) takes them away.
      c!.churn.step(20);
      const victim = c!.snapshot('pods')[0]!;
      c!.store.delete('pods', victim.metadata.namespace, victim.metadata.name!, { propagationPolicy: 'Background' });
      await h.converged();
      const issued = await h.storage.currentRevision();
      const since = Date.now();
      await restore();
      // The fleet is idle from here: only the synchro's own check of the revision can notice.
      expect((await h.diff(c!)).length).toBeGreaterThan(0);
      await h.converged(30_000);
      expect(h.lists(c!, PODS, since)).toBeGreaterThan(0);
      // The revisions issued before the restore are issued again from its point on, for other changes: storage moves
      // past them, and a watch from one of them is too old (410), whatever the revision has reached since.
      await waitFor(async () => BigInt(await h!.storage.currentRevision()) > BigInt(issued), 10_000, () => 'revision not moved past the old ones');
      expect(await h.storage.changesSince(issued, { types: { kind: 'all' } }, 10)).toMatchObject({ expired: true });
    });

    /**
     * One cluster synced, a backup taken while its status records a point to resume from, then changes committed after
     * the backup and a status that records them: `restore` takes both away.
     */
    const statusPastBackup = async (): Promise<{ parts: SynchroParts; c: SimCluster; restore: () => Promise<void>; atBackup: string | undefined }> => {
      h = await Harness.start(backend, { clusters: 1, pods: 30 });
      const parts = await h.startSynchro();
      await h.converged();
      const c = h.clusters[0]!;
      // A watch event gives the pods a committed point to resume from, and the status records it.
      c.churn.step(5);
      await h.converged();
      await waitFor(async () => (await h!.syncCondition(c.name))?.resourceVersion !== undefined, 10_000, () => 'no status with a point to resume from');
      // The point the backup holds: the status loop may still be writing the last of those events' points, so it is
      // the one read both before and after the backup (points only grow while storage does not go back). Read after
      // it alone, it could be newer than the backup's, and the restored status then looked like a stray point (CI).
      let restore: (() => Promise<void>) | undefined;
      let atBackup: string | undefined;
      for (let tries = 0; restore === undefined; tries++) {
        if (tries === 20) throw new Error('the stored status kept changing: no backup with a known point');
        const before = (await h.syncCondition(c.name))?.resourceVersion;
        const taken = await backend.backup(h.url);
        atBackup = (await h.syncCondition(c.name))?.resourceVersion;
        if (atBackup === before) restore = taken;
      }
      c.churn.step(20);
      await h.converged();
      await waitFor(async () => (await h!.syncCondition(c.name))?.resourceVersion !== atBackup, 10_000, () => 'no status recorded the churn');
      return { parts, c, restore, atBackup };
    };

    it('storage that went back just before the synchro stops keeps the status of its own state: the next start resumes from there', async () => {
      const { c, restore, atBackup } = await statusPastBackup();
      // The commits are lost (PostgreSQL back from a crash with synchronous_commit off, a restore) and the synchro
      // stops before it noticed: its last status write, rendered from what it had written, must not land.
      await restore();
      await h!.stopSynchro();
      // Stopped means stopped: the rewind it found on the way out restarts no cluster (one started then, under a signal
      // already aborted, ran on for good and kept a synchro that had lost its lease from ever exiting).
      const stoppedAt = Date.now();
      await new Promise((r) => setTimeout(r, 1500));
      expect(c.requestLog.entries((r) => r.startedAt >= stoppedAt).map((r) => r.path)).toEqual([]);
      // The backup's point, or none (the refused write made the synchro look, find the rewind and list again).
      expect([atBackup, undefined]).toContain((await h!.syncCondition(c.name))?.resourceVersion);
      // Resumed from the backup's point, the watch brings the lost changes again.
      await h!.startSynchro();
      await h!.converged(30_000);
    });

    it('a status write retried after it found the rewind does not record the old synchro\'s resume points before the relist replaced it', async () => {
      const { parts, c, restore, atBackup } = await statusPastBackup();
      // A change of a kind not synced moves the member's revision on: the relist's point, which the status may record
      // as soon as the relist is in (before the check below, on a fast storage), then passes every point the old
      // synchro had (which, else, could be the same revision: CI, PostgreSQL).
      const relistFloor = BigInt(c.store.create('configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bump', namespace: 'default' } }).metadata.resourceVersion!);
      await restore();
      // The first write is refused (storage no longer holds the revision it was rendered at) and finds the rewind; the
      // retry, made at once, must not pass with the revision found then while the old synchro still answers for it.
      // (Marked for writing as a synchro's change marks it; bracket access reaches the private method.)
      parts.manager['dirty'](c.name);
      await parts.manager.flushStatus();
      await parts.manager.flushStatus();
      const recorded = (await h!.syncCondition(c.name))?.resourceVersion;
      if (recorded !== atBackup && recorded !== undefined) expect(BigInt(recorded), `recorded ${recorded}, the backup's ${String(atBackup)}`).toBeGreaterThanOrEqual(relistFloor);
      await h!.converged(30_000);
    });

    it('after a rewind a cluster compares its list with storage only once its old synchro\'s queued writes are in or gone', async () => {
      h = await Harness.start(backend, { clusters: 1, pods: 30 });
      const parts = await h.startSynchro();
      await h.converged();
      const [c] = h.clusters;
      const restore = await backend.backup(h.url);
      c!.churn.step(10);
      await h.converged();
      // Writes wait at two gates: the first batch after the restore is the one that finds the revision went back; the
      // second is still being written when the cluster restarts to list again, with more of the old synchro's queued.
      const write = h.storage.write.bind(h.storage);
      const opened: (() => void)[] = [];
      const gates = [0, 1].map(() => new Promise<void>((r) => { opened.push(r); }));
      let writes = 0;
      h.storage.write = async (batch) => {
        const gate = gates[writes++];
        if (gate) await gate;
        return write(batch);
      };
      // Each resource's new synchro reads the stored rows it compares its list with: nothing of the old may be pending.
      const seeded: string[] = [];
      const versions = h.storage.resourceVersions.bind(h.storage);
      h.storage.resourceVersions = async (cluster, type) => {
        seeded.push(parts.queue.depth === 0 && parts.queue.durableSeq === parts.queue.lastSeq ? 'settled' : `unsettled: ${parts.queue.depth} queued, or a batch in flight`);
        return versions(cluster, type);
      };
      c!.churn.step(5);
      await waitFor(() => writes >= 1, 10_000, () => 'no write after the churn');
      c!.churn.step(10);
      await waitFor(() => parts.queue.depth > 0, 10_000, () => 'nothing queued behind the held write');
      await restore();
      opened[0]!();
      await waitFor(() => writes >= 2, 10_000, () => 'no second write');
      await new Promise((r) => setTimeout(r, 1000));
      opened[1]!();
      await h.converged(30_000);
      expect(seeded.length).toBeGreaterThan(0);
      expect(seeded.filter((x) => x !== 'settled')).toEqual([]);
    });

    it('a read of the stored rows that never answers (a connection that died without a word) is given up after the write timeout and tried again', async () => {
      h = await Harness.start(backend, { clusters: 1, pods: 20 });
      const [c] = h.clusters;
      const reads = hangFirst(h.storage, 'resourceVersions', (_cluster, type) => type.resource === 'pods');
      const parts = await h.startSynchro();
      // The harness's write timeout is 3 s: without a deadline the pods would wait on the first read for good.
      await h.converged(20_000);
      expect(reads.calls).toBe(2);
      const pods = parts.manager.renderStatus(c!.name)?.syncResources?.find((g) => g.group === '')?.resources.find((r) => r.name === 'pods');
      expect(pods?.syncConditions[0]?.lastError).toBe('StorageExpection: read stored resource versions: storage did not answer within 3000 ms');
    });

    it('a status row write that never answers is given up after the write timeout, and the status still reaches storage', async () => {
      h = await Harness.start(backend, { clusters: 1, pods: 5 });
      const [c] = h.clusters;
      const puts = hangFirst(h.storage, 'putClusterStatus');
      await h.startSynchro();
      await waitFor(async () => (await h!.condition(c!.name, 'Ready'))?.status === 'True', 20_000, () => `${c!.name}: no Ready status stored`);
      expect(puts.calls).toBeGreaterThan(1);
    });

    it('storage restored from a backup while the synchro was down: its revisions pass the old ones, so watchers see its corrections', async () => {
      h = await Harness.start(backend, { clusters: 1, pods: 30 });
      await h.startSynchro();
      await h.converged();
      const [c] = h.clusters;
      // One client holds the revision of the backup's state; another, later, one the restore takes away.
      const atBackup = await h.storage.currentRevision();
      const restore = await backend.backup(h.url);
      const victim = c!.snapshot('pods')[0]!;
      c!.store.delete('pods', victim.metadata.namespace, victim.metadata.name!, { propagationPolicy: 'Background' });
      c!.churn.step(10);
      await h.converged();
      const lost = await h.storage.currentRevision();
      await h.stopSynchro();
      await restore();
      await h.startSynchro();
      await h.converged();
      const pods = { types: { kind: 'one', group: '', version: 'v1', resource: 'pods' } } as const;
      // The restore brought the victim back; the synchro deleted it again, at a revision past the one the first holds.
      const seen = await h.storage.changesSince(atBackup, pods, 10_000);
      expect(seen.expired).toBe(false);
      if (!seen.expired) expect(seen.changes.filter((x) => x.type === 'DELETED').map((x) => x.row.name)).toContain(victim.metadata.name);
      // The second saw changes storage no longer has: corrections cannot reach it (an object created and deleted in
      // between is gone for good), so it is told to list again.
      expect(await h.storage.changesSince(lost, pods, 10_000)).toMatchObject({ expired: true, lost: true });
    });

    it('after a long outage (history compacted) the relist writes only the rows that changed', async () => {
      h = await Harness.start(backend);
      await h.startSynchro();
      await h.converged();
      await h.stopSynchro();
      const [c] = h.clusters;
      const before = new Map(c!.snapshot('pods').map((p) => [`${p.metadata.namespace}/${p.metadata.name}`, p.metadata.resourceVersion]));
      c!.churn.step(25);
      const after = new Map(c!.snapshot('pods').map((p) => [`${p.metadata.namespace}/${p.metadata.name}`, p.metadata.resourceVersion]));
      let changed = 0;
      for (const [k, rv] of after) if (before.get(k) !== rv) changed++;
      for (const k of before.keys()) if (!after.has(k)) changed++;
      for (const cl of h.clusters) cl.faults.compact();
      const revision = Number(await h.storage.currentRevision());
      const since = Date.now();
      await h.startSynchro();
      await h.converged();
      // Churn also scales deployments and replaces replica sets: those may be written too, nothing else.
      const owners = c!.snapshot('deployments.apps').length + c!.snapshot('replicasets.apps').length;
      // Counted in change-log entries: the revision itself jumps when a synchro starts (advanceRevision).
      const all = await h.storage.changesSince(String(revision), { types: { kind: 'all' } }, 100_000);
      const written = all.expired ? Number.NaN : all.changes.length;
      expect(h.lists(c!, PODS, since)).toBe(1);
      expect(changed).toBeGreaterThan(0);
      expect(written).toBeGreaterThanOrEqual(changed);
      expect(written).toBeLessThanOrEqual(changed + owners);
      // Pods: exactly the changed ones were written.
      const podWrites = await h.storage.changesSince(String(revision), { types: { kind: 'one', group: '', version: 'v1', resource: 'pods' } }, 100_000);
      expect(podWrites.expired).toBe(false);
      if (!podWrites.expired) expect(podWrites.changes.length).toBe(changed);
    });

    it('eventsInvolvedResources: only the named kinds\' core/v1 Events are kept, and a spec change lists kinds in and out', async () => {
      h = await Harness.start(backend, { clusters: 1 });
      const [c] = h.clusters;
      const EVENTS = { group: '', version: 'v1', resource: 'events' };
      const member = (kinds: string[]): string[] => c!.snapshot('events')
        .filter((e) => kinds.includes(String((e as { involvedObject?: { kind?: string } }).involvedObject?.kind)))
        .map((e) => `${e.metadata.namespace}/${e.metadata.name}`).sort();
      const stored = async (): Promise<string[]> => [...(await h!.stored(c!.name, EVENTS)).keys()].sort();
      const converge = (kinds: string[], what: string): Promise<void> =>
        waitFor(async () => JSON.stringify(await stored()) === JSON.stringify(member(kinds)), 15_000, () => `${what}: stored events differ from the member's ${kinds.join('+')} events`);
      expect(member(['Pod']).length).toBeGreaterThan(0);
      expect(member(['Deployment']).length).toBeGreaterThan(0);

      h.writeClusters([pediaClusterFor(c!, [{ group: '', resources: ['pods'], eventsInvolvedResources: ['pods'] }, { group: 'apps', resources: ['deployments'] }])]);
      await h.startSynchro();
      await converge(['Pod'], 'initial');
      // Live: a Pod's new Event is kept, a Deployment's is not.
      const dep = c!.snapshot('deployments.apps')[0]!;
      const pod = c!.snapshot('pods')[0]!;
      for (const [name, o, kind] of [['x.pod-event', pod, 'Pod'], ['x.deploy-event', dep, 'Deployment']] as const) {
        c!.store.create('events', {
          apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: o.metadata.namespace },
          involvedObject: { kind, namespace: o.metadata.namespace, name: o.metadata.name, uid: o.metadata.uid }, reason: 'Test', message: 'test', type: 'Normal',
        });
      }
      await converge(['Pod'], 'live');
      expect(await stored()).toContain(`${pod.metadata.namespace}/x.pod-event`);

      // Deployments' Events too (a wildcard): listed in, the Pods' stay.
      h.writeClusters([pediaClusterFor(c!, [{ group: '', resources: ['pods'], eventsInvolvedResources: ['pods'] }, { group: 'apps', resources: ['deployments'], eventsInvolvedResources: ['*'] }])]);
      await converge(['Pod', 'Deployment'], 'deployments added');
      // Only the Deployments' (named by kind): the Pods' are taken out.
      h.writeClusters([pediaClusterFor(c!, [{ group: '', resources: ['pods'] }, { group: 'apps', resources: ['deployments'], eventsInvolvedResources: ['Deployment'] }])]);
      await converge(['Deployment'], 'pods dropped');
      // None: the events stop being synced and their rows go.
      h.writeClusters([pediaClusterFor(c!, [{ group: '', resources: ['pods'] }, { group: 'apps', resources: ['deployments'] }])]);
      await waitFor(async () => (await stored()).length === 0, 15_000, () => 'event rows remain');
    });

    it('a restart that syncs every Event after a synchro that kept some kinds lists them all: a filtered stream leaves no resume point', async () => {
      h = await Harness.start(backend, { clusters: 1 });
      const [c] = h.clusters;
      const EVENTS = { group: '', version: 'v1', resource: 'events' };
      const all = c!.snapshot('events').map((e) => `${e.metadata.namespace}/${e.metadata.name}`).sort();
      const stored = async (): Promise<string[]> => [...(await h!.stored(c!.name, EVENTS)).keys()].sort();
      const pods = c!.snapshot('events').filter((e) => (e as { involvedObject?: { kind?: string } }).involvedObject?.kind === 'Pod')
        .map((e) => `${e.metadata.namespace}/${e.metadata.name}`).sort();
      expect(pods.length).toBeGreaterThan(0);
      expect(pods.length).toBeLessThan(all.length);
      h.writeClusters([pediaClusterFor(c!, [{ group: '', resources: ['pods'], eventsInvolvedResources: ['pods'] }])]);
      await h.startSynchro();
      await waitFor(async () => JSON.stringify(await stored()) === JSON.stringify(pods), 15_000, () => 'the Pods\' Events were not stored');
      await waitFor(() => h!.watches(c!, '/api/v1/events').length > 0, 15_000, () => 'no watch of events');
      // As if the process died right after the spec changed: the next start sees only what the filtered one stored.
      await h.stopSynchro();
      const events = await h.syncCondition(c!.name, '', 'events');
      expect(events).toBeDefined();
      expect(events!.resourceVersion).toBeUndefined();
      h.writeClusters([pediaClusterFor(c!, [{ group: '', resources: ['pods', 'events'] }])]);
      const since = Date.now();
      await h.startSynchro();
      await waitFor(async () => JSON.stringify(await stored()) === JSON.stringify(all), 15_000, () => 'the other kinds\' Events were not listed in');
      expect(h.lists(c!, '/api/v1/events', since)).toBeGreaterThan(0);
    });

    it('excludeNamespaces: the member is asked for the other namespaces only; a change lists namespaces in and out, and a restart under another one lists', async () => {
      h = await Harness.start(backend, { clusters: 1 });
      const [c] = h.clusters;
      const PODS_GVR = { group: '', version: 'v1', resource: 'pods' };
      const member = (without: string[]): string[] => c!.snapshot('pods').filter((p) => !without.includes(p.metadata.namespace ?? '')).map((p) => `${p.metadata.namespace}/${p.metadata.name}`).sort();
      const stored = async (): Promise<string[]> => [...(await h!.stored(c!.name, PODS_GVR)).keys()].sort();
      const converge = (without: string[], what: string): Promise<void> =>
        waitFor(async () => JSON.stringify(await stored()) === JSON.stringify(member(without)), 15_000, () => `${what}: stored pods differ from the member's outside ${without.join(',') || 'nothing'}`);
      expect(member([]).length).toBeGreaterThan(member(['kube-system']).length);
      const cluster = (exclude?: string[]): Record<string, unknown> => {
        return pediaClusterFor(c!, [{ group: '', resources: ['pods', 'namespaces'] }], exclude ? { excludeNamespaces: exclude } : {});
      };
      const since = Date.now();
      h.writeClusters([cluster(['kube-system'])]);
      await h.startSynchro();
      await converge(['kube-system'], 'initial');
      // Asked of the member, not filtered here: every list and watch of pods carries the selector.
      await waitFor(() => h!.watches(c!, PODS, since).length > 0, 15_000, () => 'no watch of pods');
      const podRequests = c!.requestLog.entries((r) => r.path === PODS && r.startedAt >= since);
      expect(podRequests.map((r) => r.params.fieldSelector)).toEqual(podRequests.map(() => 'metadata.namespace!=kube-system'));
      // A cluster-scoped kind is not filtered: the Namespace object itself is kept.
      await waitFor(async () => (await h!.stored(c!.name, { group: '', version: 'v1', resource: 'namespaces' })).has('kube-system'), 15_000, () => 'the kube-system Namespace is not stored');
      // Live: a pod made in the excluded namespace stays out, one elsewhere comes in.
      for (const ns of ['kube-system', 'default']) c!.store.create('pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x-live', namespace: ns }, spec: { containers: [{ name: 'x', image: 'busybox' }] } });
      await converge(['kube-system'], 'live');
      expect(await stored()).toContain('default/x-live');
      const selectorOf = async (resource: string): Promise<string | undefined> => (await h!.syncCondition(c!.name, '', resource))?.fieldSelector;
      await waitFor(async () => (await selectorOf('pods')) === 'metadata.namespace!=kube-system', 10_000, () => 'the status does not record the pods\' selector');
      expect(await selectorOf('namespaces')).toBeUndefined();

      // Taken out of the list: its pods are listed in; put back: they go.
      h.writeClusters([cluster([])]);
      await converge([], 'exclusion removed');
      h.writeClusters([cluster(['kube-system', 'default'])]);
      await converge(['kube-system', 'default'], 'two excluded');

      // As if the process died right after the spec changed: the resume point was reached under the old selector, so
      // the next start under another one lists instead of watching from it (a watch would never bring the pods of a
      // namespace no longer excluded).
      await h.stopSynchro();
      h.writeClusters([cluster(['default'])]);
      const restarted = Date.now();
      await h.startSynchro();
      await converge(['default'], 'restart under another selector');
      expect(h.lists(c!, PODS, restarted)).toBeGreaterThan(0);
      // And a restart under the same one resumes.
      await h.stopSynchro();
      const resumed = Date.now();
      await h.startSynchro();
      await waitFor(() => h!.watches(c!, PODS, resumed).length > 0, 15_000, () => 'no watch of pods after the restart');
      expect(h.lists(c!, PODS, resumed)).toBe(0);

      // A ClusterSyncResources' excludeNamespaces add to the cluster's own.
      const shared = { apiVersion: 'cluster.clusterpedia.io/v1alpha2', kind: 'ClusterSyncResources', metadata: { name: 'shared' }, spec: { syncResources: [], excludeNamespaces: ['kube-system'] } };
      h.writeClusters([pediaClusterFor(c!, [{ group: '', resources: ['pods', 'namespaces'] }], { excludeNamespaces: ['default'], syncResourcesRefName: 'shared' }), shared]);
      await converge(['kube-system', 'default'], 'excluded through the ClusterSyncResources too');
    });

    it('excludeNamespaces on a member that refuses the field selector: listed and watched without it, the excluded namespaces dropped here', async () => {
      h = await Harness.start(backend, { clusters: 1 });
      const [c] = h.clusters;
      const PODS_GVR = { group: '', version: 'v1', resource: 'pods' };
      c!.faults.refuseFieldSelectors(PODS);
      const member = (): string[] => c!.snapshot('pods').filter((p) => p.metadata.namespace !== 'kube-system').map((p) => `${p.metadata.namespace}/${p.metadata.name}`).sort();
      const stored = async (): Promise<string[]> => [...(await h!.stored(c!.name, PODS_GVR)).keys()].sort();
      const converge = (what: string): Promise<void> =>
        waitFor(async () => JSON.stringify(await stored()) === JSON.stringify(member()), 15_000, () => `${what}: stored pods differ from the member's outside kube-system`);
      expect(c!.snapshot('pods').some((p) => p.metadata.namespace === 'kube-system')).toBe(true);
      const since = Date.now();
      h.writeClusters([pediaClusterFor(c!, [{ group: '', resources: ['pods'] }], { excludeNamespaces: ['kube-system'] })]);
      await h.startSynchro();
      await converge('initial');
      await waitFor(() => h!.watches(c!, PODS, since).length > 0, 15_000, () => 'no watch of pods');
      // The selector was asked for once, refused, and not sent again.
      const requests = c!.requestLog.entries((r) => r.path === PODS && r.startedAt >= since);
      expect(requests[0]).toMatchObject({ status: 400, params: { fieldSelector: 'metadata.namespace!=kube-system' } });
      expect(requests.slice(1).map((r) => r.params.fieldSelector ?? '')).toEqual(requests.slice(1).map(() => ''));

      // Live: the member now sends the excluded namespace's changes too; they stay out, as a deletion of one does.
      const inSystem = c!.snapshot('pods', 'kube-system')[0]!;
      for (const ns of ['kube-system', 'default']) c!.store.create('pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x-live', namespace: ns }, spec: { containers: [{ name: 'x', image: 'busybox' }] } });
      c!.store.delete('pods', 'kube-system', inSystem.metadata.name!);
      await converge('live');
      expect(await stored()).toContain('default/x-live');

      // The status records the selector the rows answer to (the same objects either way), and the refusal as the last error.
      await waitFor(async () => (await h!.syncCondition(c!.name))?.resourceVersion !== undefined, 10_000, () => 'no resume point in the status');
      expect(await h.syncCondition(c!.name)).toMatchObject({ status: 'Syncing', fieldSelector: 'metadata.namespace!=kube-system', lastError: expect.stringContaining('is not supported') });

      // A restart under the same exclusion resumes from there instead of listing.
      await h.stopSynchro();
      c!.store.create('pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x-down', namespace: 'kube-system' }, spec: { containers: [{ name: 'x', image: 'busybox' }] } });
      c!.store.create('pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x-down', namespace: 'default' }, spec: { containers: [{ name: 'x', image: 'busybox' }] } });
      const resumed = Date.now();
      await h.startSynchro();
      await waitFor(() => h!.watches(c!, PODS, resumed).length > 0, 15_000, () => 'no watch of pods after the restart');
      await converge('after the restart');
      expect(await stored()).toContain('default/x-down');
      expect(h.lists(c!, PODS, resumed)).toBe(0);
    });

    it('--redact-secret-data stores Secrets without their values; turning it on or off rewrites the stored ones at the next start', async () => {
      h = await Harness.start(backend, { clusters: 1 });
      const [c] = h.clusters;
      const SECRETS = { group: '', version: 'v1', resource: 'secrets' };
      const withData = c!.snapshot('secrets').filter((s) => Object.keys((s as { data?: Record<string, string> }).data ?? {}).length > 0);
      expect(withData.length).toBeGreaterThan(0);
      const keysOf = (o: unknown): string[] => Object.keys((o as { data?: Record<string, string> }).data ?? {}).sort();
      const valuesOf = (o: unknown): string[] => Object.values((o as { data?: Record<string, string> }).data ?? {});
      const redactedEverywhere = async (): Promise<boolean> => {
        const stored = await h!.stored(c!.name, SECRETS);
        return stored.size === c!.store.count('secrets') && withData.every((s) => {
          const row = stored.get(`${s.metadata.namespace}/${s.metadata.name}`);
          return row !== undefined && JSON.stringify(keysOf(row)) === JSON.stringify(keysOf(s)) && valuesOf(row).every((v) => v === '') && row.metadata.annotations?.['shadow.clusterpedia.io/redacted'] === 'data';
        });
      };
      const plainEverywhere = async (): Promise<boolean> => {
        const stored = await h!.stored(c!.name, SECRETS);
        return stored.size === c!.store.count('secrets') && withData.every((s) => {
          const row = stored.get(`${s.metadata.namespace}/${s.metadata.name}`);
          return row !== undefined && JSON.stringify((row as { data?: unknown }).data) === JSON.stringify((s as { data?: unknown }).data) && row.metadata.annotations?.['shadow.clusterpedia.io/redacted'] === undefined;
        });
      };
      const prune = (secretData: boolean) => ({ prune: { managedFields: true, lastAppliedConfiguration: true, secretData } });
      h.writeClusters([pediaClusterFor(c!, [{ group: '', resources: ['secrets', 'pods'] }])]);

      // Both listed and watched (so the status the stop writes has where each resumes from).
      const watching = async (since: number): Promise<void> => {
        await waitFor(() => h!.watches(c!, PODS, since).length > 0 && h!.watches(c!, '/api/v1/secrets', since).length > 0, 15_000, () => 'not watching pods and secrets');
        // Every pod listed is in storage: a stop before its writes are in leaves no point to resume from.
        await waitFor(async () => (await h!.stored(c!.name, { group: '', version: 'v1', resource: 'pods' })).size === c!.store.count('pods'), 15_000, () => 'pods not all stored');
      };
      // Off (the default): stored as the member has them.
      const off = Date.now();
      await h.startSynchro(prune(false));
      await waitFor(plainEverywhere, 15_000, () => 'secrets not stored as the member has them');
      await watching(off);
      await h.stopSynchro();
      // On at the next start: every stored Secret is written again, without values; pods are resumed, not listed.
      const on = Date.now();
      await h.startSynchro(prune(true));
      await waitFor(redactedEverywhere, 15_000, () => 'stored secrets still carry values');
      expect(h.lists(c!, '/api/v1/secrets', on)).toBeGreaterThan(0);
      await waitFor(() => h!.watches(c!, PODS, on).length > 0, 15_000, () => 'no watch of pods');
      expect(h.lists(c!, PODS, on)).toBe(0);
      // A Secret made or changed while on is stored without its values too.
      c!.store.create('secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x-live', namespace: 'default' }, type: 'Opaque', data: { token: 'c2VjcmV0' } });
      await waitFor(async () => (await h!.stored(c!.name, SECRETS)).get('default/x-live') !== undefined, 15_000, () => 'new secret not stored');
      expect((await h.stored(c!.name, SECRETS)).get('default/x-live')).toMatchObject({ data: { token: '' } });
      const redactedInStatus = async (): Promise<boolean | undefined> => (await h!.syncCondition(c!.name, '', 'secrets'))?.redacted;
      await waitFor(async () => (await redactedInStatus()) === true, 10_000, () => 'the status does not say the secrets are stored redacted');
      await watching(on);
      // Restarted with it still on: resumed, nothing rewritten.
      await h.stopSynchro();
      const again = Date.now();
      await h.startSynchro(prune(true));
      await waitFor(() => h!.watches(c!, '/api/v1/secrets', again).length > 0, 15_000, () => 'no watch of secrets');
      expect(h.lists(c!, '/api/v1/secrets', again)).toBe(0);
      // Off again: the values come back.
      await h.stopSynchro();
      await h.startSynchro(prune(false));
      await waitFor(plainEverywhere, 15_000, () => 'secrets not stored with their values again');
    });

    it('events.k8s.io/v1 Events are stored in that version\'s form, and follow the member\'s core/v1 writes', async () => {
      h = await Harness.start(backend, { clusters: 1 });
      const [c] = h.clusters;
      // The member serves them from its core/v1 Events (one object, one resourceVersion), as kube-apiserver does.
      const EVENTS_V1 = [{ ref: 'events.events.k8s.io', gvr: { group: 'events.k8s.io', version: 'v1', resource: 'events' } }] as const;
      expect(c!.store.count('events')).toBeGreaterThan(0);
      h.writeClusters([pediaClusterFor(c!, [{ group: 'events.k8s.io', resources: ['events'] }])]);
      await h.startSynchro();
      await h.converged(20_000, [c!], EVENTS_V1);
      const stored = await h.stored(c!.name, EVENTS_V1[0].gvr);
      const one = [...stored.values()][0]!;
      expect(one).toMatchObject({ apiVersion: 'events.k8s.io/v1', kind: 'Event', regarding: { kind: expect.any(String) }, deprecatedSource: expect.any(Object) });
      expect(one).not.toHaveProperty('involvedObject');
      // A core/v1 write on the member (an old recorder's) reaches storage through the events.k8s.io watch.
      const pod = c!.snapshot('pods')[0]!;
      c!.store.create('events', {
        apiVersion: 'v1', kind: 'Event', metadata: { name: 'x.core-write', namespace: pod.metadata.namespace },
        involvedObject: { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid }, reason: 'Test', message: 'written through core/v1',
        source: { component: 'kubelet', host: 'n1' }, type: 'Normal', count: 1,
      });
      await h.converged(20_000, [c!], EVENTS_V1);
      expect((await h.stored(c!.name, EVENTS_V1[0].gvr)).get(`${pod.metadata.namespace}/x.core-write`)).toMatchObject({ note: 'written through core/v1', deprecatedSource: { component: 'kubelet' }, deprecatedCount: 1 });
    });

    it('removing a cluster from the file removes its rows and status; changing its spec keeps rows', async () => {
      h = await Harness.start(backend);
      await h.startSynchro();
      await h.converged();
      const [c1, c2] = h.clusters;
      // Spec change: drop replica sets, keep the rest, and reach the member by another URL (a new connection).
      const newUrl = c1!.url.replace('127.0.0.1', 'localhost');
      const changed = pediaClusterFor(c1!, SYNC.map((g) => (g.group === 'apps' ? { ...g, resources: ['deployments'] } : g)), { apiserver: newUrl });
      const podRevs = await podRevisions(h, c1!.name);
      h.writeClusters([changed]);
      await waitFor(async () => (await h!.storage.counts()).every((x) => x.cluster !== c2!.name), 15_000, () => 'rows of the removed cluster remain');
      await waitFor(async () => !(await h!.storage.clusterStatuses()).has(c2!.name), 5_000, () => 'status of the removed cluster remains');
      await waitFor(async () => (await h!.stored(c1!.name, { group: 'apps', version: 'v1', resource: 'replicasets' })).size === 0, 10_000, () => 'replica sets remain');
      await waitFor(async () => (await h!.status(c1!.name))?.status.apiserver === newUrl, 10_000, () => 'status.apiserver not updated');
      await waitFor(async () => (await h!.condition(c1!.name, 'Ready'))?.status === 'True', 10_000);
      // The restarted synchro resumed: pod rows were not rewritten.
      expect(await podRevisions(h, c1!.name)).toEqual(podRevs);
      // Everything else still equals the member; only the replica sets are gone.
      expect(await h.diff(c1!)).toEqual(expectedReplicaSetGaps(h, c1!.name));
    });
  });
}

async function podRevisions(h: Harness, cluster: string): Promise<Record<string, string>> {
  const page = await h.storage.list({ types: { kind: 'one', group: '', version: 'v1', resource: 'pods' }, clusters: { op: 'in', values: [cluster] } });
  const out: Record<string, string> = {};
  for await (const r of page.rows) out[`${r.namespace}/${r.name}`] = r.revision;
  return out;
}

/** After replica sets stop being synced, the diff lists each as missing and nothing else. */
function expectedReplicaSetGaps(h: Harness, cluster: string): string[] {
  const c = h.clusters.find((x) => x.name === cluster)!;
  return c.snapshot('replicasets.apps').map((o) => `${cluster} replicasets.apps ${o.metadata.namespace}/${o.metadata.name}: missing`);
}

// The synchro integration suite, part two: credentials, unreachable members, CRDs coming and going, metrics, host mode.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLUSTER_API_GROUP_VERSION, SYNCHRO_FINALIZER } from '../../../src/kube/pediacluster.js';
import { kubeconfigFor, pediaClusterFor, startSimulatedCluster, type SimCluster } from '../../../src/sim/index.js';
import { freePort } from '../../support/postgres-server.js';
import { Registry } from 'prom-client';
import { runAll } from '../../../src/lib/lifecycle.js';
import { loadReports } from '../../../src/cmd/show-model.js';
import { renderClusters, renderResources } from '../../../src/cmd/show.js';
import { silentLogger } from '../../../src/lib/log.js';
import { recordingLogger } from '../../support/log.js';
import { synchroRunnables } from '../../../src/roles/synchro/run.js';
import { defaultSynchroOptions } from '../../../src/roles/synchro/options.js';
import { Harness, SYNC, testOptions, waitFor, type Backend, type StoredSyncCondition } from './harness.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const PEDIACLUSTERS = 'pediaclusters.cluster.clusterpedia.io';


export function faultsSuite(backend: Backend): void {
  describe(`synchro over ${backend.name}: faults, CRDs, metrics, host mode`, () => {
    let h: Harness | undefined;
    let host: SimCluster | undefined;
    afterEach(async () => {
      await h?.close();
      await host?.stop();
      h = undefined;
      host = undefined;
    });

    it('bad credentials and an invalid spec show the right conditions, never the secret', async () => {
      h = await Harness.start(backend, { clusters: 1, pods: 5 });
      const [c] = h.clusters;
      const wrongToken = pediaClusterFor(c!, SYNC, { tokenData: b64('not-the-token-xyz') });
      (wrongToken.metadata as { name: string }).name = 'wrong-token';
      const noEndpoint = { apiVersion: CLUSTER_API_GROUP_VERSION, kind: 'PediaCluster', metadata: { name: 'no-endpoint' }, spec: { tokenData: b64('t0k3n-abc'), syncResources: SYNC } };
      // A file is not checked against the CRD schema: a malformed syncResources entry is reported, never thrown.
      const badResources = pediaClusterFor(c!, SYNC, { syncResources: [{ group: '', resources: ['pods'], eventsInvolvedResources: 'pods' }] });
      (badResources.metadata as { name: string }).name = 'bad-resources';
      const badNamespaces = pediaClusterFor(c!, SYNC, { excludeNamespaces: ['kube-system', 'Kube System'] });
      (badNamespaces.metadata as { name: string }).name = 'bad-namespaces';
      h.writeClusters([wrongToken, noEndpoint, badResources, badNamespaces]);
      await h.startSynchro();
      await waitFor(async () => (await h!.condition('wrong-token', 'ClusterHealthy'))?.status === 'False', 10_000);
      expect(await h.condition('wrong-token', 'ClusterHealthy')).toMatchObject({ reason: 'NotReachable', message: expect.stringContaining('401') });
      expect(await h.condition('wrong-token', 'Ready')).toMatchObject({ status: 'False', reason: 'NotReady', message: 'ClusterHealthy condition is False, reason is NotReachable' });
      await waitFor(async () => (await h!.condition('no-endpoint', 'Validated'))?.status === 'False', 10_000);
      expect(await h.condition('no-endpoint', 'Validated')).toMatchObject({ reason: 'InvalidConfig', message: 'invalid cluster config: Cluster APIServer Endpoint is required' });
      expect(await h.condition('no-endpoint', 'SynchroRunning')).toMatchObject({ status: 'False', reason: 'InvalidConfig' });
      await waitFor(async () => (await h!.condition('bad-resources', 'Validated'))?.status === 'False', 10_000);
      expect(await h.condition('bad-resources', 'Validated')).toMatchObject({ reason: 'InvalidSyncResources', message: 'spec.syncResources[0].eventsInvolvedResources: must be a list of strings' });
      expect((await h.storage.counts()).filter((x) => x.cluster === 'bad-resources')).toEqual([]);
      await waitFor(async () => (await h!.condition('bad-namespaces', 'Validated'))?.status === 'False', 10_000);
      expect(await h.condition('bad-namespaces', 'Validated')).toMatchObject({ reason: 'InvalidSyncResources', message: expect.stringContaining('spec.excludeNamespaces[1]: "Kube System" is not a namespace name') });
      expect((await h.storage.counts()).filter((x) => x.cluster === 'bad-namespaces')).toEqual([]);
      const all = JSON.stringify([...(await h.storage.clusterStatuses()).values()]);
      expect(all).not.toContain('not-the-token-xyz');
      expect(all).not.toContain('t0k3n-abc');
    });

    it('an unreachable member pauses its resources and keeps its rows; recovery resumes watching without a list', async () => {
      h = await Harness.start(backend, { clusters: 1 });
      // And a member that never answered: it is said in the log once, as the one that went away is.
      const [c] = h.clusters;
      const never = pediaClusterFor(c!, SYNC, { apiserver: `https://127.0.0.1:${await freePort()}` });
      (never.metadata as { name: string }).name = 'never-reachable';
      h.writeClusters([pediaClusterFor(c!, SYNC), never]);
      const log = recordingLogger<{ level: number; msg: string; cluster?: string; reason?: string; message?: string }>();
      await h.startSynchro({}, { logger: log.logger });
      await h.converged();
      const unhealthy = (name: string) => log.lines.filter((l) => l.cluster === name && l.msg.startsWith('member cluster unhealthy'));
      await waitFor(async () => unhealthy('never-reachable').length > 0, 15_000, () => 'no warning for a member never reachable');
      expect(unhealthy('never-reachable')[0]).toMatchObject({ level: 40, msg: 'member cluster unhealthy', reason: 'NotReachable', message: expect.stringContaining('ECONNREFUSED') });
      const rows = (await h.storage.counts()).reduce((n, x) => n + x.count, 0);
      await c!.faults.down();
      await waitFor(async () => (await h!.condition(c!.name, 'ClusterHealthy'))?.status === 'False', 10_000);
      expect(await h.condition(c!.name, 'ClusterHealthy')).toMatchObject({ reason: 'NotReachable' });
      await waitFor(async () => (await h!.syncCondition(c!.name))?.reason === 'Pause', 10_000, () => 'pods not paused');
      expect((await h.syncCondition(c!.name))?.status).toBe('Stop');
      expect(unhealthy(c!.name).map((l) => l.msg)).toEqual(['member cluster unhealthy; pausing resource synchros']);
      expect((await h.storage.counts()).reduce((n, x) => n + x.count, 0)).toBe(rows);
      c!.churn.step(10);
      const since = Date.now();
      await c!.faults.up();
      await waitFor(async () => (await h!.condition(c!.name, 'Ready'))?.status === 'True', 10_000);
      await h.converged();
      // Ready follows cluster health; the per-resource state reaches the stored status with the next status write
      // (about a second later), so wait for it as for the pause above.
      await waitFor(async () => (await h!.syncCondition(c!.name))?.status === 'Syncing', 10_000, () => 'pods did not resume syncing');
      expect(h.lists(c!, '/api/v1/pods', since)).toBe(0);
      // Once per spell, however many probes fail.
      expect(unhealthy(c!.name)).toHaveLength(1);
      expect(unhealthy('never-reachable')).toHaveLength(1);
    });

    it('a member that closes its HTTP/2 connections gracefully (kube\'s --goaway-chance) is followed without a relist, an error or a health blip', async () => {
      h = await Harness.start(backend, { clusters: 1, pods: 20 });
      const [c] = h.clusters;
      h.writeClusters([pediaClusterFor(c!, SYNC)]);
      const log = recordingLogger<{ level: number; msg: string }>();
      await h.startSynchro({}, { logger: log.logger });
      await h.converged();
      const since = Date.now();
      const watches = (): number => c!.requestLog.entries((r) => r.watch && r.path === '/api/v1/pods' && r.startedAt >= since).length;
      // About every third request but a watch ends its connection after its answer: health probes (every 150 ms
      // here), discovery polls, status reads. Each took down every watch and request in flight on the connection.
      c!.faults.goAway(0.3);
      const health = new Set<string>();
      const until = Date.now() + 3_000;
      while (Date.now() < until) {
        c!.churn.step(5);
        health.add((await h.condition(c!.name, 'ClusterHealthy'))?.status ?? 'none');
        await new Promise((r) => setTimeout(r, 50));
      }
      c!.faults.goAway(0);
      await h.converged();
      // The connections did go away under the watches: they were opened again, from where they were.
      expect(watches()).toBeGreaterThan(1);
      // Not a list, nor the one-object read that checks the member before a watch resumes after a failure.
      expect(c!.requestLog.entries((r) => r.path === '/api/v1/pods' && !r.watch && r.startedAt >= since)).toEqual([]);
      expect([...health]).toEqual(['True']);
      for (const [group, resource] of [['', 'pods'], ['apps', 'deployments'], ['apps', 'replicasets']] as const) {
        expect((await h.syncCondition(c!.name, group, resource))?.lastError, `${group}/${resource}`).toBeUndefined();
      }
      expect(log.lines.filter((l) => l.level >= 40).map((l) => l.msg)).toEqual([]);
    });

    it('storage too slow to keep up: the member closes the watches the synchro stopped reading, and nothing is lost', async () => {
      h = await Harness.start(backend, { clusters: 1, pods: 40, watchBufferEvents: 10 });
      const parts = await h.startSynchro({ queue: { ...defaultSynchroOptions().queue, flushDelayMs: 2, maxEntries: 40, batchSize: 20 } });
      await h.converged();
      // Every write waits until released: the queue fills, the synchro stops reading its watches, the socket backs up.
      const storage = h.storage;
      const write = storage.write.bind(storage);
      let release: () => void = () => undefined;
      const held = new Promise<void>((r) => { release = r; });
      storage.write = async (...args: Parameters<typeof write>) => {
        await held;
        return write(...args);
      };
      const [c] = h.clusters;
      try {
        c!.churn.start(400);
        await waitFor(() => c!.unresponsiveWatchesClosed > 0, 30_000, () => 'the member never closed a watch the synchro was not reading');
        expect(parts.queue.depth).toBeLessThanOrEqual(40);
      } finally {
        c!.churn.stop();
        storage.write = write;
        release();
      }
      // The synchro reads what was sent before the close, watches again from there, and ends with every change.
      await h.converged(30_000);
    });

    it('a resource whose watch fails reports the error, and keeps it as its last error once it recovers', async () => {
      h = await Harness.start(backend, { clusters: 1, pods: 3 });
      await h.startSynchro();
      await h.converged();
      const [c] = h.clusters;
      await waitFor(async () => (await h!.syncCondition(c!.name))?.status === 'Syncing', 10_000, () => 'pods not syncing');
      expect((await h.syncCondition(c!.name))?.lastError).toBeUndefined();
      const before = Date.now();
      // Every pods request fails (lists and watches alike); other paths, discovery and health, still answer.
      c!.faults.failNext(1_000, 500, undefined, '/api/v1/pods');
      c!.faults.dropWatches();
      await waitFor(async () => (await h!.syncCondition(c!.name))?.status === 'Error', 10_000, () => 'pods not in error');
      const failing = await h.syncCondition(c!.name);
      expect(failing).toMatchObject({ reason: 'ResourceWatchFailed', lastError: expect.stringMatching(/^ResourceWatchFailed: .*500/) });
      expect(Date.parse(failing!.lastErrorTime!)).toBeGreaterThanOrEqual(before - 1_000);
      c!.faults.clear();
      c!.churn.step(3);
      await h.converged();
      await waitFor(async () => (await h!.syncCondition(c!.name))?.status === 'Syncing', 10_000, () => 'pods did not recover');
      const recovered = await h.syncCondition(c!.name);
      expect(recovered).toMatchObject({ reason: '', lastError: failing!.lastError });
      expect(Date.parse(recovered!.lastErrorTime!)).toBeGreaterThanOrEqual(Date.parse(failing!.lastErrorTime!));

      // A restart keeps it (read back from the stored status, as the resume points are).
      await h.stopSynchro();
      const since = Date.now();
      await h.startSynchro();
      await waitFor(async () => {
        const st = await h!.status(c!.name);
        return st !== undefined && Date.parse(st.updatedAt) >= since && (await h!.syncCondition(c!.name))?.status === 'Syncing';
      }, 10_000, () => 'no status after the restart');
      expect(await h.syncCondition(c!.name)).toMatchObject({ lastError: recovered!.lastError, lastErrorTime: recovered!.lastErrorTime });

      // `show resources` prints it beside the current state.
      const reports = await loadReports(h.storage);
      const pods = reports[0]!.resources.find((r) => r.resource === 'pods');
      expect(pods).toMatchObject({ status: 'Syncing', lastError: failing!.lastError });
      const table = renderResources(reports, false, Date.now());
      expect(table.split('\n')[0]).toMatch(/MESSAGE\s+LAST ERROR$/);
      expect(table).toMatch(/\bpods\b.*\bSyncing\b.* ago: ResourceWatchFailed: /);
    });

    it('list pages larger than the bound are asked again smaller; an object larger than the bound is reported', async () => {
      h = await Harness.start(backend, { clusters: 1, pods: 10 });
      const [c] = h.clusters;
      const bigPod = (name: string, size: number) => ({
        apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', annotations: { blob: 'x'.repeat(size) } },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
      });
      for (let i = 0; i < 30; i++) c!.store.create('pods', bigPod(`big-${String(i).padStart(2, '0')}`, 10_000));
      // Full discovery reads whole CRDs within the same bound: ten with 30 kB schemas do not fit 100 or 25 to a page.
      for (let i = 0; i < 10; i++) {
        const crd = c!.addCRD({ group: 'big.example.io', plural: `things${i}`, kind: `Thing${i}`, scope: 'Cluster', versions: [{ name: 'v1' }] });
        const spec = crd.spec as { versions: Record<string, unknown>[] };
        spec.versions = spec.versions.map((v) => ({ ...v, schema: { openAPIV3Schema: { type: 'object', description: 'd'.repeat(30_000) } } }));
        c!.store.update('customresourcedefinitions.apiextensions.k8s.io', crd);
      }
      // 50 pods (the test page size) of 10 kB do not fit in 64 KiB; 12 do not either; 3 do.
      const since = Date.now();
      await h.startSynchro({ maxListPageBytes: 64 * 1024 });
      await h.converged();
      const limits = c!.requestLog.entries((r) => r.path === '/api/v1/pods' && !r.watch && r.startedAt >= since).map((r) => Number(r.params.limit));
      expect(limits.slice(0, 3)).toEqual([50, 12, 3]);
      const crdLimits = c!.requestLog.entries((r) => r.path === '/apis/apiextensions.k8s.io/v1/customresourcedefinitions' && !r.watch
        && r.startedAt >= since && !r.accept.includes('PartialObjectMetadataList')).map((r) => Number(r.params.limit));
      expect(crdLimits.slice(0, 3)).toEqual([100, 25, 6]);
      // It grows back once pages are far below the bound (the 10 small pods after the big ones).
      expect(Math.max(...limits.slice(3))).toBeLessThanOrEqual(50);
      // (The status reaches storage with the next status write, up to a second after the rows.)
      await waitFor(async () => (await h!.syncCondition(c!.name))?.status === 'Syncing', 10_000, () => 'pods not syncing');

      // One object past the bound cannot be listed at any page size: the resource reports it, and keeps its rows.
      // (Created while the synchro is down, and the history compacted: the restart's watch gets 410 and relists.)
      await h.stopSynchro();
      c!.store.create('pods', bigPod('huge', 100_000));
      c!.faults.compact();
      await h.startSynchro({ maxListPageBytes: 64 * 1024 });
      await waitFor(async () => (await h!.syncCondition(c!.name))?.status === 'Error', 10_000, () => 'pods not in error');
      expect(await h.syncCondition(c!.name)).toMatchObject({
        reason: 'ResourceWatchFailed', message: expect.stringMatching(/list \/api\/v1\/pods: one object is larger than 65536 bytes/),
      });
      expect((await h.stored(c!.name, { group: '', version: 'v1', resource: 'pods' })).size).toBe(40);
      c!.store.delete('pods', 'default', 'huge');
      await h.converged();
      await waitFor(async () => (await h!.syncCondition(c!.name))?.status === 'Syncing', 10_000, () => 'pods did not recover');
    });

    it('a restart whose one-object check meets an object past the page bound still resumes watching', async () => {
      h = await Harness.start(backend, { clusters: 1, pods: 5 });
      const [c] = h.clusters;
      await h.startSynchro({ maxListPageBytes: 64 * 1024 });
      await h.converged();
      await h.stopSynchro();
      // First in list order (namespace "aaa") and larger than the bound: the check before resuming lists it alone and
      // cannot read it. It cannot tell where the member is then, and must not keep the resource from watching.
      c!.store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'aaa' } });
      c!.store.create('pods', {
        apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a-huge', namespace: 'aaa', annotations: { blob: 'x'.repeat(100_000) } },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
      });
      const since = Date.now();
      await h.startSynchro({ maxListPageBytes: 64 * 1024 });
      const pods = (r: { path: string; startedAt: number }): boolean => r.path === '/api/v1/pods' && r.startedAt >= since;
      await waitFor(() => c!.requestLog.entries((r) => pods(r) && r.watch).length > 0, 10_000, () => 'pods not watched after the restart');
      expect(c!.requestLog.entries((r) => pods(r) && !r.watch).map((r) => r.params.limit)).toEqual(['1']);
    });

    it('CRDs appearing and disappearing on the member are picked up (syncAllCustomResources)', async () => {
      h = await Harness.start(backend, { clusters: 1, pods: 5 });
      const [c] = h.clusters;
      h.writeClusters([pediaClusterFor(c!, [{ group: '', resources: ['pods'] }], { syncAllCustomResources: true })]);
      await h.startSynchro();
      await waitFor(async () => (await h!.stored(c!.name, { group: 'stable.example.com', version: 'v1', resource: 'crontabs' })).size > 0, 10_000);
      // Polls (every 300 ms here) read the CRDs metadata-only; whole CRDs only when one of them changed.
      const crdLists = (since: number, full: boolean): number => c!.requestLog.entries((r) => r.path === '/apis/apiextensions.k8s.io/v1/customresourcedefinitions'
        && !r.watch && r.startedAt >= since && r.accept.startsWith('application/json;as=PartialObjectMetadataList') !== full).length;
      const quiet = Date.now();
      await waitFor(() => crdLists(quiet, false) >= 3, 10_000, () => 'no metadata-only CRD polls');
      expect(crdLists(quiet, true)).toBe(0);
      c!.addCRD({ group: 'example.org', plural: 'widgets', kind: 'Widget', scope: 'Namespaced', versions: [{ name: 'v2' }, { name: 'v1' }] });
      c!.store.create('widgets.example.org', { apiVersion: 'example.org/v2', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' }, spec: { size: 1 } });
      const widgets = { group: 'example.org', version: 'v2', resource: 'widgets' };
      await waitFor(async () => (await h!.stored(c!.name, widgets)).has('default/w1'), 10_000, () => 'widget not synced');
      expect(crdLists(quiet, true)).toBeGreaterThan(0);
      c!.removeCRD('widgets.example.org');
      await waitFor(async () => (await h!.stored(c!.name, widgets)).size === 0, 10_000, () => 'widget rows not removed');
    });

    it('with aggregated discovery the polls are 304s and read no CRD; CRDs appearing and disappearing are picked up', async () => {
      h = await Harness.start(backend, { clusters: 1, pods: 5, aggregatedDiscovery: true });
      const [c] = h.clusters;
      h.writeClusters([pediaClusterFor(c!, [{ group: '', resources: ['pods'] }], { syncAllCustomResources: true })]);
      await h.startSynchro();
      await waitFor(async () => (await h!.stored(c!.name, { group: 'stable.example.com', version: 'v1', resource: 'crontabs' })).size > 0, 10_000);
      const after = (since: number, what: (r: { path: string; watch: boolean; accept: string }) => boolean): { path: string; status: number; accept: string }[] =>
        c!.requestLog.entries((r) => r.startedAt >= since && what(r));
      const crdLists = (since: number): { accept: string }[] => after(since, (r) => r.path === '/apis/apiextensions.k8s.io/v1/customresourcedefinitions' && !r.watch);
      const quiet = Date.now();
      await waitFor(() => after(quiet, (r) => r.path === '/apis').length >= 3, 10_000, () => 'no discovery polls');
      expect(new Set(after(quiet, (r) => r.path === '/apis' || r.path === '/api').map((r) => r.status))).toEqual(new Set([304]));
      expect(crdLists(quiet)).toEqual([]);
      const added = Date.now();
      c!.addCRD({ group: 'example.org', plural: 'widgets', kind: 'Widget', scope: 'Namespaced', versions: [{ name: 'v2' }, { name: 'v1' }] });
      c!.store.create('widgets.example.org', { apiVersion: 'example.org/v2', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' }, spec: { size: 1 } });
      const widgets = { group: 'example.org', version: 'v2', resource: 'widgets' };
      await waitFor(async () => (await h!.stored(c!.name, widgets)).has('default/w1'), 10_000, () => 'widget not synced');
      // The full discovery the new group caused read the CRDs' names only, and no group version on its own.
      expect(crdLists(added).length).toBeGreaterThan(0);
      expect(crdLists(added).every((r) => r.accept.startsWith('application/json;as=PartialObjectMetadataList'))).toBe(true);
      expect(after(quiet, (r) => /^\/apis\/[^/]+\/[^/]+$/.test(r.path) || r.path === '/api/v1')).toEqual([]);
      c!.removeCRD('widgets.example.org');
      await waitFor(async () => (await h!.stored(c!.name, widgets)).size === 0, 10_000, () => 'widget rows not removed');
    });

    it('a member with more watched resources than a connection pool would hold stays healthy and watches them all', async () => {
      // One watch holds one HTTP/1.1 connection for its whole life; with a fixed pool of 16, the 17th resource got no
      // watch and the health probe queued behind the watches until it timed out and paused the cluster.
      h = await Harness.start(backend, { clusters: 1, pods: 2 });
      const [c] = h.clusters;
      const kinds = Array.from({ length: 24 }, (_, i) => `kind${i}`);
      for (const k of kinds) {
        c!.addCRD({ group: 'many.example.org', plural: `${k}s`, kind: k.toUpperCase(), scope: 'Namespaced', versions: [{ name: 'v1' }] });
        c!.store.create(`${k}s.many.example.org`, { apiVersion: 'many.example.org/v1', kind: k.toUpperCase(), metadata: { name: 'first', namespace: 'default' } });
      }
      h.writeClusters([pediaClusterFor(c!, [{ group: '', resources: ['pods'] }, { group: 'many.example.org', resources: ['*'] }])]);
      await h.startSynchro();
      const gvr = (k: string): { group: string; version: string; resource: string } => ({ group: 'many.example.org', version: 'v1', resource: `${k}s` });
      // With the pool of 16, listing stalled here: the watches of the first resources held every connection.
      for (const k of kinds) await waitFor(async () => (await h!.stored(c!.name, gvr(k))).has('default/first'), 15_000, () => `${k} not listed`);
      // Every resource is watched: a change to each arrives without a relist.
      for (const k of kinds) c!.store.create(`${k}s.many.example.org`, { apiVersion: 'many.example.org/v1', kind: k.toUpperCase(), metadata: { name: 'second', namespace: 'default' } });
      for (const k of kinds) await waitFor(async () => (await h!.stored(c!.name, gvr(k))).has('default/second'), 10_000, () => `${k} not watched`);
      // The health probe is not stuck behind the watches (it was, timed out and paused the cluster).
      await waitFor(async () => (await h!.condition(c!.name, 'ClusterHealthy'))?.status === 'True', 10_000, () => 'cluster not healthy');
      const since = Date.now();
      await waitFor(async () => c!.requestLog.entries((r) => (r.path === '/readyz' || r.path === '/healthz') && r.startedAt >= since && r.status === 200).length >= 3, 10_000, () => 'health probes not answered');
    });

    it('a group version discovery cannot read (503) keeps its resource and rows, while running and at a restart', async () => {
      h = await Harness.start(backend, { clusters: 1, pods: 2 });
      const [c] = h.clusters;
      const crontabs = { group: 'stable.example.com', version: 'v1', resource: 'crontabs' };
      const gvPath = '/apis/stable.example.com/v1';
      h.writeClusters([pediaClusterFor(c!, [{ group: '', resources: ['pods'] }, { group: 'stable.example.com', resources: ['crontabs'] }])]);
      await h.startSynchro();
      await waitFor(async () => (await h!.stored(c!.name, crontabs)).size > 0, 10_000, () => 'crontabs not synced');
      const before = (await h.stored(c!.name, crontabs)).size;
      const held = async (what: string): Promise<void> => {
        // Several discovery polls (300 ms) with the group version unreadable: the rows stay.
        const until = Date.now() + 1_500;
        while (Date.now() < until) {
          expect((await h!.stored(c!.name, crontabs)).size, what).toBe(before);
          await new Promise((r) => setTimeout(r, 100));
        }
      };

      // Running: a new group makes the synchro discover everything again, and that group version answers 503.
      // (The request log counts the discovery GETs of the group version, the failed ones included.)
      let since = Date.now();
      c!.faults.failNext(1_000, 503, undefined, gvPath);
      c!.addCRD({ group: 'new.example.org', plural: 'gadgets', kind: 'Gadget', scope: 'Namespaced', versions: [{ name: 'v1' }] });
      await waitFor(async () => h!.lists(c!, gvPath, since) > 0, 10_000, () => 'no failed discovery');
      await held('while running');
      c!.faults.clear();
      c!.store.create('crontabs.stable.example.com', { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'after-503', namespace: 'default' }, spec: {} });
      await waitFor(async () => (await h!.stored(c!.name, crontabs)).has('default/after-503'), 10_000, () => 'crontabs no longer watched');

      // A restart whose first discovery cannot read the group version does not clean its rows as orphans.
      await h.stopSynchro();
      const stored = (await h.stored(c!.name, crontabs)).size;
      since = Date.now();
      c!.faults.failNext(1_000, 503, undefined, gvPath);
      await h.startSynchro();
      await waitFor(async () => h!.lists(c!, gvPath, since) > 0, 10_000, () => 'no failed discovery after the restart');
      const until = Date.now() + 1_500;
      while (Date.now() < until) {
        expect((await h.stored(c!.name, crontabs)).size, 'after a restart').toBe(stored);
        await new Promise((r) => setTimeout(r, 100));
      }
      c!.faults.clear();
      c!.store.create('crontabs.stable.example.com', { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'after-restart', namespace: 'default' }, spec: {} });
      await waitFor(async () => (await h!.stored(c!.name, crontabs)).has('default/after-restart'), 10_000, () => 'crontabs not synced after the restart');
    });

    it('a group version aggregated discovery lists Stale keeps its resource and rows, while running and at a restart', async () => {
      h = await Harness.start(backend, { clusters: 1, pods: 2, aggregatedDiscovery: true });
      const [c] = h.clusters;
      const crontabs = { group: 'stable.example.com', version: 'v1', resource: 'crontabs' };
      const discovered = (since: number): number => c!.requestLog.entries((r) => r.path === '/apis' && r.status === 200 && r.startedAt >= since).length;
      h.writeClusters([pediaClusterFor(c!, [{ group: '', resources: ['pods'] }, { group: 'stable.example.com', resources: ['crontabs'] }])]);
      await h.startSynchro();
      await waitFor(async () => (await h!.stored(c!.name, crontabs)).size > 0, 10_000, () => 'crontabs not synced');
      // Aggregated discovery told everything: no group version was read on its own.
      expect(h.lists(c!, '/apis/stable.example.com/v1')).toBe(0);
      const before = (await h.stored(c!.name, crontabs)).size;
      const held = async (what: string, since: number): Promise<void> => {
        // The member's aggregated discovery changed (an ETag no longer matched) and was read with the group version Stale.
        await waitFor(() => discovered(since) > 0, 10_000, () => `no discovery ${what}`);
        // Several discovery polls (300 ms) with the group version Stale: the rows stay.
        const until = Date.now() + 1_500;
        while (Date.now() < until) {
          expect((await h!.stored(c!.name, crontabs)).size, what).toBe(before);
          await new Promise((r) => setTimeout(r, 100));
        }
      };
      c!.faults.unavailable('stable.example.com/v1');
      await held('while running', Date.now());
      c!.faults.clear();
      c!.store.create('crontabs.stable.example.com', { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'after-stale', namespace: 'default' }, spec: {} });
      await waitFor(async () => (await h!.stored(c!.name, crontabs)).has('default/after-stale'), 10_000, () => 'crontabs no longer watched');

      // A restart whose first discovery finds the group version Stale does not clean its rows as orphans.
      await h.stopSynchro();
      const stored = (await h.stored(c!.name, crontabs)).size;
      c!.faults.unavailable('stable.example.com/v1');
      const since = Date.now();
      await h.startSynchro();
      await waitFor(() => discovered(since) > 0, 10_000, () => 'no discovery after the restart');
      const until = Date.now() + 1_500;
      while (Date.now() < until) {
        expect((await h.stored(c!.name, crontabs)).size, 'after a restart').toBe(stored);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(stored).toBeGreaterThan(0);
      c!.faults.clear();
      c!.store.create('crontabs.stable.example.com', { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'after-restart', namespace: 'default' }, spec: {} });
      await waitFor(async () => (await h!.stored(c!.name, crontabs)).has('default/after-restart'), 10_000, () => 'crontabs not synced after the restart');
    });

    it('rows of a resource no longer synced, whose deletion storage refused, are removed at a later discovery poll', async () => {
      h = await Harness.start(backend, { clusters: 1, pods: 2 });
      const [c] = h.clusters;
      const crontabs = { group: 'stable.example.com', version: 'v1', resource: 'crontabs' };
      h.writeClusters([pediaClusterFor(c!, [{ group: '', resources: ['pods'] }, { group: 'stable.example.com', resources: ['crontabs'] }])]);
      await h.startSynchro();
      await waitFor(async () => (await h!.stored(c!.name, crontabs)).size > 0, 10_000, () => 'crontabs not synced');
      const clean = h.storage.cleanResource.bind(h.storage);
      let refused = 0;
      h.storage.cleanResource = () => {
        refused++;
        return Promise.reject(new Error('storage is down'));
      };
      const crontabsCondition = (): Promise<StoredSyncCondition | undefined> => h!.syncCondition(c!.name, 'stable.example.com', 'crontabs');
      try {
        h.writeClusters([pediaClusterFor(c!, [{ group: '', resources: ['pods'] }])]);
        await waitFor(() => refused > 0, 10_000, () => 'no deletion attempted');
        // The rows are still served: the status says why (reference §4.3: Stop, CleanResourceFailed).
        await waitFor(async () => (await crontabsCondition())?.reason === 'CleanResourceFailed', 10_000, () => 'refused clean-up not shown');
        expect(await crontabsCondition()).toMatchObject({ status: 'Stop', message: 'remove stored rows: storage is down' });
        expect((await h.stored(c!.name, crontabs)).size).toBeGreaterThan(0);
        // `show clusters` names it in its message column.
        expect(renderClusters(await loadReports(h.storage), false, Date.now())).toContain('crontabs: CleanResourceFailed remove stored rows: storage is down');
      } finally {
        h.storage.cleanResource = clean;
      }
      await waitFor(async () => (await h!.stored(c!.name, crontabs)).size === 0, 10_000, () => 'rows of the dropped resource left');
      await waitFor(async () => (await crontabsCondition()) === undefined, 10_000, () => 'the removed resource is still in the status');
      expect((await h.syncCondition(c!.name))?.status).toBe('Syncing');
    });

    it('a dropped resource is shown as Stop/SynchroRemoved while its rows are deleted', async () => {
      h = await Harness.start(backend, { clusters: 1, pods: 2 });
      const [c] = h.clusters;
      h.writeClusters([pediaClusterFor(c!, [{ group: '', resources: ['pods'] }, { group: 'stable.example.com', resources: ['crontabs'] }])]);
      const parts = await h.startSynchro();
      const crontabs = { group: 'stable.example.com', version: 'v1', resource: 'crontabs' };
      await waitFor(async () => (await h!.stored(c!.name, crontabs)).size > 0, 10_000, () => 'crontabs not synced');
      // Storage takes its time to delete them: the status shows the resource stopped, being removed, meanwhile.
      const clean = h.storage.cleanResource.bind(h.storage);
      let release: () => void = () => {};
      const held = new Promise<void>((r) => { release = r; });
      h.storage.cleanResource = async (cluster, t) => {
        await held;
        return clean(cluster, t);
      };
      const crontabsIn = (): unknown => parts.manager.renderStatus(c!.name)?.syncResources
        ?.find((g) => g.group === 'stable.example.com')?.resources.find((r) => r.name === 'crontabs')?.syncConditions[0];
      try {
        h.writeClusters([pediaClusterFor(c!, [{ group: '', resources: ['pods'] }])]);
        await waitFor(() => crontabsIn() !== undefined && (crontabsIn() as StoredSyncCondition).reason === 'SynchroRemoved', 10_000, () => 'removal not shown');
        expect(crontabsIn()).toMatchObject({ version: 'v1', status: 'Stop', reason: 'SynchroRemoved', initialListPhase: false });
      } finally {
        release();
        h.storage.cleanResource = clean;
      }
      await waitFor(() => crontabsIn() === undefined, 10_000, () => 'the removed resource is still in the status');
      expect((await h.stored(c!.name, crontabs)).size).toBe(0);
    });

    it('serves /metrics, /readyz, /healthz and /livez with per-cluster object counts', async () => {
      h = await Harness.start(backend, { clusters: 1, pods: 5 });
      const port = await freePort();
      await h.startSynchro({ metricsPort: port, metricsHost: '127.0.0.1' });
      await h.converged();
      const [c] = h.clusters;
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(metrics).toContain(`clusterpedia_synchro_objects{cluster="${c!.name}",resource="pods/v1"} ${c!.store.count('pods')}`);
      expect(metrics).toMatch(/clusterpedia_synchro_write_batch_size_count \d+/);
      expect(metrics).toContain('clusterpedia_synchro_queue_entries');
      expect(metrics).toContain(`clusterpedia_synchro_cluster_healthy{cluster="${c!.name}"} 1`);
      // The harness's first member speaks HTTP/2 (its watches share a connection).
      expect(metrics).toContain(`clusterpedia_synchro_member_protocol{cluster="${c!.name}",protocol="h2"} 1`);
      expect(metrics).not.toContain(`clusterpedia_synchro_member_protocol{cluster="${c!.name}",protocol="http/1.1"}`);
      // show clusters says so too, from the status in storage.
      await waitFor(async () => (await loadReports(h!.storage)).find((r) => r.name === c!.name)?.protocol === 'h2', 10_000, () => 'protocol not in the stored status');
      expect(renderClusters(await loadReports(h.storage), false, Date.now())).toMatch(/PROTOCOL[\s\S]*\bh2\b/);
      for (const p of ['/readyz', '/healthz', '/livez']) expect(await (await fetch(`http://127.0.0.1:${port}${p}`)).text()).toBe('ok');
      // A removed cluster leaves no series behind.
      h.writeClusters([]);
      const stale = (text: string): boolean => [`_cluster_healthy{cluster="${c!.name}"`, `_member_protocol{cluster="${c!.name}"`, `_objects{cluster="${c!.name}"`].some((s) => text.includes(s));
      await waitFor(async () => !stale(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()), 10_000, () => 'gauges of the removed cluster remain');
    });

    it('--member-http2=false talks HTTP/1.1 to a member that offers HTTP/2: a connection per watch', async () => {
      h = await Harness.start(backend, { clusters: 1, pods: 5 });
      const port = await freePort();
      await h.startSynchro({ metricsPort: port, metricsHost: '127.0.0.1', memberHttp2: false });
      await h.converged();
      const [c] = h.clusters;
      expect(c!.openHttp2Connections).toBe(0);
      expect(c!.openConnections).toBeGreaterThanOrEqual(c!.openWatches);
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(metrics).toContain(`clusterpedia_synchro_member_protocol{cluster="${c!.name}",protocol="http/1.1"} 1`);
      await waitFor(async () => (await loadReports(h!.storage)).find((r) => r.name === c!.name)?.protocol === 'http/1.1', 10_000, () => 'protocol not in the stored status');
    });

    it('host mode: finalizer, Secret credentials, status written back, rows and finalizer removed on deletion', async () => {
      h = await Harness.start(backend, { clusters: 1 });
      const [member] = h.clusters;
      host = await startSimulatedCluster({ name: 'host', host: true, tls: true, pods: 1 });
      const kubeconfig = join(h.clustersFile, '..', 'host.kubeconfig');
      writeFileSync(kubeconfig, kubeconfigFor(host));
      host.store.create('secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'member-creds', namespace: 'clusterpedia-system' }, data: { token: b64(member!.token!), ca: b64(member!.caData!) } });
      host.store.create(PEDIACLUSTERS, {
        apiVersion: CLUSTER_API_GROUP_VERSION, kind: 'PediaCluster', metadata: { name: 'm1', labels: { env: 'prod' } },
        spec: { apiserver: member!.url, authenticationFrom: { token: { name: 'member-creds', key: 'token' }, ca: { name: 'member-creds', key: 'ca' } }, syncResources: SYNC },
      });
      await h.startSynchro({ host: { kubeconfig }, namespace: 'clusterpedia-system' }, { withFile: false });
      await waitFor(() => (host!.store.get(PEDIACLUSTERS, undefined, 'm1')?.metadata.finalizers ?? []).includes(SYNCHRO_FINALIZER), 10_000, () => 'no finalizer');
      const ready = (): { status?: string } | undefined => ((host!.store.get(PEDIACLUSTERS, undefined, 'm1')?.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).find((x) => x.type === 'Ready');
      await waitFor(() => ready()?.status === 'True', 15_000, () => `host status not Ready: ${JSON.stringify(host!.store.get(PEDIACLUSTERS, undefined, 'm1')?.status)}`);
      const status = host.store.get(PEDIACLUSTERS, undefined, 'm1')!.status as { version?: string; apiserver?: string; protocol?: string };
      expect(status.version).toBe('v1.32.0-sim');
      expect(status.apiserver).toBe(member!.url);
      expect(status.protocol).toBe('h2');
      // Rows are kept under the PediaCluster's name; its labels in the stored record (pediaclusters' labelSelector).
      await waitFor(async () => (await h!.stored('m1', { group: '', version: 'v1', resource: 'pods' })).size === member!.store.count('pods'), 10_000);
      expect((await h.status('m1'))?.spec.labels).toEqual({ env: 'prod' });
      // An error that comes and goes reaches the host as the resource's last error, without waiting for the
      // 30-second refresh of an otherwise unchanged status.
      const hostPods = (): { status?: string; lastError?: string } | undefined => ((host!.store.get(PEDIACLUSTERS, undefined, 'm1')?.status as { syncResources?: { group: string; resources: { name: string; syncConditions: { status?: string; lastError?: string }[] }[] }[] } | undefined)
        ?.syncResources ?? []).find((g) => g.group === '')?.resources.find((r) => r.name === 'pods')?.syncConditions[0];
      await waitFor(() => hostPods()?.status === 'Syncing', 10_000, () => 'pods not syncing on the host');
      expect(hostPods()?.lastError).toBeUndefined();
      member!.faults.failNext(1, 500, undefined, '/api/v1/pods');
      member!.faults.dropWatches();
      await waitFor(() => hostPods()?.lastError !== undefined, 8_000, () => `no last error on the host: ${JSON.stringify(hostPods())}`);
      expect(hostPods()?.lastError).toMatch(/^ResourceWatchFailed: .*500/);
      // A Secret the host cannot serve for a moment (500) is not an invalid config: the running synchro goes on.
      const secretPath = '/api/v1/namespaces/clusterpedia-system/secrets/member-creds';
      const since = Date.now();
      host.faults.failNext(3, 500, undefined, secretPath);
      const pc = host.store.get(PEDIACLUSTERS, undefined, 'm1')!;
      host.store.update(PEDIACLUSTERS, { ...pc, spec: { ...(pc.spec as Record<string, unknown>), syncResources: [...SYNC, { group: 'batch', resources: ['jobs'] }] } });
      await waitFor(() => host!.requestLog.entries((r) => r.path === secretPath && r.startedAt >= since && r.status === 500).length === 3, 15_000, () => 'Secret reads not retried');
      const validated = (): string | undefined => ((host!.store.get(PEDIACLUSTERS, undefined, 'm1')?.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).find((x) => x.type === 'Validated')?.status;
      expect(validated()).toBe('True');
      expect(ready()?.status).toBe('True');
      // …and the change that needed the Secret is applied once it can be read.
      await waitFor(async () => ((await h!.status('m1'))?.status.syncResources as { group: string }[] | undefined ?? []).some((g) => g.group === 'batch'), 15_000, () => 'spec change never applied');
      // Status that storage cannot take still reaches the host cluster.
      const put = h.storage.putClusterStatus.bind(h.storage);
      h.storage.putClusterStatus = () => Promise.reject(new Error('storage is down'));
      const healthy = (): string | undefined => ((host!.store.get(PEDIACLUSTERS, undefined, 'm1')?.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).find((x) => x.type === 'ClusterHealthy')?.status;
      await member!.faults.down();
      try {
        await waitFor(() => healthy() === 'False', 10_000, () => `host status not updated while storage fails: ${JSON.stringify(host!.store.get(PEDIACLUSTERS, undefined, 'm1')?.status)}`);
      } finally {
        h.storage.putClusterStatus = put;
        await member!.faults.up();
      }
      await waitFor(() => ready()?.status === 'True', 15_000, () => 'not Ready again');
      host.store.delete(PEDIACLUSTERS, undefined, 'm1');
      await waitFor(() => host!.store.get(PEDIACLUSTERS, undefined, 'm1') === undefined, 15_000, () => 'PediaCluster still there (finalizer not released)');
      expect((await h.storage.counts()).filter((x) => x.cluster === 'm1')).toEqual([]);
      expect((await h.storage.clusterStatuses()).has('m1')).toBe(false);
    });

    it('host mode: a ClusterSyncResources\' excludeNamespaces add to the PediaCluster\'s own', async () => {
      h = await Harness.start(backend, { clusters: 1 });
      const [member] = h.clusters;
      host = await startSimulatedCluster({ name: 'host', host: true, pods: 1 });
      const kubeconfig = join(h.clustersFile, '..', 'host.kubeconfig');
      writeFileSync(kubeconfig, kubeconfigFor(host));
      host.store.create('clustersyncresources.cluster.clusterpedia.io', { apiVersion: CLUSTER_API_GROUP_VERSION, kind: 'ClusterSyncResources', metadata: { name: 'shared' }, spec: { syncResources: [{ group: '', resources: ['pods'] }], excludeNamespaces: ['kube-system'] } });
      const spec = pediaClusterFor(member!, []).spec as Record<string, unknown>;
      host.store.create(PEDIACLUSTERS, { apiVersion: CLUSTER_API_GROUP_VERSION, kind: 'PediaCluster', metadata: { name: 'm1' }, spec: { ...spec, syncResourcesRefName: 'shared', excludeNamespaces: ['default'] } });
      await h.startSynchro({ host: { kubeconfig }, namespace: 'clusterpedia-system' }, { withFile: false });
      const want = member!.snapshot('pods').filter((p) => !['kube-system', 'default'].includes(p.metadata.namespace ?? '')).map((p) => `${p.metadata.namespace}/${p.metadata.name}`).sort();
      expect(want.length).toBeLessThan(member!.store.count('pods'));
      const stored = async (): Promise<string[]> => [...(await h!.stored('m1', { group: '', version: 'v1', resource: 'pods' })).keys()].sort();
      await waitFor(async () => JSON.stringify(await stored()) === JSON.stringify(want), 15_000, () => 'stored pods are not those outside kube-system and default');
    });

    it('host mode with leader election: leads on the host Lease, its writes fenced by the storage lease of the same name', async () => {
      h = await Harness.start(backend, { clusters: 1, pods: 10 });
      const [member] = h.clusters;
      host = await startSimulatedCluster({ name: 'host', host: true, tls: true, pods: 1 });
      const kubeconfig = join(h.clustersFile, '..', 'host.kubeconfig');
      writeFileSync(kubeconfig, kubeconfigFor(host));
      host.store.create(PEDIACLUSTERS, pediaClusterFor(member!, SYNC) as never);
      const name = 'clusterpedia-synchro';
      const thief = h.leaseThief(name);
      await h.startSynchro({ host: { kubeconfig }, leaderElection: { enabled: true, name, leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 100 } }, { withFile: false });
      await h.converged();
      // One identity holds both.
      const hostLease = host.store.get('leases.coordination.k8s.io', 'clusterpedia-system', name);
      expect((hostLease?.spec as { holderIdentity?: string } | undefined)?.holderIdentity).toBe(thief.holder());
      expect(thief.holder()).not.toBe('');
      const ended = h.ended();
      await thief.steal();
      const ns = member!.store.list('pods')[0]!.metadata.namespace!;
      member!.store.create('pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'after-takeover', namespace: ns }, spec: { containers: [{ name: 'x', image: 'busybox' }] } });
      await waitFor(() => h!.parts!.queue.storageError.includes(`no longer holds storage lease ${name}`), 5000, () => `writes not refused: "${h!.parts!.queue.storageError}"`);
      // The storage lease found held by another ends the leadership, though the host Lease is still its own.
      thief.reveal();
      expect(await ended).toMatchObject({ code: 'LeadershipLost', message: expect.stringContaining('another holder has it') });
      expect((await h.stored(member!.name, { group: '', version: 'v1', resource: 'pods' })).has(`${ns}/after-takeover`)).toBe(false);
    });

    it('host mode: a PediaCluster change the host refuses at first (finalizer PATCH 500) is retried until handled', async () => {
      h = await Harness.start(backend, { clusters: 1 });
      const [member] = h.clusters;
      host = await startSimulatedCluster({ name: 'host', host: true, tls: true, pods: 1 });
      const kubeconfig = join(h.clustersFile, '..', 'host.kubeconfig');
      writeFileSync(kubeconfig, kubeconfigFor(host));
      host.store.create(PEDIACLUSTERS, pediaClusterFor(member!, SYNC) as never);
      // The finalizer's read-modify-write fails three times; no later event would come to try again.
      host.faults.failNext(3, 500, undefined, `/apis/cluster.clusterpedia.io/v1alpha2/pediaclusters/${member!.name}`);
      await h.startSynchro({ host: { kubeconfig } }, { withFile: false });
      await waitFor(() => (host!.store.get(PEDIACLUSTERS, undefined, member!.name)?.metadata.finalizers ?? []).includes(SYNCHRO_FINALIZER), 15_000, () => 'finalizer never added');
      await waitFor(async () => (await h!.stored(member!.name, { group: '', version: 'v1', resource: 'pods' })).size === member!.store.count('pods'), 15_000, () => 'cluster not synced');
    });

    it('host mode, two shards: each takes its PediaClusters and marks them; a cluster moved to the other shard is handed over with its rows', async () => {
      h = await Harness.start(backend, { clusters: 2 });
      const [m1, m2] = h.clusters;
      host = await startSimulatedCluster({ name: 'host', host: true, tls: true, pods: 1 });
      const kubeconfig = join(h.clustersFile, '..', 'host.kubeconfig');
      writeFileSync(kubeconfig, kubeconfigFor(host));
      for (const [m, shard] of [[m1!, undefined], [m2!, 'east']] as const) {
        const pc = pediaClusterFor(m, SYNC) as { spec: Record<string, unknown> };
        if (shard) pc.spec.shardingName = shard;
        host.store.create(PEDIACLUSTERS, pc as never);
      }
      const pc = (name: string): { finalizers: string[]; shard: string | undefined; ready: string | undefined } => {
        const o = host!.store.get(PEDIACLUSTERS, undefined, name);
        const status = o?.status as { shardingName?: string; conditions?: { type: string; status: string }[] } | undefined;
        return { finalizers: o?.metadata.finalizers ?? [], shard: status?.shardingName, ready: status?.conditions?.find((c) => c.type === 'Ready')?.status };
      };
      const pods = async (name: string): Promise<number> => (await h!.stored(name, { group: '', version: 'v1', resource: 'pods' })).size;

      // The default shard first, alone: it must leave east's cluster untouched.
      const main = await h.startSynchro({ host: { kubeconfig } }, { withFile: false });
      await waitFor(() => pc(m1!.name).ready === 'True', 15_000, () => `m1 not Ready: ${JSON.stringify(pc(m1!.name))}`);
      await waitFor(async () => (await pods(m1!.name)) === m1!.store.count('pods'), 10_000, () => 'm1 rows');
      expect(pc(m1!.name).shard).toBeUndefined();
      expect(pc(m2!.name)).toEqual({ finalizers: [], shard: undefined, ready: undefined });
      expect(await pods(m2!.name)).toBe(0);
      expect(main.manager.names()).toEqual([m1!.name]);

      // The east shard.
      const eastParts = await synchroRunnables({ ...testOptions(undefined, h.url), host: { kubeconfig }, shardingName: 'east' }, { storage: h.storage, logger: silentLogger(), registry: new Registry() });
      const ac = new AbortController();
      const eastDone = runAll(eastParts.runnables, ac.signal).finally(() => eastParts.close());
      try {
        await waitFor(() => pc(m2!.name).ready === 'True' && pc(m2!.name).shard === 'east', 15_000, () => `m2: ${JSON.stringify(pc(m2!.name))}`);
        expect(pc(m2!.name).finalizers).toContain(SYNCHRO_FINALIZER);
        await waitFor(async () => (await pods(m2!.name)) === m2!.store.count('pods'), 10_000, () => 'm2 rows');
        expect(eastParts.manager.names()).toEqual([m2!.name]);

        // m1 moves to east: the default shard lets go (rows kept), east takes it over and marks it.
        const before = await pods(m1!.name);
        const cur = host.store.get(PEDIACLUSTERS, undefined, m1!.name)!;
        host.store.update(PEDIACLUSTERS, { ...cur, spec: { ...(cur.spec as object), shardingName: 'east' } });
        await waitFor(() => main.manager.names().length === 0, 10_000, () => 'default shard still runs m1');
        await waitFor(() => pc(m1!.name).shard === 'east' && eastParts.manager.names().length === 2, 15_000, () => `m1: ${JSON.stringify(pc(m1!.name))}`);
        expect(await pods(m1!.name)).toBe(before);
        // East keeps it in sync from there.
        m1!.store.create('pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'after-handover', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
        await waitFor(async () => (await h!.stored(m1!.name, { group: '', version: 'v1', resource: 'pods' })).has('default/after-handover'), 10_000, () => 'pod created after the hand-over not stored');

        // Deleting m2 is east's to finish: rows gone, finalizer released.
        host.store.delete(PEDIACLUSTERS, undefined, m2!.name);
        await waitFor(() => host!.store.get(PEDIACLUSTERS, undefined, m2!.name) === undefined, 15_000, () => 'm2 still there (finalizer not released)');
        expect(await pods(m2!.name)).toBe(0);
      } finally {
        ac.abort();
        await eastDone;
      }
    });
  });
}

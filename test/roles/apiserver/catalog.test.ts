// The catalog finds clusters and types that appeared since its last snapshot, without letting misses hammer storage.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStorage } from '../../../src/storage/open.js';
import { silentLogger } from '../../../src/lib/log.js';
import type { Storage } from '../../../src/storage/types.js';
import { Catalog } from '../../../src/roles/apiserver/catalog.js';
import { namespace, pod } from '../../support/fixtures.js';

let storage: Storage;
beforeAll(async () => {
  storage = await openStorage({ url: 'sqlite::memory:' }, { logger: silentLogger() });
  await storage.migrate();
  await storage.write({ upserts: [pod('c1', 'default', 'a')], deletes: [] });
});
afterAll(async () => storage?.close());

it('a cluster synced within the cache lifetime is found at once', async () => {
  const catalog = new Catalog(storage, 60_000);
  expect(await catalog.cluster('c1')).toBeDefined();
  await storage.write({ upserts: [pod('c2', 'default', 'b')], deletes: [] });
  expect((await catalog.cluster('c2'))?.name).toBe('c2');
  expect(await catalog.type('c2', '', 'v1', 'pods')).toBeDefined();
});

it('unknown names refresh the snapshot at most once per window', async () => {
  let loads = 0;
  const counting = new Proxy(storage, {
    get(target, prop, receiver) {
      if (prop === 'resourceTypes') loads++;
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const catalog = new Catalog(counting, 60_000);
  await catalog.get();
  const before = loads;
  await Promise.all(Array.from({ length: 200 }, (_, i) => catalog.cluster(`nope-${i}`)));
  for (let i = 0; i < 50; i++) await catalog.cluster(`nope-again-${i}`);
  expect(loads - before).toBeLessThanOrEqual(2);
});

it('rows written just after a miss refreshed the snapshot are found by the next miss at once', async () => {
  // A client lists a cluster's first rows and asks for them under its path a moment later: no 404 in between.
  const t = 1_000;
  const catalog = new Catalog(storage, 60_000, () => t);
  expect(await catalog.cluster('not-yet')).toBeUndefined();
  await storage.write({ upserts: [pod('c3', 'default', 'c')], deletes: [] });
  expect((await catalog.cluster('c3'))?.name).toBe('c3');
  expect(await catalog.type('c3', '', 'v1', 'pods')).toBeDefined();
});

it('past its TTL a snapshot answers while the next one loads; a miss, or a snapshot far too old, waits', async () => {
  let t = 0;
  const gate: { held: boolean; release?: () => void } = { held: false };
  const releaseLoad = (): void => gate.release?.();
  const slow = new Proxy(storage, {
    get(target, prop, receiver) {
      if (prop === 'resourceTypes' && gate.held) {
        return async () => {
          await new Promise<void>((r) => (gate.release = r));
          return target.resourceTypes();
        };
      }
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const catalog = new Catalog(slow, 2_000, () => t);
  const first = await catalog.get();
  await storage.write({ upserts: [pod('swr', 'default', 'x')], deletes: [] });
  gate.held = true;
  t = 2_500;
  // Stale: answered at once from the old snapshot, a refresh started behind it.
  expect(await catalog.get()).toBe(first);
  expect(gate.release).toBeDefined();
  // A lookup that misses waits for the refresh in flight and finds the new cluster.
  const found = catalog.cluster('swr');
  gate.held = false;
  releaseLoad();
  expect((await found)?.name).toBe('swr');
  const second = await catalog.get();
  expect(second).not.toBe(first);
  expect(second.clusters.has('swr')).toBe(true);
  // Five TTLs later a caller waits for the new snapshot rather than being answered from one that old.
  gate.held = true;
  gate.release = undefined;
  t = 2_500 + 10_000;
  const waiting = catalog.get();
  let settled = false;
  void waiting.then(() => (settled = true));
  await new Promise((r) => setTimeout(r, 20));
  expect(settled).toBe(false);
  releaseLoad();
  expect(await waiting).not.toBe(second);
});

it('a catalog slow to load is refreshed less often, by misses too', async () => {
  let t = 0;
  let loads = 0;
  const slow = new Proxy(storage, {
    get(target, prop, receiver) {
      if (prop === 'resourceTypes') {
        return async () => {
          loads++;
          await new Promise((r) => setTimeout(r, 100));
          return target.resourceTypes();
        };
      }
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  // A TTL of 500 ms, but a load takes ≥ 100 ms: refreshes come no sooner than 20 load times (≥ 2 s) apart. The
  // first load (every CRD parsed) is not taken as the measure.
  const catalog = new Catalog(slow, 500, () => t);
  await catalog.get();
  const second = await catalog.get(0);
  expect(loads).toBe(2);
  t = 1_500;
  expect(await catalog.get()).toBe(second);
  expect(loads).toBe(2);
  // A miss loads nothing until four load times (≥ 400 ms, at most one TTL) have passed since the last load.
  t = 300;
  expect(await catalog.cluster('nope')).toBeUndefined();
  expect(loads).toBe(2);
  t = 600;
  expect(await catalog.cluster('nope')).toBeUndefined();
  expect(loads).toBe(3);
});

it('discovery never answers from a snapshot past its TTL', async () => {
  // kubectl keeps discovery for hours: a type missing from it (pods during a first sync) would send `kubectl get pods`
  // to metrics.k8s.io's pods until then.
  let t = 0;
  await storage.write({ upserts: [namespace('disc', 'default')], deletes: [] });
  const catalog = new Catalog(storage, 2_000, () => t);
  expect((await catalog.types('disc')).map((x) => x.resource)).toEqual(['namespaces']);
  await storage.write({ upserts: [pod('disc', 'default', 'p')], deletes: [] });
  t = 2_500;
  expect((await catalog.types('disc')).map((x) => x.resource).sort()).toEqual(['namespaces', 'pods']);
});

it('a load that never answers (a connection that died without a word) fails after its deadline, and the next request loads again', async () => {
  let reads = 0;
  const hanging = new Proxy(storage, {
    get(target, prop, receiver) {
      const v: unknown = Reflect.get(target, prop, receiver);
      if (prop === 'resourceTypes' && reads++ === 0) return () => new Promise<never>(() => undefined);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const catalog = new Catalog(hanging, 60_000, Date.now, 200);
  await expect(catalog.get()).rejects.toThrow("storage did not answer within 200 ms");
  expect((await catalog.cluster('c1'))?.name).toBe('c1');
  expect(reads).toBe(2);
});

it('a load that runs out of time gives the next one twice as long, so a catalog that is only slow to read still loads', async () => {
  const slow = new Proxy(storage, {
    get(target, prop, receiver) {
      const v: unknown = Reflect.get(target, prop, receiver);
      if (prop === 'resourceTypes') return async () => { await new Promise((r) => setTimeout(r, 300)); return target.resourceTypes(); };
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const catalog = new Catalog(slow, 60_000, Date.now, 200);
  await expect(catalog.get()).rejects.toThrow('storage did not answer within 200 ms');
  expect((await catalog.cluster('c1'))?.name).toBe('c1');
});

it('while a cluster is still finding its types, discovery reads a snapshot a quarter second old at most; once all are synced, its TTL', async () => {
  // A synced type with no rows is listed once the synchro's status names it: that must not wait out a TTL.
  let t = 0;
  const status = (types: Array<{ name: string; kind: string; firstList: boolean }>): Parameters<Storage['putClusterStatus']>[1] => ({
    spec: {},
    status: {
      conditions: [{ type: 'ClusterHealthy', status: 'True', reason: 'Healthy', message: '' }],
      syncResources: [{ group: 'apps', resources: types.map((x) => ({ name: x.name, kind: x.kind, namespaced: true, syncConditions: [{ version: 'v1', status: x.firstList ? 'Pending' : 'Syncing', initialListPhase: x.firstList }] })) }],
    },
    updatedAt: new Date().toISOString(),
  });
  await storage.putClusterStatus('settling', { spec: {}, status: { conditions: [{ type: 'ClusterHealthy', status: 'True', reason: 'Healthy', message: '' }] }, updatedAt: new Date().toISOString() });
  const catalog = new Catalog(storage, 2_000, () => t);
  const resources = async (): Promise<string[]> => (await catalog.types('settling')).map((x) => x.resource).sort();
  expect(await resources()).toEqual([]);
  // Negotiated: the status names its types, their first lists running.
  await storage.putClusterStatus('settling', status([{ name: 'deployments', kind: 'Deployment', firstList: true }, { name: 'statefulsets', kind: 'StatefulSet', firstList: true }]));
  t = 300;
  expect(await resources()).toEqual(['deployments', 'statefulsets']);
  // Lists done; a status written since is seen only past the TTL.
  await storage.putClusterStatus('settling', status([{ name: 'deployments', kind: 'Deployment', firstList: false }, { name: 'statefulsets', kind: 'StatefulSet', firstList: false }]));
  t = 600;
  expect(await resources()).toEqual(['deployments', 'statefulsets']);
  await storage.putClusterStatus('settling', status([{ name: 'deployments', kind: 'Deployment', firstList: false }, { name: 'statefulsets', kind: 'StatefulSet', firstList: false }, { name: 'daemonsets', kind: 'DaemonSet', firstList: false }]));
  t = 900;
  expect(await resources()).toEqual(['deployments', 'statefulsets']);
  t = 2_700;
  expect(await resources()).toEqual(['daemonsets', 'deployments', 'statefulsets']);
  await storage.deleteClusterStatus('settling');
});

// Each case its own cluster: a type stays in resource_types once its rows are gone.
const newcomers: Array<[string, string, Record<string, unknown>]> = [
  ['no list, before its first probe', 'newcomer-1', { conditions: [{ type: 'ClusterHealthy', status: 'Unknown', reason: 'MonitorStop', message: '' }] }],
  // What the synchro writes between its first healthy probe and the end of its discovery.
  ['an empty list, healthy', 'newcomer-2', { conditions: [{ type: 'ClusterHealthy', status: 'True', reason: 'Healthy', message: '' }], syncResources: [] }],
  ['an empty list, before its first probe', 'newcomer-3', { conditions: [{ type: 'ClusterHealthy', status: 'Unknown', reason: 'MonitorStop', message: '' }], syncResources: [] }],
];
it.each(newcomers)('while a cluster is still finding its types (status with %s), discovery includes the rows written since its snapshot, however young', async (_, name, status) => {
  // A client that lists a new cluster's first pods and then asks kubectl for one (`kubectl logs`) needs `pods` in
  // that cluster's discovery, though its status does not name its types yet and the snapshot is a moment old.
  const t = 0;
  await storage.putClusterStatus(name, { spec: {}, status, updatedAt: new Date().toISOString() });
  try {
    const catalog = new Catalog(storage, 2_000, () => t);
    const resources = async (): Promise<string[]> => (await catalog.types(name)).map((x) => x.resource).sort();
    expect(await resources()).toEqual([]);
    await storage.write({ upserts: [pod(name, 'default', 'first', {})], deletes: [] });
    expect(await resources()).toEqual(['pods']);
  } finally {
    await storage.deleteClusterStatus(name);
  }
});

it('a cluster known to be unreachable is not waited for: discovery keeps its TTL', async () => {
  let t = 0;
  await storage.putClusterStatus('down', { spec: {}, status: { conditions: [{ type: 'ClusterHealthy', status: 'False', reason: 'Unhealthy', message: 'no route' }], syncResources: [] }, updatedAt: new Date().toISOString() });
  try {
    const catalog = new Catalog(storage, 2_000, () => t);
    const resources = async (): Promise<string[]> => (await catalog.types('down')).map((x) => x.resource).sort();
    expect(await resources()).toEqual([]);
    await storage.write({ upserts: [pod('down', 'default', 'left', {})], deletes: [] });
    t = 300;
    expect(await resources()).toEqual([]);
    t = 2_100;
    expect(await resources()).toEqual(['pods']);
  } finally {
    await storage.deleteClusterStatus('down');
  }
});

it('a custom resource whose CRD is not synced has the names a member\'s discovery gives it (its status); a stored CRD\'s win; kube\'s own resources keep kube\'s', async () => {
  const own = await openStorage({ url: 'sqlite::memory:' }, { logger: silentLogger() });
  try {
    await own.migrate();
    const named = (group: string, name: string, kind: string, names: Record<string, unknown>): Parameters<Storage['putClusterStatus']>[1] => ({
      spec: {},
      status: {
        conditions: [{ type: 'ClusterHealthy', status: 'True', reason: 'Healthy', message: '' }],
        syncResources: [{ group, resources: [{ name, kind, namespaced: true, ...names, syncConditions: [{ version: 'v1', status: 'Syncing', initialListPhase: false }] }] }],
      },
      updatedAt: new Date().toISOString(),
    });
    // What is not a list of names is not taken for one.
    await own.putClusterStatus('m1', named('cert-manager.io', 'certificates', 'Certificate', { singularName: 'certificate', shortNames: ['cert', 7, 'certs', ''], categories: 'cert-manager' }));
    await own.putClusterStatus('m2', named('', 'pods', 'Pod', { singularName: 'pod', shortNames: ['p'], categories: [] }));
    const catalog = new Catalog(own, 60_000);
    expect(await catalog.type('m1', 'cert-manager.io', 'v1', 'certificates')).toMatchObject({ singularName: 'certificate', shortNames: ['cert', 'certs'], categories: [] });
    // Every cluster's path and the fleet's: a member that does not say finds the names another one gave.
    expect(await catalog.type(undefined, 'cert-manager.io', 'v1', 'certificates')).toMatchObject({ shortNames: ['cert', 'certs'] });
    expect(await catalog.type('m2', '', 'v1', 'pods')).toMatchObject({ shortNames: ['po'], categories: ['all'] });
    await own.write({
      upserts: [{
        cluster: 'm1', group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition',
        object: {
          apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
          metadata: { name: 'certificates.cert-manager.io', uid: 'u-cert', resourceVersion: '1', creationTimestamp: '2026-11-01T00:00:00Z' },
          spec: { group: 'cert-manager.io', scope: 'Namespaced', names: { plural: 'certificates', singular: 'certificate', kind: 'Certificate', shortNames: ['crt'], categories: ['tls'] }, versions: [{ name: 'v1', served: true, storage: true }] },
        },
      }],
      deletes: [],
    });
    catalog.invalidate();
    expect(await catalog.type('m1', 'cert-manager.io', 'v1', 'certificates')).toMatchObject({ shortNames: ['crt'], categories: ['tls'] });
  } finally {
    await own.close();
  }
});

// Host-cluster mode: PediaCluster/ClusterSyncResources CRDs with status subresource, finalizers, Leases, Secrets, reviews.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulatedCluster, type SimCluster } from '../../src/sim/index.js';
import { call, type ListBody } from './helpers.js';

let host: SimCluster;
beforeEach(async () => {
  host = await startSimulatedCluster({ host: true, pods: 0, name: 'host' });
});
afterEach(async () => {
  await host.stop();
});

const PC = '/apis/cluster.clusterpedia.io/v1alpha2/pediaclusters';
type Obj = { metadata: { name: string; resourceVersion: string; deletionTimestamp?: string; finalizers?: string[]; generation?: number }; spec?: Record<string, unknown>; status?: Record<string, unknown> };

describe('host cluster', () => {
  it('serves the clusterpedia CRDs in discovery, cluster-scoped, with printer columns', async () => {
    const list = await call<{ resources: Array<{ name: string; namespaced: boolean; kind: string }> }>(host, '/apis/cluster.clusterpedia.io/v1alpha2');
    expect(list.body.resources).toEqual(expect.arrayContaining([
      expect.objectContaining({ name: 'pediaclusters', namespaced: false, kind: 'PediaCluster' }),
      expect.objectContaining({ name: 'pediaclusters/status' }),
      expect.objectContaining({ name: 'clustersyncresources', namespaced: false, kind: 'ClusterSyncResources' }),
    ]));
    const crd = await call<{ spec: { versions: Array<{ additionalPrinterColumns: Array<{ name: string }> }> } }>(host, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/pediaclusters.cluster.clusterpedia.io');
    expect(crd.body.spec.versions[0]?.additionalPrinterColumns.map((p) => p.name)).toEqual(['Ready', 'Version', 'APIServer', 'Validated', 'SynchroRunning', 'ClusterHealthy', 'ShardingName']);
    expect((await call<ListBody>(host, '/api/v1/namespaces/clusterpedia-system/secrets')).status).toBe(200);
  });

  it('status subresource: PUT ignores status, /status changes only status', async () => {
    const made = (await call<Obj>(host, PC, { method: 'POST', body: { apiVersion: 'cluster.clusterpedia.io/v1alpha2', kind: 'PediaCluster', metadata: { name: 'm1' }, spec: { apiserver: 'https://x', syncResources: [] }, status: { version: 'ignored' } } })).body;
    expect(made.status).toBeUndefined();
    const st = await call<Obj>(host, `${PC}/m1/status`, { method: 'PUT', body: { ...made, spec: { apiserver: 'changed' }, status: { version: 'v1.32.0' } } });
    expect(st.body.status).toEqual({ version: 'v1.32.0' });
    expect(st.body.spec?.apiserver).toBe('https://x');
    const put = await call<Obj>(host, `${PC}/m1`, { method: 'PUT', body: { ...st.body, spec: { apiserver: 'https://y', syncResources: [] }, status: { version: 'nope' } } });
    expect(put.body.status).toEqual({ version: 'v1.32.0' });
    expect(put.body.spec?.apiserver).toBe('https://y');
    expect(put.body.metadata.generation).toBe(2);
  });

  it('finalizers: DELETE sets deletionTimestamp, removing the last finalizer deletes', async () => {
    await call(host, PC, { method: 'POST', body: { metadata: { name: 'm2', finalizers: ['clusterpedia.io/cluster-synchro-controller'] }, spec: { syncResources: [] } } });
    const del = await call<Obj>(host, `${PC}/m2`, { method: 'DELETE' });
    expect(del.body.metadata.deletionTimestamp).toBeTruthy();
    const cur = (await call<Obj>(host, `${PC}/m2`)).body;
    const done = await call<Obj>(host, `${PC}/m2`, { method: 'PUT', body: { ...cur, metadata: { ...cur.metadata, finalizers: [] } } });
    expect(done.status).toBe(200);
    expect((await call(host, `${PC}/m2`)).status).toBe(404);
  });

  it('Leases use optimistic concurrency: a stale update is 409', async () => {
    const path = '/apis/coordination.k8s.io/v1/namespaces/clusterpedia-system/leases';
    const lease = (await call<Obj>(host, path, { method: 'POST', body: { metadata: { name: 'clusterpedia-clustersynchro-manager' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15 } } })).body;
    const a = await call<Obj>(host, `${path}/${lease.metadata.name}`, { method: 'PUT', body: { ...lease, spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime: '2026-01-01T00:00:00.000000Z' } } });
    expect(a.status).toBe(200);
    const b = await call(host, `${path}/${lease.metadata.name}`, { method: 'PUT', body: { ...lease, spec: { holderIdentity: 'b' } } });
    expect(b.status).toBe(409);
  });

  it('answers TokenReview and SubjectAccessReview as the test configures', async () => {
    host.reviews.setTokenTable({ good: { username: 'alice', groups: ['dev'] } });
    const ok = await call<{ status: Record<string, unknown>; kind: string }>(host, '/apis/authentication.k8s.io/v1/tokenreviews', { method: 'POST', body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'good' } } });
    expect(ok.status).toBe(201);
    expect(ok.body.kind).toBe('TokenReview');
    expect(ok.body.status).toMatchObject({ authenticated: true, user: { username: 'alice', groups: ['dev'] } });
    const bad = await call<{ status: Record<string, unknown> }>(host, '/apis/authentication.k8s.io/v1/tokenreviews', { method: 'POST', body: { spec: { token: 'bad' } } });
    expect(bad.body.status.authenticated).toBe(false);
    host.reviews.setAccessTable([{ user: 'alice', verb: 'list', resource: 'pods' }]);
    const sar = (user: string, verb: string): Promise<{ body: { status: { allowed: boolean } } }> => call(host, '/apis/authorization.k8s.io/v1/subjectaccessreviews', { method: 'POST', body: { spec: { user, resourceAttributes: { verb, resource: 'pods' } } } });
    expect((await sar('alice', 'list')).body.status.allowed).toBe(true);
    expect((await sar('alice', 'delete')).body.status.allowed).toBe(false);
    host.reviews.subjectAccessReview = (spec) => ({ allowed: spec.user === 'bob', reason: 'custom' });
    expect((await sar('bob', 'anything')).body.status.allowed).toBe(true);
  });
});

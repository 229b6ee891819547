// Discovery: legacy JSON for every path (aggregated Accept ignored unless the cluster serves it), correct names for built-ins, CRDs added/removed at runtime, aggregated discovery.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulatedCluster, type SimCluster } from '../../src/sim/index.js';
import { call, openWatch } from './helpers.js';

let c: SimCluster;
beforeEach(async () => {
  c = await startSimulatedCluster({ pods: 10 });
});
afterEach(async () => {
  await c.stop();
});

type Res = { name: string; singularName: string; namespaced: boolean; kind: string; verbs: string[]; shortNames?: string[]; categories?: string[] };
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

describe('discovery', () => {
  it('answers /version with minor 32 and the health endpoints with ok', async () => {
    expect((await call(c, '/version')).body).toMatchObject({ major: '1', minor: '32' });
    for (const p of ['/healthz', '/livez', '/readyz']) expect((await call(c, p)).body).toBe('ok');
  });

  it('answers legacy JSON even to aggregated-discovery Accept headers', async () => {
    const api = await call(c, '/api', { headers: { accept: AGGREGATED } });
    expect(api.headers.get('content-type')).toBe('application/json');
    expect(api.body).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    const apis = await call<{ kind: string; groups: Array<{ name: string; preferredVersion: { version: string } }> }>(c, '/apis', { headers: { accept: AGGREGATED } });
    expect(apis.body.kind).toBe('APIGroupList');
    expect(apis.body.groups.map((g) => g.name)).toEqual(expect.arrayContaining(['apps', 'batch', 'networking.k8s.io', 'coordination.k8s.io', 'apiextensions.k8s.io', 'stable.example.com', 'cert-manager.io']));
    expect(apis.body.groups.find((g) => g.name === 'stable.example.com')?.preferredVersion.version).toBe('v1');
    expect((await call(c, '/apis/apps')).body).toMatchObject({ kind: 'APIGroup', name: 'apps' });
  });

  it('describes the built-ins as kube does', async () => {
    const core = (await call<{ resources: Res[] }>(c, '/api/v1')).body.resources;
    const find = (rs: Res[], name: string): Res | undefined => rs.find((r) => r.name === name);
    expect(find(core, 'pods')).toMatchObject({ singularName: 'pod', namespaced: true, kind: 'Pod', shortNames: ['po'], categories: ['all'] });
    expect(find(core, 'pods')?.verbs).toEqual(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
    expect(find(core, 'namespaces')).toMatchObject({ namespaced: false, shortNames: ['ns'] });
    expect(find(core, 'nodes')).toMatchObject({ namespaced: false, shortNames: ['no'], kind: 'Node' });
    expect(find(core, 'services')).toMatchObject({ shortNames: ['svc'], categories: ['all'] });
    expect(find(core, 'configmaps')).toMatchObject({ shortNames: ['cm'] });
    expect(find(core, 'serviceaccounts')).toMatchObject({ shortNames: ['sa'] });
    expect(find(core, 'events')).toMatchObject({ shortNames: ['ev'] });
    expect(find(core, 'secrets')?.shortNames).toBeUndefined();
    expect(find(core, 'pods/status')).toMatchObject({ verbs: ['get', 'patch', 'update'] });
    const apps = (await call<{ resources: Res[] }>(c, '/apis/apps/v1')).body.resources;
    expect(find(apps, 'deployments')).toMatchObject({ kind: 'Deployment', shortNames: ['deploy'], categories: ['all'] });
    expect(find(apps, 'replicasets')?.shortNames).toEqual(['rs']);
    expect(find(apps, 'statefulsets')?.shortNames).toEqual(['sts']);
    expect(find(apps, 'daemonsets')?.shortNames).toEqual(['ds']);
    const batch = (await call<{ resources: Res[] }>(c, '/apis/batch/v1')).body.resources;
    expect(find(batch, 'cronjobs')?.shortNames).toEqual(['cj']);
    expect(find(batch, 'jobs')).toMatchObject({ kind: 'Job', categories: ['all'] });
    expect(find((await call<{ resources: Res[] }>(c, '/apis/networking.k8s.io/v1')).body.resources, 'ingresses')).toMatchObject({ shortNames: ['ing'], kind: 'Ingress' });
    expect((await call(c, '/apis/nothing.example.com/v1')).status).toBe(404);
  });

  it('adds and removes CRDs at runtime; removal deletes instances and ends their watches', async () => {
    c.addCRD({ group: 'widgets.example.com', plural: 'widgets', kind: 'Widget', scope: 'Namespaced', shortNames: ['wd'], versions: [{ name: 'v1alpha1' }] });
    const gv = await call<{ resources: Res[] }>(c, '/apis/widgets.example.com/v1alpha1');
    expect(gv.body.resources[0]).toMatchObject({ name: 'widgets', singularName: 'widget', kind: 'Widget', shortNames: ['wd'], namespaced: true });
    const crds = await call<{ items: Array<{ metadata: { name: string } }> }>(c, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions');
    expect(crds.body.items.map((i) => i.metadata.name)).toContain('widgets.widgets.example.com');
    const made = await call(c, '/apis/widgets.example.com/v1alpha1/namespaces/default/widgets', { method: 'POST', body: { metadata: { name: 'w' }, spec: { size: 1 } } });
    expect(made.body).toMatchObject({ apiVersion: 'widgets.example.com/v1alpha1', kind: 'Widget' });
    const w = await openWatch(c, `/apis/widgets.example.com/v1alpha1/widgets?watch=true&resourceVersion=${c.revision}`);
    c.removeCRD('widgets.widgets.example.com');
    expect((await w.next()).type).toBe('DELETED');
    await w.ended;
    expect((await call(c, '/apis/widgets.example.com/v1alpha1')).status).toBe(404);
    expect(((await call<{ groups: Array<{ name: string }> }>(c, '/apis')).body.groups).map((g) => g.name)).not.toContain('widgets.example.com');
  });
});

describe('OpenAPI v3 and metrics', () => {
  it('lists a document per group version under the hash of its content, with each kind found by its operations', async () => {
    const index = await call<{ paths: Record<string, { serverRelativeURL: string }> }>(c, '/openapi/v3');
    expect(Object.keys(index.body.paths)).toEqual(expect.arrayContaining(['api/v1', 'apis/apps/v1', 'apis/stable.example.com/v1', 'apis/stable.example.com/v1beta1']));
    // Reviews and metrics have no objects to describe.
    expect(Object.keys(index.body.paths).filter((k) => /authentication|authorization|metrics/.test(k))).toEqual([]);
    const url = index.body.paths['apis/apps/v1']?.serverRelativeURL ?? '';
    const doc = await call<{ paths: Record<string, { get?: Record<string, unknown> }>; components: { schemas: Record<string, Record<string, unknown>> } }>(c, url);
    const { createHash } = await import('node:crypto');
    expect(url).toBe(`/openapi/v3/apis/apps/v1?hash=${createHash('sha512').update(JSON.stringify(doc.body)).digest('hex').toUpperCase()}`);
    expect(doc.body.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']?.get?.['x-kubernetes-group-version-kind']).toEqual({ group: 'apps', kind: 'Deployment', version: 'v1' });
    const deployment = doc.body.components.schemas['io.k8s.api.apps.v1.Deployment'];
    expect(deployment?.['x-kubernetes-group-version-kind']).toEqual([{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
    expect(deployment).toMatchObject({ type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } } } });
    expect((await call(c, '/openapi/v3/apis/nothing.example.com/v1')).status).toBe(404);
    // v2: every group version in one document, JSON or (asked for it, as kubectl before 1.29 does) protobuf.
    const v2 = await call<{ swagger: string; definitions: Record<string, unknown> }>(c, '/openapi/v2');
    expect(v2.body.swagger).toBe('2.0');
    expect(Object.keys(v2.body.definitions)).toEqual(expect.arrayContaining(['io.k8s.api.core.v1.Pod', 'io.k8s.api.apps.v1.Deployment', 'com.example.stable.v1.CronTab']));
    const pb = await fetch(`${c.url}/openapi/v2`, { headers: { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' } });
    expect(pb.headers.get('content-type')).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    expect(Buffer.from(await pb.arrayBuffer()).includes('io.k8s.api.apps.v1.Deployment')).toBe(true);
  });

  it('serves PodMetrics of running pods and NodeMetrics, the same at every read, and no watch', async () => {
    const list = async (): Promise<Record<string, unknown>> => (await call(c, '/apis/metrics.k8s.io/v1beta1/pods')).body;
    const first = await list();
    expect(first).toMatchObject({ kind: 'PodMetricsList', apiVersion: 'metrics.k8s.io/v1beta1' });
    const items = first.items as { metadata: { name: string; namespace: string }; containers: { usage: { cpu: string; memory: string } }[] }[];
    const running = c.store.list('pods').filter((p) => (p.status as { phase?: string }).phase === 'Running');
    expect(items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`).sort()).toEqual(running.map((p) => `${p.metadata.namespace}/${p.metadata.name}`).sort());
    expect(items[0]?.containers[0]?.usage).toMatchObject({ cpu: expect.stringMatching(/^\d+n$/), memory: expect.stringMatching(/^\d+Ki$/) });
    expect((await list()).items).toEqual(first.items);
    const nodes = await call(c, '/apis/metrics.k8s.io/v1beta1/nodes');
    expect(nodes.body).toMatchObject({ kind: 'NodeMetricsList', items: expect.arrayContaining([expect.objectContaining({ usage: expect.any(Object) })]) });
    const gone = await call(c, '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/nobody');
    expect(gone.body).toMatchObject({ code: 404, message: 'podmetrics.metrics.k8s.io "default/nobody" not found' });
    expect((await call(c, '/apis/metrics.k8s.io/v1beta1/pods?watch=true')).status).toBe(405);
  });
});

describe('aggregated discovery (aggregatedDiscovery: true)', () => {
  type AggResource = {
    resource: string; responseKind: { group: string; version: string; kind: string }; scope: string; singularResource: string; verbs: string[];
    shortNames?: string[]; categories?: string[]; subresources?: Array<{ subresource: string; responseKind: { group: string; version: string; kind: string }; verbs: string[] }>;
  };
  type AggList = { kind: string; apiVersion: string; items: Array<{ metadata: { name?: string }; versions: Array<{ version: string; freshness: string; resources?: AggResource[] }> }> };
  type Legacy = { name: string; singularName: string; namespaced: boolean; kind: string; verbs: string[]; shortNames?: string[]; categories?: string[]; group?: string; version?: string };
  let a: SimCluster;
  beforeEach(async () => {
    a = await startSimulatedCluster({ pods: 5, aggregatedDiscovery: true });
  });
  afterEach(async () => {
    await a.stop();
  });

  /** The legacy resource list of one group version, in the shape an aggregated entry describes it. */
  async function legacyAsAggregated(group: string, version: string): Promise<AggResource[]> {
    const list = (await call<{ resources: Legacy[] }>(a, group === '' ? `/api/${version}` : `/apis/${group}/${version}`)).body.resources;
    return list.filter((r) => !r.name.includes('/')).map((r) => {
      const subs = list.filter((s) => s.name.startsWith(`${r.name}/`)).map((s) => ({
        subresource: s.name.slice(r.name.length + 1), responseKind: { group: s.group ?? '', version: s.version ?? '', kind: s.kind }, verbs: s.verbs,
      }));
      return {
        resource: r.name, responseKind: { group: '', version: '', kind: r.kind }, scope: r.namespaced ? 'Namespaced' : 'Cluster',
        singularResource: r.singularName, verbs: r.verbs,
        ...(r.shortNames ? { shortNames: r.shortNames } : {}), ...(r.categories ? { categories: r.categories } : {}), ...(subs.length ? { subresources: subs } : {}),
      };
    });
  }

  it('answers /api and /apis with every group version and resource the legacy documents list, in their order', async () => {
    const apis = await call<AggList>(a, '/apis', { headers: { accept: AGGREGATED } });
    expect(apis.headers.get('content-type')).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    expect(apis.headers.get('vary')).toBe('Accept');
    expect(apis.body).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2' });
    const legacy = (await call<{ groups: Array<{ name: string; versions: Array<{ version: string }> }> }>(a, '/apis')).body.groups;
    expect(apis.body.items.map((g) => [g.metadata.name, g.versions.map((v) => v.version)])).toEqual(legacy.map((g) => [g.name, g.versions.map((v) => v.version)]));
    for (const g of apis.body.items) {
      for (const v of g.versions) {
        expect(v.freshness).toBe('Current');
        expect(v.resources, `${g.metadata.name}/${v.version}`).toEqual(await legacyAsAggregated(g.metadata.name ?? '', v.version));
      }
    }
    const deployments = apis.body.items.find((g) => g.metadata.name === 'apps')?.versions[0]?.resources?.find((r) => r.resource === 'deployments');
    expect(deployments?.subresources?.map((s) => s.subresource)).toEqual(['scale', 'status']);
    expect(deployments?.subresources?.[0]?.responseKind).toEqual({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
    const core = await call<AggList>(a, '/api', { headers: { accept: AGGREGATED } });
    expect(core.body.items).toHaveLength(1);
    expect(core.body.items[0]?.metadata.name).toBeUndefined();
    expect(core.body.items[0]?.versions.map((v) => v.version)).toEqual(['v1']);
    expect(core.body.items[0]?.versions[0]?.resources).toEqual(await legacyAsAggregated('', 'v1'));
  });

  it('negotiates as kube does: v2beta1 for kubectl 1.26–1.29, legacy JSON when it comes first', async () => {
    const beta = await call<AggList>(a, '/apis', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json' } });
    expect(beta.headers.get('content-type')).toBe('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList');
    expect(beta.body.apiVersion).toBe('apidiscovery.k8s.io/v2beta1');
    const plainFirst = await call(a, '/apis', { headers: { accept: 'application/json,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
    expect(plainFirst.body.kind).toBe('APIGroupList');
    expect(plainFirst.headers.get('etag')).toBeNull();
    expect((await call(a, '/api')).body.kind).toBe('APIVersions');
  });

  it('tags the document: If-None-Match with its ETag gets 304 until a CRD changes it', async () => {
    const first = await call<AggList>(a, '/apis', { headers: { accept: AGGREGATED } });
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[0-9A-F]{128}"$/);
    const again = await call(a, '/apis', { headers: { accept: AGGREGATED, 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect(first.headers.get('cache-control')).toBe('public');
    expect((await call(a, '/apis', { headers: { accept: AGGREGATED, 'if-none-match': `"OTHER", ${etag}` } })).status).toBe(304);
    expect((await call(a, '/apis', { headers: { accept: AGGREGATED, 'if-none-match': '"OTHER"' } })).status).toBe(200);
    a.addCRD({ group: 'widgets.example.com', plural: 'widgets', kind: 'Widget', scope: 'Namespaced', versions: [{ name: 'v1' }] });
    const changed = await call<AggList>(a, '/apis', { headers: { accept: AGGREGATED, 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(changed.body.items.find((g) => g.metadata.name === 'widgets.example.com')?.versions[0]?.resources?.[0]).toMatchObject({ resource: 'widgets', scope: 'Namespaced', responseKind: { kind: 'Widget' } });
    // The core group's document has its own tag.
    expect((await call(a, '/api', { headers: { accept: AGGREGATED, 'if-none-match': etag } })).status).toBe(200);
  });

  it('lists the group version of an aggregated API that is down as Stale, without resources; its own discovery answers 503', async () => {
    a.faults.unavailable('metrics.k8s.io/v1beta1');
    const metrics = (): Promise<AggList['items'][number] | undefined> => call<AggList>(a, '/apis', { headers: { accept: AGGREGATED } }).then((r) => r.body.items.find((g) => g.metadata.name === 'metrics.k8s.io'));
    expect((await metrics())?.versions).toEqual([{ version: 'v1beta1', freshness: 'Stale' }]);
    expect((await call(a, '/apis/metrics.k8s.io/v1beta1')).status).toBe(503);
    expect((await call(a, '/apis/apps/v1')).status).toBe(200);
    a.faults.clear();
    expect((await metrics())?.versions[0]).toMatchObject({ version: 'v1beta1', freshness: 'Current', resources: [{ resource: 'nodes' }, { resource: 'pods' }] });
  });
});

// The resources API over HTTP against storage filled directly: routing, discovery, lists, tables, paging, watch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { MAX_SELECTOR_REQUIREMENTS } from '../../../src/roles/apiserver/list-options.js';
import type { Storage } from '../../../src/storage/types.js';
import { serveStore, type ServedStore, type TestApiserver } from '../../support/apiserver.js';
import { deployment, namespace, pod } from '../../support/fixtures.js';
import { openWatch, type WatchEvent, type WatchStream } from '../../support/watch-stream.js';

let served: ServedStore;
let storage: Storage;
let api: TestApiserver;

async function get(path: string, accept = 'application/json'): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const r = await fetch(`${api.base}${path}`, { headers: { accept } });
  const text = await r.text();
  return { status: r.status, body: JSON.parse(text) as Record<string, unknown>, headers: r.headers };
}

const P = '/apis/clusterpedia.io/v1beta1/resources';

/** A GET whose target goes out as written: fetch would drop a "fragment" and resolve dot segments first. */
function rawGet(path: string): Promise<{ status: number; body: { items?: { metadata: { name: string; namespace?: string } }[]; message?: string } }> {
  const u = new URL(api.base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path, headers: { accept: 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as { items?: { metadata: { name: string } }[] } }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  const d1 = deployment('c1', 'default', 'web');
  const d2 = deployment('c2', 'default', 'web');
  served = await serveStore(
    [
      namespace('c1', 'default'), namespace('c1', 'kube-system'), namespace('c2', 'default'), namespace('c2', 'kube-system'),
      d1, d2,
      pod('c1', 'default', 'web-1', { owner: { uid: d1.uid, name: 'web', kind: 'Deployment' } }),
      pod('c1', 'default', 'web-2', { owner: { uid: d1.uid, name: 'web', kind: 'Deployment' } }),
      pod('c1', 'default', 'web-3'),
      pod('c1', 'default', 'db-1', { labels: { app: 'db' }, phase: 'Pending' }),
      pod('c2', 'default', 'web-1'),
      pod('c2', 'default', 'web-2'),
      pod('c2', 'kube-system', 'api-1', { labels: { app: 'api', tier: 'control' } }),
    ],
    { c1: true, c2: false },
  );
  ({ storage, api } = served);
});

afterAll(() => served?.stop());

describe('discovery', () => {
  it('serves /version at the root and under the resources prefix, as kube 1.32', async () => {
    for (const p of ['/version', `${P}/version`, `${P}/clusters/c1/version`]) {
      const r = await get(p);
      expect(r.status).toBe(200);
      expect(r.body.minor).toBe('32');
    }
  });

  it('answers aggregated discovery (v2 and v2beta1) to clients that ask for it first, with the same groups and resources', async () => {
    const ask = (v: string): string => `application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList,application/json`;
    for (const v of ['v2', 'v2beta1']) {
      const apis = await get(`${P}/apis`, ask(v));
      expect(apis.headers.get('content-type')).toBe(`application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList`);
      expect(apis.headers.get('vary')).toBe('Accept');
      expect(apis.body).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${v}` });
      const groups = apis.body.items as { metadata: { name: string }; versions: { version: string; resources: Record<string, unknown>[] }[] }[];
      expect(groups.map((g) => g.metadata.name)).toEqual(['apps']);
      const deployments = groups[0]?.versions[0]?.resources.find((r) => r.resource === 'deployments');
      expect(deployments).toMatchObject({ responseKind: { group: 'apps', version: 'v1', kind: 'Deployment' }, scope: 'Namespaced', verbs: ['get', 'list', 'watch'], shortNames: ['deploy'],
        subresources: [{ subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get'] }, { subresource: 'status', verbs: ['get'] }] });
      const core = await get(`${P}/api`, ask(v));
      const coreGroups = core.body.items as { metadata: { name: string }; versions: { version: string; resources: { resource: string; scope: string }[] }[] }[];
      expect(coreGroups.map((g) => [g.metadata.name, g.versions.map((x) => x.version)])).toEqual([['', ['v1']]]);
      expect(coreGroups[0]?.versions[0]?.resources.find((r) => r.resource === 'namespaces')?.scope).toBe('Cluster');
    }
    // Tagged as kube tags it; the tag asked again If-None-Match is a 304 without a body.
    const first = await fetch(`${api.base}${P}/apis`, { headers: { accept: ask('v2') } });
    await first.text();
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[0-9A-F]{128}"$/);
    const again = await fetch(`${api.base}${P}/apis`, { headers: { accept: ask('v2'), 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    // Another document (the core group's, another version's) has another tag.
    expect((await fetch(`${api.base}${P}/api`, { headers: { accept: ask('v2'), 'if-none-match': etag } })).status).toBe(200);
    expect((await fetch(`${api.base}${P}/apis`, { headers: { accept: ask('v2beta1'), 'if-none-match': etag } })).status).toBe(200);
    // Plain JSON first, or nothing said: the legacy documents.
    expect((await get(`${P}/apis`, 'application/json,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList')).body.kind).toBe('APIGroupList');
    expect((await get(`${P}/api`)).body.kind).toBe('APIVersions');
  });

  it('lists synced groups and resources with short names', async () => {
    const apis = await get(`${P}/apis`);
    expect((apis.body.groups as { name: string }[]).map((g) => g.name)).toEqual(['apps']);
    const core = await get(`${P}/api/v1`);
    const pods = (core.body.resources as { name: string; shortNames?: string[]; verbs: string[]; namespaced: boolean }[]).find((r) => r.name === 'pods');
    expect(pods).toMatchObject({ shortNames: ['po'], verbs: ['get', 'list', 'watch'], namespaced: true });
    const ns = (core.body.resources as { name: string; namespaced: boolean }[]).find((r) => r.name === 'namespaces');
    expect(ns?.namespaced).toBe(false);
  });

  it('lists the status and scale subresources after their resource, with get only', async () => {
    const apps = await get(`${P}/apis/apps/v1`);
    expect(apps.body.resources).toEqual([
      expect.objectContaining({ name: 'deployments', kind: 'Deployment' }),
      { name: 'deployments/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get'] },
      { name: 'deployments/status', singularName: '', namespaced: true, kind: 'Deployment', verbs: ['get'] },
    ]);
    const core = await get(`${P}/api/v1`);
    expect((core.body.resources as { name: string }[]).map((r) => r.name)).toEqual(['namespaces', 'namespaces/status', 'pods', 'pods/status']);
  });

  it('answers /api for an unknown cluster but 404 for its /apis (reference A8)', async () => {
    expect((await get(`${P}/clusters/nope/api`)).status).toBe(200);
    const r = await get(`${P}/clusters/nope/apis`);
    expect(r.status).toBe(404);
    expect(r.body.kind).toBe('Status');
  });

  it('answers a cluster prefix with nothing after it with a 404 Status (reference §1.2)', async () => {
    for (const p of [`${P}/clusters`, `${P}/clusters/`, `${P}/clusters/c1`, `${P}/clusters/c1/`]) {
      const r = await get(p);
      expect(r.status, p).toBe(404);
      expect(r.body, p).toMatchObject({ kind: 'Status', code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' });
    }
  });

  it('describes clusterpedia.io/v1beta1: resources (a prefix, no verbs) and collectionresources (get, list)', async () => {
    const r = await get('/apis/clusterpedia.io/v1beta1');
    expect(r.body).toMatchObject({ kind: 'APIResourceList', groupVersion: 'clusterpedia.io/v1beta1' });
    const resources = r.body.resources as { name: string; namespaced: boolean; kind: string; verbs: string[] }[];
    expect(resources.map((x) => [x.name, x.kind, x.namespaced, x.verbs])).toEqual([
      ['resources', 'Resources', false, []],
      ['collectionresources', 'CollectionResource', false, ['get', 'list']],
    ]);
    const groups = await get('/apis');
    const names = (groups.body.groups as { name: string; preferredVersion: { groupVersion: string } }[]).map((g) => `${g.name} ${g.preferredVersion.groupVersion}`);
    expect(names).toContain('clusterpedia.io clusterpedia.io/v1beta1');
  });
});

describe('list and get', () => {
  it('lists every pod of every cluster in cluster, namespace, name order with the storage revision', async () => {
    const r = await get(`${P}/api/v1/pods`);
    expect(r.status).toBe(200);
    expect(r.body.kind).toBe('PodList');
    const items = r.body.items as { metadata: { name: string; namespace: string; annotations: Record<string, string> } }[];
    expect(items.map((i) => `${i.metadata.annotations['shadow.clusterpedia.io/cluster-name']}/${i.metadata.namespace}/${i.metadata.name}`)).toEqual([
      'c1/default/db-1', 'c1/default/web-1', 'c1/default/web-2', 'c1/default/web-3', 'c2/default/web-1', 'c2/default/web-2', 'c2/kube-system/api-1',
    ]);
    expect((r.body.metadata as { resourceVersion: string }).resourceVersion).toBe(await storage.currentRevision());
  });

  it('scopes by cluster path and namespace path', async () => {
    const r = await get(`${P}/clusters/c2/api/v1/namespaces/kube-system/pods`);
    expect((r.body.items as unknown[]).length).toBe(1);
  });

  it('ignores empty items of a list parameter: namespaces=x,,y does not match the cluster-scoped namespaces', async () => {
    const r = await get(`${P}/api/v1/namespaces?namespaces=_,,x`);
    expect(r.status).toBe(200);
    expect(r.body.items).toEqual([]);
  });

  it('takes a raw # in the query as data, as kube-apiserver does: the parameters after it still apply', async () => {
    // fetch would drop the "fragment"; node:http sends the target as written, as a hostile client may.
    const all = await rawGet(`${P}/api/v1/pods?limit=50`);
    expect(all.body.items?.length).toBe(7);
    // Before: everything after '#' was cut off, and the list answered all seven pods.
    const r = await rawGet(`${P}/api/v1/pods?limit=50&x=#&namespaces=kube-system`);
    expect(r.status).toBe(200);
    expect(r.body.items?.map((i) => i.metadata.name)).toEqual(['api-1']);
    const none = await rawGet(`${P}/api/v1/pods?x=1#&namespaces=')%20OR%20('a'%3D'a`);
    expect(none.body.items).toEqual([]);
  });

  it('reads the path as sent: a dot segment or a backslash is refused, never resolved into another cluster or namespace', async () => {
    // A WHATWG URL resolves these, so a path a rule in front of us saw as cluster c1's was answered for c2.
    expect((await rawGet(`${P}/clusters/c2/api/v1/pods`)).body.items?.map((i) => i.metadata.name)).toEqual(['web-1', 'web-2', 'api-1']);
    for (const path of [
      `${P}/clusters/c1/%2e%2e/c2/api/v1/pods`,
      `${P}/clusters/c1/%2E./c2/api/v1/pods`,
      `${P}/clusters/c1/../c2/api/v1/pods`,
      `${P}/clusters/c1\\..\\c2/api/v1/pods`,
      `${P}/clusters/c1/api/v1/namespaces/kube-system/%2e%2e/default/pods`,
      `${P}/clusters/c1/api/v1/namespaces/default/pods/.`,
      `${P}/clusters/c1/./api/v1/pods?limit=1`,
    ]) {
      const r = await rawGet(path);
      expect(r.status, path).toBe(400);
      expect(r.body.message, path).toMatch(/^malformed request URL: a path segment may not be '\.' or '\.\.'/);
    }
    // Dots inside a segment are a name like any other.
    expect((await rawGet(`${P}/clusters/c1/api/v1/namespaces/default/pods/web..1`)).status).toBe(404);
    expect((await rawGet(`${P}/clusters/c1/api/v1/namespaces/default/pods/web-1`)).status).toBe(200);
  });

  it('answers 400, before any body, for a query too big for the database (1,200 label requirements); 1,500 groups are answered', async () => {
    const groups = [...Array.from({ length: 1500 }, (_, i) => `g${i}`), 'apps'].join(',');
    const a = await get(`/apis/clusterpedia.io/v1beta1/collectionresources/any?groups=${groups}`);
    expect(a.status).toBe(200);
    const kinds = new Set((a.body.items as { kind?: string }[]).map((o) => o.kind));
    expect([...kinds]).toContain('Deployment');
    expect([...kinds].every((k) => ['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'ControllerRevision'].includes(k ?? ''))).toBe(true);
    const labels = encodeURIComponent(Array.from({ length: 1200 }, (_, i) => `k${i}!=v`).join(','));
    const b = await get(`${P}/api/v1/pods?labelSelector=${labels}`);
    expect(b.status).toBe(400);
    expect(b.body.message).toMatch(/too many filter values or requirements/);
    // Up to the bound, on either dialect, and requirements counted across both selectors.
    const many = (n: number, form: (i: number) => string): string => encodeURIComponent(Array.from({ length: n }, (_, i) => form(i)).join(','));
    expect((await get(`${P}/api/v1/pods?labelSelector=${many(MAX_SELECTOR_REQUIREMENTS, (i) => `k${i}!=v`)}`)).status).toBe(200);
    const both = await get(`${P}/api/v1/pods?labelSelector=${many(500, (i) => `k${i}!=v`)}&fieldSelector=${many(401, (i) => `metadata.name!=n${i}`)}`);
    expect(both.status).toBe(400);
    expect(both.body.message).toBe(`the query has too many filter values or requirements for storage: 901 label and field selector requirements, at most ${MAX_SELECTOR_REQUIREMENTS}`);
    // Thousands, which the 64 KiB request line lets in: refused before any query is built.
    const huge = await get(`${P}/api/v1/pods?labelSelector=${many(4_000, (i) => `k${i}=v`)}`);
    expect(huge.status).toBe(400);
    expect(huge.body.message).toMatch(/^the query has too many filter values or requirements for storage: 4000 label/);
  });

  it('answers 400 for an unknown cluster and a get without cluster', async () => {
    const a = await get(`${P}/clusters/nope/api/v1/pods`);
    expect(a.status).toBe(400);
    expect(a.body.message).toBe('the server could not find the requested cluster');
    const b = await get(`${P}/api/v1/namespaces/default/pods/web-1`);
    expect(b.status).toBe(400);
    // Reference §1.3's words, then where the object is, so the user knows which cluster to ask.
    expect(b.body.message).toBe('please specify the cluster name when using the resource name to get a specific resource. '
      + 'pods "web-1" is in clusters c1, c2: ask through /apis/clusterpedia.io/v1beta1/resources/clusters/<name> (kubectl --cluster <name>).');
    expect((await get(`${P}/apis/apps/v1/namespaces/default/deployments/web`)).body.message).toMatch(/deployments\.apps "web" is in clusters c1, c2:/);
    expect((await get(`${P}/api/v1/namespaces/kube-system/pods/api-1`)).body.message).toMatch(/"api-1" is in cluster c2:/);
    const none = await get(`${P}/api/v1/namespaces/default/pods/nobody-has-it`);
    expect(none.status).toBe(400);
    expect(none.body.message).toBe('please specify the cluster name when using the resource name to get a specific resource.');
  });

  it('answers a subresource that needs the member (kubectl logs, exec, eviction) with a 404 that says what is served', async () => {
    const cases: [string, string][] = [
      [`${P}/clusters/c1/api/v1/namespaces/default/pods/web-1/log`, 'pods/log'],
      [`${P}/clusters/c1/api/v1/namespaces/default/pods/web-1/exec`, 'pods/exec'],
      // Namespaces have status but no finalize here (kube's request info reads both as the namespace's subresources).
      [`${P}/clusters/c1/api/v1/namespaces/default/finalize`, 'namespaces/finalize'],
      [`${P}/clusters/c1/apis/apps/v1/namespaces/default/deployments/web/rollback`, 'deployments.apps/rollback'],
    ];
    for (const [path, gr] of cases) {
      const r = await get(path);
      expect(r.status, path).toBe(404);
      const hint = gr === 'pods/log' ? '; or start clusterpedia with --allowed-proxy-subresources pods/log' : '';
      expect(r.body, path).toMatchObject({ kind: 'Status', reason: 'NotFound',
        message: `the server could not find the requested resource: ${gr} is not served here (clusterpedia serves the objects it stores and their status and scale, not other subresources: ask the member cluster${hint})` });
    }
  });

  it('answers the status subresource with the stored object, as kube-apiserver gets it', async () => {
    const whole = await get(`${P}/clusters/c1/apis/apps/v1/namespaces/default/deployments/web`);
    const status = await get(`${P}/clusters/c1/apis/apps/v1/namespaces/default/deployments/web/status`);
    expect(status.status).toBe(200);
    expect(status.body).toEqual(whole.body);
    const ns = await get(`${P}/clusters/c1/api/v1/namespaces/kube-system/status`);
    expect(ns.status).toBe(200);
    expect(ns.body).toMatchObject({ kind: 'Namespace', metadata: { name: 'kube-system' }, status: { phase: 'Active' } });
    const missing = await get(`${P}/clusters/c1/apis/apps/v1/namespaces/default/deployments/nope/status`);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ reason: 'NotFound', message: 'deployments.apps "nope" not found' });
    // A Table keeps the kind's own columns.
    const table = await get(`${P}/clusters/c1/api/v1/namespaces/default/pods/web-1/status`, 'application/json;as=Table;v=v1;g=meta.k8s.io');
    expect((table.body.columnDefinitions as { name: string }[]).map((c) => c.name).slice(0, 3)).toEqual(['Cluster', 'Name', 'Ready']);
  });

  it('answers the scale subresource with an autoscaling/v1 Scale made from the stored object', async () => {
    const r = await get(`${P}/clusters/c2/apis/apps/v1/namespaces/default/deployments/web/scale`);
    expect(r.status).toBe(200);
    const whole = (await get(`${P}/clusters/c2/apis/apps/v1/namespaces/default/deployments/web`)).body as { metadata: { uid: string; resourceVersion: string } };
    expect(r.body).toEqual({
      kind: 'Scale', apiVersion: 'autoscaling/v1',
      metadata: { name: 'web', namespace: 'default', uid: whole.metadata.uid, resourceVersion: whole.metadata.resourceVersion,
        creationTimestamp: '2024-01-01T00:00:00Z', annotations: { 'shadow.clusterpedia.io/cluster-name': 'c2' } },
      spec: { replicas: 2 }, status: { replicas: 2, selector: 'app=web' },
    });
    const table = await get(`${P}/clusters/c2/apis/apps/v1/namespaces/default/deployments/web/scale`, 'application/json;as=Table;v=v1;g=meta.k8s.io');
    expect((table.body.columnDefinitions as { name: string }[]).map((c) => c.name)).toEqual(['Cluster', 'Name', 'Desired', 'Available', 'Age']);
    expect((table.body.rows as { cells: unknown[] }[])[0]?.cells.slice(0, 4)).toEqual(['c2', 'web', 2, 2]);
    const meta = await get(`${P}/clusters/c2/apis/apps/v1/namespaces/default/deployments/web/scale`, 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io');
    expect(meta.body).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'web', uid: whole.metadata.uid } });
  });

  it('refuses a watch of a subresource with 405, and a subresource through the fleet path as a get does', async () => {
    const w = await get(`${P}/clusters/c1/apis/apps/v1/namespaces/default/deployments/web/status?watch=true`);
    expect(w.status).toBe(405);
    expect(w.body).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed', message: 'watch is not supported on resources of kind "deployments.apps/status"' });
    const fleet = await get(`${P}/apis/apps/v1/namespaces/default/deployments/web/scale`);
    expect(fleet.status).toBe(400);
    expect(fleet.body.message).toMatch(/^please specify the cluster name when using the resource name to get a specific resource\. deployments\.apps "web" is in clusters c1, c2:/);
  });

  it('counts requests by the code the client got, a thrown Status included', async () => {
    const count = async (code: string): Promise<number> => {
      const m = new RegExp(`clusterpedia_apiserver_requests_total\\{verb="get",resource="pods",code="${code}"\\} (\\d+)`).exec(await (await fetch(`${api.base}/metrics`)).text());
      return Number(m?.[1] ?? 0);
    };
    const [found, missing] = [await count('200'), await count('404')];
    expect((await get(`${P}/clusters/c1/api/v1/namespaces/default/pods/nope`)).status).toBe(404);
    expect((await get(`${P}/clusters/c1/api/v1/namespaces/default/pods/web-1`)).status).toBe(200);
    expect([await count('200'), await count('404')]).toEqual([found + 1, missing + 1]);
  });

  it('gets one object, and 404s a missing one with a Status', async () => {
    const ok = await get(`${P}/clusters/c1/api/v1/namespaces/default/pods/web-1`);
    expect(ok.status).toBe(200);
    expect((ok.body.metadata as { name: string }).name).toBe('web-1');
    const missing = await get(`${P}/clusters/c1/api/v1/namespaces/default/pods/nope`);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'pods "nope" not found' });
  });

  it('gets a namespace by name through the namespaces special case', async () => {
    const r = await get(`${P}/clusters/c1/api/v1/namespaces/kube-system`);
    expect(r.status).toBe(200);
    expect(r.body.kind).toBe('Namespace');
  });

  it('filters with label selectors and search labels, operators honoured', async () => {
    const web = await get(`${P}/api/v1/pods?labelSelector=${encodeURIComponent('app=web')}`);
    expect((web.body.items as unknown[]).length).toBe(5);
    const notC1 = await get(`${P}/api/v1/pods?labelSelector=${encodeURIComponent('search.clusterpedia.io/clusters notin (c1)')}`);
    expect((notC1.body.items as unknown[]).length).toBe(3);
  });

  it('pages with limit and continue through every row exactly once', async () => {
    const seen: string[] = [];
    let cont = '';
    for (let i = 0; i < 10; i++) {
      const r = await get(`${P}/api/v1/pods?limit=2${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
      for (const it of r.body.items as { metadata: { uid: string } }[]) seen.push(it.metadata.uid);
      cont = (r.body.metadata as { continue?: string }).continue ?? '';
      if (!cont) break;
    }
    expect(seen.length).toBe(7);
    expect(new Set(seen).size).toBe(7);
  });

  it('searches by owner within one cluster and refuses it across clusters', async () => {
    const r = await get(`${P}/clusters/c1/api/v1/pods?ownerName=web&ownerGR=deployments.apps`);
    expect((r.body.items as unknown[]).length).toBe(2);
    const bad = await get(`${P}/api/v1/pods?ownerName=web`);
    expect(bad.status).toBe(400);
  });

  it('warns when the cluster is not healthy but still serves', async () => {
    const r = await get(`${P}/clusters/c2/api/v1/pods`);
    expect(r.status).toBe(200);
    expect(r.headers.get('warning')).toMatch(/c2 is not ready and the resources obtained may be inaccurate, reason: NotReachable/);
  });

  it('answers JSON Status for unknown paths and 405 for writes', async () => {
    const unknown = await get(`${P}/apis/nope.io/v1/things`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.kind).toBe('Status');
    const post = await fetch(`${api.base}${P}/api/v1/namespaces/default/pods`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect((await post.json() as { reason: string }).reason).toBe('MethodNotAllowed');
    // A resource no cluster serves is not found whatever the verb, as kube answers (reviews: auth-self-review.test.ts).
    for (const path of [`${P}/apis/authorization.k8s.io/v1/subjectaccessreviews`, `${P}/apis/nope.io/v1/things`, '/apis/nope.io/v1/things']) {
      const r = await fetch(`${api.base}${path}`, { method: 'POST', body: '{}' });
      expect(r.status, path).toBe(404);
      expect(await r.json(), path).toMatchObject({ kind: 'Status', reason: 'NotFound' });
    }
  });

  it('rejects a malformed selector with a 400 naming the parameter', async () => {
    const r = await get(`${P}/api/v1/pods?labelSelector=${encodeURIComponent('app in (')}`);
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/^labelSelector/);
  });
});

describe('tables', () => {
  it('puts Cluster first and kube pod columns after it', async () => {
    const r = await get(`${P}/api/v1/pods`, 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json');
    expect(r.headers.get('content-type')).toMatch(/as=Table/);
    const cols = (r.body.columnDefinitions as { name: string }[]).map((c) => c.name);
    expect(cols.slice(0, 3)).toEqual(['Cluster', 'Name', 'Ready']);
    const rows = r.body.rows as { cells: unknown[]; object: { metadata: { namespace: string } } }[];
    expect(rows.map((x) => x.cells[0])).toEqual(['c1', 'c1', 'c1', 'c1', 'c2', 'c2', 'c2']);
    expect(rows[0]?.object.metadata.namespace).toBe('default');
  });

  it('honours includeObject as kube-apiserver does: Object, Metadata (the default), None; anything else is a 400', async () => {
    const T = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
    type Row = { object: { kind?: string; spec?: unknown; status?: { phase?: string }; metadata?: { name: string } } | null };
    const rowsOf = async (q: string): Promise<Row[]> => (await get(`${P}/clusters/c1/api/v1/namespaces/default/pods${q}`, T)).body.rows as Row[];
    // kubectl --sort-by and -o custom-columns read fields outside the metadata from the row objects.
    const whole = await rowsOf('?includeObject=Object');
    expect(whole.map((r) => r.object?.kind)).toEqual(['Pod', 'Pod', 'Pod', 'Pod']);
    expect(whole.find((r) => r.object?.metadata?.name === 'db-1')?.object?.status?.phase).toBe('Pending');
    for (const q of ['', '?includeObject=', '?includeObject=Metadata']) {
      const rows = await rowsOf(q);
      expect(rows.map((r) => r.object?.kind)).toEqual(['PartialObjectMetadata', 'PartialObjectMetadata', 'PartialObjectMetadata', 'PartialObjectMetadata']);
      expect(rows[0]?.object?.spec).toBeUndefined();
    }
    expect((await rowsOf('?includeObject=None')).map((r) => r.object)).toEqual([null, null, null, null]);
    const one = await get(`${P}/clusters/c1/api/v1/namespaces/default/pods/db-1?includeObject=Object`, T);
    expect((one.body.rows as Row[])[0]?.object?.status?.phase).toBe('Pending');
    const bad = await get(`${P}/api/v1/pods?includeObject=Everything`, T);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: 'unrecognized includeObject value: "Everything"' });
    // Not a Table request: the option means nothing and is ignored, as in kube.
    expect((await get(`${P}/api/v1/pods?includeObject=Everything`)).status).toBe(200);
  });
});

describe('meta.k8s.io/v1beta1 (a client that asks for it alone)', () => {
  const T1B1 = 'application/json;as=Table;v=v1beta1;g=meta.k8s.io';
  type Envelope = { apiVersion?: string; kind?: string; rows?: { object: { apiVersion?: string; kind?: string } | null }[]; items?: { apiVersion?: string }[] };

  it('answers Tables and PartialObjectMetadata in v1beta1, row objects included, as kube-apiserver does', async () => {
    const list = await get(`${P}/api/v1/pods`, T1B1);
    expect(list.headers.get('content-type')).toBe('application/json;as=Table;v=v1beta1;g=meta.k8s.io');
    const table = list.body as Envelope;
    expect(table).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1beta1' });
    expect(new Set(table.rows!.map((r) => `${r.object?.kind} ${r.object?.apiVersion}`))).toEqual(new Set(['PartialObjectMetadata meta.k8s.io/v1beta1']));
    const one = (await get(`${P}/clusters/c1/api/v1/namespaces/default/pods/web-1`, T1B1)).body as Envelope;
    expect(one.apiVersion).toBe('meta.k8s.io/v1beta1');
    expect(one.rows![0]!.object?.apiVersion).toBe('meta.k8s.io/v1beta1');
    // A whole object in a row stays what it is.
    const whole = (await get(`${P}/clusters/c1/api/v1/namespaces/default/pods/web-1?includeObject=Object`, T1B1)).body as Envelope;
    expect(whole.rows![0]!.object).toMatchObject({ kind: 'Pod', apiVersion: 'v1' });
    const partial = await get(`${P}/api/v1/pods`, 'application/json;as=PartialObjectMetadataList;v=v1beta1;g=meta.k8s.io');
    expect(partial.headers.get('content-type')).toBe('application/json;as=PartialObjectMetadataList;v=v1beta1;g=meta.k8s.io');
    expect(partial.body).toMatchObject({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1beta1' });
    expect(new Set((partial.body as Envelope).items!.map((i) => i.apiVersion))).toEqual(new Set(['meta.k8s.io/v1beta1']));
    for (const path of ['/apis/cluster.clusterpedia.io/v1alpha2/pediaclusters', '/apis/clusterpedia.io/v1beta1/collectionresources', '/apis/clusterpedia.io/v1beta1/collectionresources/workloads']) {
      const t = (await get(path, T1B1)).body as Envelope;
      expect(t.apiVersion, path).toBe('meta.k8s.io/v1beta1');
      expect(t.rows!.length, path).toBeGreaterThan(0);
      expect(new Set(t.rows!.map((r) => r.object?.apiVersion)), path).toEqual(new Set(['meta.k8s.io/v1beta1']));
    }
    // kubectl's own order (v1 first) keeps v1.
    const v1First = await get(`${P}/api/v1/pods`, `application/json;as=Table;v=v1;g=meta.k8s.io,${T1B1},application/json`);
    expect(v1First.body.apiVersion).toBe('meta.k8s.io/v1');
    expect((v1First.body as Envelope).rows![0]!.object?.apiVersion).toBe('meta.k8s.io/v1');
  });

  it('pediaclusters and collectionresources Tables honour includeObject (kubectl --sort-by and -o custom-columns ask for Object)', async () => {
    const T1 = 'application/json;as=Table;v=v1;g=meta.k8s.io';
    const clusters = (await get('/apis/cluster.clusterpedia.io/v1alpha2/pediaclusters?includeObject=Object', T1)).body as Envelope;
    expect(clusters.rows!.map((r) => r.object?.kind)).toEqual(clusters.rows!.map(() => 'PediaCluster'));
    expect(JSON.stringify(clusters.rows![0]!.object)).toContain('"status"');
    const workloads = (await get('/apis/clusterpedia.io/v1beta1/collectionresources/workloads?includeObject=Object', T1)).body as Envelope;
    expect(new Set(workloads.rows!.map((r) => r.object?.kind))).toEqual(new Set(['Deployment']));
    expect(JSON.stringify(workloads.rows![0]!.object)).toContain('"spec"');
    const defs = (await get('/apis/clusterpedia.io/v1beta1/collectionresources?includeObject=None', T1)).body as Envelope;
    expect(defs.rows!.map((r) => r.object)).toEqual(defs.rows!.map(() => null));
    for (const path of ['/apis/cluster.clusterpedia.io/v1alpha2/pediaclusters', '/apis/clusterpedia.io/v1beta1/collectionresources/workloads']) {
      const bad = await get(`${path}?includeObject=All`, T1);
      expect(bad.status, path).toBe(400);
      expect(bad.body.message, path).toBe('unrecognized includeObject value: "All"');
      // A Table option: a JSON request ignores it, as a resource list does.
      expect((await get(`${path}?includeObject=All`)).status, path).toBe(200);
    }
  });

  it('pediaclusters honour labelSelector (the PediaCluster\'s labels) and fieldSelector, as a list of any resource does', async () => {
    const before = (await storage.clusterStatuses()).get('c1')!;
    await storage.putClusterStatus('c1', { ...before, spec: { ...before.spec, labels: { env: 'prod', region: 'eu' } } });
    try {
      const names = async (q: string): Promise<string[]> => {
        const r = await get(`/apis/cluster.clusterpedia.io/v1alpha2/pediaclusters${q}`);
        expect(r.status, q).toBe(200);
        return (r.body.items as { metadata: { name: string } }[]).map((i) => i.metadata.name);
      };
      expect(await names('')).toEqual(['c1', 'c2']);
      expect(await names('?labelSelector=env%3Dprod')).toEqual(['c1']);
      expect(await names('?labelSelector=env%3Dstaging')).toEqual([]);
      expect(await names('?labelSelector=!env')).toEqual(['c2']);
      expect(await names('?labelSelector=region+in+(eu,us),env')).toEqual(['c1']);
      expect(await names('?fieldSelector=metadata.name%3Dc2')).toEqual(['c2']);
      expect(await names('?fieldSelector=metadata.name!%3Dc2')).toEqual(['c1']);
      // The labels are metadata, not spec; a get shows them too.
      const one = (await get('/apis/cluster.clusterpedia.io/v1alpha2/pediaclusters/c1')).body as { metadata: { labels?: Record<string, string> }; spec: Record<string, unknown> };
      expect(one.metadata.labels).toEqual({ env: 'prod', region: 'eu' });
      expect(one.spec).not.toHaveProperty('labels');
      const table = (await get('/apis/cluster.clusterpedia.io/v1alpha2/pediaclusters?labelSelector=env%3Dprod', 'application/json;as=Table;v=v1;g=meta.k8s.io')).body as { rows: unknown[] };
      expect(table.rows).toHaveLength(1);
      const bad = await get(`/apis/cluster.clusterpedia.io/v1alpha2/pediaclusters?labelSelector=${encodeURIComponent('env in (')}`);
      expect(bad.status).toBe(400);
      expect(bad.body.message).toMatch(/^labelSelector: Invalid value: "env in \("/);
    } finally {
      await storage.putClusterStatus('c1', before);
    }
  });

  it('watch events carry v1beta1 Tables', async () => {
    const rev = await storage.currentRevision();
    const ac = new AbortController();
    const res = await fetch(`${api.base}${P}/api/v1/pods?watch=true&resourceVersion=${rev}`, { headers: { accept: T1B1 }, signal: ac.signal });
    expect(res.headers.get('content-type')).toBe('application/json;as=Table;v=v1beta1;g=meta.k8s.io');
    const reader = res.body!.getReader();
    await storage.write({ upserts: [pod('c1', 'default', 'beta-1')], deletes: [] });
    let buf = '';
    while (!buf.includes('\n')) {
      const { value, done } = await reader.read();
      if (done) throw new Error('stream ended');
      buf += new TextDecoder().decode(value);
    }
    ac.abort();
    await storage.write({ upserts: [], deletes: [{ cluster: 'c1', group: '', version: 'v1', resource: 'pods', namespace: 'default', name: 'beta-1' }] });
    const ev = JSON.parse(buf.slice(0, buf.indexOf('\n'))) as { type: string; object: Envelope };
    expect(ev).toMatchObject({ type: 'ADDED', object: { kind: 'Table', apiVersion: 'meta.k8s.io/v1beta1' } });
    expect(ev.object.rows![0]!.object?.apiVersion).toBe('meta.k8s.io/v1beta1');
  });
});

describe('watch', () => {
  it('streams changes after a revision, deletions included', async () => {
    const rev = await storage.currentRevision();
    const ac = new AbortController();
    const res = await fetch(`${api.base}${P}/api/v1/pods?watch=true&resourceVersion=${rev}`, { signal: ac.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const events: { type: string; object: { metadata: { name: string; resourceVersion: string } } }[] = [];
    let buf = '';
    const next = async (): Promise<void> => {
      while (!buf.includes('\n')) {
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buf += new TextDecoder().decode(value);
      }
      const i = buf.indexOf('\n');
      events.push(JSON.parse(buf.slice(0, i)) as (typeof events)[number]);
      buf = buf.slice(i + 1);
    };
    await storage.write({ upserts: [pod('c1', 'default', 'new-1')], deletes: [] });
    await next();
    expect(events[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'new-1' } } });
    await storage.write({ upserts: [], deletes: [{ cluster: 'c1', group: '', version: 'v1', resource: 'pods', namespace: 'default', name: 'new-1' }] });
    await next();
    expect(events[1]?.type).toBe('DELETED');
    expect(BigInt(events[1]!.object.metadata.resourceVersion)).toBeGreaterThan(BigInt(events[0]!.object.metadata.resourceVersion));
    ac.abort();
  });
});

describe('pediaclusters (clusters from a file)', () => {
  const PC = '/apis/cluster.clusterpedia.io/v1alpha2';
  it('are read-only: discovery offers get, list and watch', async () => {
    const disc = await get(PC);
    expect(disc.body.resources).toEqual([{ name: 'pediaclusters', singularName: 'pediacluster', namespaced: false, kind: 'PediaCluster', verbs: ['get', 'list', 'watch'] }]);
    expect((await get(`${PC}/pediaclusters/c1`)).body).toMatchObject({ kind: 'PediaCluster', metadata: { name: 'c1' } });
    const post = await fetch(`${api.base}${PC}/pediaclusters`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
  });

  it('the time a cluster was registered is metadata.creationTimestamp (metav1.Time, to the second), not a spec field', async () => {
    const before = (await storage.clusterStatuses()).get('c2')!;
    await storage.putClusterStatus('c2', { ...before, spec: { ...before.spec, creationTimestamp: '2026-01-02T03:04:05.678Z' } });
    try {
      const one = (await get(`${PC}/pediaclusters/c2`)).body as { metadata: { creationTimestamp: string }; spec: Record<string, unknown> };
      expect(one.metadata.creationTimestamp).toBe('2026-01-02T03:04:05Z');
      expect(one.spec).not.toHaveProperty('creationTimestamp');
    } finally {
      await storage.putClusterStatus('c2', before);
    }
  });

  it('watch: the current state, then what storage writes after it; from a list\'s resourceVersion only what is newer', async () => {
    const list = (await get(`${PC}/pediaclusters`)).body as { metadata: { resourceVersion: string }; items: { metadata: { resourceVersion: string } }[] };
    expect(list.metadata.resourceVersion).toBe(String(Math.max(...list.items.map((i) => Number(i.metadata.resourceVersion)))));
    const watch = (query: string): Promise<WatchStream> => openWatch(`${api.base}${PC}/pediaclusters?watch=true&${query}`);
    const shown = (e: WatchEvent): string => `${e.type} ${e.object.metadata.name}`;
    // No resourceVersion: every cluster as ADDED; a selector narrows it (and nothing else comes before the end).
    let w = await watch('timeoutSeconds=1');
    expect([shown(await w.next()), shown(await w.next())]).toEqual(['ADDED c1', 'ADDED c2']);
    w.close();
    w = await watch('timeoutSeconds=1&fieldSelector=metadata.name%3Dc2');
    expect(shown(await w.next())).toBe('ADDED c2');
    await expect(w.next(5_000)).rejects.toThrow('watch ended');
    // From the list's resourceVersion: nothing at first, then the status storage writes afterwards.
    const before = (await storage.clusterStatuses()).get('c2')!;
    setTimeout(() => void storage.putClusterStatus('c2', { ...before, status: { ...before.status, version: 'v9.9.9' }, updatedAt: new Date(Date.now() + 1000).toISOString() }), 300);
    try {
      w = await watch(`resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=5`);
      const e = await w.next(8_000);
      expect(`${shown(e)} ${(e.object as { status?: { version?: string } }).status?.version}`).toBe('MODIFIED c2 v9.9.9');
      w.close();
    } finally {
      await storage.putClusterStatus('c2', before);
    }
    // A rewrite that moves only counts and event times is not news (it is sent at most every 30 s); a condition is.
    const [c1, c2] = [(await storage.clusterStatuses()).get('c1')!, (await storage.clusterStatuses()).get('c2')!];
    const later = (ms: number): string => new Date(Date.now() + ms).toISOString();
    const counted = (count: number): Record<string, unknown> => ({ ...c2.status, syncResources: [{ group: '', resources: [{ name: 'pods', syncConditions: [{ version: 'v1', status: 'Syncing', count, lastEventTime: later(0) }] }] }] });
    await storage.putClusterStatus('c2', { ...c2, status: counted(6), updatedAt: later(1000) });
    const now = (await get(`${PC}/pediaclusters`)).body as { metadata: { resourceVersion: string } };
    try {
      // Written once the watch has answered (its headers come after its first read).
      w = await watch(`resourceVersion=${now.metadata.resourceVersion}&timeoutSeconds=4`);
      setTimeout(() => void storage.putClusterStatus('c2', { ...c2, status: counted(7), updatedAt: later(2000) }), 200);
      setTimeout(() => void storage.putClusterStatus('c1', { ...c1, status: { ...c1.status, conditions: [{ type: 'Ready', status: 'False', reason: 'Unhealthy' }] }, updatedAt: later(3000) }), 1_600);
      expect(shown(await w.next(8_000))).toBe('MODIFIED c1');
      await expect(w.next(8_000)).rejects.toThrow('watch ended');
    } finally {
      await storage.putClusterStatus('c1', c1);
      await storage.putClusterStatus('c2', c2);
    }
    // A length past setTimeout's range (the fuzzer's 99999999999 s) is honoured, not turned into an immediate cut.
    w = await watch('timeoutSeconds=99999999999');
    expect([shown(await w.next()), shown(await w.next())]).toEqual(['ADDED c1', 'ADDED c2']);
    await expect(w.next(1_500)).rejects.toThrow('no watch data within 1500 ms');
    w.close();
    const bad = await get(`${PC}/pediaclusters?watch=true&resourceVersion=abc`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('resourceVersion: Invalid value: "abc": must be a non-negative integer');
  });

  it('watch as kubectl asks for it: Tables, the column definitions with the first event only (for pods too)', async () => {
    const T = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' };
    type TableEvent = { type: string; object: { kind: string; columnDefinitions: { name: string }[] | null; rows: { cells: unknown[] }[] } };
    for (const [path, first] of [[`${PC}/pediaclusters`, 'Name'], [`${P}/api/v1/pods`, 'Cluster']] as const) {
      const w = await openWatch(`${api.base}${path}?watch=true&timeoutSeconds=1`, T);
      try {
        const [a, b] = [(await w.next()) as unknown as TableEvent, (await w.next()) as unknown as TableEvent];
        expect([a.object.kind, b.object.kind], path).toEqual(['Table', 'Table']);
        expect(a.object.columnDefinitions?.[0]?.name, path).toBe(first);
        expect(b.object.columnDefinitions, path).toBeNull();
        expect([a.object.rows.length, b.object.rows.length], path).toEqual([1, 1]);
      } finally {
        w.close();
      }
    }
  });

  it('print the CRD columns, ShardingName among the wide ones', async () => {
    const t = await get(`${PC}/pediaclusters`, 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json');
    const cols = t.body.columnDefinitions as { name: string; priority: number }[];
    expect(cols.map((c) => c.name)).toEqual(['Name', 'Ready', 'Version', 'APIServer', 'Validated', 'SynchroRunning', 'ClusterHealthy', 'ShardingName']);
    expect(cols.find((c) => c.name === 'ShardingName')?.priority).toBe(10);
  });
});

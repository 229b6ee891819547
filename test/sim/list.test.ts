// LIST over HTTP: paths, get, selectors, kube's list shape, consistent paging, 410 on expired continue, resourceVersion forms.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulatedCluster, type SimCluster } from '../../src/sim/index.js';
import { call, listAll, openWatch, type ListBody } from './helpers.js';

let c: SimCluster;
beforeEach(async () => {
  c = await startSimulatedCluster({ pods: 120, seed: 7 });
});
afterEach(async () => {
  await c.stop();
});

describe('list', () => {
  it('lists cluster-wide and per namespace with kube shapes: PodList/v1, items without kind, RV = revision', async () => {
    const all = await call<ListBody>(c, '/api/v1/pods');
    expect(all.status).toBe(200);
    expect(all.body.kind).toBe('PodList');
    expect(all.body.apiVersion).toBe('v1');
    expect(all.body.metadata.resourceVersion).toBe(String(c.revision));
    expect(all.body.items).toHaveLength(120);
    expect(all.body.items[0]).not.toHaveProperty('kind');
    expect(all.body.items[0]).not.toHaveProperty('apiVersion');
    const keys = all.body.items.map((p) => `${p.metadata.namespace}/${p.metadata.name}`);
    expect([...keys].sort()).toEqual(keys);
    const ns = all.body.items[0]?.metadata.namespace ?? '';
    const inNs = await call<ListBody>(c, `/api/v1/namespaces/${ns}/pods`);
    expect(inNs.body.items.length).toBe(all.body.items.filter((p) => p.metadata.namespace === ns).length);
    const deploys = await call<ListBody>(c, '/apis/apps/v1/deployments');
    expect(deploys.body.kind).toBe('DeploymentList');
    expect(deploys.body.apiVersion).toBe('apps/v1');
  });

  it('gets one object with kind and apiVersion, 404 Status otherwise', async () => {
    const pod = c.store.list('pods')[3];
    const got = await call(c, `/api/v1/namespaces/${pod?.metadata.namespace}/pods/${pod?.metadata.name}`);
    expect(got.body).toMatchObject({ kind: 'Pod', apiVersion: 'v1', metadata: { name: pod?.metadata.name, uid: pod?.metadata.uid } });
    const node = c.store.list('nodes')[0];
    expect((await call(c, `/api/v1/nodes/${node?.metadata.name}`)).body).toMatchObject({ kind: 'Node' });
    const missing = await call(c, '/api/v1/namespaces/default/pods/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'pods "nope" not found', code: 404 });
    expect((await call(c, '/api/v1/foos')).status).toBe(404);
  });

  it('filters by label selector with every operator', async () => {
    const pods = c.store.list('pods');
    const app = pods[0]?.metadata.labels?.app ?? '';
    const count = (pred: (l: Record<string, string>) => boolean): number => pods.filter((p) => pred(p.metadata.labels ?? {})).length;
    const cases: Array<[string, number]> = [
      [`app=${app}`, count((l) => l.app === app)],
      [`app==${app}`, count((l) => l.app === app)],
      [`app!=${app}`, count((l) => l.app !== app)],
      [`app in (${app},nothing)`, count((l) => l.app === app)],
      [`app notin (${app})`, count((l) => l.app !== app)],
      ['pod-template-hash', count((l) => 'pod-template-hash' in l)],
      ['!pod-template-hash', count((l) => !('pod-template-hash' in l))],
      [`tier=backend,app!=${app}`, count((l) => l.tier === 'backend' && l.app !== app)],
      ['apps.kubernetes.io/pod-index>0', count((l) => Number(l['apps.kubernetes.io/pod-index'] ?? -1) > 0)],
      ['apps.kubernetes.io/pod-index<1', count((l) => 'apps.kubernetes.io/pod-index' in l && Number(l['apps.kubernetes.io/pod-index']) < 1)],
    ];
    for (const [sel, n] of cases) {
      const r = await call<ListBody>(c, `/api/v1/pods?labelSelector=${encodeURIComponent(sel)}`);
      expect(r.body.items.length, sel).toBe(n);
    }
    const bad = await call(c, `/api/v1/pods?labelSelector=${encodeURIComponent('app in (')}`);
    expect(bad.status).toBe(400);
  });

  it('filters by the field selectors kube supports, 400 for others', async () => {
    const pods = c.store.list('pods');
    const node = (pods[0]?.spec as { nodeName: string }).nodeName;
    const cases: Array<[string, number]> = [
      ['status.phase=Running', pods.filter((p) => (p.status as { phase: string }).phase === 'Running').length],
      ['status.phase!=Running', pods.filter((p) => (p.status as { phase: string }).phase !== 'Running').length],
      [`spec.nodeName=${node}`, pods.filter((p) => (p.spec as { nodeName?: string }).nodeName === node).length],
      ['spec.restartPolicy=Always', pods.filter((p) => (p.spec as { restartPolicy: string }).restartPolicy === 'Always').length],
      ['spec.schedulerName=default-scheduler', 120],
      ['spec.serviceAccountName=default', pods.filter((p) => (p.spec as { serviceAccountName: string }).serviceAccountName === 'default').length],
      [`status.podIP=${(pods[0]?.status as { podIP: string }).podIP}`, 1],
      [`metadata.name=${pods[0]?.metadata.name}`, 1],
      [`metadata.namespace=${pods[0]?.metadata.namespace}`, pods.filter((p) => p.metadata.namespace === pods[0]?.metadata.namespace).length],
    ];
    for (const [sel, n] of cases) {
      const r = await call<ListBody>(c, `/api/v1/pods?fieldSelector=${encodeURIComponent(sel)}`);
      expect(r.body.items.length, sel).toBe(n);
    }
    expect(cases[0]?.[1]).toBeGreaterThan(0);
    // Labels that are not the path they read: a Job's status.successful is its status.succeeded (0 when absent).
    const jobs = c.store.list('jobs.batch');
    const succeeded = (n: number): number => jobs.filter((j) => Number((j.status as { succeeded?: number } | undefined)?.succeeded ?? 0) === n).length;
    expect(succeeded(1)).toBeGreaterThan(0);
    for (const n of [0, 1]) expect((await call<ListBody>(c, `/apis/batch/v1/jobs?fieldSelector=status.successful%3D${n}`)).body.items.length, `status.successful=${n}`).toBe(succeeded(n));
    const bad = await call(c, '/api/v1/pods?fieldSelector=status.hostIP%3D1.2.3.4');
    expect(bad.status).toBe(400);
    expect(String(bad.body.message)).toContain('field label not supported: status.hostIP');
    const crd = await call(c, '/apis/stable.example.com/v1/crontabs?fieldSelector=spec.x%3Dy');
    expect(String(crd.body.message)).toContain('"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"');
  });

  it('pages with limit/continue: every object exactly once, remainingItemCount, one consistent snapshot under changes', async () => {
    const before = c.store.list('pods').map((p) => `${p.metadata.namespace}/${p.metadata.name}`);
    const first = await call<ListBody>(c, '/api/v1/pods?limit=7');
    expect(first.body.items).toHaveLength(7);
    expect(first.body.metadata.remainingItemCount).toBe(113);
    // Changes between pages must not show up: pages are read at the first page's revision, like etcd.
    const victim = c.store.list('pods')[100];
    c.store.delete('pods', victim?.metadata.namespace, victim?.metadata.name ?? '');
    c.store.create('pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'zzz-new', namespace: 'default' }, spec: { containers: [] } });
    const rest = await listAll(c, '/api/v1/pods', 7, first.body.metadata.continue);
    const keys = [...first.body.items, ...rest.items].map((p) => `${p.metadata.namespace}/${p.metadata.name}`);
    expect(keys).toEqual(before);
    expect(rest.pages.every((p) => p.resourceVersion === first.body.metadata.resourceVersion)).toBe(true);
    // A fresh walk sees the new state.
    const now = await listAll(c, '/api/v1/pods', 50);
    expect(now.items.map((p) => p.metadata.name)).toContain('zzz-new');
    expect(now.items.map((p) => p.metadata.name)).not.toContain(victim?.metadata.name);
  });

  it('answers 410 Expired with an inconsistent continue token once the revision is compacted', async () => {
    const first = await call<ListBody>(c, '/api/v1/pods?limit=10');
    c.store.patch('pods', first.body.items[0]?.metadata.namespace, first.body.items[0]?.metadata.name ?? '', { metadata: { labels: { touched: 'yes' } } });
    c.faults.compact();
    const r = await call<{ reason: string; code: number; message: string; metadata: { continue?: string } }>(c, `/api/v1/pods?limit=10&continue=${encodeURIComponent(first.body.metadata.continue ?? '')}`);
    expect(r.status).toBe(410);
    expect(r.body).toMatchObject({ kind: 'Status', reason: 'Expired', code: 410 });
    expect(r.body.message).toContain('The provided continue parameter is too old to display a consistent list result.');
    const resumed = await call<ListBody>(c, `/api/v1/pods?limit=500&continue=${encodeURIComponent(r.body.metadata.continue ?? '')}`);
    expect(resumed.status).toBe(200);
    expect(resumed.body.items).toHaveLength(110);
    expect((await call(c, '/api/v1/pods?continue=garbage')).status).toBe(400);
  });

  it('accepts kube resourceVersion forms', async () => {
    const rv = c.revision;
    const pod = c.store.list('pods')[0];
    c.store.patch('pods', pod?.metadata.namespace, pod?.metadata.name ?? '', { metadata: { labels: { v: '2' } } });
    const exact = await call<ListBody>(c, `/api/v1/pods?resourceVersion=${rv}&resourceVersionMatch=Exact&labelSelector=v%3D2`);
    expect(exact.body.items).toHaveLength(0);
    expect(exact.body.metadata.resourceVersion).toBe(String(rv));
    const newer = await call<ListBody>(c, `/api/v1/pods?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan&labelSelector=v%3D2`);
    expect(newer.body.items).toHaveLength(1);
    const zero = await call<ListBody>(c, '/api/v1/pods?resourceVersion=0&limit=5');
    expect(zero.body.items).toHaveLength(120);
    expect((await call(c, '/api/v1/pods?resourceVersion=99999999')).status).toBe(504);
    expect((await call(c, '/api/v1/pods?resourceVersionMatch=Exact')).status).toBe(422);
    c.faults.compact();
    expect((await call(c, `/api/v1/pods?resourceVersion=${rv}&resourceVersionMatch=Exact`)).status).toBe(410);
  });

  it('serves custom resources with kind/apiVersion on items, at both versions of a two-version CRD', async () => {
    const v1 = await call<ListBody>(c, '/apis/stable.example.com/v1/crontabs');
    const beta = await call<ListBody>(c, '/apis/stable.example.com/v1beta1/crontabs');
    expect(v1.body.kind).toBe('CronTabList');
    expect(v1.body.items.length).toBeGreaterThan(0);
    expect(v1.body.items[0]).toMatchObject({ apiVersion: 'stable.example.com/v1', kind: 'CronTab' });
    expect(beta.body.items[0]).toMatchObject({ apiVersion: 'stable.example.com/v1beta1', kind: 'CronTab' });
    expect(beta.body.items.map((i) => i.metadata.uid)).toEqual(v1.body.items.map((i) => i.metadata.uid));
    expect((await call(c, '/apis/stable.example.com/v2/crontabs')).status).toBe(404);
    const issuers = await call<ListBody>(c, '/apis/cert-manager.io/v1/clusterissuers');
    expect(issuers.body.items.map((i) => i.metadata.name)).toEqual(['letsencrypt-prod', 'selfsigned']);
  });

  it('serves a Table to kubectl\'s Accept header', async () => {
    const r = await call<{ kind: string; columnDefinitions: Array<{ name: string }>; rows: Array<{ cells: unknown[]; object: { metadata: { namespace: string } } }>; metadata: { continue?: string } }>(c, '/api/v1/pods?limit=5', { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' } });
    expect(r.body.kind).toBe('Table');
    expect(r.body.columnDefinitions.map((d) => d.name).slice(0, 5)).toEqual(['Name', 'Ready', 'Status', 'Restarts', 'Age']);
    expect(r.body.rows).toHaveLength(5);
    expect(r.body.rows[0]?.object.metadata.namespace).toBeTruthy();
    expect(r.body.metadata.continue).toBeTruthy();
  });

  it('puts in Table rows what includeObject asks (kubectl --sort-by asks Object), in lists, gets and watches', async () => {
    const accept = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' };
    type Rows = { kind: string; columnDefinitions: unknown[]; rows: { object: Record<string, unknown> | null }[] };
    const full = await call<ListBody>(c, '/api/v1/pods?limit=3');
    const withObjects = await call<Rows>(c, '/api/v1/pods?limit=3&includeObject=Object', { headers: accept });
    expect(withObjects.body.rows.map((r) => r.object)).toEqual(full.body.items.map((i) => ({ kind: 'Pod', apiVersion: 'v1', ...i })));
    const none = await call<Rows>(c, '/api/v1/pods?limit=3&includeObject=None', { headers: accept });
    expect(none.body.rows.map((r) => r.object)).toEqual([null, null, null]);
    const first = full.body.items[0]!;
    const one = await call<Rows>(c, `/api/v1/namespaces/${first.metadata.namespace}/pods/${first.metadata.name}?includeObject=Object`, { headers: accept });
    expect(one.body.rows[0]?.object).toMatchObject({ kind: 'Pod', apiVersion: 'v1', metadata: first.metadata, spec: first.spec });
    const bad = await call<{ kind: string; code: number; message: string }>(c, '/api/v1/pods?includeObject=All', { headers: accept });
    expect(bad.body).toMatchObject({ kind: 'Status', code: 400, message: expect.stringContaining('includeObject: Unsupported value: "All"') });
    // A Table watch: column definitions with the first event only (kubectl get -w prints one header).
    const w = await openWatch(c, `/api/v1/pods?watch=true&resourceVersion=${full.body.metadata.resourceVersion}&includeObject=Object`, accept);
    try {
      for (const touched of ['1', '2']) {
        const cur = c.store.get('pods', first.metadata.namespace, String(first.metadata.name))!;
        c.store.update('pods', { ...cur, metadata: { ...cur.metadata, labels: { ...cur.metadata.labels, touched } } });
      }
      const [a, b] = [await w.next(), await w.next()];
      const table = (e: typeof a): Rows => e.object as unknown as Rows;
      expect(table(a).columnDefinitions.length).toBeGreaterThan(0);
      expect(table(b).columnDefinitions).toEqual([]);
      expect(table(b).rows[0]?.object).toMatchObject({ kind: 'Pod', metadata: { labels: { touched: '2' } } });
    } finally {
      w.close();
    }
  });

  it('serves metadata only to as=PartialObjectMetadataList (lists) and as=PartialObjectMetadata (gets), in the client\'s order', async () => {
    const accept = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
    type Partial = { kind: string; apiVersion: string; metadata: { name?: string; resourceVersion?: string; continue?: string }; items?: { kind: string; apiVersion: string; metadata: { name: string }; spec?: unknown }[]; spec?: unknown };
    const full = await call<ListBody>(c, '/api/v1/pods?limit=4');
    const list = await call<Partial>(c, '/api/v1/pods?limit=4', { headers: { accept } });
    expect(list.body).toMatchObject({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: full.body.metadata.resourceVersion, continue: expect.any(String) } });
    expect(list.body.items!.map((i) => i.metadata)).toEqual(full.body.items.map((i) => i.metadata));
    expect(list.body.items!.every((i) => i.kind === 'PartialObjectMetadata' && i.apiVersion === 'meta.k8s.io/v1' && i.spec === undefined)).toBe(true);
    const first = full.body.items[0]!;
    const one = await call<Partial>(c, `/api/v1/namespaces/${first.metadata.namespace}/pods/${first.metadata.name}`, { headers: { accept } });
    expect(one.body).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: first.metadata });
    // JSON first wins over a transformation offered after it; an unknown group is skipped.
    const plain = await call<ListBody>(c, '/api/v1/pods?limit=1', { headers: { accept: `application/json,${accept}` } });
    expect(plain.body.kind).toBe('PodList');
    const skipped = await call<Partial>(c, '/api/v1/pods?limit=1', { headers: { accept: `application/json;as=Table;g=example.com;v=v1,${accept}` } });
    expect(skipped.body.kind).toBe('PartialObjectMetadataList');
  });
});

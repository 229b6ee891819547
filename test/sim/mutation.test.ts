// Writes over HTTP: POST/PUT/PATCH/DELETE, 409 on a stale resourceVersion, finalizers, garbage collection, namespaces.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startSimulatedCluster, type SimCluster } from '../../src/sim/index.js';
import type { SimObject } from '../../src/sim/index.js';
import { call, controllerCountProblems, openWatch, type ListBody } from './helpers.js';

let c: SimCluster;
beforeEach(async () => {
  c = await startSimulatedCluster({ pods: 60, seed: 5 });
});
afterEach(async () => {
  await c.stop();
});

type Obj = { metadata: { name: string; resourceVersion: string; uid: string; finalizers?: string[]; deletionTimestamp?: string; generation?: number; labels?: Record<string, string> }; data?: Record<string, string>; spec?: Record<string, unknown>; status?: Record<string, unknown> };

describe('writes', () => {
  it('creates (201, uid, creationTimestamp, RV = new revision), rejects duplicates and missing namespaces', async () => {
    const before = c.revision;
    const r = await call<Obj>(c, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'made' }, data: { k: 'v' } } });
    expect(r.status).toBe(201);
    expect(r.body.metadata.resourceVersion).toBe(String(before + 1));
    expect(r.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect((await call(c, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: 'made' } } })).body).toMatchObject({ code: 409, reason: 'AlreadyExists' });
    expect((await call(c, '/api/v1/namespaces/nope/configmaps', { method: 'POST', body: { metadata: { name: 'x' } } })).status).toBe(404);
    const gen = await call<Obj>(c, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { generateName: 'gen-' } } });
    expect(gen.body.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
  });

  it('updates with PUT; a stale resourceVersion is 409 Conflict; a no-op does not bump the revision', async () => {
    const made = (await call<Obj>(c, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: 'u' }, data: { a: '1' } } })).body;
    const put = await call<Obj>(c, '/api/v1/namespaces/default/configmaps/u', { method: 'PUT', body: { ...made, data: { a: '2' } } });
    expect(put.status).toBe(200);
    expect(Number(put.body.metadata.resourceVersion)).toBeGreaterThan(Number(made.metadata.resourceVersion));
    const stale = await call(c, '/api/v1/namespaces/default/configmaps/u', { method: 'PUT', body: { ...made, data: { a: '3' } } });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ reason: 'Conflict', message: 'Operation cannot be fulfilled on configmaps "u": the object has been modified; please apply your changes to the latest version and try again' });
    const rev = c.revision;
    const same = await call<Obj>(c, '/api/v1/namespaces/default/configmaps/u', { method: 'PUT', body: put.body });
    expect(same.body.metadata.resourceVersion).toBe(put.body.metadata.resourceVersion);
    expect(c.revision).toBe(rev);
  });

  it('patches with merge patch and JSON patch; apply patches are 415', async () => {
    const pod = c.store.list('pods')[0];
    const path = `/api/v1/namespaces/${pod?.metadata.namespace}/pods/${pod?.metadata.name}`;
    const merged = await call<Obj>(c, path, { method: 'PATCH', contentType: 'application/merge-patch+json', body: { metadata: { labels: { extra: 'yes', app: null } } } });
    expect(merged.body.metadata.labels?.extra).toBe('yes');
    expect(merged.body.metadata.labels).not.toHaveProperty('app');
    const json = await call<Obj>(c, path, { method: 'PATCH', contentType: 'application/json-patch+json', body: [{ op: 'replace', path: '/metadata/labels/extra', value: 'no' }] });
    expect(json.body.metadata.labels?.extra).toBe('no');
    expect((await call(c, path, { method: 'PATCH', contentType: 'application/apply-patch+yaml', body: {} })).status).toBe(415);
    const stale = await call(c, path, { method: 'PATCH', contentType: 'application/merge-patch+json', body: { metadata: { resourceVersion: '1', labels: { x: 'y' } } } });
    expect(stale.status).toBe(409);
  });

  it('separates the status subresource: PUT ignores status, /status changes only status; generation follows spec', async () => {
    const d = c.store.list('deployments.apps')[0];
    const path = `/apis/apps/v1/namespaces/${d?.metadata.namespace}/deployments/${d?.metadata.name}`;
    const cur = (await call<Obj>(c, path)).body;
    const put = await call<Obj>(c, path, { method: 'PUT', body: { ...cur, spec: { ...cur.spec, replicas: 7 }, status: { replicas: 99 } } });
    expect(put.body.spec?.replicas).toBe(7);
    expect(put.body.status?.replicas).not.toBe(99);
    expect(put.body.metadata.generation).toBe((cur.metadata.generation ?? 0) + 1);
    const st = await call<Obj>(c, `${path}/status`, { method: 'PUT', body: { ...put.body, spec: { replicas: 1 }, status: { replicas: 99 } } });
    expect(st.body.status?.replicas).toBe(99);
    expect(st.body.spec?.replicas).toBe(7);
    expect(st.body.metadata.generation).toBe(put.body.metadata.generation);
    const patched = await call<Obj>(c, `${path}/status`, { method: 'PATCH', contentType: 'application/merge-patch+json', body: { status: { readyReplicas: 5 } } });
    expect(patched.body.status).toMatchObject({ replicas: 99, readyReplicas: 5 });
  });

  it('deletes with finalizers by setting deletionTimestamp; removing the last finalizer deletes', async () => {
    await call(c, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: 'fin', finalizers: ['example.com/keep'] } } });
    const del = await call<Obj>(c, '/api/v1/namespaces/default/configmaps/fin', { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(del.body.metadata.deletionTimestamp).toBeTruthy();
    expect((await call(c, '/api/v1/namespaces/default/configmaps/fin')).status).toBe(200);
    const more = await call(c, '/api/v1/namespaces/default/configmaps/fin', { method: 'PATCH', contentType: 'application/merge-patch+json', body: { metadata: { finalizers: ['example.com/keep', 'another'] } } });
    expect(more.status).toBe(422);
    await call(c, '/api/v1/namespaces/default/configmaps/fin', { method: 'PATCH', contentType: 'application/merge-patch+json', body: { metadata: { finalizers: null } } });
    expect((await call(c, '/api/v1/namespaces/default/configmaps/fin')).status).toBe(404);
    expect((await call(c, '/api/v1/namespaces/default/configmaps/fin', { method: 'DELETE' })).status).toBe(404);
  });

  it('deletes a pod on a node gracefully through the module API: marked, kept through status writes, gone at a delete of 0', () => {
    const pod = c.snapshot('pods').find((p) => (p.spec as { nodeName?: string }).nodeName && !p.metadata.finalizers)!;
    const ns = pod.metadata.namespace;
    const name = pod.metadata.name!;
    const marked = c.store.delete('pods', ns, name, { gracePeriodSeconds: 30 });
    expect(marked.metadata.deletionGracePeriodSeconds).toBe(30);
    expect(Date.parse(marked.metadata.deletionTimestamp!) - Date.now()).toBeGreaterThan(28_000);
    // Marked once: a second graceful delete changes nothing; a status write keeps it.
    expect(c.store.delete('pods', ns, name, { gracePeriodSeconds: 30 }).metadata.resourceVersion).toBe(marked.metadata.resourceVersion);
    c.store.updateStatus('pods', { ...marked, status: { ...(marked.status as object), phase: 'Running' } });
    expect(c.store.get('pods', ns, name)?.metadata.deletionTimestamp).toBe(marked.metadata.deletionTimestamp);
    c.store.delete('pods', ns, name);
    expect(c.store.get('pods', ns, name)).toBeUndefined();
  });

  it('DELETE of a pod on a node marks it (the grace period asked, its own, or 30 s); its kubelet then stops it and removes it', async () => {
    const onNode = c.snapshot('pods').filter((p) => (p.spec as { nodeName?: string }).nodeName && !p.metadata.finalizers && (p.status as { phase?: string }).phase === 'Running');
    const [a, b, d] = onNode;
    const path = (p: SimObject): string => `/api/v1/namespaces/${p.metadata.namespace}/pods/${p.metadata.name}`;
    const w = await openWatch(c, `/api/v1/pods?watch=true&resourceVersion=${c.revision}`);
    try {
      const marked = await call<Obj & { metadata: { deletionGracePeriodSeconds?: number } }>(c, path(a!), { method: 'DELETE' });
      expect(marked.status).toBe(200);
      expect(marked.body.metadata.deletionGracePeriodSeconds).toBe((a!.spec as { terminationGracePeriodSeconds?: number }).terminationGracePeriodSeconds ?? 30);
      expect(Date.parse(marked.body.metadata.deletionTimestamp!)).toBeGreaterThan(Date.now() + 20_000);
      // Still there, Terminating: a get shows the mark.
      expect((await call<Obj>(c, path(a!))).body.metadata.deletionTimestamp).toBe(marked.body.metadata.deletionTimestamp);
      // Asked in DeleteOptions: the grace it gives.
      expect((await call<Obj & { metadata: { deletionGracePeriodSeconds?: number } }>(c, path(b!), { method: 'DELETE', body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 5 } })).body.metadata.deletionGracePeriodSeconds).toBe(5);
      // --grace-period=0 --force: gone at once.
      expect((await call(c, `${path(d!)}?gracePeriodSeconds=0`, { method: 'DELETE' })).status).toBe(200);
      expect((await call(c, path(d!))).status).toBe(404);
      expect((await call<{ code: number; message: string }>(c, `${path(onNode[3]!)}?gracePeriodSeconds=soon`, { method: 'DELETE' })).body).toMatchObject({ code: 400, message: 'gracePeriodSeconds: Invalid value: "soon": must be an integer' });
      // About a second later each kubelet has written its pod's last status (not ready, terminated) and removed it.
      const events = await w.until((e) => e.type === 'DELETED' && e.object.metadata.name === a!.metadata.name, 5000);
      const ofA = events.filter((e) => e.object.metadata.name === a!.metadata.name).map((e) => e.type);
      expect(ofA).toEqual(['MODIFIED', 'MODIFIED', 'DELETED']);
      const last = events.filter((e) => e.object.metadata.name === a!.metadata.name)[1]!.object;
      const states = ((last.status as { containerStatuses: { ready: boolean; state: Record<string, unknown> }[] }).containerStatuses);
      expect(states.every((s) => !s.ready && 'terminated' in s.state)).toBe(true);
      await w.until((e) => e.type === 'DELETED' && e.object.metadata.name === b!.metadata.name, 5000);
      expect((await call(c, path(b!))).status).toBe(404);
    } finally {
      w.close();
    }
  });

  it('garbage-collects dependents: deleting a Deployment removes its ReplicaSets and their pods', async () => {
    const d = c.store.list('deployments.apps').find((x) => x.metadata.namespace !== 'kube-system');
    const ns = d?.metadata.namespace ?? '';
    const podsBefore = c.store.list('pods', ns).filter((p) => p.metadata.labels?.app === d?.metadata.labels?.app).length;
    expect(podsBefore).toBeGreaterThan(0);
    await call(c, `/apis/apps/v1/namespaces/${ns}/deployments/${d?.metadata.name}`, { method: 'DELETE' });
    expect(c.store.list('replicasets.apps', ns).some((rs) => rs.metadata.ownerReferences?.[0]?.uid === d?.metadata.uid)).toBe(false);
    expect(c.store.list('pods', ns).filter((p) => p.metadata.labels?.app === d?.metadata.labels?.app)).toHaveLength(0);
  });

  it('deletes a namespace with its contents; deletecollection honours selectors', async () => {
    const ns = c.store.list('namespaces').find((n) => !['default', 'kube-system', 'kube-public', 'kube-node-lease'].includes(n.metadata.name ?? ''))?.metadata.name ?? '';
    expect(c.store.list('pods', ns).length).toBeGreaterThan(0);
    await call(c, `/api/v1/namespaces/${ns}`, { method: 'DELETE' });
    expect((await call(c, `/api/v1/namespaces/${ns}`)).status).toBe(404);
    expect(c.store.list('pods', ns)).toHaveLength(0);
    for (const name of ['a', 'b']) await call(c, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name, labels: { batch: 'x' } } } });
    const dc = await call<ListBody>(c, '/api/v1/namespaces/default/configmaps?labelSelector=batch%3Dx', { method: 'DELETE' });
    expect(dc.body.items.map((i) => i.metadata.name)).toEqual(['a', 'b']);
    expect(c.store.list('configmaps', 'default').some((m) => m.metadata.labels?.batch === 'x')).toBe(false);
  });
});

describe('controllers and kubelets answer a pod deleted over HTTP', () => {
  type Pod = SimObject & { spec: { nodeName?: string }; status: { phase?: string; conditions?: Array<{ type: string; status: string }>; containerStatuses?: Array<{ ready: boolean; state: Record<string, unknown> }> } };
  const pods = (): Pod[] => c.snapshot('pods') as Pod[];
  const controllers = (): SimObject[] => ['replicasets.apps', 'statefulsets.apps', 'daemonsets.apps', 'deployments.apps'].flatMap((gr) => c.snapshot(gr));
  const podPath = (p: SimObject): string => `/api/v1/namespaces/${p.metadata.namespace}/pods/${p.metadata.name}`;
  const ownerUid = (p: SimObject): string | undefined => p.metadata.ownerReferences?.[0]?.uid;
  const ready = (p: Pod): boolean => (p.status.conditions ?? []).some((x) => x.type === 'Ready' && x.status === 'True');
  /** A running, ready pod on a node owned by a `kind`. */
  const victimOf = (kind: string): Pod => {
    const found = pods().find((p) => p.metadata.ownerReferences?.[0]?.kind === kind && p.spec.nodeName && !p.metadata.finalizers && !p.metadata.deletionTimestamp && ready(p));
    if (!found) throw new Error(`no ready pod of a ${kind} in the simulated cluster`);
    return found;
  };
  const siblings = (uid: string | undefined): Pod[] => pods().filter((p) => ownerUid(p) === uid && !p.metadata.deletionTimestamp);
  const counted = (rs: { name: string }, ns: string | undefined): number[] => {
    const status = (c.store.get('replicasets.apps', ns, rs.name)?.status ?? {}) as { replicas?: number; readyReplicas?: number };
    return [status.replicas ?? 0, status.readyReplicas ?? 0];
  };
  const reasonsAbout = (name: string): string[] => c.snapshot('events').filter((e) => (e.involvedObject as { name?: string }).name === name).map((e) => String(e.reason));

  it('a ReplicaSet makes a new pod at once, its kubelet starts it, and every count comes back', async () => {
    expect(controllerCountProblems(pods(), controllers())).toEqual([]);
    const victim = victimOf('ReplicaSet');
    const rs = victim.metadata.ownerReferences![0]!;
    const before = siblings(rs.uid).map((p) => p.metadata.name);
    expect((await call(c, podPath(victim), { method: 'DELETE' })).status).toBe(200);
    // At once: the victim is Terminating and no longer counted; a pod of the same ReplicaSet takes its place, Pending.
    const made = siblings(rs.uid).filter((p) => !before.includes(p.metadata.name));
    expect(made).toHaveLength(1);
    expect(made[0]!.metadata.name).toMatch(new RegExp(`^${rs.name}-[a-z0-9]{5}$`));
    expect(made[0]!.metadata.uid).not.toBe(victim.metadata.uid);
    expect(made[0]!.status.phase).toBe('Pending');
    expect(made[0]!.spec.nodeName).toBeTruthy();
    expect(siblings(rs.uid)).toHaveLength(before.length);
    expect(controllerCountProblems(pods(), controllers())).toEqual([]);
    expect(counted(rs, victim.metadata.namespace)).toEqual([before.length, before.length - 1]);
    expect(reasonsAbout(victim.metadata.name!)).toContain('Killing');
    expect(c.snapshot('events').some((e) => e.reason === 'SuccessfulCreate' && String(e.message).includes(made[0]!.metadata.name!))).toBe(true);
    // A moment later: the victim is gone, the new pod runs, ready, and the ReplicaSet and its Deployment say so.
    await vi.waitFor(() => {
      expect(c.store.get('pods', victim.metadata.namespace, victim.metadata.name!)).toBeUndefined();
      expect(ready(c.store.get('pods', victim.metadata.namespace, made[0]!.metadata.name!) as Pod)).toBe(true);
    }, { timeout: 8000, interval: 100 });
    expect(reasonsAbout(made[0]!.metadata.name!)).toEqual(expect.arrayContaining(['Scheduled', 'Started']));
    expect(controllerCountProblems(pods(), controllers())).toEqual([]);
    expect(counted(rs, victim.metadata.namespace)).toEqual([before.length, before.length]);
  });

  it('a StatefulSet makes the same name again once the old pod is gone; a DaemonSet a new one at once', async () => {
    const sts = victimOf('StatefulSet');
    const ds = victimOf('DaemonSet');
    const dsBefore = siblings(ownerUid(ds)).map((p) => p.metadata.name);
    const stsBefore = siblings(ownerUid(sts)).map((p) => p.metadata.name);
    const w = await openWatch(c, `/api/v1/namespaces/${sts.metadata.namespace}/pods?watch=true&resourceVersion=${c.revision}&fieldSelector=metadata.name%3D${sts.metadata.name}`);
    try {
      await call(c, podPath(sts), { method: 'DELETE' });
      await call(c, podPath(ds), { method: 'DELETE' });
      // The StatefulSet waits for the name: nothing new yet.
      expect(siblings(ownerUid(sts)).map((p) => p.metadata.name)).toEqual(stsBefore.filter((n) => n !== sts.metadata.name));
      expect(c.store.get('pods', sts.metadata.namespace, sts.metadata.name!)?.metadata.uid).toBe(sts.metadata.uid);
      const dsMade = siblings(ownerUid(ds)).filter((p) => !dsBefore.includes(p.metadata.name));
      expect(dsMade.map((p) => p.metadata.name)).toEqual([expect.stringMatching(new RegExp(`^${ds.metadata.ownerReferences![0]!.name}-[a-z0-9]{5}$`))]);
      const events = await w.until((e) => e.type === 'MODIFIED' && e.object.metadata.uid !== sts.metadata.uid && (e.object as Pod).status.phase === 'Running', 8000);
      // Marked, stopped, removed; then made again under its name, with a new uid, and started.
      expect(events.map((e) => `${e.type} ${e.object.metadata.uid === sts.metadata.uid ? 'old' : 'new'}`)).toEqual(['MODIFIED old', 'MODIFIED old', 'DELETED old', 'ADDED new', 'MODIFIED new']);
      await vi.waitFor(() => expect(controllerCountProblems(pods(), controllers())).toEqual([]), { timeout: 5000, interval: 100 });
    } finally {
      w.close();
    }
  });

  it('a pod whose owner is gone, or a Job\'s, is not replaced; a collection delete is graceful and answered pod by pod', async () => {
    const victim = victimOf('StatefulSet');
    await call(c, `/apis/apps/v1/namespaces/${victim.metadata.namespace}/statefulsets/${victim.metadata.ownerReferences![0]!.name}?propagationPolicy=Orphan`, { method: 'DELETE' });
    const count = pods().length;
    await call(c, `${podPath(victim)}?gracePeriodSeconds=0`, { method: 'DELETE' });
    expect(pods()).toHaveLength(count - 1);
    const job = pods().find((p) => p.metadata.ownerReferences?.[0]?.kind === 'Job');
    expect(job).toBeDefined();
    await call(c, `${podPath(job!)}?gracePeriodSeconds=0`, { method: 'DELETE' });
    expect(pods()).toHaveLength(count - 2);
    // kubectl delete pods -l …: each marked with its grace period, each replaced by its controller.
    const other = victimOf('ReplicaSet');
    const selector = Object.entries(other.metadata.labels ?? {}).filter(([k]) => k !== 'pod-template-hash').map(([k, v]) => `${k}=${v}`).join(',');
    const chosen = pods().filter((p) => Object.entries(other.metadata.labels ?? {}).every(([k, v]) => k === 'pod-template-hash' || p.metadata.labels?.[k] === v));
    const res = await call<ListBody>(c, `/api/v1/namespaces/${other.metadata.namespace}/pods?labelSelector=${encodeURIComponent(selector)}`, { method: 'DELETE' });
    expect(res.body.items.map((i) => i.metadata.name).sort()).toEqual(chosen.map((p) => p.metadata.name).sort());
    const onNode = chosen.filter((p) => p.spec.nodeName);
    for (const p of onNode) expect(c.store.get('pods', p.metadata.namespace, p.metadata.name!)?.metadata.deletionTimestamp).toBeTruthy();
    expect(siblings(ownerUid(other)).filter((p) => !chosen.some((x) => x.metadata.name === p.metadata.name))).toHaveLength(chosen.length);
    await vi.waitFor(() => {
      for (const p of onNode) expect(c.store.get('pods', p.metadata.namespace, p.metadata.name!)).toBeUndefined();
      expect(controllerCountProblems(pods(), controllers())).toEqual([]);
      expect(siblings(ownerUid(other)).every(ready)).toBe(true);
    }, { timeout: 8000, interval: 100 });
  });
});

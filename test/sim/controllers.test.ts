// The workload controllers' answers to kubectl on a simulated member: scale (the scale subresource), rollout restart,
// set image, rollout undo; pods made, started and deleted, every status recounted.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSimulatedCluster, type SimCluster, type SimObject } from '../../src/sim/index.js';
import { Kubectl } from '../support/kubectl.js';
import { call, controllerCountProblems } from './helpers.js';

let c: SimCluster;
let kubectl: Kubectl;
beforeAll(async () => {
  c = await startSimulatedCluster({ pods: 60, seed: 5, token: null });
  // Kubelets twice as quick as the real ones' 1 s to stop and 2 s to start: the rollouts here take many such steps.
  c.churn.kubelets.stopMs = 500;
  c.churn.kubelets.startMs = 1_000;
  kubectl = new Kubectl(c.url);
});
afterAll(async () => {
  kubectl?.dispose();
  await c?.stop();
});

type Pod = SimObject & { spec: { nodeName?: string; containers: Array<{ name: string; image: string }> }; status: { phase?: string; conditions?: Array<{ type: string; status: string }>; containerStatuses?: Array<{ name: string; image: string; imageID: string; ready: boolean }> } };
const controllers = (): SimObject[] => ['replicasets.apps', 'statefulsets.apps', 'daemonsets.apps', 'deployments.apps'].flatMap((gr) => c.snapshot(gr));
const ready = (p: SimObject): boolean => ((p.status as Pod['status']).conditions ?? []).some((x) => x.type === 'Ready' && x.status === 'True');
const podsOf = (uid: string | undefined): Pod[] => (c.snapshot('pods') as Pod[]).filter((p) => p.metadata.ownerReferences?.[0]?.uid === uid);
const setsOf = (d: SimObject): SimObject[] => c.snapshot('replicasets.apps').filter((rs) => rs.metadata.ownerReferences?.[0]?.uid === d.metadata.uid);
const revision = (o: SimObject | undefined): string | undefined => o?.metadata.annotations?.['deployment.kubernetes.io/revision'];
const replicas = (o: SimObject): number => Number((o.spec as { replicas?: number }).replicas ?? 0);
/** Deployments of at least two replicas whose pods all run and are ready (a pod is made like its siblings). */
const healthy = (): SimObject[] => c.snapshot('deployments.apps').filter((x) => x.metadata.namespace !== 'kube-system' && replicas(x) >= 2 && setsOf(x).every((rs) => podsOf(rs.metadata.uid).every(ready)));

async function ok(args: string[]): Promise<string> {
  const r = await kubectl.run(args);
  expect(r.code, `kubectl ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r.stdout;
}

/** `kubectl apply -f` of `yaml`: what kubectl printed. */
async function apply(yaml: string): Promise<string> {
  const r = await kubectl.apply(yaml);
  expect(r.code, `kubectl apply: ${r.stderr}`).toBe(0);
  return r.stdout;
}

/** Waits until the pods of `uid` are `n`, none being deleted, each running and ready, and every count agrees. */
async function settled(uid: string | undefined, n: number): Promise<Pod[]> {
  await vi.waitFor(() => {
    const pods = podsOf(uid);
    expect(pods).toHaveLength(n);
    expect(pods.filter((p) => p.metadata.deletionTimestamp || p.status.phase !== 'Running' || !ready(p)).map((p) => `${p.metadata.name} ${p.status.phase} ${JSON.stringify(p.status.containerStatuses?.map((s) => s.ready))}`)).toEqual([]);
    expect(controllerCountProblems(c.snapshot('pods'), controllers())).toEqual([]);
  }, { timeout: 30_000, interval: 100 });
  return podsOf(uid);
}

describe('the scale subresource', () => {
  it('is listed in discovery as autoscaling/v1 Scale, reads and writes spec.replicas, and refuses what kube refuses', async () => {
    const apps = await call<{ resources: Array<{ name: string; group?: string; version?: string; kind: string; verbs: string[] }> }>(c, '/apis/apps/v1');
    expect(apps.body.resources.find((r) => r.name === 'deployments/scale')).toMatchObject({ group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
    const core = await call<{ resources: Array<{ name: string }> }>(c, '/api/v1');
    const podSubs = core.body.resources.map((r) => r.name).filter((n) => n.startsWith('pods/'));
    expect(podSubs).toEqual(['pods/attach', 'pods/eviction', 'pods/exec', 'pods/log', 'pods/portforward', 'pods/proxy', 'pods/status']);
    const d = c.snapshot('deployments.apps').find((x) => x.metadata.namespace !== 'kube-system')!;
    const path = `/apis/apps/v1/namespaces/${d.metadata.namespace}/deployments/${d.metadata.name}/scale`;
    const scale = await call<Record<string, unknown>>(c, path);
    const labels = (d.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
    expect(scale.body).toEqual({
      kind: 'Scale', apiVersion: 'autoscaling/v1',
      metadata: { name: d.metadata.name, namespace: d.metadata.namespace, uid: d.metadata.uid, resourceVersion: d.metadata.resourceVersion, creationTimestamp: d.metadata.creationTimestamp },
      spec: { replicas: replicas(d) }, status: { replicas: (d.status as { replicas: number }).replicas, selector: Object.keys(labels).sort().map((k) => `${k}=${labels[k]}`).join(',') },
    });
    const refused = await call<{ code: number; message: string }>(c, path, { method: 'PATCH', contentType: 'application/merge-patch+json', body: { spec: { replicas: -1 } } });
    expect(refused.body).toMatchObject({ code: 422, message: `Scale.autoscaling "${d.metadata.name}" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0` });
    const stale = await call<{ code: number }>(c, path, { method: 'PUT', body: { metadata: { name: d.metadata.name, resourceVersion: '1' }, spec: { replicas: 2 } } });
    expect(stale.body.code).toBe(409);
    expect((await call(c, `/apis/apps/v1/namespaces/${d.metadata.namespace}/deployments/nope/scale`)).status).toBe(404);
    expect((await call(c, `/apis/apps/v1/namespaces/${d.metadata.namespace}/daemonsets/x/scale`)).status).toBe(404);
  });
});

describe('kubectl on a member, answered by its controllers', () => {
  it('scale: a Deployment up and down, to none and back from its template; a StatefulSet by its ordinals', async () => {
    const d = healthy()[0]!;
    const ns = d.metadata.namespace!;
    const rs = setsOf(d).find((x) => replicas(x) > 0)!;
    await ok(['scale', 'deployment', d.metadata.name!, '-n', ns, '--replicas=5']);
    expect(replicas(c.store.get('replicasets.apps', ns, rs.metadata.name!)!)).toBe(5);
    expect(c.snapshot('events').some((e) => e.reason === 'ScalingReplicaSet' && e.message === `Scaled up replica set ${rs.metadata.name} from ${replicas(rs)} to 5`)).toBe(true);
    await settled(rs.metadata.uid, 5);
    expect(c.store.get('deployments.apps', ns, d.metadata.name!)?.status).toMatchObject({ replicas: 5, readyReplicas: 5, observedGeneration: c.store.get('deployments.apps', ns, d.metadata.name!)?.metadata.generation });
    await ok(['scale', 'deployment', d.metadata.name!, '-n', ns, '--replicas=0']);
    await vi.waitFor(() => expect(podsOf(rs.metadata.uid)).toEqual([]), { timeout: 10_000, interval: 100 });
    // Back from none: pods made from the ReplicaSet's template, placed on a worker, started by their kubelet.
    await ok(['scale', 'deployment', d.metadata.name!, '-n', ns, '--replicas=2']);
    const fresh = await settled(rs.metadata.uid, 2);
    const template = (rs.spec as { template: { spec: { containers: Array<{ name: string; image: string }> } } }).template.spec.containers;
    for (const p of fresh) {
      expect(p.metadata.name).toMatch(new RegExp(`^${rs.metadata.name}-[a-z0-9]{5}$`));
      expect(p.spec.containers.map((x) => [x.name, x.image])).toEqual(template.map((x) => [x.name, x.image]));
      expect(p.status.containerStatuses?.map((s) => [s.name, s.image, s.ready])).toEqual(template.map((x) => [x.name, x.image, true]));
      expect(p.status.containerStatuses?.every((s) => s.imageID.includes('@sha256:'))).toBe(true);
      expect(c.store.get('nodes', undefined, p.spec.nodeName!)).toBeDefined();
    }
    const out = await ok(['get', 'deployment', d.metadata.name!, '-n', ns, '--no-headers']);
    expect(out.split(/\s+/).slice(1, 4)).toEqual(['2/2', '2', '2']);

    // One whose pods all run: a pod is made like its siblings, and one no node could take makes another such.
    const sts = c.snapshot('statefulsets.apps').find((x) => replicas(x) >= 1 && podsOf(x.metadata.uid).every(ready))!;
    const stsNs = sts.metadata.namespace!;
    // OrderedReady, the default: pods come one at a time, each once the ones before it are ready, and go highest first.
    const made: string[] = [];
    const gone: string[] = [];
    let mostDown = 0;
    let seen = new Set(podsOf(sts.metadata.uid).map((p) => p.metadata.name!));
    const unwatch = c.store.onChange(() => {
      const pods = podsOf(sts.metadata.uid);
      const now = new Set(pods.map((p) => p.metadata.name!));
      for (const n of now) if (!seen.has(n)) made.push(n);
      for (const n of seen) if (!now.has(n)) gone.push(n);
      seen = now;
      mostDown = Math.max(mostDown, pods.filter((p) => p.metadata.deletionTimestamp || !ready(p)).length);
    });
    await ok(['scale', 'statefulset', sts.metadata.name!, '-n', stsNs, `--replicas=${replicas(sts) + 2}`]);
    const grown = await settled(sts.metadata.uid, replicas(sts) + 2);
    expect(grown.map((p) => p.metadata.name).sort()).toEqual(Array.from({ length: replicas(sts) + 2 }, (_, i) => `${sts.metadata.name}-${i}`).sort());
    const last = grown.find((p) => p.metadata.name === `${sts.metadata.name}-${replicas(sts) + 1}`)!;
    expect(last.metadata.labels).toMatchObject({ 'apps.kubernetes.io/pod-index': String(replicas(sts) + 1), 'statefulset.kubernetes.io/pod-name': last.metadata.name });
    await ok(['scale', 'statefulset', sts.metadata.name!, '-n', stsNs, '--replicas=1']);
    await vi.waitFor(() => expect(podsOf(sts.metadata.uid).map((p) => p.metadata.name)).toEqual([`${sts.metadata.name}-0`]), { timeout: 20_000, interval: 100 });
    await settled(sts.metadata.uid, 1);
    unwatch();
    expect(made).toEqual([`${sts.metadata.name}-${replicas(sts)}`, `${sts.metadata.name}-${replicas(sts) + 1}`]);
    expect(gone).toEqual(Array.from({ length: replicas(sts) + 1 }, (_, i) => `${sts.metadata.name}-${replicas(sts) + 1 - i}`));
    expect(mostDown).toBe(1);
  });

  it('kubectl apply -f of a Deployment and a DaemonSet, and kubectl run: defaulted as kube does, scheduled, started', async () => {
    const applied = await apply([
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: nginx, image: "nginx:1.27", ports: [{containerPort: 80}]}]\n',
      // A field no served object has: kubectl must leave validation to the server (the PATCH's fieldValidation).
      'apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent, namespace: default}\nspec:\n  selector: {matchLabels: {app: agent}}\n  template:\n    metadata: {labels: {app: agent}}\n    spec:\n      tolerations: [{key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}]\n      containers: [{name: agent, image: agent}]\n',
    ].join('---\n'));
    expect(applied.trim().split('\n')).toEqual(['deployment.apps/web created', 'daemonset.apps/agent created']);
    await ok(['run', 'solo', '-n', 'default', '--image=busybox:1.36', '--', 'sleep', '3600']);
    const web = c.store.get('deployments.apps', 'default', 'web')!;
    expect(web.spec).toMatchObject({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } }, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 });
    expect((web.spec as { template: { spec: Record<string, unknown> } }).template.spec).toMatchObject({
      restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler', securityContext: {},
      containers: [{ name: 'nginx', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', ports: [{ containerPort: 80, protocol: 'TCP' }], resources: {} }],
    });
    const [rs] = setsOf(web);
    expect(rs).toBeDefined();
    expect(rs!.metadata.name).toMatch(/^web-[a-z0-9]{9,10}$/);
    await settled(rs!.metadata.uid, 3);
    expect((await ok(['rollout', 'status', 'deployment/web', '-n', 'default', '--timeout=10s'])).trim()).toBe('deployment "web" successfully rolled out');
    // The DaemonSet on every node (it tolerates the control plane), the bare pod on a worker; each started.
    const agent = c.store.get('daemonsets.apps', 'default', 'agent')!;
    const agents = await settled(agent.metadata.uid, c.snapshot('nodes').length);
    expect(new Set(agents.map((p) => p.spec.nodeName))).toEqual(new Set(c.snapshot('nodes').map((n) => n.metadata.name)));
    expect(agents[0]!.spec.containers[0]).toMatchObject({ image: 'agent', imagePullPolicy: 'Always' });
    await vi.waitFor(() => {
      const solo = c.store.get('pods', 'default', 'solo') as Pod;
      expect([solo.status.phase, ready(solo), solo.spec.nodeName !== undefined]).toEqual(['Running', true, true]);
      expect((solo.spec as unknown as Record<string, unknown>).serviceAccountName).toBe('default');
    }, { timeout: 10_000, interval: 100 });
    expect(c.snapshot('events').some((e) => e.reason === 'Scheduled' && (e.involvedObject as { name: string }).name === 'solo')).toBe(true);
    // kubectl create sends protobuf (test/sim/protobuf.test.ts): defaulted and run the same.
    await ok(['create', 'deployment', 'proto', '-n', 'default', '--image=nginx']);
    const proto = c.store.get('deployments.apps', 'default', 'proto')!;
    expect(proto.spec).toMatchObject({ replicas: 1, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } }, template: { spec: { dnsPolicy: 'ClusterFirst' } } });
    await settled(setsOf(proto)[0]?.metadata.uid, 1);
  });

  it('rollout restart, set image and rollout undo: a new ReplicaSet each, the old one back on undo, as rollout history shows', async () => {
    const d = healthy()[1]!;
    const ns = d.metadata.namespace!;
    const name = d.metadata.name!;
    const n = replicas(d);
    const before = setsOf(d).map((x) => x.metadata.name);
    const old = setsOf(d).find((x) => replicas(x) > 0)!;
    // Through the rollout, after each change: the ReplicaSets' replicas in all, and the ready pods not being deleted.
    let most = 0;
    let fewest = Infinity;
    const unwatch = c.store.onChange(() => {
      const sets = setsOf(d);
      most = Math.max(most, sets.reduce((k, rs) => k + replicas(rs), 0));
      fewest = Math.min(fewest, sets.flatMap((rs) => podsOf(rs.metadata.uid)).filter((p) => !p.metadata.deletionTimestamp && ready(p)).length);
    });
    await ok(['rollout', 'restart', `deployment/${name}`, '-n', ns]);
    const restarted = setsOf(d).find((x) => !before.includes(x.metadata.name))!;
    expect(restarted).toBeDefined();
    const watched = await ok(['rollout', 'status', `deployment/${name}`, '-n', ns, '--timeout=60s']);
    // Each state kubectl saw on its way, and where it ended.
    for (const line of watched.trim().split('\n').slice(0, -1)) {
      expect(line).toMatch(new RegExp(`^Waiting for deployment "${name}" rollout to finish: \\d+ (out of ${n} new replicas have been updated|old replicas are pending termination|of ${n} updated replicas are available)\\.\\.\\.$`));
    }
    expect(watched.trim().split('\n').at(-1)).toBe(`deployment "${name}" successfully rolled out`);
    await settled(restarted.metadata.uid, n);
    unwatch();
    expect(setsOf(d).filter((x) => x.metadata.uid !== restarted.metadata.uid && replicas(x) > 0)).toEqual([]);
    // Surge by surge (the default 25 %): never more replicas than maxSurge allows, nor fewer ready pods than
    // maxUnavailable does; all at once would have had twice the replicas, or none ready for a moment.
    expect(replicas(c.store.get('replicasets.apps', ns, old.metadata.name!)!)).toBe(0);
    expect(most).toBe(n + Math.ceil(n / 4));
    expect(fewest).toBe(n - Math.floor(n / 4));

    const container = ((d.spec as { template: { spec: { containers: Array<{ name: string }> } } }).template.spec.containers[0]!).name;
    await ok(['set', 'image', `deployment/${name}`, '-n', ns, `${container}=registry.example.com/app:2.0`]);
    const imaged = setsOf(d).find((x) => ![...before, restarted.metadata.name].includes(x.metadata.name))!;
    const pods = await settled(imaged.metadata.uid, n);
    expect(pods.map((p) => p.spec.containers.find((x) => x.name === container)?.image)).toEqual(pods.map(() => 'registry.example.com/app:2.0'));
    expect(revision(c.store.get('deployments.apps', ns, name))).toBe(revision(imaged));

    // Undo: the restarted ReplicaSet's template again, so that ReplicaSet takes every replica, at a new revision.
    const count = setsOf(d).length;
    await ok(['rollout', 'undo', `deployment/${name}`, '-n', ns]);
    expect(setsOf(d)).toHaveLength(count);
    const back = c.store.get('replicasets.apps', ns, restarted.metadata.name!)!;
    expect(Number(revision(back))).toBe(Number(revision(imaged)) + 1);
    await settled(back.metadata.uid, n);
    expect(replicas(c.store.get('replicasets.apps', ns, restarted.metadata.name!)!)).toBe(n);
    const history = await ok(['rollout', 'history', `deployment/${name}`, '-n', ns]);
    expect(history).not.toMatch(new RegExp(`^${revision(restarted)}\\s`, 'm'));
    expect(history).toMatch(new RegExp(`^${revision(back)}\\s`, 'm'));
    // Paused, a new template waits; resumed, it rolls out.
    await ok(['rollout', 'pause', `deployment/${name}`, '-n', ns]);
    await ok(['set', 'image', `deployment/${name}`, '-n', ns, `${container}=registry.example.com/app:3.0`]);
    expect(setsOf(d)).toHaveLength(count);
    await ok(['rollout', 'resume', `deployment/${name}`, '-n', ns]);
    expect(setsOf(d)).toHaveLength(count + 1);
    await settled(setsOf(d).sort((a, b) => Number(revision(b)) - Number(revision(a)))[0]?.metadata.uid, n);
    // Applying the Deployment as it is changes nothing: no rollout.
    const r = await ok(['get', 'deployment', name, '-n', ns, '-o', 'json']);
    const revisionBefore = revision(c.store.get('deployments.apps', ns, name));
    await call(c, `/apis/apps/v1/namespaces/${ns}/deployments/${name}`, { method: 'PUT', body: JSON.parse(r) });
    expect(setsOf(d)).toHaveLength(count + 1);
    expect(revision(c.store.get('deployments.apps', ns, name))).toBe(revisionBefore);
  });
});

describe('a Recreate Deployment', () => {
  it('a new template: every old pod is gone before the first new one is made', async () => {
    const yaml = (image: string): string => `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: singleton, namespace: default}\nspec:\n  replicas: 3\n  strategy: {type: Recreate}\n  selector: {matchLabels: {app: singleton}}\n  template:\n    metadata: {labels: {app: singleton}}\n    spec:\n      containers: [{name: app, image: "${image}"}]\n`;
    await apply(yaml('app:1'));
    const d = c.store.get('deployments.apps', 'default', 'singleton')!;
    const [first] = setsOf(d);
    await settled(first!.metadata.uid, 3);
    // After each change: whether pods of the old and the new ReplicaSet were there at once (being deleted counts).
    let overlapped = false;
    const unwatch = c.store.onChange(() => {
      const sets = setsOf(d);
      const withPods = sets.filter((rs) => podsOf(rs.metadata.uid).length > 0);
      if (withPods.length > 1) overlapped = true;
    });
    try {
      await apply(yaml('app:2'));
      const watched = await ok(['rollout', 'status', 'deployment/singleton', '-n', 'default', '--timeout=60s']);
      expect(watched.trim().split('\n').at(-1)).toBe('deployment "singleton" successfully rolled out');
    } finally {
      unwatch();
    }
    expect(overlapped).toBe(false);
    const next = setsOf(d).find((rs) => rs.metadata.uid !== first!.metadata.uid)!;
    const pods = await settled(next.metadata.uid, 3);
    expect(pods.map((p) => p.spec.containers[0]!.image)).toEqual(['app:2', 'app:2', 'app:2']);
    expect(replicas(c.store.get('replicasets.apps', 'default', first!.metadata.name!)!)).toBe(0);
    await ok(['delete', 'deployment', 'singleton', '-n', 'default']);
  });
});

describe('the StatefulSet controller', () => {
  type Sts = SimObject & { spec: { replicas: number; updateStrategy: { rollingUpdate?: { partition?: number } } }; status: { currentRevision: string; updateRevision: string; currentReplicas?: number; updatedReplicas?: number } };
  const revisionOf = (p: SimObject): string | undefined => p.metadata.labels?.['controller-revision-hash'];

  it('rollout restart goes pod by pod from the highest ordinal, each made again at the new revision once ready; rollout status follows', async () => {
    const sts = c.snapshot('statefulsets.apps').find((x) => x.metadata.namespace !== 'kube-system' && replicas(x) >= 2 && podsOf(x.metadata.uid).length === replicas(x) && podsOf(x.metadata.uid).every(ready)) as Sts;
    expect(sts, 'a healthy StatefulSet of two replicas or more').toBeDefined();
    const ns = sts.metadata.namespace!;
    const name = sts.metadata.name!;
    const n = replicas(sts);
    const get = (): Sts => c.store.get('statefulsets.apps', ns, name) as Sts;
    // After each change: the pods down (being deleted, missing or not ready), and the order they were deleted in.
    let mostDown = 0;
    const order: string[] = [];
    const unwatch = c.store.onChange(() => {
      const pods = podsOf(sts.metadata.uid);
      mostDown = Math.max(mostDown, n - pods.filter((p) => !p.metadata.deletionTimestamp && ready(p)).length);
      for (const p of pods) if (p.metadata.deletionTimestamp && !order.includes(p.metadata.name!)) order.push(p.metadata.name!);
    });
    try {
      await ok(['rollout', 'restart', `statefulset/${name}`, '-n', ns]);
      const update = get().status.updateRevision;
      expect(update).toMatch(new RegExp(`^${name}-[a-z0-9]{9,10}$`));
      expect(get().status.currentRevision).not.toBe(update);
      const watched = await ok(['rollout', 'status', `statefulset/${name}`, '-n', ns, '--timeout=60s']);
      // kubectl reports a RollingUpdate with a partition (kube defaults it to 0) as a partitioned roll out.
      for (const line of watched.trim().split('\n').slice(0, -1)) {
        expect(line).toMatch(new RegExp(`^(Waiting for 1 pods to be ready|Waiting for partitioned roll out to finish: \\d out of ${n} new pods have been updated)\\.\\.\\.$`));
      }
      expect(watched.trim().split('\n').at(-1)).toBe(`partitioned roll out complete: ${n} new pods have been updated...`);
    } finally {
      unwatch();
    }
    expect(order).toEqual(Array.from({ length: n }, (_, i) => `${name}-${n - 1 - i}`));
    expect(mostDown).toBe(1);
    const pods = await settled(sts.metadata.uid, n);
    expect(pods.map(revisionOf)).toEqual(pods.map(() => get().status.updateRevision));
    expect(get().status).toMatchObject({ currentRevision: get().status.updateRevision, currentReplicas: n, updatedReplicas: n });
    // Made from the new template: the restart's annotation is on every pod.
    expect(pods.filter((p) => (p.metadata.annotations ?? {})['kubectl.kubernetes.io/restartedAt'] === undefined)).toEqual([]);
  });

  it('a partition holds the ordinals below it at the current revision; a pod deleted there is made again at its own', async () => {
    const sts = c.snapshot('statefulsets.apps').find((x) => x.metadata.namespace !== 'kube-system' && replicas(x) >= 3 && podsOf(x.metadata.uid).length === replicas(x) && podsOf(x.metadata.uid).every(ready)) as Sts | undefined
      ?? c.snapshot('statefulsets.apps').find((x) => x.metadata.namespace !== 'kube-system' && replicas(x) >= 2 && podsOf(x.metadata.uid).every(ready)) as Sts;
    const ns = sts.metadata.namespace!;
    const name = sts.metadata.name!;
    const n = replicas(sts);
    const partition = n - 1;
    const get = (): Sts => c.store.get('statefulsets.apps', ns, name) as Sts;
    const current = get().status.currentRevision;
    await ok(['patch', 'statefulset', name, '-n', ns, '-p', JSON.stringify({ spec: { updateStrategy: { rollingUpdate: { partition } } } })]);
    const container = (sts.spec as unknown as { template: { spec: { containers: Array<{ name: string }> } } }).template.spec.containers[0]!.name;
    await ok(['set', 'image', `statefulset/${name}`, '-n', ns, `${container}=registry.example.com/db:2.0`]);
    const watched = await ok(['rollout', 'status', `statefulset/${name}`, '-n', ns, '--timeout=60s']);
    expect(watched.trim().split('\n').at(-1)).toBe(`partitioned roll out complete: 1 new pods have been updated...`);
    const update = get().status.updateRevision;
    const pods = await settled(sts.metadata.uid, n);
    const byOrdinal = (i: number): Pod => pods.find((p) => p.metadata.name === `${name}-${i}`)!;
    expect(revisionOf(byOrdinal(n - 1))).toBe(update);
    expect(byOrdinal(n - 1).spec.containers[0]!.image).toBe('registry.example.com/db:2.0');
    expect(revisionOf(byOrdinal(0))).toBe(current);
    expect(get().status).toMatchObject({ currentRevision: current, updatedReplicas: 1, currentReplicas: n - 1 });
    // Ordinal 0, deleted, comes back at the current revision, with its old image.
    const image = byOrdinal(0).spec.containers[0]!.image;
    await ok(['delete', 'pod', `${name}-0`, '-n', ns, '--wait=false']);
    await vi.waitFor(() => {
      const again = c.store.get('pods', ns, `${name}-0`) as Pod | undefined;
      expect(again && !again.metadata.deletionTimestamp && again.metadata.uid !== byOrdinal(0).metadata.uid).toBe(true);
      expect([revisionOf(again!), again!.spec.containers[0]!.image]).toEqual([current, image]);
    }, { timeout: 10_000, interval: 100 });
  });
  it('each template is a ControllerRevision: rollout history lists them, rollout undo patches the previous one back and renumbers it', async () => {
    const sts = c.snapshot('statefulsets.apps').filter((x) => x.metadata.namespace !== 'kube-system' && podsOf(x.metadata.uid).length === replicas(x) && podsOf(x.metadata.uid).every(ready)).sort((a, b) => replicas(a) - replicas(b))[0] as Sts;
    const ns = sts.metadata.namespace!;
    const name = sts.metadata.name!;
    const get = (): Sts => c.store.get('statefulsets.apps', ns, name) as Sts;
    const first = get().status.currentRevision;
    const revisionsOf = (): Array<[string, number]> => c.snapshot('controllerrevisions.apps').filter((r) => r.metadata.ownerReferences?.some((o) => o.controller && o.uid === sts.metadata.uid)).map((r) => [r.metadata.name!, r.revision as number]);
    expect(revisionsOf()).toEqual([[first, 1]]);
    // Its pods' labels name it; it keeps the template as the patch that restores it, with the StatefulSet's annotations.
    const cr = c.store.get('controllerrevisions.apps', ns, first)!;
    expect(cr.metadata.labels?.['controller.kubernetes.io/hash']).toBe(first.slice(name.length + 1));
    expect((cr.data as { spec: { template: unknown } }).spec.template).toEqual({ ...(get().spec as unknown as { template: object }).template, $patch: 'replace' });
    expect(cr.metadata.annotations).toEqual(sts.metadata.annotations);
    const table = await ok(['get', 'controllerrevisions', '-n', ns, first]);
    expect(table.trim().split('\n').map((l) => l.split(/\s+/).slice(0, 3))).toEqual([['NAME', 'CONTROLLER', 'REVISION'], [first, `statefulset.apps/${name}`, '1']]);
    const container = (sts.spec as unknown as { template: { spec: { containers: Array<{ name: string; image: string }> } } }).template.spec.containers[0]!;
    await ok(['set', 'image', `statefulset/${name}`, '-n', ns, `${container.name}=registry.example.com/history:2`]);
    await ok(['rollout', 'status', `statefulset/${name}`, '-n', ns, '--timeout=60s']);
    const second = get().status.updateRevision;
    expect(revisionsOf()).toEqual(expect.arrayContaining([[first, 1], [second, 2]]));
    const history = (await ok(['rollout', 'history', `statefulset/${name}`, '-n', ns])).trim().split('\n').slice(2).map((l) => l.split(/\s+/)[0]);
    expect(history).toEqual(['1', '2']);
    expect(await ok(['rollout', 'history', `statefulset/${name}`, '-n', ns, '--revision=2'])).toContain('registry.example.com/history:2');
    // Undo: kubectl patches revision 1's data onto the StatefulSet; the controller finds that template's revision, now 3.
    expect((await ok(['rollout', 'undo', `statefulset/${name}`, '-n', ns])).trim()).toBe(`statefulset.apps/${name} rolled back`);
    await ok(['rollout', 'status', `statefulset/${name}`, '-n', ns, '--timeout=60s']);
    expect(get().status).toMatchObject({ currentRevision: first, updateRevision: first });
    expect((get().spec as unknown as typeof sts.spec & { template: { spec: { containers: Array<{ image: string }> } } }).template.spec.containers[0]!.image).toBe(container.image);
    expect(revisionsOf().sort()).toEqual([[first, 3], [second, 2]].sort());
    const pods = await settled(sts.metadata.uid, replicas(sts));
    expect(pods.map(revisionOf)).toEqual(pods.map(() => first));
  });
});

describe('the DaemonSet controller', () => {
  it('rollout restart replaces the pods node by node, never more than maxUnavailable down; rollout status follows', async () => {
    // Two more nodes (this small cluster has one), so that there is a rollout to go node by node.
    const node = (name: string): string => `apiVersion: v1\nkind: Node\nmetadata: {name: ${name}, labels: {kubernetes.io/hostname: ${name}}}\n`;
    await apply(node('extra-node-1') + '---\n' + node('extra-node-2') + '---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: node-agent, namespace: default}\nspec:\n  selector: {matchLabels: {app: node-agent}}\n  template:\n    metadata: {labels: {app: node-agent}}\n    spec:\n      tolerations: [{operator: Exists}]\n      containers: [{name: agent, image: "agent:1"}]\n');
    const ds = c.store.get('daemonsets.apps', 'default', 'node-agent')!;
    const nodes = c.snapshot('nodes').length;
    expect(nodes).toBeGreaterThanOrEqual(3);
    const first = await settled(ds.metadata.uid, nodes);
    const revisionOf = (p: SimObject): string | undefined => p.metadata.labels?.['controller-revision-hash'];
    const before = revisionOf(first[0]!);
    expect(before).toMatch(/^[a-z0-9]{8}$/);
    expect((await ok(['rollout', 'status', 'daemonset/node-agent', '-n', 'default', '--timeout=10s'])).trim()).toBe('daemon set "node-agent" successfully rolled out');
    // After each change: the nodes without an available pod.
    let mostDown = 0;
    const unwatch = c.store.onChange(() => {
      const up = new Set(podsOf(ds.metadata.uid).filter((p) => !p.metadata.deletionTimestamp && ready(p)).map((p) => p.spec.nodeName));
      mostDown = Math.max(mostDown, nodes - up.size);
    });
    try {
      await ok(['rollout', 'restart', 'daemonset/node-agent', '-n', 'default']);
      const watched = await ok(['rollout', 'status', 'daemonset/node-agent', '-n', 'default', '--timeout=60s']);
      for (const line of watched.trim().split('\n').slice(0, -1)) {
        expect(line).toMatch(new RegExp(`^Waiting for daemon set "node-agent" rollout to finish: \\d (out of ${nodes} new pods have been updated|of ${nodes} updated pods are available)\\.\\.\\.$`));
      }
      expect(watched.trim().split('\n').at(-1)).toBe('daemon set "node-agent" successfully rolled out');
    } finally {
      unwatch();
    }
    expect(mostDown).toBe(1);
    const pods = await settled(ds.metadata.uid, nodes);
    expect(new Set(pods.map((p) => p.spec.nodeName)).size).toBe(nodes);
    const after = revisionOf(pods[0]!);
    expect(after).not.toBe(before);
    expect(pods.map(revisionOf)).toEqual(pods.map(() => after));
    expect(pods.filter((p) => (p.metadata.annotations ?? {})['kubectl.kubernetes.io/restartedAt'] === undefined)).toEqual([]);
    expect((c.store.get('daemonsets.apps', 'default', 'node-agent')!.status as Record<string, number>)).toMatchObject({ desiredNumberScheduled: nodes, updatedNumberScheduled: nodes, numberAvailable: nodes });
    await ok(['delete', 'daemonset', 'node-agent', '-n', 'default']);
    await ok(['delete', 'node', 'extra-node-1', 'extra-node-2']);
  });

  it('with maxSurge the new pod starts beside the old one, which goes once it is ready: no node ever without a ready pod', async () => {
    const node = (name: string): string => `apiVersion: v1\nkind: Node\nmetadata: {name: ${name}, labels: {kubernetes.io/hostname: ${name}}}\n`;
    await apply(node('surge-node-1') + '---\n' + node('surge-node-2') + '---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: log-shipper, namespace: default}\nspec:\n  selector: {matchLabels: {app: log-shipper}}\n  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}\n  template:\n    metadata: {labels: {app: log-shipper}}\n    spec:\n      tolerations: [{operator: Exists}]\n      containers: [{name: shipper, image: "shipper:1"}]\n');
    const ds = c.store.get('daemonsets.apps', 'default', 'log-shipper')!;
    const nodes = c.snapshot('nodes').length;
    await settled(ds.metadata.uid, nodes);
    // After each change: the nodes without a ready pod, and those running two (the new one beside the old).
    let mostDown = 0;
    let mostDoubled = 0;
    const unwatch = c.store.onChange(() => {
      const live = podsOf(ds.metadata.uid).filter((p) => !p.metadata.deletionTimestamp);
      mostDown = Math.max(mostDown, nodes - new Set(live.filter(ready).map((p) => p.spec.nodeName)).size);
      const perNode = new Map<string, number>();
      for (const p of live) perNode.set(p.spec.nodeName ?? '', (perNode.get(p.spec.nodeName ?? '') ?? 0) + 1);
      mostDoubled = Math.max(mostDoubled, [...perNode.values()].filter((n) => n > 1).length);
    });
    try {
      await ok(['rollout', 'restart', 'daemonset/log-shipper', '-n', 'default']);
      const watched = await ok(['rollout', 'status', 'daemonset/log-shipper', '-n', 'default', '--timeout=60s']);
      expect(watched.trim().split('\n').at(-1)).toBe('daemon set "log-shipper" successfully rolled out');
    } finally {
      unwatch();
    }
    expect([mostDown, mostDoubled]).toEqual([0, 1]);
    const pods = await settled(ds.metadata.uid, nodes);
    expect(new Set(pods.map((p) => p.spec.nodeName)).size).toBe(nodes);
    expect(new Set(pods.map((p) => p.metadata.labels?.['controller-revision-hash'])).size).toBe(1);
    expect((c.store.get('daemonsets.apps', 'default', 'log-shipper')!.status as Record<string, number>)).toMatchObject({ desiredNumberScheduled: nodes, currentNumberScheduled: nodes, updatedNumberScheduled: nodes, numberAvailable: nodes });
    await ok(['delete', 'daemonset', 'log-shipper', '-n', 'default']);
    await ok(['delete', 'node', 'surge-node-1', 'surge-node-2']);
  });

  it('its ControllerRevisions: the pods\' hash names one; past revisionHistoryLimit the oldest unused go; rollout undo --to-revision; deleted with it', async () => {
    await apply('apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: history-agent, namespace: default}\nspec:\n  revisionHistoryLimit: 1\n  selector: {matchLabels: {app: history-agent}}\n  template:\n    metadata: {labels: {app: history-agent}}\n    spec:\n      tolerations: [{operator: Exists}]\n      containers: [{name: agent, image: "agent:1"}]\n');
    const ds = c.store.get('daemonsets.apps', 'default', 'history-agent')!;
    const nodes = c.snapshot('nodes').length;
    const hashOf = (p: SimObject): string | undefined => p.metadata.labels?.['controller-revision-hash'];
    const revisions = (): Array<[string, number]> => c.snapshot('controllerrevisions.apps').filter((r) => r.metadata.ownerReferences?.some((o) => o.controller && o.uid === ds.metadata.uid)).map((r): [string, number] => [r.metadata.name!, r.revision as number]).sort((a, b) => a[1] - b[1]);
    const hashes = async (): Promise<string[]> => [...new Set((await settled(ds.metadata.uid, nodes)).map((p) => hashOf(p)!))];
    const [h1] = await hashes();
    expect(revisions()).toEqual([[`history-agent-${h1}`, 1]]);
    expect(c.store.get('controllerrevisions.apps', 'default', `history-agent-${h1}`)?.metadata.labels).toEqual({ app: 'history-agent', 'controller-revision-hash': h1 });
    const image = async (tag: string): Promise<string> => {
      await ok(['set', 'image', 'daemonset/history-agent', '-n', 'default', `agent=agent:${tag}`]);
      await ok(['rollout', 'status', 'daemonset/history-agent', '-n', 'default', '--timeout=60s']);
      const [h] = await hashes();
      return h!;
    };
    const h2 = await image('2');
    const h3 = await image('3');
    // One kept besides the one in use: revision 1 is gone.
    expect(revisions()).toEqual([[`history-agent-${h2}`, 2], [`history-agent-${h3}`, 3]]);
    expect((await ok(['rollout', 'history', 'daemonset/history-agent', '-n', 'default'])).trim().split('\n').slice(2).map((l) => l.split(/\s+/)[0])).toEqual(['2', '3']);
    const missing = await kubectl.run(['rollout', 'undo', 'daemonset/history-agent', '-n', 'default', '--to-revision=1']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('unable to find specified revision 1 in history');
    await ok(['rollout', 'undo', 'daemonset/history-agent', '-n', 'default', '--to-revision=2']);
    await ok(['rollout', 'status', 'daemonset/history-agent', '-n', 'default', '--timeout=60s']);
    expect(await hashes()).toEqual([h2]);
    expect(revisions()).toEqual([[`history-agent-${h3}`, 3], [`history-agent-${h2}`, 4]]);
    // The garbage collector takes its revisions with it.
    await ok(['delete', 'daemonset', 'history-agent', '-n', 'default']);
    expect(revisions()).toEqual([]);
    expect(c.snapshot('controllerrevisions.apps').filter((r) => r.metadata.name!.startsWith('history-agent-'))).toEqual([]);
  });
});

describe('orphans', () => {
  it('kubectl delete --cascade=orphan leaves the ReplicaSet and its pods without the owner; applied again, the Deployment adopts them', async () => {
    const yaml = 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: keeper, namespace: default}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: keeper}}\n  template:\n    metadata: {labels: {app: keeper}}\n    spec:\n      containers: [{name: app, image: "nginx:1.27"}]\n';
    await apply(yaml);
    const first = c.store.get('deployments.apps', 'default', 'keeper')!;
    const [rs] = setsOf(first);
    const pods = await settled(rs!.metadata.uid, 2);
    expect((await ok(['delete', 'deployment', 'keeper', '-n', 'default', '--cascade=orphan'])).trim()).toBe('deployment.apps "keeper" deleted');
    // The ReplicaSet stays, no longer owned, and keeps its pods running.
    const left = c.store.get('replicasets.apps', 'default', rs!.metadata.name!)!;
    expect(left.metadata.uid).toBe(rs!.metadata.uid);
    expect(left.metadata.ownerReferences).toBeUndefined();
    expect(podsOf(rs!.metadata.uid).map((p) => p.metadata.uid).sort()).toEqual(pods.map((p) => p.metadata.uid).sort());
    // Applied again: the new Deployment adopts it (same template, so no rollout and no new pod).
    await apply(yaml);
    const again = c.store.get('deployments.apps', 'default', 'keeper')!;
    expect(again.metadata.uid).not.toBe(first.metadata.uid);
    expect(setsOf(again).map((x) => x.metadata.uid)).toEqual([rs!.metadata.uid]);
    expect(c.store.get('replicasets.apps', 'default', rs!.metadata.name!)!.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'keeper', uid: again.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect((await settled(rs!.metadata.uid, 2)).map((p) => p.metadata.uid).sort()).toEqual(pods.map((p) => p.metadata.uid).sort());
    expect((await ok(['rollout', 'status', 'deployment/keeper', '-n', 'default', '--timeout=10s'])).trim()).toBe('deployment "keeper" successfully rolled out');
    // Deleted in the background this time: the ReplicaSet and its pods go with it.
    await ok(['delete', 'deployment', 'keeper', '-n', 'default']);
    expect(c.store.get('replicasets.apps', 'default', rs!.metadata.name!)).toBeUndefined();
  });

  it("a Deployment's ReplicaSet deleted alone is made again under its name, new pods or the orphaned ones adopted; scaled alone, it is set back", async () => {
    await apply('apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: phoenix, namespace: default}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: phoenix}}\n  template:\n    metadata: {labels: {app: phoenix}}\n    spec:\n      containers: [{name: app, image: "nginx:1.27"}]\n');
    const d = c.store.get('deployments.apps', 'default', 'phoenix')!;
    const [first] = setsOf(d);
    const name = first!.metadata.name!;
    const pods = await settled(first!.metadata.uid, 3);
    // Deleted, its pods with it: the Deployment controller makes it again, and it makes new pods.
    await ok(['delete', 'rs', name, '-n', 'default']);
    const second = c.store.get('replicasets.apps', 'default', name)!;
    expect(second.metadata.uid).not.toBe(first!.metadata.uid);
    expect(second.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Deployment', uid: d.metadata.uid, controller: true });
    const renewed = await settled(second.metadata.uid, 3);
    expect(renewed.filter((p) => pods.some((q) => q.metadata.uid === p.metadata.uid))).toEqual([]);
    // Deleted leaving its pods: made again, it takes them instead of making new ones.
    await ok(['delete', 'rs', name, '-n', 'default', '--cascade=orphan']);
    const third = c.store.get('replicasets.apps', 'default', name)!;
    expect(third.metadata.uid).not.toBe(second.metadata.uid);
    expect((await settled(third.metadata.uid, 3)).map((p) => p.metadata.uid).sort()).toEqual(renewed.map((p) => p.metadata.uid).sort());
    // Scaled by hand, it answers to its Deployment: back to 3, the pods it made for a moment gone.
    await ok(['scale', 'rs', name, '-n', 'default', '--replicas=6']);
    expect(replicas(c.store.get('replicasets.apps', 'default', name)!)).toBe(3);
    expect((await settled(third.metadata.uid, 3)).map((p) => p.metadata.uid).sort()).toEqual(renewed.map((p) => p.metadata.uid).sort());
    expect((await ok(['rollout', 'status', 'deployment/phoenix', '-n', 'default', '--timeout=20s'])).trim()).toBe('deployment "phoenix" successfully rolled out');
  });
});

describe('the Job controller', () => {
  type Job = SimObject & { status: { active?: number; succeeded?: number; failed?: number; ready?: number; startTime?: string; completionTime?: string; conditions?: Array<{ type: string; status: string; reason?: string }> } };
  const job = (name: string): Job => c.store.get('jobs.batch', 'default', name) as Job;
  const condition = (name: string, type: string): string | undefined => job(name).status.conditions?.find((x) => x.type === type)?.status;
  const phases = (name: string): string[] => podsOf(job(name).metadata.uid).map((p) => p.status.phase ?? '').sort();
  const reasons = (name: string): string[] => c.snapshot('events').filter((e) => (e.involvedObject as { name: string }).name === name).map((e) => String(e.reason));

  // kube's back-off before a Job replaces a failed pod is 10 s, doubled per failure: here a fifth of a second.
  beforeAll(() => {
    c.churn.batch.podFailureBackoffMs = 200;
  });

  const jobYaml = (name: string, spec: string): string =>
    `apiVersion: batch/v1\nkind: Job\nmetadata: {name: ${name}, namespace: default}\nspec:\n${spec}  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: work, image: "busybox:1.36"}]\n`;

  it('kubectl apply -f of a Job: its parallelism of pods at a time until its completions succeeded, then Complete (kubectl wait)', async () => {
    c.churn.batch.jobRunMs = 1_000;
    c.churn.batch.failureShare = 0;
    await apply(jobYaml('reindex', '  completions: 3\n  parallelism: 2\n'));
    // Two pods at once, each with the Job's generated labels; the Job counts them.
    expect(phases('reindex')).toEqual(['Pending', 'Pending']);
    const uid = job('reindex').metadata.uid!;
    expect(podsOf(uid)[0]!.metadata.labels).toMatchObject({ 'batch.kubernetes.io/controller-uid': uid, 'job-name': 'reindex' });
    expect(job('reindex').status).toMatchObject({ active: 2, ready: 0 });
    expect(job('reindex').status.startTime).toBeDefined();
    expect((await ok(['get', 'job', 'reindex', '-n', 'default', '--no-headers'])).split(/\s+/)).toContain('0/3');
    expect((await ok(['wait', '--for=condition=complete', 'job/reindex', '-n', 'default', '--timeout=30s'])).trim()).toBe('job.batch/reindex condition met');
    // Three pods in all, each run to its end; no more once the completions are reached.
    expect(phases('reindex')).toEqual(['Succeeded', 'Succeeded', 'Succeeded']);
    expect(job('reindex').status).toMatchObject({ succeeded: 3, ready: 0, terminating: 0 });
    expect(job('reindex').status.active).toBeUndefined();
    expect(condition('reindex', 'SuccessCriteriaMet')).toBe('True');
    expect(job('reindex').status.completionTime).toBeDefined();
    expect((await ok(['get', 'job', 'reindex', '-n', 'default', '--no-headers'])).split(/\s+/)).toContain('3/3');
    expect(reasons('reindex').filter((r) => r === 'SuccessfulCreate')).toHaveLength(3);
    expect(reasons('reindex')).toContain('Completed');
  });

  it('a pod deleted before it ends counts as failed and is replaced after the back-off (doubled each time), up to backoffLimit; then the Job Failed, its pods stopped', async () => {
    c.churn.batch.jobRunMs = 60_000;
    await apply(jobYaml('flaky', '  backoffLimit: 2\n'));
    const live = (): Pod[] => podsOf(job('flaky').metadata.uid).filter((p) => !p.metadata.deletionTimestamp);
    let pod = live()[0]!;
    for (const [failed, backoffMs] of [[1, 200], [2, 400]] as const) {
      const deletedAt = Date.now();
      await ok(['delete', 'pod', pod.metadata.name!, '-n', 'default', '--wait=false']);
      // Counted at once; its replacement waits out the back-off.
      expect(job('flaky').status).toMatchObject({ failed });
      expect(job('flaky').status.active).toBeUndefined();
      pod = await vi.waitFor(() => {
        const [next] = live();
        expect(next).toBeDefined();
        return next!;
      }, { timeout: 10_000, interval: 20 });
      expect(Date.now() - deletedAt).toBeGreaterThanOrEqual(backoffMs);
      expect(job('flaky').status).toMatchObject({ failed, active: 1 });
      expect(condition('flaky', 'Failed')).toBeUndefined();
    }
    await ok(['delete', 'pod', pod.metadata.name!, '-n', 'default', '--wait=false']);
    expect(job('flaky').status).toMatchObject({ failed: 3 });
    expect(job('flaky').status.conditions?.find((x) => x.type === 'Failed')).toMatchObject({ status: 'True', reason: 'BackoffLimitExceeded' });
    expect(job('flaky').status.active).toBeUndefined();
    // No other pod; the deleted ones go once their kubelets stopped them.
    await vi.waitFor(() => expect(podsOf(job('flaky').metadata.uid)).toEqual([]), { timeout: 10_000, interval: 100 });
    expect(reasons('flaky')).toContain('BackoffLimitExceeded');
  });

  it('a pod whose container fails: Failed and replaced under restartPolicy Never, up to backoffLimit; restarted in place under OnFailure', async () => {
    c.churn.batch.jobRunMs = 300;
    c.churn.batch.failureShare = 1;
    await apply(jobYaml('doomed', '  backoffLimit: 1\n'));
    await vi.waitFor(() => expect(condition('doomed', 'Failed')).toBe('True'), { timeout: 20_000, interval: 100 });
    expect(phases('doomed')).toEqual(['Failed', 'Failed']);
    expect(job('doomed').status).toMatchObject({ failed: 2 });
    const exited = podsOf(job('doomed').metadata.uid)[0]!.status as unknown as { containerStatuses: Array<{ state: { terminated?: { exitCode: number; reason: string } } }> };
    expect(exited.containerStatuses[0]!.state.terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
    const failedEvent = c.snapshot('events').find((e) => (e.involvedObject as { name: string }).name === 'doomed' && e.reason === 'BackoffLimitExceeded');
    expect(failedEvent?.type).toBe('Warning');
    expect((await ok(['get', 'job', 'doomed', '-n', 'default', '--no-headers'])).split(/\s+/)).toContain('0/1');

    // The kubelet's crash back-off, 10 s in kube, shortened.
    c.churn.batch.crashBackoffMs = 400;
    // What the pod's container did, change by change: running at each restart count, or waiting out its back-off.
    const states: string[] = [];
    const unwatch = c.store.onChange(() => {
      type Cs = { restartCount: number; state: { running?: unknown; waiting?: { reason: string; message?: string } } };
      const cs = (podsOf(c.store.get('jobs.batch', 'default', 'retrying')?.metadata.uid)[0]?.status as { containerStatuses?: Cs[] } | undefined)?.containerStatuses?.[0];
      const now = cs?.state.running ? `running ${cs.restartCount}` : cs?.state.waiting ? `${cs.state.waiting.reason} ${cs.restartCount}: ${(cs.state.waiting.message ?? '').split(' ').slice(0, 2).join(' ')}` : undefined;
      if (now && states.at(-1) !== now) states.push(now);
    });
    await apply(jobYaml('retrying', '').replace('restartPolicy: Never', 'restartPolicy: OnFailure'));
    const restarts = (): number => (podsOf(job('retrying').metadata.uid)[0]?.status as { containerStatuses?: Array<{ restartCount: number }> } | undefined)?.containerStatuses?.[0]?.restartCount ?? 0;
    await vi.waitFor(() => expect(restarts()).toBeGreaterThanOrEqual(3), { timeout: 20_000, interval: 100 });
    unwatch();
    // Restarted at once the first time; after that in CrashLoopBackOff first, for kube's 10 s, then 20 s.
    expect(states.filter((x) => !x.startsWith('ContainerCreating')).slice(0, 6)).toEqual(['running 0', 'running 1', 'CrashLoopBackOff 1: back-off 10s', 'running 2', 'CrashLoopBackOff 2: back-off 20s', 'running 3']);
    // One pod all along: its container restarts; once it succeeds, the Job is Complete with no failure counted.
    c.churn.batch.failureShare = 0;
    await vi.waitFor(() => expect(condition('retrying', 'Complete')).toBe('True'), { timeout: 20_000, interval: 100 });
    expect(phases('retrying')).toEqual(['Succeeded']);
    expect(job('retrying').status.failed).toBeUndefined();
  });

  it('suspended, a Job deletes its running pods and makes none; resumed, it starts them again', async () => {
    c.churn.batch.jobRunMs = 60_000;
    await apply(jobYaml('paused', '  parallelism: 2\n  completions: 4\n'));
    expect(phases('paused')).toHaveLength(2);
    await ok(['patch', 'job', 'paused', '-n', 'default', '--type=merge', '-p', '{"spec":{"suspend":true}}']);
    expect(condition('paused', 'Suspended')).toBe('True');
    expect(job('paused').status.active).toBeUndefined();
    await vi.waitFor(() => expect(phases('paused')).toEqual([]), { timeout: 10_000, interval: 100 });
    // Deleted by the controller: not failures.
    expect(job('paused').status.failed).toBeUndefined();
    await ok(['patch', 'job', 'paused', '-n', 'default', '--type=merge', '-p', '{"spec":{"suspend":false}}']);
    expect(condition('paused', 'Suspended')).toBe('False');
    expect(job('paused').status.active).toBe(2);
    expect(reasons('paused')).toEqual(expect.arrayContaining(['Suspended', 'Resumed']));
    await vi.waitFor(() => expect(job('paused').status.ready).toBe(2), { timeout: 10_000, interval: 100 });
    await ok(['delete', 'job', 'paused', '-n', 'default', '--cascade=foreground', '--wait=false']);
  });
});

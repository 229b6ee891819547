// Deterministic generation: same seed → same objects; realistic sizes; unique uids; consistent owner chains.
import { describe, expect, it } from 'vitest';
import { buildTopology } from '../../src/sim/topology.js';
import { SimStore } from '../../src/sim/store.js';
import type { SimObject } from '../../src/sim/types.js';
import { controllerCountProblems, endedPodProblems, templateProblems } from './helpers.js';

const EPOCH = Date.parse('2026-06-01T12:00:00Z');

function store(cluster: string, pods: number, seed = 1): SimStore {
  return new SimStore({ topology: buildTopology({ seed, cluster, pods, epochMs: EPOCH }), host: false, windowSize: 100 });
}

function all(s: SimStore, gr: string): SimObject[] {
  return [...(s.table(gr)?.entries() ?? [])].map(([, o]) => o);
}

describe('generation', () => {
  it('is a function of seed and cluster name', () => {
    const a = all(store('east', 300), 'pods');
    const b = all(store('east', 300), 'pods');
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    const other = all(store('east', 300, 2), 'pods');
    expect(other.map((p) => p.metadata.name)).not.toEqual(a.map((p) => p.metadata.name));
  });

  it('makes exactly the requested number of pods, 3–8 KB of JSON each', () => {
    const pods = all(store('east', 1000), 'pods');
    expect(pods).toHaveLength(1000);
    const sizes = pods.map((p) => JSON.stringify(p).length);
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(3000);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(8192);
  });

  it('gives unique uids within a cluster and different uids across clusters', () => {
    const s = store('east', 500);
    const uids: string[] = [];
    for (const def of s.allDefs()) {
      if (def.review) continue;
      for (const o of all(s, def.group ? `${def.resource}.${def.group}` : def.resource)) uids.push(o.metadata.uid ?? '');
    }
    expect(new Set(uids).size).toBe(uids.length);
    const west = new Set(all(store('west', 500), 'pods').map((p) => p.metadata.uid));
    expect(all(s, 'pods').some((p) => west.has(p.metadata.uid))).toBe(false);
  });

  it('keeps owner chains consistent: pod → ReplicaSet → Deployment, pod → Job → CronJob, StatefulSet, DaemonSet', () => {
    const s = store('east', 800);
    const byUid = new Map<string, SimObject>();
    for (const gr of ['replicasets.apps', 'deployments.apps', 'statefulsets.apps', 'daemonsets.apps', 'jobs.batch', 'cronjobs.batch']) for (const o of all(s, gr)) byUid.set(o.metadata.uid ?? '', o);
    const kinds = new Set<string>();
    for (const pod of all(s, 'pods')) {
      const ref = pod.metadata.ownerReferences?.[0];
      expect(ref?.controller).toBe(true);
      const owner = byUid.get(ref?.uid ?? '');
      expect(owner?.metadata.name).toBe(ref?.name);
      expect(owner?.kind).toBe(ref?.kind);
      expect(owner?.metadata.namespace).toBe(pod.metadata.namespace);
      kinds.add(ref?.kind ?? '');
      const parent = owner?.metadata.ownerReferences?.[0];
      if (owner?.kind === 'ReplicaSet' || owner?.kind === 'Job') expect(byUid.get(parent?.uid ?? '')?.metadata.name).toBe(parent?.name);
      if (owner?.kind === 'ReplicaSet') expect(pod.metadata.labels?.['pod-template-hash']).toBe(owner.metadata.labels?.['pod-template-hash']);
    }
    expect([...kinds].sort()).toEqual(['DaemonSet', 'Job', 'ReplicaSet', 'StatefulSet']);
  });

  it("mounts a StatefulSet pod's claim in its main container, as its template says, before the service-account token", () => {
    const s = store('east', 800);
    const claims = new Set(all(s, 'persistentvolumeclaims').map((c) => `${c.metadata.namespace}/${c.metadata.name}`));
    const sets = all(s, 'statefulsets.apps');
    expect(sets.length).toBeGreaterThan(0);
    type Container = { name: string; volumeMounts?: { name: string; mountPath: string }[] };
    for (const sts of sets) {
      const template = (sts.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers[0]!;
      expect(template.volumeMounts?.map((m) => m.name)).toEqual(['data']);
      const pods = all(s, 'pods').filter((p) => p.metadata.ownerReferences?.[0]?.uid === sts.metadata.uid);
      expect(pods.length).toBeGreaterThan(0);
      for (const pod of pods) {
        const spec = pod.spec as { volumes: { name: string; persistentVolumeClaim?: { claimName: string } }[]; containers: Container[] };
        const claim = spec.volumes.find((v) => v.name === 'data')?.persistentVolumeClaim?.claimName;
        expect(claims.has(`${pod.metadata.namespace}/${claim}`), `${pod.metadata.name} names ${claim}`).toBe(true);
        const mounts = spec.containers[0]!.volumeMounts!;
        expect(mounts[0]).toEqual(template.volumeMounts![0]);
        expect(mounts[mounts.length - 1]!.mountPath).toBe('/var/run/secrets/kubernetes.io/serviceaccount');
        expect(spec.volumes.map((v) => v.name)).toEqual(expect.arrayContaining(mounts.map((m) => m.name)));
      }
    }
  });

  it("gives each StatefulSet and DaemonSet the ControllerRevision its pods run: named by their hash, its template, controlled by it", () => {
    const s = store('east', 800);
    const revisions = all(s, 'controllerrevisions.apps');
    const owners = [...all(s, 'statefulsets.apps'), ...all(s, 'daemonsets.apps')];
    expect(revisions).toHaveLength(owners.length);
    for (const owner of owners) {
      const pods = all(s, 'pods').filter((p) => p.metadata.ownerReferences?.[0]?.uid === owner.metadata.uid);
      const hash = new Set(pods.map((p) => p.metadata.labels?.['controller-revision-hash']));
      expect(hash.size, owner.metadata.name).toBe(1);
      // A StatefulSet's pods carry the revision's name (its status' revisions too), a DaemonSet's the hash alone.
      const name = owner.kind === 'StatefulSet' ? [...hash][0] : `${owner.metadata.name ?? ''}-${[...hash][0] ?? ''}`;
      if (owner.kind === 'StatefulSet') expect(owner.status).toMatchObject({ currentRevision: name, updateRevision: name });
      const cr = s.get('controllerrevisions.apps', owner.metadata.namespace, name ?? '');
      expect(cr?.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true }]);
      expect(cr?.revision).toBe(1);
      expect(cr?.data).toEqual({ spec: { template: { ...(owner.spec as { template: object }).template, $patch: 'replace' } } });
      expect(Date.parse(cr?.metadata.creationTimestamp ?? '')).toBe(Date.parse(owner.metadata.creationTimestamp ?? ''));
    }
  });

  it('stamps every pod of a controller from its template, after the controller, never in the future', () => {
    const s = store('east', 2000);
    const controllers = ['replicasets.apps', 'statefulsets.apps', 'daemonsets.apps', 'jobs.batch'].flatMap((gr) => all(s, gr));
    const pods = all(s, 'pods');
    expect(templateProblems(pods, controllers, EPOCH)).toEqual([]);
    // Their status counts the pods as they are: `kubectl get deploy` READY agrees with `kubectl get pods`.
    expect(controllerCountProblems(pods, [...controllers, ...all(s, 'deployments.apps')])).toEqual([]);
    expect(all(s, 'deployments.apps').filter((d) => (d.status as { readyReplicas?: number }).readyReplicas !== (d.spec as { replicas: number }).replicas).length).toBeGreaterThan(5);
    // The variety is in the templates now: some controllers have sidecars, init containers, readiness gates; some not.
    const shapes = new Set(controllers.map((c) => JSON.stringify((c.spec as { template: { spec: { containers: Array<{ name: string }>; initContainers?: unknown } } }).template.spec, ['containers', 'initContainers', 'name'])));
    expect(shapes.size).toBeGreaterThan(3);
    // A Deployment's template is its current ReplicaSet's, but for the hash label.
    const byName = new Map(all(s, 'replicasets.apps').map((rs) => [`${rs.metadata.namespace}/${rs.metadata.name}`, rs]));
    for (const d of all(s, 'deployments.apps')) {
      const current = [...byName.values()].find((rs) => rs.metadata.ownerReferences?.[0]?.uid === d.metadata.uid && (rs.spec as { replicas: number }).replicas > 0);
      const template = structuredClone((current?.spec as { template: { metadata: { labels: Record<string, string> } } }).template);
      delete template.metadata.labels['pod-template-hash'];
      expect(template, d.metadata.name).toEqual((d.spec as { template: unknown }).template);
    }
  });

  it('has the variety of a real cluster: states, ages, init containers, readiness gates, managedFields', () => {
    const pods = all(store('east', 2000), 'pods');
    const reasons = new Set<string>();
    for (const p of pods) {
      const st = p.status as { phase: string; containerStatuses?: Array<{ state: { waiting?: { reason: string }; terminated?: { reason: string } }; restartCount: number; lastState: Record<string, unknown> }> };
      reasons.add(st.phase);
      for (const c of st.containerStatuses ?? []) {
        if (c.state.waiting) reasons.add(c.state.waiting.reason);
        if (c.state.terminated) reasons.add(c.state.terminated.reason);
      }
    }
    for (const r of ['Running', 'Pending', 'Succeeded', 'CrashLoopBackOff', 'ImagePullBackOff', 'ContainerCreating', 'Completed']) expect(reasons).toContain(r);
    // A pod that ended has every container terminated (sidecars too), none ready, and is not Ready.
    const ended = pods.filter((p) => ['Succeeded', 'Failed'].includes((p.status as { phase: string }).phase));
    expect(ended.some((p) => ((p.spec as { containers: unknown[] }).containers).length > 1)).toBe(true);
    for (const p of ended) expect(endedPodProblems(p), p.metadata.name).toEqual([]);
    // A pod whose sandbox is still being made runs no container yet, sidecars included.
    const creating = pods.filter((p) => JSON.stringify(p.status).includes('"ContainerCreating"'));
    expect(creating.some((p) => ((p.spec as { containers: unknown[] }).containers).length > 1)).toBe(true);
    for (const p of creating) {
      const st = p.status as { containerStatuses: Array<{ ready: boolean; state: Record<string, unknown> }> };
      expect(st.containerStatuses.map((c) => [c.ready, Object.keys(c.state)[0]]), p.metadata.name).toEqual(st.containerStatuses.map(() => [false, 'waiting']));
    }
    // A container's last run ended within the pod's life, before the run now going began; one in CrashLoopBackOff was
    // restarted less than 5 minutes ago (kubectl's RESTARTS column: "231 (3m ago)").
    let restarted = 0;
    for (const p of pods) {
      const created = Date.parse(p.metadata.creationTimestamp ?? '');
      type Cs = { name: string; state: { running?: { startedAt: string }; waiting?: { reason: string } }; lastState: { terminated?: { startedAt: string; finishedAt: string } } };
      for (const cs of (p.status as { containerStatuses?: Cs[] }).containerStatuses ?? []) {
        const last = cs.lastState.terminated;
        if (!last) continue;
        restarted++;
        const [from, to] = [Date.parse(last.startedAt), Date.parse(last.finishedAt)];
        const what = `${p.metadata.name}/${cs.name}`;
        expect(from <= to && to >= created && to <= EPOCH, `${what}: ${last.startedAt}–${last.finishedAt}`).toBe(true);
        if (cs.state.running) expect(Date.parse(cs.state.running.startedAt), what).toBeGreaterThanOrEqual(to);
        if (cs.state.waiting?.reason === 'CrashLoopBackOff') expect(EPOCH - to, what).toBeLessThanOrEqual(300_000);
      }
    }
    expect(restarted).toBeGreaterThan(50);
    const crash = pods.find((p) => JSON.stringify(p.status).includes('CrashLoopBackOff'));
    expect(JSON.stringify(crash?.status)).toMatch(/"restartCount":[1-9]/);
    expect(JSON.stringify(crash?.status)).toContain('"lastState":{"terminated"');
    expect(pods.some((p) => (p.spec as { initContainers?: unknown }).initContainers)).toBe(true);
    expect(pods.some((p) => (p.spec as { readinessGates?: unknown }).readinessGates)).toBe(true);
    expect(pods.every((p) => Array.isArray(p.metadata.managedFields))).toBe(true);
    const ages = pods.map((p) => EPOCH - Date.parse(p.metadata.creationTimestamp ?? ''));
    expect(ages.some((a) => a < 3_600_000)).toBe(true);
    expect(ages.some((a) => a > 3_600_000 && a < 86_400_000)).toBe(true);
    expect(ages.some((a) => a > 86_400_000)).toBe(true);
    // Every pod off its node's network has an address of its own.
    const addresses = pods.map((p) => p.status as { podIP?: string; hostIP?: string }).filter((st) => st.podIP !== undefined && st.podIP !== st.hostIP).map((st) => st.podIP);
    expect(addresses.length).toBeGreaterThan(1000);
    expect(new Set(addresses).size).toBe(addresses.length);
    // A pod no node takes says so in this cluster's terms: its 20 nodes, the control plane's taint, no node named
    // that is not one of them.
    const unschedulable = pods.filter((p) => (p.status as { conditions?: Array<{ reason?: string }> }).conditions?.[0]?.reason === 'Unschedulable');
    expect(unschedulable.length).toBeGreaterThan(0);
    const nodes = all(store('east', 2000), 'nodes').map((n) => n.metadata.name);
    expect(nodes).toHaveLength(20);
    for (const p of unschedulable) {
      const status = p.status as { conditions: Array<{ message: string }>; nominatedNodeName?: string };
      expect(status.conditions[0]?.message).toMatch(/^0\/20 nodes are available: 1 node\(s\) had untolerated taint \{node-role.kubernetes.io\/control-plane: \}, 19 Insufficient cpu\. preemption: 0\/20 /);
      if (status.nominatedNodeName !== undefined) expect(nodes).toContain(status.nominatedNodeName);
    }
    const deploy = all(store('east', 2000), 'deployments.apps').find((d) => d.metadata.namespace !== 'kube-system');
    expect(deploy?.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration']).toContain('"kind":"Deployment"');
  });

  it("records each pod's events as the scheduler (about the pod) and its node's kubelet (about a container) do", () => {
    const s = store('east', 2000);
    const pods = new Map(all(s, 'pods').map((p) => [p.metadata.uid, p]));
    interface Ev {
      reason: string; message: string; type: string; source: { component?: string; host?: string }; reportingComponent: string; reportingInstance: string; involvedObject: { uid: string; fieldPath?: string };
      firstTimestamp: string | null; lastTimestamp: string | null; count?: number; eventTime: string | null; series?: { count: number; lastObservedTime: string }; metadata: { name: string };
    }
    const events = all(s, 'events') as unknown as Ev[];
    const reasons = new Set(events.map((e) => e.reason));
    for (const r of ['Scheduled', 'FailedScheduling', 'BackOff', 'Unhealthy', 'Pulling']) expect(reasons).toContain(r);
    let repeated = 0;
    for (const e of events) {
      const pod = pods.get(e.involvedObject.uid);
      if (!pod) continue;
      const node = (pod.spec as { nodeName?: string }).nodeName;
      // Seen first once the pod was made, last no sooner than first; a repeat count, or none, as the recorder keeps it.
      const first = Date.parse(e.firstTimestamp ?? e.eventTime ?? '');
      const last = Date.parse(e.lastTimestamp ?? e.series?.lastObservedTime ?? e.eventTime ?? '');
      expect(first, `${e.metadata.name} before its pod was made`).toBeGreaterThanOrEqual(Date.parse(pod.metadata.creationTimestamp ?? ''));
      expect(last, e.metadata.name).toBeGreaterThanOrEqual(first);
      const times = e.count ?? e.series?.count ?? 1;
      if (times === 1) expect(last, `${e.metadata.name} seen once`).toBe(first);
      else repeated++;
      if (e.reason === 'Scheduled' || e.reason === 'FailedScheduling') {
        // Through events.k8s.io, as kube 1.32's scheduler records.
        expect([e.source, e.reportingComponent, e.involvedObject.fieldPath, e.firstTimestamp, e.lastTimestamp, e.count], e.reason).toEqual([{}, 'default-scheduler', undefined, null, null, undefined]);
        expect(e.eventTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
        if (e.reason === 'Scheduled') expect(e.message).toBe(`Successfully assigned ${pod.metadata.namespace}/${pod.metadata.name} to ${node}`);
        if (e.reason === 'Scheduled') expect(e.eventTime?.slice(0, 19)).toBe(pod.metadata.creationTimestamp?.slice(0, 19));
      } else {
        expect([e.source, e.reportingInstance], `${e.reason} about ${pod.metadata.name}`).toEqual([{ component: 'kubelet', host: node }, node]);
        expect(e.involvedObject.fieldPath).toMatch(/^spec\.containers\{.+\}$/);
      }
    }
    expect(repeated).toBeGreaterThan(0);
    expect(events.some((e) => e.reason === 'FailedScheduling' && (e.series?.count ?? 0) > 1)).toBe(true);
  });

  it("runs each CronJob's Jobs at the times its schedule names, the last one within its period", () => {
    const s = store('east', 2000);
    const cronjobs = all(s, 'cronjobs.batch');
    expect(new Set(cronjobs.map((c) => (c.spec as { schedule: string }).schedule)).size).toBeGreaterThan(1);
    // Minute and hour fields of the forms the generator writes: *, */N, N.
    const fits = (field: string, value: number): boolean => field === '*' || (field.startsWith('*/') ? value % Number(field.slice(2)) === 0 : Number(field) === value);
    const jobs = all(s, 'jobs.batch');
    for (const c of cronjobs) {
      const [minute, hour] = (c.spec as { schedule: string }).schedule.split(' ') as [string, string];
      const times = [(c.status as { lastScheduleTime: string }).lastScheduleTime, ...jobs
        .filter((j) => j.metadata.ownerReferences?.[0]?.uid === c.metadata.uid)
        .map((j) => j.metadata.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'] ?? '')];
      expect(times.length, c.metadata.name).toBeGreaterThan(1);
      for (const at of times) {
        const d = new Date(at);
        expect(fits(minute, d.getUTCMinutes()) && fits(hour, d.getUTCHours()), `${c.metadata.name} (${minute} ${hour}) at ${at}`).toBe(true);
      }
      const period = hour === '*' ? (minute.startsWith('*/') ? Number(minute.slice(2)) : 60) : 1440;
      expect(EPOCH - Date.parse(times[0]!), c.metadata.name).toBeLessThanOrEqual(period * 60_000);
    }
  });

  it('generates every built-in and CR resource the issue lists', () => {
    const s = store('east', 400);
    for (const gr of ['namespaces', 'nodes', 'pods', 'services', 'configmaps', 'secrets', 'events', 'serviceaccounts', 'deployments.apps', 'replicasets.apps', 'statefulsets.apps', 'daemonsets.apps', 'controllerrevisions.apps', 'jobs.batch', 'cronjobs.batch', 'ingresses.networking.k8s.io', 'leases.coordination.k8s.io', 'customresourcedefinitions.apiextensions.k8s.io', 'crontabs.stable.example.com', 'certificates.cert-manager.io', 'clusterissuers.cert-manager.io']) {
      expect(s.table(gr)?.count, gr).toBeGreaterThan(0);
    }
    expect(all(s, 'namespaces').map((n) => n.metadata.name)).toEqual(expect.arrayContaining(['default', 'kube-system']));
    // Every object's resourceVersion is at most the cluster revision, and distinct.
    const rvs = all(s, 'pods').map((p) => Number(p.metadata.resourceVersion));
    expect(Math.max(...rvs)).toBeLessThanOrEqual(s.revision);
    expect(new Set(rvs).size).toBe(rvs.length);
  });
});

// The events a cluster records for what churn does, in the words of kube 1.32's controllers, scheduler and kubelet:
// a pod made by a ReplicaSet is created by the replicaset-controller, scheduled, its images pulled, its containers
// created and started; a scale-down deletes one and stops its containers. `kubectl describe` and `kubectl events`
// then tell a pod's or a Deployment's recent history, as on a real cluster.
import { hexFor } from './prng.js';
import { iso, microIso } from './gen-meta.js';
import type { SimStore } from './store.js';
import { rec, recs, type Rec, type SimObject } from './types.js';

/** The most events churn keeps, and for how long (the API server's default --event-ttl): bounded however long it runs. */
const MAX_CHURN_EVENTS = 1000;
const EVENT_TTL_MS = 3_600_000;

/** Who records an event: a controller (no host) or the kubelet of a node. */
interface Source {
  component: string;
  host?: string;
}

interface Kept {
  namespace: string;
  name: string;
  /** The key a repeat of the same event is counted under (absent: never counted on, as the scheduler's). */
  key?: string;
  at: number;
}

/** The containers of a pod's spec, by name and image. */
function containers(pod: SimObject): Array<{ name: string; image: string }> {
  return recs(rec(pod.spec).containers).map((c) => ({ name: String(c.name ?? 'app'), image: String(c.image ?? '') }));
}

/** The field path a kubelet's event names one container by. */
const containerPath = (name: unknown): string => `spec.containers{${String(name)}}`;

/** A reference to `o` as an event's involvedObject has it. */
function involved(o: SimObject, fieldPath?: string): Rec {
  return {
    kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name, uid: o.metadata.uid, apiVersion: o.apiVersion,
    resourceVersion: o.metadata.resourceVersion ?? '', ...(fieldPath ? { fieldPath } : {}),
  };
}

/** The controller that owns pods of this kind, and its words for making and deleting one. */
const CONTROLLERS: Record<string, { component: string; created: (pod: string, owner: string) => string; deleted: (pod: string, owner: string) => string }> = {
  ReplicaSet: { component: 'replicaset-controller', created: (pod) => `Created pod: ${pod}`, deleted: (pod) => `Deleted pod: ${pod}` },
  DaemonSet: { component: 'daemonset-controller', created: (pod) => `Created pod: ${pod}`, deleted: (pod) => `Deleted pod: ${pod}` },
  Job: { component: 'job-controller', created: (pod) => `Created pod: ${pod}`, deleted: (pod) => `Deleted pod: ${pod}` },
  StatefulSet: {
    component: 'statefulset-controller',
    created: (pod, owner) => `create Pod ${pod} in StatefulSet ${owner} successful`,
    deleted: (pod, owner) => `delete Pod ${pod} in StatefulSet ${owner} successful`,
  },
};

export class ChurnEvents {
  /** Off: churn records no events (for a synchro that syncs none, to which they would be changes it never sees). */
  enabled = true;
  private readonly kept: Kept[] = [];
  /** Events that a repeat is counted on, by key: namespace and name. */
  private readonly byKey = new Map<string, { namespace: string; name: string }>();
  private made = 0;
  private readonly nameBase: bigint;

  constructor(private readonly store: SimStore, seed: number, private readonly cluster: string, private readonly now: () => number) {
    this.nameBase = BigInt(`0x18${hexFor(14, 'churn-event', seed, cluster)}`);
  }

  /**
   * The controller that owns `pod` made it, and the scheduler placed it on its node, or could not (`unschedulable`:
   * why not, as the pod's PodScheduled condition says).
   */
  podCreated(pod: SimObject, unschedulable = ''): void {
    const owner = this.owner(pod);
    const controller = owner && CONTROLLERS[owner.kind ?? ''];
    if (owner && controller) this.record(owner, { component: controller.component }, 'Normal', 'SuccessfulCreate', controller.created(pod.metadata.name ?? '', owner.metadata.name ?? ''));
    const node = String(rec(pod.spec).nodeName ?? '');
    const ns = pod.metadata.namespace ?? 'default';
    // The scheduler records through the events.k8s.io API: an eventTime, no first or last timestamp, no count.
    const at = this.now();
    this.create({
      apiVersion: 'v1', kind: 'Event', metadata: { name: this.nameFor(pod), namespace: ns }, involvedObject: involved(pod),
      ...(node
        ? { reason: 'Scheduled', message: `Successfully assigned ${ns}/${pod.metadata.name ?? ''} to ${node}`, type: 'Normal', action: 'Binding' }
        : { reason: 'FailedScheduling', message: unschedulable || '0/1 nodes are available.', type: 'Warning', action: 'Scheduling' }),
      source: {}, firstTimestamp: null, lastTimestamp: null, eventTime: microIso(at),
      reportingComponent: 'default-scheduler', reportingInstance: `default-scheduler-${this.cluster}-control-plane`,
    }, undefined, at);
  }

  /** The kubelet (re)started these containers of `pod` (all of them when none are named). */
  containersStarted(pod: SimObject, only?: string): void {
    const node = { component: 'kubelet', host: String(rec(pod.spec).nodeName ?? '') };
    for (const c of containers(pod)) {
      if (only !== undefined && c.name !== only) continue;
      const path = containerPath(c.name);
      this.record(pod, node, 'Normal', 'Pulled', `Container image "${c.image}" already present on machine`, path);
      this.record(pod, node, 'Normal', 'Created', `Created container: ${c.name}`, path);
      this.record(pod, node, 'Normal', 'Started', `Started container ${c.name}`, path);
    }
  }

  /**
   * The kubelet warns about `pod` (again): a container in CrashLoopBackOff backs off, an image it cannot pull backs
   * off, a pod that is not ready fails its readiness probe; a ready one's probe times out now and then.
   */
  kubeletWarning(pod: SimObject): void {
    const node = { component: 'kubelet', host: String(rec(pod.spec).nodeName ?? '') };
    const status = rec(pod.status);
    const statuses = recs(status.containerStatuses);
    const waiting = (reason: string): Rec | undefined => statuses.find((s) => rec(rec(s.state).waiting).reason === reason);
    const crashing = waiting('CrashLoopBackOff');
    if (crashing) {
      const name = pod.metadata.name ?? '';
      this.record(pod, node, 'Warning', 'BackOff', `Back-off restarting failed container ${String(crashing.name)} in pod ${name}_${pod.metadata.namespace ?? ''}(${pod.metadata.uid ?? ''})`, containerPath(crashing.name));
      return;
    }
    const pulling = waiting('ImagePullBackOff');
    if (pulling) {
      this.record(pod, node, 'Normal', 'BackOff', `Back-off pulling image "${String(pulling.image ?? '')}"`, containerPath(pulling.name));
      this.record(pod, node, 'Warning', 'Failed', 'Error: ImagePullBackOff', containerPath(pulling.name));
      return;
    }
    const first = containers(pod)[0];
    if (!first || status.phase !== 'Running') return;
    const ready = statuses.every((s) => s.ready === true);
    this.record(pod, node, 'Warning', 'Unhealthy', ready
      ? `Readiness probe failed: Get "http://${String(status.podIP ?? '')}:8080/healthz": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`
      : 'Readiness probe failed: HTTP probe failed with statuscode: 503', containerPath(first.name));
  }

  /** `pod` is being deleted: the kubelet stops its containers, and its controller says so when it deleted it. */
  podDeleted(pod: SimObject, byController: boolean): void {
    const node = { component: 'kubelet', host: String(rec(pod.spec).nodeName ?? '') };
    for (const c of containers(pod)) this.record(pod, node, 'Normal', 'Killing', `Stopping container ${c.name}`, containerPath(c.name));
    const owner = byController ? this.owner(pod) : undefined;
    const controller = owner && CONTROLLERS[owner.kind ?? ''];
    if (owner && controller) this.record(owner, { component: controller.component }, 'Normal', 'SuccessfulDelete', controller.deleted(pod.metadata.name ?? '', owner.metadata.name ?? ''));
  }

  /** A controller's event about `about`, Normal unless `type` says Warning (the CronJob and Job controllers' own). */
  controller(about: SimObject, component: string, reason: string, message: string, type: 'Normal' | 'Warning' = 'Normal'): void {
    this.record(about, { component }, type, reason, message);
  }

  /** The deployment controller scaled one of a Deployment's ReplicaSets. */
  scaled(deploy: SimObject, rs: string, from: number, to: number): void {
    this.record(deploy, { component: 'deployment-controller' }, 'Normal', 'ScalingReplicaSet', `Scaled ${to > from ? 'up' : 'down'} replica set ${rs} from ${from} to ${to}`);
  }

  private owner(pod: SimObject): SimObject | undefined {
    const ref = pod.metadata.ownerReferences?.find((r) => r.controller) ?? pod.metadata.ownerReferences?.[0];
    if (!ref) return undefined;
    const gr = { ReplicaSet: 'replicasets.apps', StatefulSet: 'statefulsets.apps', DaemonSet: 'daemonsets.apps', Job: 'jobs.batch' }[ref.kind];
    const o = gr ? this.store.get(gr, pod.metadata.namespace, ref.name) : undefined;
    return o?.metadata.uid === ref.uid ? o : undefined;
  }

  /**
   * Records an event about `about`, or counts a repeat on the same one (the client-go event correlator: same source,
   * object, type, reason and message): its count goes up and its lastTimestamp moves.
   */
  private record(about: SimObject, source: Source, type: 'Normal' | 'Warning', reason: string, message: string, fieldPath?: string): void {
    if (!this.enabled) return;
    const at = this.now();
    const key = [source.component, source.host ?? '', about.metadata.uid ?? '', fieldPath ?? '', type, reason, message].join('\u0001');
    const seen = this.byKey.get(key);
    const before = (seen && this.store.get('events', seen.namespace, seen.name)) || this.recorded(about, reason, message);
    if (before) {
      this.store.update('events', { ...before, count: Number(before.count ?? 1) + 1, lastTimestamp: iso(at) });
      return;
    }
    const host = source.host || undefined;
    this.create({
      apiVersion: 'v1', kind: 'Event', metadata: { name: this.nameFor(about), namespace: about.metadata.namespace ?? 'default' },
      involvedObject: involved(about, fieldPath), reason, message, source: { component: source.component, ...(host ? { host } : {}) },
      firstTimestamp: iso(at), lastTimestamp: iso(at), count: 1, type, eventTime: null, reportingComponent: source.component, reportingInstance: host ?? '',
    }, key, at);
  }

  /** An event about `about` with this reason and message recorded before churn began (the cluster's own). */
  private recorded(about: SimObject, reason: string, message: string): SimObject | undefined {
    const table = this.store.table('events');
    for (const key of table?.keys(`${about.metadata.namespace ?? 'default'}/${about.metadata.name ?? ''}.`) ?? []) {
      const e = table?.get(key);
      if (e && e.reason === reason && e.message === message && rec(e.involvedObject).uid === about.metadata.uid) return e;
    }
    return undefined;
  }

  /**
   * An event's name: its object's name and 16 hex digits that grow with each event, as kube's (the time in
   * nanoseconds) do; from a count here, so the same seed names the same events. kubectl lists an object's events of
   * one second in name order: Pulled, Created, Started.
   */
  private nameFor(about: SimObject): string {
    return `${about.metadata.name ?? ''}.${(this.nameBase + BigInt(this.made++) * 1_000_003n).toString(16)}`;
  }

  private create(event: SimObject, key: string | undefined, at: number): void {
    if (!this.enabled) return;
    const namespace = event.metadata.namespace ?? 'default';
    const name = event.metadata.name ?? '';
    if (this.store.get('events', namespace, name)) return;
    this.store.create('events', event, namespace);
    this.kept.push({ namespace, name, ...(key ? { key } : {}), at });
    if (key) this.byKey.set(key, { namespace, name });
    // Events go after their time to live, and the oldest first beyond the bound.
    while (this.kept.length > MAX_CHURN_EVENTS || (this.kept[0] && this.kept[0].at < at - EVENT_TTL_MS)) {
      const old = this.kept.shift() as Kept;
      if (old.key && this.byKey.get(old.key)?.name === old.name) this.byKey.delete(old.key);
      if (this.store.get('events', old.namespace, old.name)) this.store.delete('events', old.namespace, old.name);
    }
  }
}

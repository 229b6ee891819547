// Pods of the generated workloads: names, owners, containers and the realistic mix of states (Running, CrashLoopBackOff, ...).
import { clone } from './deep-equal.js';
import { ageMs, iso, managed } from './gen-meta.js';
import { containerId, distinctSuffix, hexFor, kubeSuffix, rngFor, uidFor, type Rng } from './prng.js';
import type { NodeInfo, Topology, Workload } from './topology.js';
import { recs, type SimObject, type SimOwnerRef } from './types.js';

/** The uid of a generated object: stable for (seed, cluster, gr, key), so owner references always resolve. */
export function genUid(t: Topology, gr: string, key: string): string {
  return uidFor(t.opts.seed, t.opts.cluster, gr, key);
}

/**
 * The hash a generated StatefulSet's or DaemonSet's revision is named by (revisions.ts): a StatefulSet's pods carry
 * the revision's name, a DaemonSet's the hash.
 */
export function revisionHash(w: Workload): string {
  return w.kind === 'DaemonSet' ? w.hash.slice(0, 8) : w.hash;
}

/**
 * Minutes since the epoch at which job `r` (0 = newest) of a CronJob was scheduled; kube names jobs after it. Every
 * generated job has ended (its pod ran 61 s at most), so the newest was scheduled at least two minutes before "now".
 */
export function jobStamp(t: Topology, w: Workload, r: number): number {
  const nowMin = Math.floor(t.opts.epochMs / 60_000) - 2;
  // The daily CronJobs run at 02:00 (`0 2 * * *`, buildCronJob), the others on the hour or every N minutes of it.
  const offset = w.periodMin === 1440 ? 120 : 0;
  return (Math.floor((nowMin - offset) / w.periodMin) - r) * w.periodMin + offset;
}

export function jobName(t: Topology, w: Workload, r: number): string {
  return `${w.name}-${jobStamp(t, w, r)}`;
}

export function replicaSetName(w: Workload, old = false): string {
  return `${w.name}-${old ? w.oldHash : w.hash}`;
}

/** When a Deployment's ReplicaSet was made: the first with the Deployment, the current one at the latest rollout, never in the future. */
export function replicaSetCreatedMs(t: Topology, w: Workload, old = false): number {
  if (old) return w.createdMs;
  return w.createdMs + Math.min((w.revision - 1) * 43_200_000, Math.floor((t.opts.epochMs - w.createdMs) / 2));
}

function podRng(t: Topology, w: Workload, r: number): Rng {
  return rngFor('pod', t.opts.seed, t.opts.cluster, w.namespace, w.name, r);
}

/** Suffixes of one workload's pods are drawn without repetition (see distinctSuffix). */
function podSuffix(t: Topology, w: Workload, r: number): string {
  return distinctSuffix(rngFor('pod-suffix', t.opts.seed, t.opts.cluster, w.namespace, w.name), r);
}

export function podName(t: Topology, w: Workload, r: number): string {
  switch (w.kind) {
    case 'StatefulSet': return `${w.name}-${r}`;
    case 'Deployment': return `${replicaSetName(w)}-${podSuffix(t, w, r)}`;
    case 'DaemonSet': return `${w.name}-${podSuffix(t, w, r)}`;
    case 'CronJob': return `${jobName(t, w, r)}-${kubeSuffix(podRng(t, w, r))}`;
  }
}

function podOwner(t: Topology, w: Workload, r: number): SimOwnerRef {
  const owner = (apiVersion: string, kind: string, gr: string, name: string): SimOwnerRef => ({
    apiVersion, kind, name, uid: genUid(t, gr, `${w.namespace}/${name}`), controller: true, blockOwnerDeletion: true,
  });
  switch (w.kind) {
    case 'Deployment': return owner('apps/v1', 'ReplicaSet', 'replicasets.apps', replicaSetName(w));
    case 'StatefulSet': return owner('apps/v1', 'StatefulSet', 'statefulsets.apps', w.name);
    case 'DaemonSet': return owner('apps/v1', 'DaemonSet', 'daemonsets.apps', w.name);
    case 'CronJob': return owner('batch/v1', 'Job', 'jobs.batch', jobName(t, w, r));
  }
}

const digests = new Map<string, string>();

/** Image digests depend only on the image; memoised because every pod of a workload repeats them. */
/** The digest a node reports for an image it pulled (a container's imageID). */
export function imageDigest(image: string): string {
  let d = digests.get(image);
  if (d === undefined) {
    d = `${image.split(':')[0]}@sha256:${hexFor(64, image)}`;
    digests.set(image, d);
  }
  return d;
}

export type PodState = 'running' | 'restarted' | 'crashloop' | 'imagepull' | 'creating' | 'unschedulable' | 'unready' | 'completed' | 'failed';

function pickState(w: Workload, rng: Rng): PodState {
  if (w.kind === 'CronJob') return rng.chance(0.9) ? 'completed' : 'failed';
  if (w.system) return 'running';
  const r = rng.next();
  if (r < 0.84) return 'running';
  if (r < 0.89) return 'restarted';
  if (r < 0.92) return 'crashloop';
  if (r < 0.94) return 'imagepull';
  if (r < 0.96) return 'creating';
  if (r < 0.975) return 'unschedulable';
  return 'unready';
}

/** The state of a generated pod without building it (events are derived from it). */
export function podState(t: Topology, w: Workload, r: number): PodState {
  return pickState(w, podRng(t, w, r));
}

/** Whether pod r of w is ready (every container ready, the pod's Ready condition True): what its controllers count. */
export function podReady(t: Topology, w: Workload, r: number): boolean {
  const state = podState(t, w, r);
  return state === 'running' || state === 'restarted';
}

/**
 * The cluster's pods sit in 10.64.0.0/11, below the services' 10.96.0.0/12 (services.ts): address `n` is host
 * n % 254 + 1 of /24 number n / 254 (2,080,768 in all).
 */
export const POD_ADDRESSES = 32 * 256 * 254;

export function podAddress(n: number): string {
  const subnet = Math.floor(n / 254) % (32 * 256);
  return `10.${64 + (subnet >> 8)}.${subnet & 255}.${(n % 254) + 1}`;
}

function podIp(w: Workload, r: number): string {
  return podAddress(w.podOffset + r);
}

function containerSpec(w: Workload, name: string, image: string, rng: Rng, main: boolean): Record<string, unknown> {
  const common = {
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
  };
  // Sidecars and init containers are small in real clusters too; only the main container has probes and env.
  if (!main) return { name, image, resources: { limits: { cpu: '200m', memory: '128Mi' }, requests: { cpu: '10m', memory: '40Mi' } }, ...common };
  return {
    name,
    image,
    ...(w.kind === 'CronJob' ? { command: ['/bin/sh', '-c', `run-${w.name} --once`] } : { ports: [{ name: 'http', containerPort: w.port, protocol: 'TCP' }] }),
    env: [
      { name: 'LOG_LEVEL', value: rng.pick(['info', 'debug', 'warn']) },
      { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } } },
    ],
    resources: { limits: { cpu: `${rng.pick([250, 500, 1000])}m`, memory: `${rng.pick([256, 512, 1024])}Mi` }, requests: { cpu: `${rng.pick([50, 100, 200])}m`, memory: `${rng.pick([64, 128, 256])}Mi` } },
    // A StatefulSet's main container mounts the claim its volumeClaimTemplate makes for each ordinal.
    ...(w.kind === 'StatefulSet' ? { volumeMounts: [{ name: 'data', mountPath: `/var/lib/${w.app}` }] } : {}),
    ...(w.kind === 'CronJob' ? {} : { readinessProbe: { httpGet: { path: '/healthz', port: w.port, scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 } }),
    ...common,
  };
}

function containerStatus(name: string, image: string, state: PodState, startMs: number, rng: Rng, main: boolean, podName: string, epochMs: number): Record<string, unknown> {
  const imageID = imageDigest(image);
  const containerID = containerId(rng);
  const running = { running: { startedAt: iso(startMs + 4000) } };
  const base = { name, image, imageID, containerID, started: true, ready: true, restartCount: 0, state: running as Record<string, unknown>, lastState: {} as Record<string, unknown> };
  if (!main) {
    // A pod whose sandbox is still being made has no container running yet, sidecars included.
    if (state === 'creating') return { name, image, imageID: '', started: false, ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } }, lastState: {} };
    // A pod that ended has no container left running: its sidecars stopped after the main one.
    if (state !== 'completed' && state !== 'failed') return base;
    const finished = startMs + (state === 'completed' ? 61_000 : 31_000);
    return { ...base, started: false, ready: false, state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: iso(startMs + 4000), finishedAt: iso(finished), containerID } } };
  }
  switch (state) {
    case 'running': return base;
    case 'unready': return { ...base, ready: false };
    case 'restarted': {
      // Killed some time in its life and started again at once: the run now going began when the last one ended.
      const restarts = rng.range(1, 5);
      const killed = startMs + 4000 + Math.floor(rng.next() * Math.max(0, epochMs - startMs - 8000));
      return {
        ...base, restartCount: restarts, state: { running: { startedAt: iso(killed + 1000) } },
        lastState: { terminated: { exitCode: 137, reason: 'OOMKilled', startedAt: iso(Math.max(startMs + 4000, killed - 3_600_000)), finishedAt: iso(killed), containerID } },
      };
    }
    case 'crashloop': {
      // It began crashing some time ago and has been restarted every 5 minutes since (the kubelet's longest back-off),
      // the last time less than 5 minutes ago.
      const since = Math.min(epochMs - 60_000, startMs + Math.floor(rng.next() * Math.max(0, epochMs - startMs)));
      const restarts = 6 + Math.floor(Math.max(0, epochMs - since) / 300_000);
      const ended = Math.max(startMs + 2000, epochMs - rng.range(10, 290) * 1000);
      return {
        ...base, started: false, ready: false, restartCount: restarts,
        state: { waiting: { reason: 'CrashLoopBackOff', message: `back-off 5m0s restarting failed container=${name} pod=${podName}` } },
        lastState: { terminated: { exitCode: 1, reason: 'Error', startedAt: iso(ended - 2000), finishedAt: iso(ended), containerID } },
      };
    }
    case 'imagepull': return { name, image, imageID: '', started: false, ready: false, restartCount: 0, state: { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${image}"` } }, lastState: {} };
    case 'creating': return { name, image, imageID: '', started: false, ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } }, lastState: {} };
    case 'completed': return { ...base, started: false, ready: false, state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: iso(startMs + 2000), finishedAt: iso(startMs + 60_000), containerID } } };
    case 'failed': return { ...base, started: false, ready: false, state: { terminated: { exitCode: 2, reason: 'Error', startedAt: iso(startMs + 2000), finishedAt: iso(startMs + 30_000), containerID } } };
    case 'unschedulable': return base;
  }
}

/** What a workload's pod template says: kube stamps every pod of a ReplicaSet, StatefulSet, DaemonSet or Job from it alike. */
export interface PodTemplateParts {
  annotations: Record<string, string>;
  /** As in the template: without the service-account token mount that admission adds to each pod. */
  containers: Array<Record<string, unknown>>;
  initContainers?: Array<Record<string, unknown>>;
  readinessGates?: Array<{ conditionType: string }>;
}

const templates = new WeakMap<Workload, PodTemplateParts>();

export function podTemplateParts(t: Topology, w: Workload): PodTemplateParts {
  let parts = templates.get(w);
  if (parts) return parts;
  const rng = rngFor('pod-template', t.opts.seed, t.opts.cluster, w.namespace, w.name, w.revision);
  const annotations: Record<string, string> = rng.chance(0.4) ? { 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(w.port) } : {};
  // `kubectl rollout restart` is a rollout: it stamps the time into the template of the ReplicaSet it makes.
  if (w.kind === 'Deployment' && w.revision > 1 && rng.chance(0.5)) annotations['kubectl.kubernetes.io/restartedAt'] = iso(replicaSetCreatedMs(t, w) - 5000);
  const containers = [containerSpec(w, w.app, w.image, rng, true)];
  if (!w.system && rng.chance(0.3)) containers.push(containerSpec(w, 'istio-proxy', 'docker.io/istio/proxyv2:1.24.1', rng, false));
  const initContainers = !w.system && rng.chance(0.2) ? [containerSpec(w, 'init-config', 'busybox:1.36', rng, false)] : undefined;
  const readinessGates = !w.system && rng.chance(0.1) ? [{ conditionType: 'target-health.elbv2.k8s.aws/k8s-' + w.name }] : undefined;
  parts = { annotations, containers, ...(initContainers ? { initContainers } : {}), ...(readinessGates ? { readinessGates } : {}) };
  templates.set(w, parts);
  return parts;
}

/** Pod `r` of workload `w`'s state and node (none when no node would take it), drawn first from the pod's `rng`. */
function placement(t: Topology, w: Workload, r: number, rng: Rng): { state: PodState; node: NodeInfo | undefined } {
  const state = pickState(w, rng);
  return { state, node: state === 'unschedulable' ? undefined : w.kind === 'DaemonSet' ? t.nodes[r % t.nodes.length] : t.workers[rng.int(t.workers.length)] };
}

/** The node pod r of w runs on, if any: what its events name as their host. */
export function podNode(t: Topology, w: Workload, r: number): NodeInfo | undefined {
  return placement(t, w, r, podRng(t, w, r)).node;
}

/** When pod `r` of workload `w` was made, drawn from its own rng after its placement (as buildPod draws it). */
function createdMs(t: Topology, w: Workload, r: number, state: PodState, rng: Rng): number {
  if (w.kind === 'CronJob') return jobStamp(t, w, r) * 60_000 + 1000;
  if (state === 'creating') return t.opts.epochMs - rng.range(5, 90) * 1000;
  // No pod is older than the controller that made it: for a Deployment, its current ReplicaSet.
  return t.opts.epochMs - ageMs(rng.next(), t.opts.epochMs - (w.kind === 'Deployment' ? replicaSetCreatedMs(t, w) : w.createdMs));
}

/** The creationTimestamp (ms) of pod `r` of workload `w`: what its events come after. */
export function podCreatedMs(t: Topology, w: Workload, r: number): number {
  const rng = podRng(t, w, r);
  return createdMs(t, w, r, placement(t, w, r, rng).state, rng);
}

/** Pod `r` of workload `w`, fully populated as kube-apiserver would serve it (resourceVersion is set by the store). */
export function buildPod(t: Topology, w: Workload, r: number): SimObject {
  const rng = podRng(t, w, r);
  const name = podName(t, w, r);
  const { state, node } = placement(t, w, r, rng);
  const created = createdMs(t, w, r, state, rng);
  const owner = podOwner(t, w, r);
  const labels: Record<string, string> = { app: w.app, 'app.kubernetes.io/name': w.app, tier: w.tier };
  if (w.kind === 'Deployment') labels['pod-template-hash'] = w.hash;
  if (w.kind === 'StatefulSet') Object.assign(labels, { 'apps.kubernetes.io/pod-index': String(r), 'controller-revision-hash': `${w.name}-${revisionHash(w)}`, 'statefulset.kubernetes.io/pod-name': name });
  if (w.kind === 'DaemonSet') Object.assign(labels, { 'controller-revision-hash': revisionHash(w), 'pod-template-generation': '1' });
  if (w.kind === 'CronJob') Object.assign(labels, { 'batch.kubernetes.io/controller-uid': owner.uid, 'batch.kubernetes.io/job-name': owner.name, 'controller-uid': owner.uid, 'job-name': owner.name });
  // Each pod its own copy: stored objects never share nested values.
  const template = clone(podTemplateParts(t, w));
  const annotations = template.annotations;
  const apiMount = `kube-api-access-${kubeSuffix(rng)}`;
  // Admission adds the service-account token's mount after the template's own.
  const mounted = (c: Record<string, unknown>): Record<string, unknown> =>
    Object.assign(c, { volumeMounts: [...recs(c.volumeMounts), { name: apiMount, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }] });
  const containers = template.containers.map(mounted);
  const initContainers = template.initContainers?.map(mounted);
  const readinessGates = template.readinessGates;
  const ip = node ? (w.kind === 'DaemonSet' && w.name === 'kube-proxy' ? node.internalIp : podIp(w, r)) : undefined;

  const spec: Record<string, unknown> = {
    volumes: [{ name: apiMount, projected: { sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }, { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }, { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } }], defaultMode: 420 } }],
    ...(initContainers ? { initContainers } : {}),
    containers,
    restartPolicy: w.kind === 'CronJob' ? 'OnFailure' : 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    serviceAccountName: w.serviceAccount,
    serviceAccount: w.serviceAccount,
    ...(node ? { nodeName: node.name } : {}),
    securityContext: {},
    schedulerName: 'default-scheduler',
    tolerations: [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ],
    priority: w.system ? 2000001000 : 0,
    ...(w.system ? { priorityClassName: 'system-node-critical' } : {}),
    enableServiceLinks: true,
    preemptionPolicy: 'PreemptLowerPriority',
    ...(readinessGates ? { readinessGates } : {}),
  };
  // kube's StatefulSet controller puts the ordinal's claims first among its pod's volumes (updateStorage).
  if (w.kind === 'StatefulSet') Object.assign(spec, { hostname: name, subdomain: w.name, volumes: [{ name: 'data', persistentVolumeClaim: { claimName: `data-${w.name}-${r}` } }, ...(spec.volumes as unknown[])] });

  const status = podStatus(t, name, state, node, ip, created, containers, initContainers, rng);
  const metadata = {
    name,
    ...(w.kind === 'StatefulSet' ? {} : { generateName: `${name.slice(0, name.lastIndexOf('-'))}-` }),
    namespace: w.namespace,
    uid: genUid(t, 'pods', `${w.namespace}/${name}`),
    creationTimestamp: iso(created),
    labels,
    ...(Object.keys(annotations).length ? { annotations } : {}),
    ownerReferences: [owner],
  };
  const managedFields = [
    // Field sets trimmed to the leaves a real pod's managedFields mostly lists, keeping pods in the 3-8 KB range of real clusters.
    managed('kube-controller-manager', 'v1', created, {
      metadata: { generateName: '', labels, ownerReferences: [owner] },
      spec: { containers: containers.map((c) => ({ name: c.name, image: '', resources: '', imagePullPolicy: '' })), dnsPolicy: '', enableServiceLinks: '', restartPolicy: '', schedulerName: '', securityContext: '', serviceAccountName: '', terminationGracePeriodSeconds: '' },
    }),
    ...(node ? [managed('kubelet', 'v1', created + 5000, { status: { conditions: '', containerStatuses: '', hostIP: '', hostIPs: '', phase: '', podIP: '', podIPs: '', startTime: '' } }, 'status')] : []),
  ];
  return { apiVersion: 'v1', kind: 'Pod', metadata: { ...metadata, managedFields }, spec, status };
}

/**
 * The scheduler's word on a pod no node can take, counted on this cluster's nodes: the control plane's taint, every
 * worker short of CPU, and what preemption found, as both the PodScheduled condition and the event carry it.
 */
export function unschedulableMessage(t: Topology): string {
  const n = t.nodes.length;
  const tainted = t.nodes.filter((node) => node.controlPlane).length;
  const short = n - tainted;
  const taint = tainted > 0 ? `${tainted} node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, ` : '';
  const preemption = tainted > 0 ? `${tainted} Preemption is not helpful for scheduling, ` : '';
  return `0/${n} nodes are available: ${taint}${short} Insufficient cpu. preemption: 0/${n} nodes are available: ${preemption}${short} No preemption victims found for incoming pod.`;
}

function podStatus(t: Topology, podName: string, state: PodState, node: NodeInfo | undefined, ip: string | undefined, created: number, containers: Array<Record<string, unknown>>, inits: Array<Record<string, unknown>> | undefined, rng: Rng): Record<string, unknown> {
  const t0 = iso(created);
  if (!node) {
    return {
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: t0, reason: 'Unschedulable', message: unschedulableMessage(t) }],
      qosClass: 'Burstable',
    };
  }
  const statuses = containers.map((c, i) => containerStatus(String(c.name), String(c.image), state, created, rng, i === 0, podName, t.opts.epochMs));
  const allReady = statuses.every((s) => s.ready === true);
  const done = state === 'completed' || state === 'failed';
  const pending = state === 'imagepull' || state === 'creating';
  const cond = (type: string, ok: boolean, reason?: string): Record<string, unknown> => ({ type, status: ok ? 'True' : 'False', lastProbeTime: null, lastTransitionTime: iso(created + (ok ? 6000 : 1000)), ...(reason ? { reason } : {}) });
  return {
    phase: state === 'completed' ? 'Succeeded' : state === 'failed' ? 'Failed' : pending ? 'Pending' : 'Running',
    conditions: [
      cond('PodReadyToStartContainers', !pending || state === 'imagepull'),
      cond('Initialized', true, done ? 'PodCompleted' : undefined),
      cond('Ready', allReady && !done && !pending, done ? 'PodCompleted' : allReady ? undefined : 'ContainersNotReady'),
      cond('ContainersReady', allReady && !done && !pending, done ? 'PodCompleted' : allReady ? undefined : 'ContainersNotReady'),
      cond('PodScheduled', true),
    ],
    hostIP: node.internalIp,
    hostIPs: [{ ip: node.internalIp }],
    ...(ip && state !== 'creating' ? { podIP: ip, podIPs: [{ ip }] } : {}),
    startTime: t0,
    ...(inits ? { initContainerStatuses: inits.map((c) => containerStatus(String(c.name), String(c.image), 'completed', created - 20_000, rng, true, podName, t.opts.epochMs)) } : {}),
    containerStatuses: statuses,
    qosClass: 'Burstable',
  };
}

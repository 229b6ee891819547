// Controllers of the generated pods: Deployments → ReplicaSets, StatefulSets, DaemonSets, CronJobs → Jobs.
import { iso, lastApplied, managed } from './gen-meta.js';
import { availableCondition, deploymentAvailable, ownerStatus } from './controller-status.js';
import { clone } from './deep-equal.js';
import { genUid, jobName, jobStamp, podReady, podTemplateParts, replicaSetCreatedMs, replicaSetName, revisionHash } from './gen-pods.js';
import { rngFor } from './prng.js';
import { controllerRevision } from './revisions.js';
import type { Topology, Workload } from './topology.js';
import type { SimObject, SimOwnerRef } from './types.js';

const APPS = 'apps/v1';

function selectorLabels(w: Workload): Record<string, string> {
  return { app: w.app };
}

/** The pod template of a controller: the same parts its pods are stamped from (podTemplateParts). */
function podTemplate(t: Topology, w: Workload, extraLabels: Record<string, string> = {}, old = false): Record<string, unknown> {
  const parts = clone(podTemplateParts(t, w));
  // The ReplicaSet before a `kubectl rollout restart` had no restart stamp yet.
  if (old) delete parts.annotations['kubectl.kubernetes.io/restartedAt'];
  return {
    metadata: { labels: { ...selectorLabels(w), 'app.kubernetes.io/name': w.app, tier: w.tier, ...extraLabels }, ...(Object.keys(parts.annotations).length ? { annotations: parts.annotations } : {}) },
    spec: {
      ...(parts.initContainers ? { initContainers: parts.initContainers } : {}),
      containers: parts.containers,
      restartPolicy: w.kind === 'CronJob' ? 'OnFailure' : 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: w.serviceAccount,
      securityContext: {},
      schedulerName: 'default-scheduler',
      ...(parts.readinessGates ? { readinessGates: parts.readinessGates } : {}),
    },
  };
}

/** Metadata of a top-level workload; user workloads were `kubectl apply`-ed, so they carry last-applied-configuration. */
function workloadMeta(t: Topology, w: Workload, gr: string, apiVersion: string, kind: string, spec: Record<string, unknown>, extraAnnotations: Record<string, string> = {}): SimObject['metadata'] {
  const labels = { app: w.app, 'app.kubernetes.io/name': w.app, ...(w.system ? { 'k8s-app': w.app } : { 'app.kubernetes.io/part-of': w.namespace }) };
  const annotations: Record<string, string> = { ...extraAnnotations };
  if (!w.system) annotations['kubectl.kubernetes.io/last-applied-configuration'] = lastApplied(apiVersion, kind, { name: w.name, namespace: w.namespace, labels }, { spec });
  return {
    name: w.name,
    namespace: w.namespace,
    uid: genUid(t, gr, `${w.namespace}/${w.name}`),
    generation: w.revision,
    creationTimestamp: iso(w.createdMs),
    labels,
    ...(Object.keys(annotations).length ? { annotations } : {}),
    managedFields: [
      managed(w.system ? 'kubeadm' : 'kubectl-client-side-apply', apiVersion, w.createdMs, { metadata: { annotations, labels }, spec }),
      managed('kube-controller-manager', apiVersion, w.createdMs + 30_000, { metadata: { annotations: { 'deployment.kubernetes.io/revision': '' } }, status: { conditions: [], replicas: 0 } }, 'status'),
    ],
  };
}

/** The workload's pods that are ready, counted as its controller does: `kubectl get deploy` READY agrees with its pods. */
function readyCount(t: Topology, w: Workload): number {
  let ready = 0;
  for (let r = 0; r < w.replicas; r++) if (podReady(t, w, r)) ready++;
  return ready;
}

export function buildDeployment(t: Topology, w: Workload): SimObject {
  const spec = {
    replicas: w.replicas,
    selector: { matchLabels: selectorLabels(w) },
    template: podTemplate(t, w),
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
    revisionHistoryLimit: 10,
    progressDeadlineSeconds: 600,
  };
  const ready = readyCount(t, w);
  const at = iso(w.createdMs + 60_000);
  return {
    apiVersion: APPS, kind: 'Deployment',
    metadata: workloadMeta(t, w, 'deployments.apps', APPS, 'Deployment', spec, { 'deployment.kubernetes.io/revision': String(w.revision) }),
    spec,
    status: {
      observedGeneration: w.revision, replicas: w.replicas, updatedReplicas: w.replicas, ...(ready ? { readyReplicas: ready, availableReplicas: ready } : {}),
      ...(ready < w.replicas ? { unavailableReplicas: w.replicas - ready } : {}),
      conditions: [
        availableCondition(deploymentAvailable(w.replicas, ready), at),
        { type: 'Progressing', status: 'True', lastUpdateTime: at, lastTransitionTime: iso(w.createdMs), reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${replicaSetName(w)}" has successfully progressed.` },
      ],
    },
  };
}

export function buildReplicaSet(t: Topology, w: Workload, old: boolean): SimObject {
  const name = replicaSetName(w, old);
  const replicas = old ? 0 : w.replicas;
  const hash = old ? w.oldHash : w.hash;
  const owner: SimOwnerRef = { apiVersion: APPS, kind: 'Deployment', name: w.name, uid: genUid(t, 'deployments.apps', `${w.namespace}/${w.name}`), controller: true, blockOwnerDeletion: true };
  const labels = { ...selectorLabels(w), 'app.kubernetes.io/name': w.app, tier: w.tier, 'pod-template-hash': hash };
  const spec = { replicas, selector: { matchLabels: { ...selectorLabels(w), 'pod-template-hash': hash } }, template: podTemplate(t, w, { 'pod-template-hash': hash }, old) };
  const created = replicaSetCreatedMs(t, w, old);
  const ready = old ? 0 : readyCount(t, w);
  return {
    apiVersion: APPS, kind: 'ReplicaSet',
    metadata: {
      name, namespace: w.namespace, uid: genUid(t, 'replicasets.apps', `${w.namespace}/${name}`), generation: old ? 2 : 1, creationTimestamp: iso(created), labels,
      annotations: { 'deployment.kubernetes.io/desired-replicas': String(w.replicas), 'deployment.kubernetes.io/max-replicas': String(w.replicas + Math.ceil(w.replicas / 4)), 'deployment.kubernetes.io/revision': String(old ? w.revision - 1 : w.revision) },
      ownerReferences: [owner],
      managedFields: [managed('kube-controller-manager', APPS, created, { metadata: { labels, ownerReferences: [owner] }, spec }), managed('kube-controller-manager', APPS, created + 20_000, { status: { replicas: 0 } }, 'status')],
    },
    spec,
    status: ownerStatus('ReplicaSet', { observedGeneration: old ? 2 : 1 }, replicas, ready),
  };
}

export function buildStatefulSet(t: Topology, w: Workload): SimObject {
  const spec = {
    replicas: w.replicas, selector: { matchLabels: selectorLabels(w) }, template: podTemplate(t, w), serviceName: w.name, podManagementPolicy: 'OrderedReady',
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } }, revisionHistoryLimit: 10,
    persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
    volumeClaimTemplates: [{ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } }, volumeMode: 'Filesystem' } }],
  };
  const ready = readyCount(t, w);
  return {
    apiVersion: APPS, kind: 'StatefulSet', metadata: workloadMeta(t, w, 'statefulsets.apps', APPS, 'StatefulSet', spec), spec,
    status: ownerStatus('StatefulSet', { observedGeneration: 1, currentRevision: `${w.name}-${w.hash}`, updateRevision: `${w.name}-${w.hash}`, collisionCount: 0 }, w.replicas, ready),
  };
}

export function buildDaemonSet(t: Topology, w: Workload): SimObject {
  const spec = { selector: { matchLabels: selectorLabels(w) }, template: podTemplate(t, w), updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } }, revisionHistoryLimit: 10 };
  const n = w.replicas;
  return {
    apiVersion: APPS, kind: 'DaemonSet', metadata: workloadMeta(t, w, 'daemonsets.apps', APPS, 'DaemonSet', spec), spec,
    status: ownerStatus('DaemonSet', { numberMisscheduled: 0, observedGeneration: 1 }, n, readyCount(t, w)),
  };
}

/** A generated StatefulSet's or DaemonSet's one revision: the template its pods run, made with it. */
export function buildControllerRevision(t: Topology, w: Workload): SimObject {
  const owner = w.kind === 'DaemonSet' ? buildDaemonSet(t, w) : buildStatefulSet(t, w);
  const name = `${w.name}-${revisionHash(w)}`;
  return controllerRevision(owner, revisionHash(w), 1, { uid: genUid(t, 'controllerrevisions.apps', `${w.namespace}/${name}`), creationTimestamp: iso(w.createdMs) });
}

export function buildCronJob(t: Topology, w: Workload): SimObject {
  const schedule = w.periodMin === 1440 ? '0 2 * * *' : w.periodMin === 60 ? '0 * * * *' : `*/${w.periodMin} * * * *`;
  const spec = {
    schedule, concurrencyPolicy: 'Forbid', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1,
    jobTemplate: { metadata: {}, spec: { backoffLimit: 2, template: podTemplate(t, w) } },
  };
  const last = jobStamp(t, w, 0) * 60_000;
  return {
    apiVersion: 'batch/v1', kind: 'CronJob', metadata: workloadMeta(t, w, 'cronjobs.batch', 'batch/v1', 'CronJob', spec), spec,
    status: { lastScheduleTime: iso(last), lastSuccessfulTime: iso(last + 61_000) },
  };
}

export function buildJob(t: Topology, w: Workload, r: number): SimObject {
  const name = jobName(t, w, r);
  const uid = genUid(t, 'jobs.batch', `${w.namespace}/${name}`);
  const start = jobStamp(t, w, r) * 60_000;
  const owner: SimOwnerRef = { apiVersion: 'batch/v1', kind: 'CronJob', name: w.name, uid: genUid(t, 'cronjobs.batch', `${w.namespace}/${w.name}`), controller: true, blockOwnerDeletion: true };
  const failed = !rngFor('pod', t.opts.seed, t.opts.cluster, w.namespace, w.name, r).chance(0.9);
  const labels = { 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': name, 'controller-uid': uid, 'job-name': name };
  const spec = {
    parallelism: 1, completions: 1, backoffLimit: 2, completionMode: 'NonIndexed', suspend: false, podReplacementPolicy: 'TerminatingOrFailed',
    selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } },
    template: podTemplate(t, w, labels),
  };
  const finished = iso(start + 61_000);
  return {
    apiVersion: 'batch/v1', kind: 'Job',
    metadata: {
      name, namespace: w.namespace, uid, generation: 1, creationTimestamp: iso(start), labels, annotations: { 'batch.kubernetes.io/cronjob-scheduled-timestamp': iso(start) }, ownerReferences: [owner],
      managedFields: [managed('kube-controller-manager', 'batch/v1', start, { metadata: { labels, ownerReferences: [owner] }, spec }), managed('kube-controller-manager', 'batch/v1', start + 61_000, { status: {} }, 'status')],
    },
    spec,
    status: failed
      ? { conditions: [{ type: 'Failed', status: 'True', lastProbeTime: finished, lastTransitionTime: finished, reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }], startTime: iso(start), failed: 1, terminating: 0, ready: 0 }
      : { conditions: [{ type: 'SuccessCriteriaMet', status: 'True', lastProbeTime: finished, lastTransitionTime: finished, reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' }, { type: 'Complete', status: 'True', lastProbeTime: finished, lastTransitionTime: finished, reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' }], startTime: iso(start), completionTime: finished, succeeded: 1, terminating: 0, ready: 0, uncountedTerminatedPods: {} },
  };
}

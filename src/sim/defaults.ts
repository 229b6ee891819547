// kube's defaulting on create (SetDefaults_* of core/v1 and apps/v1) for pods, the workload kinds, secrets, namespaces,
// and claims and volumes (with the admission plugins' default class and protection finalizers): what `kubectl get -o
// yaml` shows of an object a user applied with only the fields they wrote (a Service's addresses: services.ts).
import { STORAGE_CLASS as DEFAULT_STORAGE_CLASS } from './gen-storage.js';
import { CLAIM_PROTECTION, VOLUME_PROTECTION } from './volume-protection.js';
import { rec, recs, type Rec, type SimObject } from './types.js';

/** Fills in, in place, what kube defaults in an object of `gr` being created. */
export function applyDefaults(gr: string, o: SimObject): void {
  if (gr === 'secrets') {
    o.type ??= 'Opaque';
    return writeStringData(gr, o);
  }
  if (gr === 'namespaces') {
    // The finalizer the namespace controller removes (its name label: store.ts, once a generated name is known).
    o.spec = { finalizers: ['kubernetes'], ...rec(o.spec) };
    return;
  }
  if (gr === 'persistentvolumeclaims') {
    // The volume mode's default, and the cluster's default class (the DefaultStorageClass admission plugin) for a
    // claim that names none; one that names "" asks for no class and keeps it.
    const spec = o.spec === undefined ? (o.spec = {}) : rec(o.spec);
    fill(spec, { volumeMode: 'Filesystem' });
    if (spec.storageClassName === undefined || spec.storageClassName === null) spec.storageClassName = DEFAULT_STORAGE_CLASS;
    o.status = { phase: 'Pending' };
    return protect(o, CLAIM_PROTECTION);
  }
  if (gr === 'persistentvolumes') return protect(o, VOLUME_PROTECTION);
  if (!['pods', 'deployments.apps', 'replicasets.apps', 'statefulsets.apps', 'jobs.batch', 'cronjobs.batch', 'daemonsets.apps'].includes(gr)) return;
  const spec = o.spec === undefined ? (o.spec = {}) : rec(o.spec);
  switch (gr) {
    case 'pods': return podSpec(spec, true);
    case 'deployments.apps':
      fill(spec, { replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 });
      strategy(spec, 'strategy', { maxUnavailable: '25%', maxSurge: '25%' });
      return template(spec);
    case 'replicasets.apps':
      fill(spec, { replicas: 1 });
      return template(spec);
    case 'statefulsets.apps':
      fill(spec, { replicas: 1, podManagementPolicy: 'OrderedReady', revisionHistoryLimit: 10, persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' } });
      strategy(spec, 'updateStrategy', { partition: 0 });
      return template(spec);
    case 'jobs.batch':
      if (spec.completions === undefined && spec.parallelism === undefined) fill(spec, { completions: 1, parallelism: 1 });
      fill(spec, { backoffLimit: 6, completionMode: 'NonIndexed', suspend: false, podReplacementPolicy: 'TerminatingOrFailed' });
      return template(spec);
    case 'cronjobs.batch': {
      fill(spec, { concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
      const job = spec.jobTemplate === undefined ? (spec.jobTemplate = {}) : rec(spec.jobTemplate);
      job.metadata = { creationTimestamp: null, ...rec(job.metadata) };
      return template(job.spec === undefined ? (job.spec = {}) : rec(job.spec));
    }
    case 'daemonsets.apps':
      fill(spec, { revisionHistoryLimit: 10 });
      strategy(spec, 'updateStrategy', { maxUnavailable: 1, maxSurge: 0 });
      return template(spec);
    default:
  }
}

/** The StorageObjectInUseProtection admission plugin's finalizer, added to a claim or volume being created. */
function protect(o: SimObject, finalizer: string): void {
  const finalizers = o.metadata.finalizers ?? [];
  if (!finalizers.includes(finalizer)) o.metadata.finalizers = [...finalizers, finalizer];
}

function fill(o: Rec, defaults: Rec): void {
  for (const [k, v] of Object.entries(defaults)) if (o[k] === undefined) o[k] = v;
}

/** A RollingUpdate strategy (the default type) gets its default parameters. */
function strategy(spec: Rec, field: string, rolling: Rec): void {
  const s = spec[field] === undefined ? (spec[field] = { type: 'RollingUpdate' }) : rec(spec[field]);
  fill(s, { type: 'RollingUpdate' });
  if (s.type === 'RollingUpdate') s.rollingUpdate = { ...rolling, ...rec(s.rollingUpdate) };
}

function template(spec: Rec): void {
  const t = spec.template === undefined ? (spec.template = {}) : rec(spec.template);
  t.metadata = { creationTimestamp: null, ...rec(t.metadata) };
  podSpec(t.spec === undefined ? (t.spec = {}) : rec(t.spec), false);
}

/** A pod's spec, or a template's (admission sets a pod's service account and priority, not a template's). */
function podSpec(spec: Rec, pod: boolean): void {
  fill(spec, { restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', securityContext: {}, schedulerName: 'default-scheduler' });
  if (pod) fill(spec, { serviceAccountName: 'default', serviceAccount: 'default', enableServiceLinks: true, priority: 0, preemptionPolicy: 'PreemptLowerPriority' });
  for (const list of ['initContainers', 'containers']) {
    for (const c of recs(spec[list])) {
      const image = String(c.image ?? '');
      const tag = image.includes('@') ? 'digest' : image.slice(image.lastIndexOf('/') + 1).split(':')[1];
      fill(c, { resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: tag === undefined || tag === 'latest' ? 'Always' : 'IfNotPresent' });
      for (const p of recs(c.ports)) fill(p, { protocol: 'TCP' });
    }
  }
}

/**
 * A Secret's stringData, which kube merges into data (base64, its keys winning) on every write and never stores: what
 * a manifest with stringData shows once applied.
 */
export function writeStringData(gr: string, o: SimObject): void {
  if (gr !== 'secrets' || o.stringData === undefined) return;
  const data = { ...rec(o.data) };
  for (const [k, v] of Object.entries(rec(o.stringData))) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
  delete o.stringData;
  o.data = data;
}

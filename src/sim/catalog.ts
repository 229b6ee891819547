// The built-in resources of the simulated kube-apiserver (1.32): names, kinds, verbs and selectable fields as kube serves them.
import { checkNewEvent, eventFromCore, eventToCore } from './events-v1.js';
import type { ResourceDef, SimObject } from './types.js';

const RW = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
/** kube does not allow deletecollection on namespaces. */
const RW_NO_COLLECTION = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

/** Reads a dotted path as a field-selector value: absent → "", booleans and numbers as Go prints them. */
export function fieldValue(o: SimObject, path: string): string {
  let cur: unknown = o;
  for (const part of path.split('.')) {
    if (typeof cur !== 'object' || cur === null) return '';
    cur = (cur as Record<string, unknown>)[part];
  }
  if (cur === undefined || cur === null) return '';
  return typeof cur === 'object' ? JSON.stringify(cur) : String(cur);
}

function fields(paths: string[], defaults: Record<string, string> = {}): Record<string, (o: SimObject) => string> {
  const out: Record<string, (o: SimObject) => string> = {};
  for (const p of paths) {
    const fallback = defaults[p] ?? '';
    out[p] = (o) => fieldValue(o, p) || fallback;
  }
  return out;
}

/** An Event's "source" field label: its source's component, or (an events.k8s.io recorder's) its reporting component. */
const eventSource = (o: SimObject): string => fieldValue(o, 'source.component') || fieldValue(o, 'reportingComponent');

/** What an events.k8s.io/v1 field selector names, read from the stored (core/v1) Event, as kube converts the labels. */
function eventsV1Fields(): Record<string, (o: SimObject) => string> {
  const out: Record<string, (o: SimObject) => string> = {};
  for (const f of ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath']) out[`regarding.${f}`] = (o) => fieldValue(o, `involvedObject.${f}`);
  out.reason = (o) => fieldValue(o, 'reason');
  out.reportingController = (o) => fieldValue(o, 'reportingComponent');
  out.source = eventSource;
  out.type = (o) => fieldValue(o, 'type');
  return out;
}

interface BuiltinInput {
  group: string;
  version: string;
  resource: string;
  kind: string;
  singular: string;
  shortNames?: string[];
  categories?: string[];
  verbs?: string[];
  namespaced: boolean;
  status: boolean;
  selectable?: Record<string, (o: SimObject) => string>;
  review?: boolean;
  metrics?: boolean;
}

function builtin(b: BuiltinInput): ResourceDef {
  return {
    group: b.group,
    versions: [b.version],
    resource: b.resource,
    kind: b.kind,
    listKind: `${b.kind}List`,
    singular: b.singular,
    shortNames: b.shortNames ?? [],
    categories: b.categories ?? [],
    verbs: b.verbs ?? RW,
    namespaced: b.namespaced,
    statusSubresource: b.status,
    selectableFields: b.selectable ?? {},
    custom: false,
    ...(b.review ? { review: true } : {}),
    ...(b.metrics ? { metrics: true } : {}),
  };
}

/** The built-ins every simulated cluster serves, in kube's discovery order within each group. */
export function builtinResources(): ResourceDef[] {
  return [
    builtin({ group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', singular: 'configmap', shortNames: ['cm'], namespaced: true, status: false }),
    builtin({
      group: '', version: 'v1', resource: 'events', kind: 'Event', singular: 'event', shortNames: ['ev'], namespaced: true, status: false,
      selectable: { ...fields(['involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid', 'involvedObject.apiVersion', 'involvedObject.resourceVersion', 'involvedObject.fieldPath', 'reason', 'reportingComponent', 'type']), source: eventSource },
    }),
    builtin({ group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', singular: 'namespace', shortNames: ['ns'], namespaced: false, status: true, verbs: RW_NO_COLLECTION, selectable: fields(['status.phase']) }),
    builtin({ group: '', version: 'v1', resource: 'nodes', kind: 'Node', singular: 'node', shortNames: ['no'], namespaced: false, status: true, selectable: fields(['spec.unschedulable'], { 'spec.unschedulable': 'false' }) }),
    builtin({ group: '', version: 'v1', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', singular: 'persistentvolumeclaim', shortNames: ['pvc'], namespaced: true, status: true }),
    builtin({ group: '', version: 'v1', resource: 'persistentvolumes', kind: 'PersistentVolume', singular: 'persistentvolume', shortNames: ['pv'], namespaced: false, status: true }),
    builtin({
      group: '', version: 'v1', resource: 'pods', kind: 'Pod', singular: 'pod', shortNames: ['po'], categories: ['all'], namespaced: true, status: true,
      selectable: fields(['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'spec.hostNetwork', 'status.phase', 'status.podIP', 'status.nominatedNodeName'], { 'spec.hostNetwork': 'false' }),
    }),
    builtin({ group: '', version: 'v1', resource: 'secrets', kind: 'Secret', singular: 'secret', namespaced: true, status: false, selectable: fields(['type']) }),
    builtin({ group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', singular: 'serviceaccount', shortNames: ['sa'], namespaced: true, status: false }),
    builtin({ group: '', version: 'v1', resource: 'services', kind: 'Service', singular: 'service', shortNames: ['svc'], categories: ['all'], namespaced: true, status: true, selectable: fields(['spec.clusterIP', 'spec.type']) }),
    builtin({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', singular: 'customresourcedefinition', shortNames: ['crd', 'crds'], categories: ['api-extensions'], namespaced: false, status: true }),
    builtin({ group: 'apps', version: 'v1', resource: 'controllerrevisions', kind: 'ControllerRevision', singular: 'controllerrevision', namespaced: true, status: false }),
    builtin({ group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet', singular: 'daemonset', shortNames: ['ds'], categories: ['all'], namespaced: true, status: true }),
    builtin({ group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', singular: 'deployment', shortNames: ['deploy'], categories: ['all'], namespaced: true, status: true }),
    builtin({ group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', singular: 'replicaset', shortNames: ['rs'], categories: ['all'], namespaced: true, status: true, selectable: fields(['status.replicas'], { 'status.replicas': '0' }) }),
    builtin({ group: 'apps', version: 'v1', resource: 'statefulsets', kind: 'StatefulSet', singular: 'statefulset', shortNames: ['sts'], categories: ['all'], namespaced: true, status: true }),
    builtin({ group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews', kind: 'TokenReview', singular: 'tokenreview', namespaced: false, status: false, verbs: ['create'], review: true }),
    builtin({ group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', singular: 'subjectaccessreview', namespaced: false, status: false, verbs: ['create'], review: true }),
    builtin({ group: 'batch', version: 'v1', resource: 'cronjobs', kind: 'CronJob', singular: 'cronjob', shortNames: ['cj'], categories: ['all'], namespaced: true, status: true }),
    // kube's Job label status.successful reads status.succeeded.
    builtin({ group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job', singular: 'job', categories: ['all'], namespaced: true, status: true, selectable: { 'status.successful': (o) => fieldValue(o, 'status.succeeded') || '0' } }),
    // The same objects as core/v1's events (events-v1.ts), as kube serves them.
    {
      ...builtin({ group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', singular: 'event', shortNames: ['ev'], namespaced: true, status: false, selectable: eventsV1Fields() }),
      storedAs: { gr: 'events', read: eventFromCore, write: eventToCore, checkCreate: checkNewEvent },
    },
    builtin({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', singular: 'lease', namespaced: true, status: false }),
    // metrics-server's aggregated API (what kubectl top reads).
    builtin({ group: 'metrics.k8s.io', version: 'v1beta1', resource: 'nodes', kind: 'NodeMetrics', singular: '', namespaced: false, status: false, verbs: ['get', 'list'], metrics: true }),
    builtin({ group: 'metrics.k8s.io', version: 'v1beta1', resource: 'pods', kind: 'PodMetrics', singular: '', namespaced: true, status: false, verbs: ['get', 'list'], metrics: true }),
    builtin({ group: 'networking.k8s.io', version: 'v1', resource: 'ingresses', kind: 'Ingress', singular: 'ingress', shortNames: ['ing'], namespaced: true, status: true }),
  ];
}

/** kube's group order in /apis: the legacy-priority groups first, then the rest alphabetically (CRD groups last). */
export const GROUP_ORDER = ['apps', 'events.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io', 'batch', 'networking.k8s.io', 'coordination.k8s.io', 'apiextensions.k8s.io'];

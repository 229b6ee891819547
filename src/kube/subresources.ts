// The `status` and `scale` subresources as kube-apiserver serves them on a GET: which resources have them, and the
// autoscaling/v1 Scale a scale subresource renders from its object (the built-in ScaleREST handlers and
// apiextensions' scaleFromCustomResource). Pure, no I/O.

import { at, isObject, stringMap, type JsonObject } from './printers/fields.js';
import { labelSelectorString, labelSetString } from './printers/labels.js';
import { CLUSTER_ANNOTATION, type KubeObject } from './types.js';

/** A CRD version's `subresources.scale`: dot paths (no array notation; apiextensions validates them so). */
export interface ScalePaths {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** The read-only subresources of a resource: whether it has `status`, and how its `scale` is derived if it has one. */
export interface Subresources {
  status: boolean;
  scale?: ScaleSource;
}

/** How a Scale is made from an object: a built-in handler, or a CRD's paths. */
export type ScaleSource = { kind: 'selector' } | { kind: 'selectorMap' } | { kind: 'paths'; paths: ScalePaths };

// Built-ins with a `status` subresource in kube-apiserver's registry (group/resource).
const STATUS = new Set([
  '/pods', '/nodes', '/namespaces', '/services', '/persistentvolumes', '/persistentvolumeclaims',
  '/replicationcontrollers', '/resourcequotas',
  'apps/deployments', 'apps/replicasets', 'apps/statefulsets', 'apps/daemonsets',
  'batch/jobs', 'batch/cronjobs',
  'autoscaling/horizontalpodautoscalers',
  'policy/poddisruptionbudgets',
  'networking.k8s.io/ingresses', 'networking.k8s.io/servicecidrs',
  'certificates.k8s.io/certificatesigningrequests',
  'apiextensions.k8s.io/customresourcedefinitions',
  'apiregistration.k8s.io/apiservices',
  'flowcontrol.apiserver.k8s.io/flowschemas', 'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations',
  'storage.k8s.io/volumeattachments',
  'admissionregistration.k8s.io/validatingadmissionpolicies',
  'resource.k8s.io/resourceclaims',
  'internal.apiserver.k8s.io/storageversions',
  'storagemigration.k8s.io/storageversionmigrations',
]);

// Built-ins with a `scale` subresource: apps' controllers carry a LabelSelector, a ReplicationController a label map.
const SCALE = new Map<string, ScaleSource>([
  ['apps/deployments', { kind: 'selector' }],
  ['apps/replicasets', { kind: 'selector' }],
  ['apps/statefulsets', { kind: 'selector' }],
  ['/replicationcontrollers', { kind: 'selectorMap' }],
]);

/** The subresources of a built-in resource (none for anything else). */
export function builtinSubresources(group: string, resource: string): Subresources {
  const key = `${group}/${resource}`;
  const scale = SCALE.get(key);
  return scale ? { status: STATUS.has(key), scale } : { status: STATUS.has(key) };
}

/** The subresources a CRD version declares (`spec.versions[].subresources`, or the deprecated top-level one). */
export function crdSubresources(declared: unknown): Subresources {
  if (!isObject(declared)) return { status: false };
  const out: Subresources = { status: isObject(declared.status) };
  const scale = declared.scale;
  if (isObject(scale) && typeof scale.specReplicasPath === 'string' && typeof scale.statusReplicasPath === 'string') {
    const paths: ScalePaths = { specReplicasPath: scale.specReplicasPath, statusReplicasPath: scale.statusReplicasPath };
    if (typeof scale.labelSelectorPath === 'string' && scale.labelSelectorPath !== '') paths.labelSelectorPath = scale.labelSelectorPath;
    out.scale = { kind: 'paths', paths };
  }
  return out;
}

/** autoscaling/v1 Scale, in kube's JSON field order. */
export interface Scale {
  kind: 'Scale';
  apiVersion: 'autoscaling/v1';
  metadata: JsonObject;
  spec: { replicas?: number };
  status: { replicas: number; selector?: string };
}

/**
 * The Scale of an object. Its metadata is what kube copies (name, namespace, uid, resourceVersion,
 * creationTimestamp), plus the cluster annotation every object we serve carries (our tables' Cluster column).
 */
export function scaleOf(obj: KubeObject, source: ScaleSource): Scale {
  const m = obj.metadata ?? {};
  const metadata: JsonObject = {};
  for (const k of ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp'] as const) {
    if (m[k] !== undefined && m[k] !== '') metadata[k] = m[k];
  }
  const cluster = m.annotations?.[CLUSTER_ANNOTATION];
  if (cluster !== undefined) metadata.annotations = { [CLUSTER_ANNOTATION]: cluster };
  let specReplicas: number;
  let statusReplicas: number;
  let selector: string;
  if (source.kind === 'paths') {
    // scaleFromCustomResource: an absent field reads as 0, an absent selector as ''.
    specReplicas = integerAt(obj, source.paths.specReplicasPath) ?? 0;
    statusReplicas = integerAt(obj, source.paths.statusReplicasPath) ?? 0;
    const s = source.paths.labelSelectorPath === undefined ? undefined : at(obj, ...dotPath(source.paths.labelSelectorPath));
    selector = typeof s === 'string' ? s : '';
  } else {
    // The typed objects default spec.replicas to 1.
    specReplicas = integerAt(obj, '.spec.replicas') ?? 1;
    statusReplicas = integerAt(obj, '.status.replicas') ?? 0;
    const s = at(obj, 'spec', 'selector');
    selector = source.kind === 'selector'
      ? labelSelectorString(s) ?? ''
      : labelSetString(stringMap(s));
  }
  const status: Scale['status'] = { replicas: statusReplicas };
  if (selector !== '') status.selector = selector;
  return { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata, spec: specReplicas === 0 ? {} : { replicas: specReplicas }, status };
}

/** `.spec.replicas` → ['spec', 'replicas']. */
function dotPath(path: string): string[] {
  return path.split('.').filter((s) => s !== '');
}

function integerAt(obj: KubeObject, path: string): number | undefined {
  const v = at(obj, ...dotPath(path));
  return typeof v === 'number' && Number.isInteger(v) ? v : undefined;
}

// Kubernetes' own field selectors, on top of the enhanced JSON-path ones (reference §2.4). kube-apiserver does not
// read the object for `--field-selector`: each resource offers a few field labels, rendered from the typed object,
// where a missing value is the zero value of its type ("" for a string, "false", "0"). So on a member
// `kubectl get nodes --field-selector spec.unschedulable=false` lists every schedulable node (the field is absent on
// them), and `kubectl get jobs --field-selector status.successful=1` reads `status.succeeded`. Read as JSON paths,
// both answered nothing. For a request about one resource, its labels keep kube's meaning; any other path is a
// JSON path as before. Labels from pkg/registry/*/strategy.go (ToSelectableFields / field label conversions).
import type { FieldPathSegment, FieldRequirement } from './requirement.js';

interface FieldLabel {
  /** The JSON path it reads, when not the label itself. */
  path?: string;
  /** The path it reads instead when that one is absent or "". */
  or?: string;
  /** What kube renders when the field is absent. */
  absentAs: string;
}

const str: FieldLabel = { absentAs: '' };

/** group/resource → label → what it reads. */
const LABELS: Record<string, Record<string, FieldLabel>> = {
  '/pods': {
    'spec.nodeName': str, 'spec.restartPolicy': str, 'spec.schedulerName': str, 'spec.serviceAccountName': str,
    'spec.hostNetwork': { absentAs: 'false' }, 'status.phase': str, 'status.podIP': str, 'status.nominatedNodeName': str,
  },
  '/nodes': { 'spec.unschedulable': { absentAs: 'false' } },
  '/namespaces': { 'status.phase': str },
  '/secrets': { type: str },
  '/replicationcontrollers': { 'status.replicas': { absentAs: '0' } },
  // core/v1 Event keeps its ReportingController under the JSON name reportingComponent (events.k8s.io names it
  // reportingController): the label reads that field as it is.
  '/events': {
    'involvedObject.kind': str, 'involvedObject.namespace': str, 'involvedObject.name': str, 'involvedObject.uid': str,
    'involvedObject.apiVersion': str, 'involvedObject.resourceVersion': str, 'involvedObject.fieldPath': str,
    reason: str, type: str, reportingComponent: str,
    // An Event recorded through events.k8s.io (the scheduler's) has no source: its reporting component stands in.
    source: { path: 'source.component', or: 'reportingComponent', absentAs: '' },
  },
  'apps/replicasets': { 'status.replicas': { absentAs: '0' } },
  'batch/jobs': { 'status.successful': { path: 'status.succeeded', absentAs: '0' } },
  'certificates.k8s.io/certificatesigningrequests': { 'spec.signerName': str },
  // The same Events under events.k8s.io's names (kube converts these labels to core's).
  'events.k8s.io/events': {
    'regarding.kind': str, 'regarding.namespace': str, 'regarding.name': str, 'regarding.uid': str,
    'regarding.apiVersion': str, 'regarding.resourceVersion': str, 'regarding.fieldPath': str,
    reason: str, type: str, reportingController: str,
    source: { path: 'deprecatedSource.component', or: 'reportingController', absentAs: '' },
  },
};

/**
 * Resources whose labels came after rows were written with a `fields` document of the paths then kept: a path new
 * here would be missing from every such document, so theirs are read from the object (and are not in
 * FIELD_LABEL_PATHS). Keeping them would need those documents written again.
 */
const READ_FROM_OBJECT = new Set(['events.k8s.io/events']);

/**
 * The JSON paths kube's field labels read, over every resource but READ_FROM_OBJECT's, sorted: the stored values a
 * write can change that a field selector in kube's own form names. The change log keeps what they were before an
 * entry (object-columns.ts `selectableFields`), as it keeps labels, so that a watch from an old resourceVersion knows
 * what matched then.
 */
export const FIELD_LABEL_PATHS: readonly string[] = [...new Set(Object.entries(LABELS).filter(([gr]) => !READ_FROM_OBJECT.has(gr))
  .flatMap(([, own]) => Object.entries(own).flatMap(([name, l]) => [l.path ?? name, ...(l.or ? [l.or] : [])])))].sort();

const KEPT = new Set(FIELD_LABEL_PATHS);

/** Whether a requirement's path is one of FIELD_LABEL_PATHS (plain: no list, no index). */
export function readsFieldLabelPath(path: readonly FieldPathSegment[]): boolean {
  const name = dotted(path);
  return name !== undefined && KEPT.has(name);
}

/** Whether every path a requirement reads (its own, and the one it may read instead) is one of FIELD_LABEL_PATHS. */
export function readsOnlyFieldLabelPaths(r: FieldRequirement): boolean {
  return readsFieldLabelPath(r.path) && (r.orPath === undefined || readsFieldLabelPath(r.orPath));
}

/** Every resource's: a cluster-scoped object's namespace is "". */
const COMMON: Record<string, FieldLabel> = { 'metadata.namespace': str };

/** The path as a plain dotted name, when it is one (no list, no index). */
export function dotted(path: readonly FieldPathSegment[]): string | undefined {
  if (path.some((s) => s.list || s.index !== undefined)) return undefined;
  return path.map((s) => s.name).join('.');
}

/**
 * The requirements with kube's field labels of `group/resource` read as kube reads them: renamed to the path they
 * read, and told the value an absent field has. Other requirements are returned as they are.
 */
export function withFieldLabels(group: string, resource: string, reqs: FieldRequirement[]): FieldRequirement[] {
  const own = LABELS[`${group}/${resource}`];
  return reqs.map((r) => {
    const name = dotted(r.path);
    const label = name === undefined ? undefined : own && Object.hasOwn(own, name) ? own[name] : Object.hasOwn(COMMON, name) ? COMMON[name] : undefined;
    if (!label) return r;
    const path = (p: string): FieldPathSegment[] => p.split('.').map((n) => ({ name: n }));
    return { ...r, ...(label.path ? { path: path(label.path) } : {}), ...(label.or ? { orPath: path(label.or) } : {}), absentAs: label.absentAs };
  });
}

// PediaCluster and ClusterSyncResources (cluster.clusterpedia.io/v1alpha2) as narrow structural types.
import { stringMap } from './printers/fields.js';

export const CLUSTER_API_GROUP = 'cluster.clusterpedia.io';
export const CLUSTER_API_VERSION = 'v1alpha2';
export const CLUSTER_API_GROUP_VERSION = `${CLUSTER_API_GROUP}/${CLUSTER_API_VERSION}`;
/** Finalizer the synchro puts on every PediaCluster it owns (reference §4.5). */
export const SYNCHRO_FINALIZER = 'clusterpedia.io/cluster-synchro-controller';

/** One entry of spec.syncResources. `*` is a wildcard for group, versions and resources. */
export interface ClusterGroupResources {
  group: string;
  versions?: string[];
  resources: string[];
  /**
   * Resources of this entry (names as in `resources`, or `*`) whose core/v1 Events are synced too, for
   * search.clusterpedia.io/inject-events; not needed when `events` itself is synced.
   */
  eventsInvolvedResources?: string[];
}

/** A Secret key reference of spec.authenticationFrom. */
export interface SecretKeyRef {
  name: string;
  key: string;
}

export interface AuthenticationFrom {
  kubeconfig?: SecretKeyRef;
  ca?: SecretKeyRef;
  cert?: SecretKeyRef;
  key?: SecretKeyRef;
  token?: SecretKeyRef;
}

/** spec of a PediaCluster. Byte fields are base64 strings, as in JSON/YAML. */
export interface PediaClusterSpec {
  apiserver?: string;
  kubeconfig?: string;
  caData?: string;
  tokenData?: string;
  certData?: string;
  keyData?: string;
  authenticationFrom?: AuthenticationFrom;
  syncResources?: ClusterGroupResources[];
  syncAllCustomResources?: boolean;
  syncResourcesRefName?: string;
  /**
   * Namespaces whose objects are not synced (ours; Clusterpedia has no such field): lists and watches of namespaced
   * resources ask the member for the others only, with a `metadata.namespace!=` field selector.
   */
  excludeNamespaces?: string[];
  shardingName?: string;
}

/** metav1.Condition. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

export interface ClusterResourceSyncCondition {
  version: string;
  status: string;
  reason?: string;
  message?: string;
  initialListPhase?: boolean;
  lastTransitionTime: string;
  /** Our additions (API.md §2). */
  count?: number;
  lastEventTime?: string;
  /** The last error met (`<reason>: <message>`) and when, kept after the resource recovered. */
  lastError?: string;
  lastErrorTime?: string;
  /** Member RV up to which every event is committed (where a restarted synchro resumes watching). */
  resourceVersion?: string;
  /** The field selector its lists and watches are sent with (spec.excludeNamespaces): it is synced under it. */
  fieldSelector?: string;
  /** Its objects are stored without their values (--redact-secret-data). */
  redacted?: boolean;
}

/** A term of the field selector of spec.excludeNamespaces: one namespace left out. */
const NOT_NAMESPACE = 'metadata.namespace!=';

/**
 * The field selector a resource is synced under to leave out the objects of `namespaces` (kube ANDs its terms), or
 * undefined for none: what the synchro sends and records as syncConditions[].fieldSelector.
 */
export function excludingSelector(namespaces: readonly string[]): string | undefined {
  return namespaces.length > 0 ? namespaces.map((ns) => `${NOT_NAMESPACE}${ns}`).join(',') : undefined;
}

/** The namespaces a recorded syncConditions[].fieldSelector leaves out (excludingSelector's, read back). */
export function namespacesExcludedBy(selector: string): string[] {
  const out: string[] = [];
  for (const term of selector.split(',')) if (term.startsWith(NOT_NAMESPACE)) out.push(term.slice(NOT_NAMESPACE.length));
  return out;
}

export interface ClusterResourceStatus {
  name: string;
  kind: string;
  namespaced: boolean;
  syncConditions: ClusterResourceSyncCondition[];
  /**
   * A resource kube does not build in (a custom resource, an aggregated API's): the names the member's discovery gives
   * it, which clusterpedia's discovery serves without its CRD synced (clusterpedia-ts addition).
   */
  singularName?: string;
  shortNames?: string[];
  categories?: string[];
}

/** What a member's discovery calls a resource besides its plural and kind. */
export interface ResourceNames {
  singularName: string;
  shortNames: string[];
  categories: string[];
}

export interface ClusterGroupResourcesStatus {
  group: string;
  resources: ClusterResourceStatus[];
}

export interface PediaClusterStatus {
  apiserver?: string;
  version?: string;
  conditions?: Condition[];
  syncResources?: ClusterGroupResourcesStatus[];
  shardingName?: string;
  /** The HTTP version the synchro's requests to the member use, once known (clusterpedia-ts addition). */
  protocol?: 'h2' | 'http/1.1';
}

/** Longest a PediaCluster's status, as others see it, lags behind counts and event times, milliseconds. */
export const STATUS_REFRESH_MS = 30_000;

/**
 * The parts of a status that are news: conditions, version, endpoint and each resource's state. Not its counts,
 * event times or resume points, which move with every event (they are shown at most every STATUS_REFRESH_MS).
 */
export function significantStatus(status: PediaClusterStatus): string {
  return JSON.stringify([status.conditions, status.version, status.apiserver, (status.syncResources ?? []).map((g) => [
    // lastError, not its time: an error that came and went between two writes is news; the same again is not.
    g.group, (g.resources ?? []).map((r) => [r.name, (r.syncConditions ?? []).map((c) => [c.version, c.status, c.reason, c.message, c.initialListPhase, c.lastError])]),
  ]), status.shardingName, status.protocol]);
}

export interface PediaCluster {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    deletionTimestamp?: string;
    finalizers?: string[];
    labels?: Record<string, string>;
    [key: string]: unknown;
  };
  spec: PediaClusterSpec;
  status?: PediaClusterStatus;
}

/** metadata.labels as a label selector sees them: string values only (a file is not checked against a schema). */
export function pediaClusterLabels(pc: Pick<PediaCluster, 'metadata'>): Record<string, string> {
  return stringMap(pc.metadata.labels);
}

export interface ClusterSyncResources {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; resourceVersion?: string; [key: string]: unknown };
  /** excludeNamespaces: ours, as on a PediaCluster; added to the excludeNamespaces of each cluster that refers to it. */
  spec: { syncResources?: ClusterGroupResources[]; excludeNamespaces?: string[] };
}

// Narrow structural types for Kubernetes objects as stored JSON (STYLE §20): only what we read.

export interface OwnerReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: unknown[];
  [key: string]: unknown;
}

/** Any Kubernetes object: kind/apiVersion may be absent on list items, as kube-apiserver sends them. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [key: string]: unknown;
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  selfLink?: string;
}

export interface KubeList<T = KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items: T[];
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent<T = KubeObject> {
  type: WatchEventType;
  object: T;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupResource {
  group: string;
  resource: string;
}

/** "apps/v1" or "v1" for the core group. */
export function groupVersionString(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** Parses "apps/v1" → {group:'apps', version:'v1'}, "v1" → {group:'', version:'v1'}. */
export function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  if (slash < 0) return { group: '', version: apiVersion };
  return { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** "deployments.apps", or "pods" for the core group. */
export function groupResourceString(gr: GroupResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

/** Annotation carrying the member cluster's name on every stored object (reference §6.3). */
export const CLUSTER_ANNOTATION = 'shadow.clusterpedia.io/cluster-name';
/** Annotation carrying the member's original resourceVersion on served objects (API.md §4). */
export const MEMBER_RV_ANNOTATION = 'shadow.clusterpedia.io/resource-version';
/** On a Secret stored without its values (--redact-secret-data): what was left out. */
export const REDACTED_ANNOTATION = 'shadow.clusterpedia.io/redacted';
/** Annotation pruned before storage by default. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** A time as metav1.Time puts it on the wire: RFC 3339 in UTC, to the second. */
export function kubeTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

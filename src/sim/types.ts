// The simulator's own small Kubernetes shapes (it imports nothing from src/kube, to stay an independent instrument).

export interface SimOwnerRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface SimMeta {
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
  ownerReferences?: SimOwnerRef[];
  finalizers?: string[];
  managedFields?: unknown[];
  [key: string]: unknown;
}

/** Any object the simulator stores or serves. Stored objects always carry kind and apiVersion. */
export interface SimObject {
  apiVersion?: string;
  kind?: string;
  metadata: SimMeta;
  [key: string]: unknown;
}

/** A group/version/resource as clients address it. `group` is "" for the core group. */
export interface Gvr {
  group: string;
  version: string;
  resource: string;
}

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  priority?: number;
  format?: string;
}

/** Everything the simulator knows about one served resource (a built-in or a CRD). */
export interface ResourceDef {
  group: string;
  /** Served versions, most preferred first; objects are stored once and served at any of them. */
  versions: string[];
  resource: string;
  kind: string;
  listKind: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  namespaced: boolean;
  /** Has a /status subresource: the main resource ignores status writes and /status only writes status. */
  statusSubresource: boolean;
  /** Field selectors beyond metadata.name/metadata.namespace, and how to read each. */
  selectableFields: Record<string, (o: SimObject) => string>;
  /** Served by the CRD machinery: list items keep kind/apiVersion, unknown field selectors get the CRD message. */
  custom: boolean;
  /** Create-only review resources (TokenReview, SubjectAccessReview): never stored. */
  review?: boolean;
  /** metrics.k8s.io (metrics.ts): made from the pods and nodes at each read, never stored. */
  metrics?: boolean;
  printerColumns?: PrinterColumn[];
  /**
   * Served from another resource's objects, as kube serves events.k8s.io/v1 Events from core/v1's (one stored object,
   * one resourceVersion, in the watches of both): `gr` holds them; `read` gives a stored object in this resource's
   * form, `write` the reverse, `checkCreate` refuses a new one this version's validation would.
   */
  storedAs?: { gr: string; read: (o: SimObject) => SimObject; write: (o: SimObject) => SimObject; checkCreate?: (o: SimObject) => void };
}

/** The key of a group-resource, the unit of storage: "pods", "deployments.apps". */
/** A JSON object read loosely: a stored object's fields, any of which may be absent or of another type. */
export type Rec = Record<string, unknown>;
/** `v` as an object, or an empty one. */
export const rec = (v: unknown): Rec => (typeof v === 'object' && v !== null ? (v as Rec) : {});
/** `v` as a list of objects, or an empty one. */
export const recs = (v: unknown): Rec[] => (Array.isArray(v) ? (v as Rec[]) : []);

export function grKey(group: string, resource: string): string {
  return group === '' ? resource : `${resource}.${group}`;
}

export function apiVersionOf(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** The storage key of an object: "ns/name" or "name"; byte order equals etcd's key order. */
export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** objectKey's parts back: [namespace, name], the namespace "" for a cluster-scoped object's key. */
export function splitObjectKey(key: string): [namespace: string, name: string] {
  const slash = key.indexOf('/');
  return slash < 0 ? ['', key] : [key.slice(0, slash), key.slice(slash + 1)];
}

/** An object's key in its table (objectKey of its own namespace and name). */
export function keyOf(o: SimObject): string {
  return objectKey(o.metadata.namespace, o.metadata.name ?? '');
}

export type WatchType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One committed change, as the event window keeps it. `prev` is the object before the change (null for ADDED). */
export interface ChangeEvent {
  rev: number;
  gr: string;
  key: string;
  type: WatchType;
  object: SimObject;
  prev: SimObject | null;
}

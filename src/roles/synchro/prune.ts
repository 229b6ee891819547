// Shapes a member object for storage: prune what nobody queries, add the cluster annotation, kind and apiVersion.
import { CLUSTER_ANNOTATION, LAST_APPLIED_ANNOTATION, REDACTED_ANNOTATION, type KubeObject } from '../../kube/types.js';
import type { StoredJsonObject } from '../../storage/types.js';

export interface PruneOptions {
  managedFields: boolean;
  lastAppliedConfiguration: boolean;
  /** Secrets' values (redactSecret). */
  secretData?: boolean;
}

/** Whether objects of this kind are stored redacted under `prune` (a Secret of the core group, with secretData). */
export function redacts(prune: PruneOptions, apiVersion: string, kind: string): boolean {
  return prune.secretData === true && apiVersion === 'v1' && kind === 'Secret';
}

/**
 * Returns the object as it will be stored. Mutates `obj` in place: it was parsed for this write only and copying
 * 10 KB objects at thousands per second is measurable. Returns undefined when the object has no name.
 */
export function prepareObject(
  obj: KubeObject, cluster: string, apiVersion: string, kind: string, prune: PruneOptions,
): StoredJsonObject | undefined {
  const meta = obj.metadata;
  if (!meta || typeof meta.name !== 'string' || meta.name === '') return undefined;
  // kube-apiserver omits kind/apiVersion on list items; served objects need them.
  obj.apiVersion = apiVersion;
  obj.kind = kind;
  if (prune.managedFields) delete meta.managedFields;
  const annotations: Record<string, string> = meta.annotations ?? {};
  if (prune.lastAppliedConfiguration) delete annotations[LAST_APPLIED_ANNOTATION];
  if (redacts(prune, apiVersion, kind)) redactSecret(obj, annotations);
  annotations[CLUSTER_ANNOTATION] = cluster;
  meta.annotations = annotations;
  return obj as StoredJsonObject;
}

/**
 * A Secret without its values: each key of `data` kept with an empty value (so kubectl's DATA column and `describe`
 * still list the keys), `stringData` gone, and the last-applied annotation too, whatever the pruning (kubectl apply
 * writes the whole Secret into it). An annotation says so, so an empty value is not taken for an empty key.
 */
function redactSecret(obj: KubeObject, annotations: Record<string, string>): void {
  const secret = obj as KubeObject & { data?: unknown; stringData?: unknown };
  if (secret.data !== null && typeof secret.data === 'object') secret.data = Object.fromEntries(Object.keys(secret.data).map((k) => [k, '']));
  delete secret.stringData;
  delete annotations[LAST_APPLIED_ANNOTATION];
  annotations[REDACTED_ANNOTATION] = 'data';
}

/** The key of an object inside one resource: "ns/name", or "name" for cluster-scoped objects (as storage keys it). */
export function objectKey(obj: KubeObject): string | undefined {
  const meta = obj.metadata;
  if (!meta || typeof meta.name !== 'string' || meta.name === '') return undefined;
  return meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name;
}

/** Splits an object key back into namespace and name. */
export function splitKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

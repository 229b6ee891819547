// The scale subresource of Deployments, ReplicaSets and StatefulSets (`kubectl scale`, an HPA): an autoscaling/v1
// Scale read from the object and written back into its spec.replicas, as kube's ScaleREST does.
import { clone } from './deep-equal.js';
import { errors } from './status.js';
import type { SimStore } from './store.js';
import { rec, type SimObject } from './types.js';

/** The group-resources that serve `…/scale`. */
export const SCALABLE = new Set(['deployments.apps', 'replicasets.apps', 'statefulsets.apps']);

/** `o` as an autoscaling/v1 Scale: its wanted replicas, those it has, and its pod selector as a string. */
export function scaleOf(o: SimObject): Record<string, unknown> {
  const { name, namespace, uid, resourceVersion, creationTimestamp } = o.metadata;
  return {
    kind: 'Scale', apiVersion: 'autoscaling/v1',
    metadata: { name, namespace, uid, resourceVersion, creationTimestamp },
    spec: { replicas: Number(rec(o.spec).replicas ?? 0) },
    status: { replicas: Number(rec(o.status).replicas ?? 0), selector: selectorString(rec(rec(o.spec).selector)) },
  };
}

/**
 * Writes a Scale (`input`: what a PUT sent, or the current Scale with a patch applied) into the object's
 * spec.replicas; returns the object as updated. kube's validation: replicas a whole number, not negative; a
 * resourceVersion in the Scale is a precondition on the object.
 */
export function writeScale(store: SimStore, gr: string, current: SimObject, input: unknown): SimObject {
  const name = current.metadata.name ?? '';
  const scale = rec(input);
  const replicas = rec(scale.spec).replicas;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas)) throw errors.invalid('Scale', name, 'spec.replicas', `Invalid value: ${JSON.stringify(replicas ?? null)}: must be a whole number`, 'autoscaling');
  if (replicas < 0) throw errors.invalid('Scale', name, 'spec.replicas', `Invalid value: ${replicas}: must be greater than or equal to 0`, 'autoscaling');
  const rv = rec(scale.metadata).resourceVersion;
  if (typeof rv === 'string' && rv !== '' && rv !== current.metadata.resourceVersion) throw errors.conflict(gr, name);
  if (Number(rec(current.spec).replicas ?? 0) === replicas) return current;
  const next = clone(current);
  next.spec = { ...rec(next.spec), replicas };
  return store.update(gr, next);
}

/**
 * metav1.FormatLabelSelector: each requirement (matchLabels as `k=v`, then the expressions) as kube's selector prints
 * it, sorted by key as its Add sorts them, a set's values sorted.
 */
export function selectorString(selector: Record<string, unknown>): string {
  const parts: Array<[key: string, text: string]> = Object.entries(rec(selector.matchLabels)).map(([k, v]) => [k, `${k}=${String(v)}`]);
  for (const e of Array.isArray(selector.matchExpressions) ? selector.matchExpressions : []) {
    const { key, operator, values } = rec(e);
    const k = String(key);
    const list = Array.isArray(values) ? values.map(String).sort().join(',') : '';
    const text = operator === 'In' ? `${k} in (${list})` : operator === 'NotIn' ? `${k} notin (${list})` : operator === 'Exists' ? k : operator === 'DoesNotExist' ? `!${k}` : undefined;
    if (text !== undefined) parts.push([k, text]);
  }
  return parts.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, text]) => text).join(',');
}

// Metadata kube would have written: timestamps, managedFields (FieldsV1) and kubectl's last-applied-configuration.

/** RFC 3339 in seconds, as kube serialises metav1.Time. */
export function iso(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** RFC 3339 in microseconds, as kube serialises metav1.MicroTime (an Event's eventTime, a Lease's renewTime). */
export function microIso(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000Z');
}

type FieldSet = Record<string, unknown>;

/** The FieldsV1 set of an object's fields, as server-side field tracking records them. */
export function fieldsV1(value: unknown): FieldSet {
  return addFields({}, value);
}

/**
 * Writes the field set of `value` into `out` and returns it. Built in place: every object, pod or not, goes through
 * here when the simulator builds it, and the copies a spread makes were a sixth of the simulator's CPU under churn.
 */
function addFields(out: FieldSet, value: unknown): FieldSet {
  if (Array.isArray(value)) {
    for (const item of value) {
      if (typeof item === 'object' && item !== null && typeof (item as { name?: unknown }).name === 'string') {
        out[`k:{"name":"${(item as { name: string }).name}"}`] = addFields({ '.': {} }, item);
      } else if (typeof item !== 'object') {
        out[`v:${JSON.stringify(item)}`] = {};
      }
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const k of Object.keys(value)) {
      const v = (value as Record<string, unknown>)[k];
      let set: FieldSet = {};
      if (typeof v === 'object' && v !== null) set = addFields(Array.isArray(v) || Object.keys(v).length === 0 ? {} : { '.': {} }, v);
      out[`f:${k}`] = set;
    }
  }
  return out;
}

export interface ManagedEntry {
  manager: string;
  operation: 'Update' | 'Apply';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: FieldSet;
  subresource?: string;
}

export function managed(manager: string, apiVersion: string, timeMs: number, fields: unknown, subresource?: string): ManagedEntry {
  return {
    manager,
    operation: 'Update',
    apiVersion,
    time: iso(timeMs),
    fieldsType: 'FieldsV1',
    fieldsV1: fieldsV1(fields),
    ...(subresource ? { subresource } : {}),
  };
}

/** The annotation `kubectl apply` leaves: the applied manifest, compact JSON plus a newline. */
export function lastApplied(apiVersion: string, kind: string, metadata: { name?: string; namespace?: string; labels?: Record<string, string> }, body: Record<string, unknown>): string {
  const manifest = { apiVersion, kind, metadata: { annotations: {}, labels: metadata.labels, name: metadata.name, namespace: metadata.namespace }, ...body };
  return `${JSON.stringify(manifest)}\n`;
}

/** Age buckets like a real cluster: mostly days, some hours, a few minutes. */
export function ageMs(roll: number, maxMs: number): number {
  const r = roll * 1000;
  let age: number;
  if (r < 600) age = 86_400_000 * (1 + (r % 60));
  else if (r < 900) age = 3_600_000 * (1 + (r % 23));
  else age = 60_000 * (1 + (r % 59));
  return Math.min(age, Math.max(60_000, maxMs));
}

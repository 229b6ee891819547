// In-process evaluation of the query model (watch path); the SQL storages implement the very same semantics.
import type { FieldPathSegment, FieldRequirement, LabelRequirement } from './requirement.js';
import type { SetFilter, TypeFilter, WatchFilter } from '../storage/types.js';
import { parseInt64 } from './selector-syntax.js';

/** `gt`/`lt`: both sides must be int64 integers (kube's strconv.ParseInt); anything else never matches. */
export function compareInt(actual: string, operator: 'gt' | 'lt', wanted: string | undefined): boolean {
  const a = parseInt64(actual);
  const w = wanted === undefined ? undefined : parseInt64(wanted);
  if (a === undefined || w === undefined) return false;
  return operator === 'gt' ? a > w : a < w;
}

/**
 * True when one label requirement holds: `=`/`==`/`in` present and among the values (`k=` matches the
 * empty value); `!=`/`notin` absent or not among them; `exists` present; `!` absent; `gt`/`lt` present
 * and an integer compared as an integer.
 */
function matchesLabel(labels: Record<string, string> | undefined, req: LabelRequirement): boolean {
  // Own properties only: a label named `constructor` must not find Object.prototype.constructor.
  const present = labels !== undefined && Object.hasOwn(labels, req.key);
  const value = present ? labels[req.key] : undefined;
  switch (req.operator) {
    case '=': case '==': case 'in': return present && req.values.includes(value as string);
    case '!=': case 'notin': return !present || !req.values.includes(value as string);
    case 'exists': return present;
    case '!': return !present;
    case 'gt': case 'lt': return present && compareInt(value as string, req.operator, req.values[0]);
  }
}

/** ANDs every requirement over an object's `metadata.labels`. */
export function matchesLabels(labels: Record<string, string> | undefined, reqs: readonly LabelRequirement[]): boolean {
  return reqs.every((r) => matchesLabel(labels, r));
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Every value the path reaches: a name steps into an object; `[]` fans out over a list's elements; `[N]` picks
 * element N. A step that does not fit (missing key, not an object, not a list, index out of range) reaches nothing.
 */
export function resolveFieldPath(obj: unknown, path: readonly FieldPathSegment[]): unknown[] {
  let current: unknown[] = [obj];
  for (const seg of path) {
    const next: unknown[] = [];
    for (const v of current) {
      if (!isRecord(v) || !Object.hasOwn(v, seg.name)) continue;
      const child = v[seg.name];
      if (seg.index !== undefined) {
        if (Array.isArray(child) && seg.index < child.length) next.push(child[seg.index]);
      } else if (seg.list) {
        if (Array.isArray(child)) next.push(...(child as unknown[]));
      } else {
        next.push(child);
      }
    }
    current = next;
  }
  return current;
}

/**
 * A JSON value as comparable text: strings raw, numbers as their JSON text, booleans `true`/`false`.
 * null, objects and arrays have no text: they never equal a value (but still count as present).
 */
export function fieldValueText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : undefined;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return undefined;
}

/** The positive form of a requirement over the reached values: some value satisfies it. */
function somePositive(values: readonly unknown[], req: FieldRequirement): boolean {
  switch (req.operator) {
    case 'exists': case '!':
      // A JSON null is no value, as storage reads it (json_type 'null' is not present).
      return values.some((v) => v !== null);
    case '=': case '==': case '!=': case 'in': case 'notin':
      return values.some((v) => {
        const t = fieldValueText(v);
        return t !== undefined && req.values.includes(t);
      });
    case 'gt': case 'lt': {
      const op = req.operator;
      return values.some((v) => {
        const t = fieldValueText(v);
        return t !== undefined && compareInt(t, op, req.values[0]);
      });
    }
  }
}

/**
 * True when one field requirement holds. `!=`, `notin` and `!` are exactly the negations of `=`, `in` and
 * `exists`, so over a `[]` list "some element equals" becomes "no element equals".
 */
export function matchesField(obj: unknown, req: FieldRequirement): boolean {
  let reached = resolveFieldPath(obj, req.path);
  // A label that reads another field when its own is absent or "" (field-labels.ts `or`).
  if (req.orPath && reached.every((v) => v === null || v === '')) reached = resolveFieldPath(obj, req.orPath);
  // A Kubernetes field label reads an absent (or null) field as kube renders it (field-labels.ts).
  const absent = req.absentAs !== undefined && req.operator !== 'exists' && req.operator !== '!' && reached.every((v) => v === null);
  const positive = somePositive(absent ? [req.absentAs] : reached, req);
  const negated = req.operator === '!=' || req.operator === 'notin' || req.operator === '!';
  return negated ? !positive : positive;
}

/** ANDs every field requirement over the object. */
export function matchesFields(obj: unknown, reqs: readonly FieldRequirement[]): boolean {
  return reqs.every((r) => matchesField(obj, r));
}

export function matchesSet(value: string, filter: SetFilter | undefined): boolean {
  if (!filter) return true;
  const hit = filter.values.includes(value);
  return filter.op === 'in' ? hit : !hit;
}

function matchesTypes(row: { group: string; version: string; resource: string }, types: TypeFilter): boolean {
  switch (types.kind) {
    case 'all': return true;
    case 'one': return row.group === types.group && row.version === types.version && row.resource === types.resource;
    case 'many': return types.entries.some((e) => e.group === row.group
      && (e.version === undefined || e.version === row.version)
      && (e.resource === undefined || e.resource === row.resource));
  }
}

/** What a watch event is matched on: a stored row's columns plus the object (parsed, or its JSON text). */
export interface MatchableRow {
  cluster: string;
  group: string;
  version: string;
  resource: string;
  namespace: string;
  name: string;
  /** ISO timestamp, or '' when the object has no creationTimestamp (then since/before never match). */
  createdAt: string;
  object: unknown;
}

function labelsOf(obj: unknown): Record<string, string> | undefined {
  if (!isRecord(obj) || !isRecord(obj.metadata)) return undefined;
  const labels = obj.metadata.labels;
  return isRecord(labels) ? (labels as Record<string, string>) : undefined;
}

function matchesTime(createdAt: string, since: Date | undefined, before: Date | undefined): boolean {
  if (!since && !before) return true;
  const t = Date.parse(createdAt);
  if (Number.isNaN(t)) return false;
  return (!since || t >= since.getTime()) && (!before || t < before.getTime());
}

/** True when a row passes every filter of a watch (or list) query; cheap checks first, the object last. */
export function matchesQuery(row: MatchableRow, filter: WatchFilter): boolean {
  if (!matchesTypes(row, filter.types)) return false;
  if (!matchesSet(row.cluster, filter.clusters) || !matchesSet(row.namespace, filter.namespaces) || !matchesSet(row.name, filter.names)) return false;
  if (filter.fuzzyNames && !filter.fuzzyNames.every((s) => row.name.includes(s))) return false;
  if (!matchesTime(row.createdAt, filter.since, filter.before)) return false;
  const needsObject = (filter.labels?.length ?? 0) > 0 || (filter.fields?.length ?? 0) > 0;
  if (!needsObject) return true;
  const obj: unknown = typeof row.object === 'string' ? JSON.parse(row.object) : row.object;
  return matchesLabels(labelsOf(obj), filter.labels ?? []) && matchesFields(obj, filter.fields ?? []);
}

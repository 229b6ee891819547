// Reading stored object JSON the way kube's decoder would: a missing or mistyped field is Go's zero value.

/** A JSON object (not an array, not null). */
export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The object at `v`, or an empty one: printers read nested structs without null checks, as Go does. */
export function obj(v: unknown): JsonObject {
  return isObject(v) ? v : {};
}

/** The field at `path` below `root`, or undefined when any step is missing. */
export function at(root: unknown, ...path: string[]): unknown {
  let cur: unknown = root;
  for (const key of path) {
    if (!isObject(cur)) return undefined;
    cur = cur[key];
  }
  return cur;
}

/** The object at `path`, or undefined when it is missing or null (Go's nil pointer to a struct). */
export function objAt(root: unknown, ...path: string[]): JsonObject | undefined {
  const v = at(root, ...path);
  return isObject(v) ? v : undefined;
}

export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** An optional string: undefined stands for Go's nil *string. */
export function optStr(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** Integers (int32/int64 fields); non-numbers read as 0. */
export function int(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : 0;
}

/** An optional integer: undefined stands for Go's nil *int32. */
export function optInt(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : undefined;
}

export function bool(v: unknown): boolean {
  return v === true;
}

/** An optional boolean: undefined stands for Go's nil *bool. */
export function optBool(v: unknown): boolean | undefined {
  return typeof v === 'boolean' ? v : undefined;
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Array elements that are objects; others are dropped (they would not decode in kube either). */
export function objects(v: unknown): JsonObject[] {
  return arr(v).filter(isObject);
}

export function strings(v: unknown): string[] {
  return arr(v).filter((s): s is string => typeof s === 'string');
}

/** A map[string]string; non-string values are dropped. */
export function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isObject(v)) return out;
  for (const [k, val] of Object.entries(v)) if (typeof val === 'string') out[k] = val;
  return out;
}

/** Number of keys of a map field (len() of a Go map). */
export function mapLen(v: unknown): number {
  return isObject(v) ? Object.keys(v).length : 0;
}

/** time.RFC3339 as Go parses it: fractional seconds accepted, `T` and `Z` upper-case only. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Milliseconds since the epoch of an RFC 3339 timestamp (metav1.Time / MicroTime JSON), or
 * undefined for a missing, null or unparsable one — the zero time that kube prints as `<unknown>`.
 */
export function parseTime(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const m = RFC3339.exec(v);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  let ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number(y) < 100) ms = new Date(ms).setUTCFullYear(Number(y));
  // Go rejects out-of-range fields (month 13, Feb 30, hour 24) where Date.UTC would roll over.
  const check = new Date(ms);
  if (check.getUTCMonth() + 1 !== Number(mo) || check.getUTCDate() !== Number(d) || Number(h) > 23) return undefined;
  if (Number(mi) > 59 || Number(s) > 59) return undefined;
  if (frac) ms += Number(frac) * 1000;
  if (zone && zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    ms -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
  }
  // 0001-01-01T00:00:00Z is Go's zero time: metav1.Time.IsZero() holds for it, so it prints as unset.
  return Number.isNaN(ms) || ms === GO_ZERO_TIME_MS ? undefined : ms;
}

const GO_ZERO_TIME_MS = new Date(Date.UTC(2000, 0, 1)).setUTCFullYear(1);

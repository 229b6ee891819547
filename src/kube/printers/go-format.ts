// Values printed as Go prints them: fmt's %v for JSON scalars and encoding/json for objects, which is
// how client-go's jsonpath PrintResults renders a string printer column.

import { isObject } from './fields.js';
import { compareGo } from './labels.js';

/** 2^63: integers below it decode to int64 in unstructured JSON; larger ones stay float64. */
const INT64_LIMIT = 9_223_372_036_854_775_808;

function isInt64(v: number): boolean {
  return Number.isInteger(v) && Math.abs(v) < INT64_LIMIT;
}

/**
 * fmt's %v of a float64 (strconv 'g' with the shortest digits): exponent form when the decimal
 * exponent is below -4 or at least 6 — strconv decides with precision 6 for the shortest form —
 * with at least two exponent digits (`1.5e+06`, `1e-05`).
 */
export function goFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const [mantissa = '', exponent = '0'] = v.toExponential().split('e');
  const exp = Number(exponent);
  if (exp < -4 || exp >= 6) {
    const digits = String(Math.abs(exp)).padStart(2, '0');
    return `${mantissa}e${exp < 0 ? '-' : '+'}${digits}`;
  }
  // In this range JavaScript's shortest form is fixed-point too, with the same digits.
  return String(v);
}

/** fmt.Fprint of a decoded JSON scalar: int64 as an integer, float64 as goFloat. */
export function goScalar(v: number | string | boolean): string {
  if (typeof v === 'number') return isInt64(v) ? String(v) : goFloat(v);
  return String(v);
}

/** encoding/json string escaping: JSON.stringify plus Go's HTML-safe escapes. */
function goJsonString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** encoding/json Marshal of decoded JSON: map keys sorted, HTML characters escaped. */
export function goJson(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goJsonString(v);
  if (typeof v === 'number' || typeof v === 'boolean') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(goJson).join(',')}]`;
  if (isObject(v)) {
    const keys = Object.keys(v).sort(compareGo);
    return `{${keys.map((k) => `${goJsonString(k)}:${goJson(v[k])}`).join(',')}}`;
  }
  return 'null';
}

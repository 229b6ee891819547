// The aggregation layer's identity headers (X-Remote-User, X-Remote-Group, X-Remote-Extra-*): reading and spotting them.
import type { IncomingHttpHeaders } from 'node:http';

export interface RequestHeaderNames {
  usernameHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
}

export interface RequestHeaderUser {
  name: string;
  groups: string[];
  extra: Record<string, string[]>;
}

/** Node lowercases header names; so do we, once. */
export function normalizeNames(n: RequestHeaderNames): RequestHeaderNames {
  const low = (xs: string[]): string[] => xs.map((x) => x.trim().toLowerCase()).filter((x) => x !== '');
  return { usernameHeaders: low(n.usernameHeaders), groupHeaders: low(n.groupHeaders), extraHeaderPrefixes: low(n.extraHeaderPrefixes) };
}

/** True when the request carries any identity header: only a verified front proxy may send them. */
export function hasIdentityHeaders(headers: IncomingHttpHeaders, n: RequestHeaderNames): boolean {
  for (const name of Object.keys(headers)) {
    if (n.usernameHeaders.includes(name) || n.groupHeaders.includes(name)) return true;
    if (n.extraHeaderPrefixes.some((p) => name.startsWith(p))) return true;
  }
  return false;
}

/**
 * The user the front proxy asserts, or undefined when it sent no user name (then other authenticators
 * are tried, as kube's requestheader authenticator does). `distinct` is `req.headersDistinct`: repeated
 * group headers are separate groups, never split on commas (a group name may contain one).
 */
export function requestHeaderUser(distinct: Record<string, string[] | undefined>, n: RequestHeaderNames): RequestHeaderUser | undefined {
  let name: string | undefined;
  for (const h of n.usernameHeaders) {
    const v = distinct[h]?.find((x) => x !== '');
    if (v !== undefined) {
      name = v;
      break;
    }
  }
  if (name === undefined) return undefined;
  const groups: string[] = [];
  for (const h of n.groupHeaders) for (const v of distinct[h] ?? []) if (v !== '') groups.push(v);
  const extra: Record<string, string[]> = {};
  for (const [h, values] of Object.entries(distinct)) {
    const prefix = n.extraHeaderPrefixes.find((p) => h.startsWith(p));
    if (!prefix || !values) continue;
    // kube percent-encodes extra keys that are not valid header characters (e.g. "/" in "example.com/scopes").
    const key = safeUnescape(h.slice(prefix.length)).toLowerCase();
    if (key === '') continue;
    (extra[key] ??= []).push(...values);
  }
  return { name, groups, extra };
}

function safeUnescape(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

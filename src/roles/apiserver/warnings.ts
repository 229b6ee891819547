// Warning headers (RFC 7234 `299 - "text"`, as kube-apiserver sends them; kubectl prints each as "Warning: text"):
// what a client should know about an answer that is served all the same.
import type { ServerResponse } from 'node:http';
import { groupResourceString, groupVersionString } from '../../kube/types.js';
import type { SetFilter } from '../../storage/types.js';
import type { Excluding, TypeCoverage } from './catalog.js';

/** Names (clusters, namespaces) a message spells out; the rest are counted. */
const MAX_NAMED = 10;

/** One header value. The text is a quoted-string: quotes and backslashes escaped, control characters dropped. */
export function warningValue(text: string): string {
  return `299 - "${text.replace(/[\u0000-\u001f\u007f]/g, '').replace(/["\\]/g, '\\$&')}"`;
}

/** Adds warnings to those the response already carries. */
export function addWarnings(res: ServerResponse, texts: readonly string[]): void {
  if (texts.length === 0) return;
  const had = res.getHeader('warning');
  const before = had === undefined ? [] : Array.isArray(had) ? had : [String(had)];
  res.setHeader('warning', [...before, ...texts.map(warningValue)]);
}

/** Reference §1.3 step 9, for one cluster. */
export function notReadyText(cluster: string, reason: string): string {
  return `${cluster} is not ready and the resources obtained may be inaccurate${reason ? `, reason: ${reason}` : ''}.`;
}

/** "a, b, c", or the first MAX_NAMED and "and N more". */
export function named(names: readonly string[]): string {
  const shown = names.slice(0, MAX_NAMED).join(', ');
  return names.length > MAX_NAMED ? `${shown} and ${names.length - MAX_NAMED} more` : shown;
}

const plural = (n: number): string => (n === 1 ? '1 cluster' : `${n} clusters`);

/**
 * The warnings of a list or watch over several clusters: members left out because they keep the resource at
 * another version (with the kubectl resource form that reads theirs), members still in their first list of it,
 * members that leave out namespaces it asks for, and members in the answer that are not ready.
 */
export function coverageWarnings(t: { group: string; version: string; resource: string }, c: TypeCoverage): string[] {
  const out: string[] = [];
  const byVersion = new Map<string, string[]>();
  for (const e of c.elsewhere) {
    const v = e.versions[0]!;
    byVersion.set(v, [...(byVersion.get(v) ?? []), e.cluster]);
  }
  const gr = groupResourceString(t);
  for (const [v, clusters] of byVersion) {
    const ask = t.group ? `${t.resource}.${v}.${t.group}` : t.resource;
    const one = clusters.length === 1;
    out.push(`${gr}: ${plural(clusters.length)} ${one ? 'keeps' : 'keep'} it as ${groupVersionString(t.group, v)}, not ${groupVersionString(t.group, t.version)}, `
      + `and ${one ? 'is' : 'are'} left out of this answer (ask for ${ask}): ${named(clusters)}`);
  }
  if (c.firstListing.length > 0) {
    const [verb, their] = c.firstListing.length === 1 ? ['is', 'its'] : ['are', 'their'];
    out.push(`${gr}: ${plural(c.firstListing.length)} ${verb} still in ${their} first list of it, and some of ${their} objects are not in this answer yet: `
      + named(c.firstListing));
  }
  return [...out, ...excludingWarnings(gr, c.excluding), ...notReadyWarnings(c.notReady)];
}

/** The values an `in` filter names (a path's namespace is one): what an answer is said to be about. None for `notin`. */
export function namedIn(filter: SetFilter | undefined): string[] {
  return filter?.op === 'in' ? filter.values : [];
}

/**
 * The clusters in an answer that leave out namespaces it asks for (spec.excludeNamespaces), one warning per set of
 * namespaces: an empty answer there is not an empty namespace. `subject` names what was listed.
 */
export function excludingWarnings(subject: string, excluding: readonly Excluding[]): string[] {
  const bySet = new Map<string, { namespaces: readonly string[]; clusters: string[] }>();
  for (const e of excluding) {
    const key = e.namespaces.join(',');
    const set = bySet.get(key);
    if (set) set.clusters.push(e.cluster);
    else bySet.set(key, { namespaces: e.namespaces, clusters: [e.cluster] });
  }
  return [...bySet.values()].map(({ namespaces, clusters }) => {
    const [verb, their] = clusters.length === 1 ? ['does', 'its'] : ['do', 'their'];
    // A search may name thousands: spelled out as the clusters are, the first ten and a count.
    const what = namespaces.length === 1 ? `namespace ${namespaces[0]}` : `namespaces ${named(namespaces)}`;
    return `${subject}: ${plural(clusters.length)} ${verb} not sync ${what} (${their} spec.excludeNamespaces), and none of ${their} objects there are in this answer: ${named(clusters)}`;
  });
}

/** The members in an answer that are not ready: one warning, in reference §1.3's words for a single one. */
export function notReadyWarnings(notReady: TypeCoverage['notReady']): string[] {
  if (notReady.length === 0) return [];
  if (notReady.length === 1) return [notReadyText(notReady[0]!.cluster, notReady[0]!.reason)];
  const list = notReady.map((n) => (n.reason ? `${n.cluster} (${n.reason})` : n.cluster));
  return [`${plural(notReady.length)} are not ready and the resources obtained from them may be inaccurate: ${named(list)}`];
}

// Legacy discovery documents (/api, /apis, /api/v1, /apis/<g>, /apis/<g>/<v>) built from what the clusters hold.
// Aggregated discovery is not offered: clients fall back to these (reference §1.4), which kubectl does.
import { groupVersionString } from '../../kube/types.js';
import { notFound } from '../../kube/status.js';
import type { Subresources } from '../../kube/subresources.js';
import { sortVersions, type TypeInfo } from './catalog.js';

const VERBS = ['get', 'list', 'watch'];

export function apiVersions(): object {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '' }] };
}

interface GroupDoc {
  name: string;
  versions: { groupVersion: string; version: string }[];
  preferredVersion: { groupVersion: string; version: string };
}

function groupDoc(name: string, versions: string[]): GroupDoc {
  const sorted = sortVersions(versions);
  const vs = sorted.map((v) => ({ groupVersion: groupVersionString(name, v), version: v }));
  return { name, versions: vs, preferredVersion: vs[0] ?? { groupVersion: '', version: '' } };
}

function versionsByGroup(types: TypeInfo[]): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const t of types) {
    if (t.group === '') continue;
    const list = m.get(t.group) ?? [];
    list.push(t.version);
    m.set(t.group, list);
  }
  return m;
}

/** APIGroupList of named groups, sorted by name (core group excluded, as kube does). */
export function apiGroupList(types: TypeInfo[]): object {
  const byGroup = versionsByGroup(types);
  const groups = [...byGroup.keys()].sort().map((g) => groupDoc(g, byGroup.get(g) ?? []));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

export function apiGroup(types: TypeInfo[], group: string): object {
  const versions = versionsByGroup(types).get(group);
  if (!versions) throw notFound();
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(group, versions) };
}

/**
 * The APIResourceList of a group version: each resource, followed by its `status` and `scale` subresources (`subresources`
 * by resource name) as kube lists them, with the one verb we serve on them.
 */
export function apiResourceList(types: TypeInfo[], group: string, version: string, subresources: ReadonlyMap<string, Subresources>): object {
  const resources = types
    .filter((t) => t.group === group && t.version === version)
    .sort((a, b) => (a.resource < b.resource ? -1 : 1))
    .flatMap((t) => {
      const r: Record<string, unknown> = {
        name: t.resource,
        singularName: t.singularName,
        namespaced: t.namespaced,
        kind: t.kind,
        verbs: t.verbs ?? VERBS,
      };
      if (t.shortNames.length > 0) r.shortNames = t.shortNames;
      if (t.categories.length > 0) r.categories = t.categories;
      const sub = subresources.get(t.resource);
      const out: Record<string, unknown>[] = [r];
      if (sub?.scale) out.push({ name: `${t.resource}/scale`, singularName: '', namespaced: t.namespaced, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get'] });
      if (sub?.status) out.push({ name: `${t.resource}/status`, singularName: '', namespaced: t.namespaced, kind: t.kind, verbs: ['get'] });
      return out;
    });
  if (resources.length === 0) throw notFound();
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: groupVersionString(group, version), resources };
}

/** Our own aggregated API's discovery: /apis, /apis/clusterpedia.io[/v1beta1], /apis/cluster.clusterpedia.io[/v1alpha2]. */
export function rootDiscovery(path: string): object {
  const cp = groupDoc('clusterpedia.io', ['v1beta1']);
  const cc = groupDoc('cluster.clusterpedia.io', ['v1alpha2']);
  switch (path) {
    case '/apis':
      return { kind: 'APIGroupList', apiVersion: 'v1', groups: [cc, cp] };
    case '/apis/clusterpedia.io':
      return { kind: 'APIGroup', apiVersion: 'v1', ...cp };
    case '/apis/cluster.clusterpedia.io':
      return { kind: 'APIGroup', apiVersion: 'v1', ...cc };
    case '/apis/clusterpedia.io/v1beta1':
      return {
        kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'clusterpedia.io/v1beta1',
        resources: [
          // `resources` is a connect-style prefix: it has no list/get of its own (reference §1.1).
          { name: 'resources', singularName: '', namespaced: false, kind: 'Resources', verbs: [] },
          { name: 'collectionresources', singularName: '', namespaced: false, kind: 'CollectionResource', verbs: ['get', 'list'] },
        ],
      };
    case '/apis/cluster.clusterpedia.io/v1alpha2':
      // Read-only: get, list and a watch that reads the stored statuses every second (pediaclusters-watch.ts).
      return {
        kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'cluster.clusterpedia.io/v1alpha2',
        resources: [{ name: 'pediaclusters', singularName: 'pediacluster', namespaced: false, kind: 'PediaCluster', verbs: ['get', 'list', 'watch'] }],
      };
    default:
      throw notFound();
  }
}

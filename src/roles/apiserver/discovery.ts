// Discovery documents (/api, /apis, /api/v1, /apis/<g>, /apis/<g>/<v>) built from what the clusters hold: the legacy
// ones, and kube's aggregated discovery (apidiscovery.k8s.io v2 and v2beta1) for /api and /apis to clients that ask
// for it first, as kubectl since 1.26 does: two requests instead of one per group version.
import { groupVersionString } from '../../kube/types.js';
import { notFound } from '../../kube/status.js';
import type { Subresources } from '../../kube/subresources.js';
import { sortVersions, type TypeInfo } from './catalog.js';
import { parseAccept } from './negotiate.js';

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

/** The subresources served for a resource, scale then status as kube lists them, each with the kind it answers. */
function servedSubresources(t: TypeInfo, sub: Subresources | undefined): { name: 'scale' | 'status'; kind: { group: string; version: string; kind: string } }[] {
  return [
    ...(sub?.scale ? [{ name: 'scale' as const, kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' } }] : []),
    ...(sub?.status ? [{ name: 'status' as const, kind: { group: t.group, version: t.version, kind: t.kind } }] : []),
  ];
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
      // scale answers autoscaling/v1's Scale and names that group version, as kube lists it.
      return [r, ...servedSubresources(t, subresources.get(t.resource)).map((s) => ({
        name: `${t.resource}/${s.name}`, singularName: '', namespaced: t.namespaced,
        ...(s.name === 'scale' ? { group: s.kind.group, version: s.kind.version } : {}),
        kind: s.kind.kind, verbs: ['get'],
      }))];
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

/** The media type of aggregated discovery (kube's apidiscovery.k8s.io), at the version a client asked for. */
export type AggregatedVersion = 'v2' | 'v2beta1';

/**
 * Whether `accept` asks for aggregated discovery before the legacy documents, and at which version: kubectl 1.30+ asks
 * for v2 then v2beta1 then plain JSON, 1.26–1.29 for v2beta1 then plain JSON.
 */
export function aggregatedDiscoveryAsked(accept: string | undefined): AggregatedVersion | undefined {
  for (const { type, params, q } of parseAccept(accept)) {
    if (q <= 0 || (type !== 'application/json' && type !== '*/*' && type !== 'application/*')) continue;
    if (params.get('as') === undefined) return undefined;
    const v = params.get('v');
    if (params.get('as') === 'APIGroupDiscoveryList' && params.get('g') === 'apidiscovery.k8s.io' && (v === 'v2' || v === 'v2beta1')) return v;
  }
  return undefined;
}

/**
 * kube's aggregated discovery (an APIGroupDiscoveryList): every group (the core group alone for /api, the named ones
 * for /apis) with its versions, preferred first, and their resources and subresources, in one answer instead of one
 * per group version.
 */
export function aggregatedDiscovery(types: TypeInfo[], core: boolean, version: AggregatedVersion, subresources: (t: TypeInfo) => Subresources | undefined): object {
  const groups = new Map<string, Map<string, TypeInfo[]>>();
  for (const t of types) {
    if ((t.group === '') !== core) continue;
    const byVersion = groups.get(t.group) ?? new Map<string, TypeInfo[]>();
    byVersion.set(t.version, [...(byVersion.get(t.version) ?? []), t]);
    groups.set(t.group, byVersion);
  }
  const items = [...groups.keys()].sort().map((group) => {
    const byVersion = groups.get(group) ?? new Map<string, TypeInfo[]>();
    return {
      metadata: { name: group, creationTimestamp: null },
      versions: sortVersions([...byVersion.keys()]).map((v) => ({
        version: v,
        resources: [...(byVersion.get(v) ?? [])].sort((a, b) => (a.resource < b.resource ? -1 : 1)).map((t) => {
          const subs = servedSubresources(t, subresources(t)).map((s) => ({ subresource: s.name, responseKind: s.kind, verbs: ['get'] }));
          return {
            resource: t.resource,
            responseKind: { group: t.group, version: t.version, kind: t.kind },
            scope: t.namespaced ? 'Namespaced' : 'Cluster',
            singularResource: t.singularName,
            verbs: t.verbs ?? VERBS,
            ...(t.shortNames.length > 0 ? { shortNames: t.shortNames } : {}),
            ...(t.categories.length > 0 ? { categories: t.categories } : {}),
            ...(subs.length > 0 ? { subresources: subs } : {}),
          };
        }),
        freshness: 'Current',
      })),
    };
  });
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
}

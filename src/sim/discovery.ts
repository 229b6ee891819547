// Discovery documents computed from the currently served resources: the legacy ones (/api, /apis, /api/v1,
// /apis/<g>[/<v>]) and, when the cluster is set to serve it, kube's aggregated discovery of /api and /apis.
import { createHash } from 'node:crypto';
import { GROUP_ORDER } from './catalog.js';
import { compareKubeVersions } from './crds.js';
import { grKey, type ResourceDef } from './types.js';

interface GroupInfo {
  name: string;
  versions: string[];
}

function groupsOf(defs: ResourceDef[]): GroupInfo[] {
  const byName = new Map<string, Set<string>>();
  for (const d of defs) {
    if (d.group === '') continue;
    const set = byName.get(d.group) ?? new Set<string>();
    for (const v of d.versions) set.add(v);
    byName.set(d.group, set);
  }
  const rank = (g: string): number => {
    const i = GROUP_ORDER.indexOf(g);
    return i < 0 ? GROUP_ORDER.length : i;
  };
  return [...byName.entries()]
    .map(([name, vs]) => ({ name, versions: [...vs].sort(compareKubeVersions) }))
    .sort((a, b) => rank(a.name) - rank(b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function groupDoc(g: GroupInfo): Record<string, unknown> {
  const versions = g.versions.map((v) => ({ groupVersion: `${g.name}/${v}`, version: v }));
  return { name: g.name, versions, preferredVersion: versions[0] };
}

export function apiVersions(serverAddress: string): Record<string, unknown> {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

export function apiGroupList(defs: ResourceDef[]): Record<string, unknown> {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groupsOf(defs).map(groupDoc) };
}

export function apiGroup(defs: ResourceDef[], group: string): Record<string, unknown> | undefined {
  const g = groupsOf(defs).find((x) => x.name === group);
  return g ? { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(g) } : undefined;
}

const PROXY_VERBS = ['create', 'delete', 'get', 'patch', 'update'];
const SCALE = { name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] };

/** The subresources besides status that this simulator serves, as kube's discovery lists them. */
const SUBRESOURCES: Record<string, Array<{ name: string; kind: string; verbs: string[]; group?: string; version?: string }>> = {
  pods: [
    { name: 'attach', kind: 'PodAttachOptions', verbs: ['create', 'get'] }, { name: 'eviction', group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] },
    { name: 'exec', kind: 'PodExecOptions', verbs: ['create', 'get'] },
    { name: 'log', kind: 'Pod', verbs: ['get'] }, { name: 'portforward', kind: 'PodPortForwardOptions', verbs: ['create', 'get'] },
    { name: 'proxy', kind: 'PodProxyOptions', verbs: PROXY_VERBS },
  ],
  nodes: [{ name: 'proxy', kind: 'NodeProxyOptions', verbs: PROXY_VERBS }],
  services: [{ name: 'proxy', kind: 'ServiceProxyOptions', verbs: PROXY_VERBS }],
  'deployments.apps': [SCALE], 'replicasets.apps': [SCALE], 'statefulsets.apps': [SCALE],
};

type Subresource = { name: string; kind: string; verbs: string[]; group?: string; version?: string };

/** A resource's subresources as discovery lists them, by name. */
function subresourcesOf(d: ResourceDef): Subresource[] {
  const subs = [...(SUBRESOURCES[grKey(d.group, d.resource)] ?? []), ...(d.statusSubresource ? [{ name: 'status', kind: d.kind, verbs: ['get', 'patch', 'update'] }] : [])];
  return subs.sort((a, b) => (a.name < b.name ? -1 : 1));
}

function servedIn(defs: ResourceDef[], group: string, version: string): ResourceDef[] {
  return defs.filter((d) => d.group === group && d.versions.includes(version)).sort((a, b) => (a.resource < b.resource ? -1 : 1));
}

/** The APIResourceList of one group/version, or undefined when nothing is served there. */
export function apiResourceList(defs: ResourceDef[], group: string, version: string): Record<string, unknown> | undefined {
  const served = servedIn(defs, group, version);
  if (served.length === 0) return undefined;
  const resources: Array<Record<string, unknown>> = [];
  for (const d of served) {
    resources.push({
      name: d.resource,
      singularName: d.singular,
      namespaced: d.namespaced,
      kind: d.kind,
      verbs: d.verbs,
      ...(d.shortNames.length ? { shortNames: d.shortNames } : {}),
      ...(d.categories.length ? { categories: d.categories } : {}),
    });
    for (const sub of subresourcesOf(d)) resources.push({ ...sub, name: `${d.resource}/${sub.name}`, singularName: '', namespaced: d.namespaced });
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group === '' ? version : `${group}/${version}`, resources };
}

/** Versions of kube's aggregated discovery (apidiscovery.k8s.io) this simulator answers in. */
export type AggregatedVersion = 'v2' | 'v2beta1';

/** The media type of an aggregated discovery answer. */
export function aggregatedContentType(v: AggregatedVersion): string {
  return `application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList`;
}

/**
 * The aggregated discovery version an Accept header gets, as kube-apiserver negotiates it: the first media type it can
 * serve, in the order the client wrote them (q=0 excluded). Plain JSON first (or no Accept) gets the legacy document.
 */
export function negotiateAggregated(accept: string | undefined): AggregatedVersion | undefined {
  for (const part of (accept ?? '').split(',')) {
    const [type = '', ...rawParams] = part.split(';').map((x) => x.trim());
    const params = new Map(rawParams.map((p) => {
      const i = p.indexOf('=');
      return [p.slice(0, i).trim().toLowerCase(), p.slice(i + 1).trim()] as const;
    }));
    if (params.get('q') !== undefined && Number(params.get('q')) <= 0) continue;
    if (type !== 'application/json' && type !== '*/*' && type !== 'application/*') continue;
    if (!params.has('as')) return undefined;
    const v = params.get('v');
    if (params.get('as') === 'APIGroupDiscoveryList' && params.get('g') === 'apidiscovery.k8s.io' && (v === 'v2' || v === 'v2beta1')) return v;
  }
  return undefined;
}

/**
 * kube's aggregated discovery: an APIGroupDiscoveryList of the core group (`core`, for /api) or the named groups (for
 * /apis), each with its versions in priority order and their resources and subresources. A group version in `stale`
 * (its aggregated API server is down) is listed as kube-aggregator lists it then: freshness Stale, no resources.
 */
export function aggregatedDiscovery(defs: ResourceDef[], core: boolean, version: AggregatedVersion, stale: (gv: string) => boolean): Record<string, unknown> {
  const groups = core ? [{ name: '', versions: ['v1'] }] : groupsOf(defs);
  const items = groups.map((g) => ({
    metadata: { ...(g.name === '' ? {} : { name: g.name }), creationTimestamp: null },
    versions: g.versions.map((v) => {
      if (stale(`${g.name}/${v}`)) return { version: v, freshness: 'Stale' };
      const resources = servedIn(defs, g.name, v).map((d) => {
        const subs = subresourcesOf(d).map((sub) => ({
          subresource: sub.name, responseKind: { group: sub.group ?? '', version: sub.version ?? '', kind: sub.kind }, verbs: sub.verbs,
        }));
        return {
          resource: d.resource,
          // kube leaves group and version empty when they are the containing group version's.
          responseKind: { group: '', version: '', kind: d.kind },
          scope: d.namespaced ? 'Namespaced' : 'Cluster',
          singularResource: d.singular,
          verbs: d.verbs,
          ...(d.shortNames.length ? { shortNames: d.shortNames } : {}),
          ...(d.categories.length ? { categories: d.categories } : {}),
          ...(subs.length ? { subresources: subs } : {}),
        };
      });
      return { version: v, resources, freshness: 'Current' };
    }),
  }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
}

/** The ETag kube-apiserver puts on aggregated discovery: the document's SHA-512 in upper-case hex, quoted. */
export function discoveryETag(text: string): string {
  return `"${createHash('sha512').update(text).digest('hex').toUpperCase()}"`;
}

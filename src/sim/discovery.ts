// Legacy discovery documents (/api, /apis, /api/v1, /apis/<g>[/<v>]) computed from the currently served resources.
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

/** The APIResourceList of one group/version, or undefined when nothing is served there. */
export function apiResourceList(defs: ResourceDef[], group: string, version: string): Record<string, unknown> | undefined {
  const served = defs.filter((d) => d.group === group && d.versions.includes(version)).sort((a, b) => (a.resource < b.resource ? -1 : 1));
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
    const subs = [...(SUBRESOURCES[grKey(d.group, d.resource)] ?? []), ...(d.statusSubresource ? [{ name: 'status', kind: d.kind, verbs: ['get', 'patch', 'update'] }] : [])];
    for (const sub of subs.sort((a, b) => (a.name < b.name ? -1 : 1))) resources.push({ ...sub, name: `${d.resource}/${sub.name}`, singularName: '', namespaced: d.namespaced });
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group === '' ? version : `${group}/${version}`, resources };
}

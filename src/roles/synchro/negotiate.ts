// Resource negotiation (reference §5.2): spec.syncResources + member discovery → the resources to list and watch.
import type { Discovery, DiscoveredResource } from '../../kube/discovery.js';
import type { ClusterGroupResources } from '../../kube/pediacluster.js';
import type { SyncedResource } from './resource-synchro.js';
import { builtinResource } from '../../kube/builtin-resources.js';

/**
 * Versions Kubernetes' scheme knows per built-in group (reference §5.2 "known to the scheme"). Built-in resources
 * sync exactly one version: the first the member serves, in its priority order, that is known here; a member newer
 * than this table that serves none of them syncs its preferred one (see negotiateVersions).
 */
const BUILTIN_VERSIONS: Readonly<Record<string, readonly string[]>> = {
  '': ['v1'],
  apps: ['v1', 'v1beta2', 'v1beta1'],
  batch: ['v1', 'v1beta1'],
  autoscaling: ['v1', 'v2', 'v2beta2', 'v2beta1'],
  policy: ['v1', 'v1beta1'],
  extensions: ['v1beta1'],
  'networking.k8s.io': ['v1', 'v1beta1', 'v1alpha1'],
  'rbac.authorization.k8s.io': ['v1', 'v1beta1', 'v1alpha1'],
  'storage.k8s.io': ['v1', 'v1beta1', 'v1alpha1'],
  'coordination.k8s.io': ['v1', 'v1beta1', 'v1alpha2'],
  'discovery.k8s.io': ['v1', 'v1beta1'],
  'events.k8s.io': ['v1', 'v1beta1'],
  'node.k8s.io': ['v1', 'v1beta1', 'v1alpha1'],
  'scheduling.k8s.io': ['v1', 'v1beta1', 'v1alpha1'],
  'certificates.k8s.io': ['v1', 'v1beta1', 'v1alpha1'],
  'admissionregistration.k8s.io': ['v1', 'v1beta1', 'v1alpha1'],
  'apiextensions.k8s.io': ['v1', 'v1beta1'],
  'apiregistration.k8s.io': ['v1', 'v1beta1'],
  'flowcontrol.apiserver.k8s.io': ['v1', 'v1beta3', 'v1beta2', 'v1beta1'],
  'resource.k8s.io': ['v1', 'v1beta2', 'v1beta1', 'v1alpha3'],
  'storagemigration.k8s.io': ['v1beta1', 'v1alpha1'],
  'internal.apiserver.k8s.io': ['v1alpha1'],
};

/** True for groups the version table covers (Kubernetes' own); the rest are CRDs or aggregated APIs. */
function hasKnownVersions(group: string): boolean {
  return Object.hasOwn(BUILTIN_VERSIONS, group);
}

/**
 * Picks the versions to sync of one resource (reference §9.4 V1–V13, adapted):
 * built-in → requested versions ignored, the first served version the scheme knows; none known → the preferred
 * served one (Clusterpedia refuses it, having no conversion to its storage version; rows here keep the version they
 * were served at, and a member newer than this table — resource.k8s.io at a GA version the table lacks, once the
 * betas are gone — would otherwise lose the resource);
 * other kinds → no request: the preferred (first served) version only — one copy of each object, where Clusterpedia
 * stored up to three; `*` → every served version; a list → served ∩ requested, in served order.
 */
export function negotiateVersions(group: string, builtin: boolean, want: readonly string[] | undefined, served: readonly string[]): string[] {
  if (builtin) {
    const known = BUILTIN_VERSIONS[group] ?? [];
    const v = served.find((s) => known.includes(s)) ?? served[0];
    return v === undefined ? [] : [v];
  }
  if (!want || want.length === 0) return served.length > 0 ? [served[0]!] : [];
  if (want.includes('*')) return [...served];
  return served.filter((s) => want.includes(s));
}

export interface NegotiationResult {
  resources: SyncedResource[];
  /** Requested resources that matched nothing syncable, for the log. */
  unmatched: string[];
}

interface Candidate {
  group: string;
  resource: string;
  versions: DiscoveredResource[];
}

/** Negotiates the synced resources of a cluster from its requests and discovery. Order: request order, deduplicated. */
export function negotiate(requests: readonly ClusterGroupResources[], syncAllCustomResources: boolean, d: Discovery): NegotiationResult {
  const byGroup = indexByGroup(d);
  const crdKeys = d.crds ? new Set(d.crds.map((c) => `${c.group}/${c.plural}`)) : undefined;
  // Built-in means known to Kubernetes' scheme: a CRD (even in a scheme group) or an aggregated API's group
  // (metrics.k8s.io, apps.openshift.io) takes the other kinds' rule, the preferred served version.
  const isCustom = (group: string, resource: string): boolean => !hasKnownVersions(group) || (crdKeys?.has(`${group}/${resource}`) ?? false);
  const crdVersions = new Map((d.crds ?? []).map((c) => [`${c.group}/${c.plural}`, c.servedVersions]));

  const wanted: { c: Candidate; versions: readonly string[] | undefined }[] = [];
  const unmatched: string[] = [];
  const expand = (req: ClusterGroupResources, group: string): void => {
    const resources = byGroup.get(group);
    if (!resources) {
      unmatched.push(`${req.group}:${req.resources.join(',')}`);
      return;
    }
    for (const name of req.resources) {
      if (name === '*') {
        for (const c of resources.values()) wanted.push({ c, versions: req.versions });
        continue;
      }
      const c = findResource(resources, name);
      if (c) wanted.push({ c, versions: req.versions });
      else unmatched.push(`${group}/${name}`);
    }
  };
  for (const req of requests) {
    if (req.group === '*') {
      for (const g of byGroup.keys()) expand({ ...req, resources: ['*'] }, g);
    } else {
      expand(req, req.group);
    }
  }
  if (syncAllCustomResources) {
    for (const crd of d.crds ?? []) {
      const c = byGroup.get(crd.group)?.get(crd.plural);
      if (c) wanted.push({ c, versions: undefined });
    }
  }

  const seen = new Set<string>();
  const out: SyncedResource[] = [];
  for (const { c, versions } of wanted) {
    const listable = c.versions.filter((r) => r.verbs.includes('list') && r.verbs.includes('watch'));
    if (listable.length === 0) continue;
    const custom = isCustom(c.group, c.resource);
    // CRD versions in Kubernetes priority order (reference §5.2); other groups in the member's served order.
    const order = crdVersions.get(`${c.group}/${c.resource}`);
    const served = listable.map((r) => r.version);
    if (order) served.sort((a, b) => rank(order, a) - rank(order, b));
    for (const v of negotiateVersions(c.group, !custom, versions, served)) {
      const r = listable.find((x) => x.version === v)!;
      const id = `${r.group}/${r.version}/${r.resource}`;
      if (seen.has(id)) continue;
      seen.add(id);
      out.push({
        group: r.group, version: r.version, resource: r.resource, kind: r.kind, namespaced: r.namespaced,
        // clusterpedia's discovery names kube's own resources from its tables; others as the member does.
        ...(builtinResource(r.group, r.resource) ? {} : { names: { singularName: r.singular, shortNames: r.shortNames, categories: r.categories } }),
      });
    }
  }
  const events = involvedEvents(requests, out, byGroup);
  if (events) out.push(events);
  return { resources: out, unmatched };
}

/**
 * core/v1 events filtered to the kinds of the resources named in eventsInvolvedResources (reference §5.2 step 7),
 * or undefined when none are named, the member serves no events, or events are synced whole anyway.
 */
function involvedEvents(requests: readonly ClusterGroupResources[], synced: readonly SyncedResource[], byGroup: Map<string, Map<string, Candidate>>): SyncedResource | undefined {
  if (synced.some((r) => r.group === '' && r.version === 'v1' && r.resource === 'events')) return undefined;
  const served = byGroup.get('')?.get('events')?.versions.find((r) => r.version === 'v1' && r.verbs.includes('list') && r.verbs.includes('watch'));
  if (!served) return undefined;
  const kinds = new Set<string>();
  for (const req of requests) {
    const names = (req.eventsInvolvedResources ?? []).map((n) => n.toLowerCase());
    if (names.length === 0) continue;
    for (const r of synced) {
      if (req.group !== '*' && r.group !== req.group) continue;
      const c = byGroup.get(r.group)?.get(r.resource);
      const named = names.includes('*') || names.includes(r.resource.toLowerCase())
        || (c?.versions.some((v) => names.includes(v.singular.toLowerCase()) || names.includes(v.kind.toLowerCase())) ?? false);
      if (named) kinds.add(r.kind);
    }
  }
  if (kinds.size === 0) return undefined;
  return { group: '', version: 'v1', resource: 'events', kind: served.kind, namespaced: served.namespaced, involvedKinds: [...kinds].sort() };
}

function rank(order: readonly string[], v: string): number {
  const i = order.indexOf(v);
  return i < 0 ? order.length : i;
}

/** group → plural → the resource in each served version, versions in the group's priority order. */
function indexByGroup(d: Discovery): Map<string, Map<string, Candidate>> {
  const byGroup = new Map<string, Map<string, Candidate>>();
  for (const g of d.groups) {
    const m = new Map<string, Candidate>();
    byGroup.set(g.name, m);
    const order = [g.preferredVersion, ...g.versions.filter((v) => v !== g.preferredVersion)];
    for (const v of order) {
      for (const r of d.resources) {
        if (r.group !== g.name || r.version !== v) continue;
        let c = m.get(r.resource);
        if (!c) m.set(r.resource, (c = { group: g.name, resource: r.resource, versions: [] }));
        c.versions.push(r);
      }
    }
  }
  return byGroup;
}

/** Case-insensitive match on plural, singular or kind (reference §4.1: names singular or plural). */
function findResource(resources: Map<string, Candidate>, name: string): Candidate | undefined {
  const n = name.toLowerCase();
  for (const c of resources.values()) {
    if (c.resource.toLowerCase() === n) return c;
  }
  for (const c of resources.values()) {
    if (c.versions.some((r) => r.singular.toLowerCase() === n || r.kind.toLowerCase() === n)) return c;
  }
  return undefined;
}

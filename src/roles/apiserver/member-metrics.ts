// metrics.k8s.io through clusterpedia (--forward-metrics): what `kubectl top` reads is the members' metrics-server's,
// asked at the time of the request. PodMetrics and NodeMetrics are never synced (they cannot be watched, and change
// with every scrape); discovery lists them so that kubectl finds them.
// - Through a cluster's path, a get or list is that member's answer, passed back as it gives it (forwardRead).
// - Through the all-clusters path, a list asks every member (or those `search.clusterpedia.io/clusters` names, and
//   with --authorization-per-cluster those the caller may read) and merges their items, each marked with its
//   cluster's annotation as stored objects are; a member that cannot answer (10 s each, 20 s in all) is left out with
//   a warning. A get by name there is Clusterpedia's 400: a name is only unique within a cluster.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { formatRequirement, parseLabelSelector } from '../../kube/label-selector.js';
import { matchesSet } from '../../kube/match.js';
import { badRequest, methodNotSupported, notFound } from '../../kube/status.js';
import { buildTable, metricsPrinter, withClusterColumn } from '../../kube/printers/index.js';
import { CLUSTER_ANNOTATION, type KubeObject } from '../../kube/types.js';
import { messageOf } from '../../lib/errors.js';
import { forEachLimited } from '../../lib/pool.js';
import { scopedClusters } from './authz-gate.js';
import { describe, type TypeInfo } from './catalog.js';
import type { HandlerDeps } from './handler.js';
import { forwardRead, memberPath, type MemberConnections } from './member-forward.js';
import { selector, urlSet } from './list-options.js';
import { splitSearchLabels } from './list-options-search-labels.js';
import type { ResourceRequest } from './request-info.js';
import { includeObjectPolicy, negotiate } from './negotiate.js';
import { inMeta } from './render.js';
import { sendObject, sendText } from './respond.js';
import type { RequestContext } from './server.js';
import { addWarnings } from './warnings.js';

export const METRICS_GROUP = 'metrics.k8s.io';
const METRICS_VERSION = 'v1beta1';

const METRICS_TYPES: readonly TypeInfo[] = [
  { group: METRICS_GROUP, version: METRICS_VERSION, resource: 'nodes', kind: 'NodeMetrics', namespaced: false, singularName: '', shortNames: [], categories: [], verbs: ['get', 'list'] },
  { group: METRICS_GROUP, version: METRICS_VERSION, resource: 'pods', kind: 'PodMetrics', namespaced: true, singularName: '', shortNames: [], categories: [], verbs: ['get', 'list'] },
];

/** Members asked at once by a list across clusters. */
const FAN_OUT = 8;
/** How long a member gets to answer a list across clusters before it is left out. */
const MEMBER_TIMEOUT_MS = 10_000;
/**
 * How long a list across clusters asks members in all, at most (and 1 s less than the request's deadline): those that
 * have not answered by then are left out (warned), not waited for.
 */
const FLEET_BUDGET_MS = 20_000;
/** The items a list across clusters merges (bytes of JSON); past this the caller is asked to narrow it. */
const MAX_MERGED_BYTES = 64 * 1024 * 1024;

/** Whether metrics are served here: the option is on and members can be reached. */
export function servesMetrics(d: Pick<HandlerDeps, 'options' | 'members'>): boolean {
  return d.options.forward.metrics && d.members !== undefined;
}

/**
 * The stored kinds metrics.k8s.io's share their names with: core pods and nodes, listed in discovery whenever metrics
 * are, whether or not any cluster syncs them yet. kubectl resolves `pods` to the core group only when discovery lists it
 * there; otherwise to metrics.k8s.io's (`kubectl get pods` printing PodMetrics, from its discovery cache, for hours).
 * Listing them only once stored would race: kubectl reads /api and then /apis, and a first pod stored between the two
 * leaves it with PodMetrics and no core pods.
 */
const METRICS_SUBJECTS: readonly TypeInfo[] = [
  describe({ group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true }),
  describe({ group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false }),
];

const sameType = (a: { group: string; version: string; resource: string }, b: { group: string; version: string; resource: string }): boolean =>
  a.group === b.group && a.version === b.version && a.resource === b.resource;

/** Discovery types with metrics.k8s.io added when it is served, and the core pods and nodes its kinds are named after. */
export function withMetrics(types: TypeInfo[], served: boolean): TypeInfo[] {
  if (!served) return types;
  const out = types.filter((t) => t.group !== METRICS_GROUP);
  for (const s of METRICS_SUBJECTS) if (!out.some((t) => sameType(t, s))) out.push(s);
  return [...out, ...METRICS_TYPES];
}

/**
 * Core pods or nodes, for a request the catalog has no such type for (no cluster in its scope syncs them), where
 * metrics are served: discovery lists them (withMetrics), so they answer as a synced type with nothing stored does.
 */
export function metricsSubject(t: { group: string; version: string; resource: string }, d: Pick<HandlerDeps, 'options' | 'members'>): TypeInfo | undefined {
  return servesMetrics(d) ? METRICS_SUBJECTS.find((s) => sameType(s, t)) : undefined;
}

/** The warning of a list or watch of core pods or nodes that no cluster in its scope syncs (metricsSubject). */
export function unsyncedSubjectText(resource: string, cluster: string | undefined): string {
  return `${cluster === undefined ? 'no cluster here syncs' : `cluster ${cluster} does not sync`} ${resource}: `
    + `they are listed for metrics.k8s.io (kubectl top), and nothing of them is stored`;
}

/** A get or list of PodMetrics or NodeMetrics; a watch is 405, as metrics-server answers it. */
export async function serveMetrics(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, url: URL, t: ResourceRequest,
  d: HandlerDeps, members: MemberConnections): Promise<void> {
  const type = METRICS_TYPES.find((m) => m.version === t.version && m.resource === t.resource);
  if (!type || t.subresource !== undefined || (t.namespace !== undefined && !type.namespaced)) throw notFound();
  if (t.verb === 'watch') throw methodNotSupported('watch', `${t.resource}.${METRICS_GROUP}`);
  if (t.cluster !== undefined) return forwardRead(req, res, ctx, t, t.cluster, url.search, members);
  if (t.verb === 'get') {
    throw badRequest(`please specify the cluster name when using the resource name to get a specific resource. ${type.kind} are per cluster: `
      + 'ask through /apis/clusterpedia.io/v1beta1/resources/clusters/<name> (kubectl --cluster <name>).');
  }
  return fleetList(req, res, ctx, url, t, type, d, members);
}

async function fleetList(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, url: URL, t: ResourceRequest, type: TypeInfo, d: HandlerDeps, members: MemberConnections): Promise<void> {
  // The clusters to ask, by Clusterpedia's search label or parameter; the rest of the selector goes to the members.
  const split = splitSearchLabels(selector('labelSelector', url.searchParams.get('labelSelector') ?? '', (s) => parseLabelSelector(s, { sourceOrder: true })));
  const others = [...Object.keys(split.sets).filter((k) => k !== 'clusters'), ...Object.keys(split.scalars), ...(split.orderby ? ['orderby'] : []), ...(split.fuzzyNames ? ['fuzzy-name'] : [])];
  if (others.length > 0) {
    throw badRequest(`labelSelector: metrics across clusters are the members' own lists; of the search labels only search.clusterpedia.io/clusters applies (not ${others.join(', ')})`);
  }
  const chosen = await scopedClusters(ctx.access, urlSet(url.searchParams, 'clusters') ?? split.sets.clusters);
  const clusters = [...(await d.catalog.get()).clusters.keys()].filter((c) => matchesSet(c, chosen)).sort();
  const query: Record<string, string> = {};
  if (split.labels.length > 0) query.labelSelector = split.labels.map((r) => formatRequirement(r.key, r.operator, r.values)).join(',');
  const fields = url.searchParams.get('fieldSelector');
  if (fields) query.fieldSelector = fields;
  const path = memberPath(t);
  // kubectl get asks for a Table: kubectl top's figures, behind the cluster, as for every other list here.
  const neg = negotiate(req.headers.accept, ['none', 'Table']);

  const items = new Map<string, string[]>();
  const warnings: string[] = [];
  let bytes = 0;
  const budgetMs = Math.max(1000, Math.min(FLEET_BUDGET_MS, d.options.limits.requestTimeoutMs - 1000));
  const memberMs = Math.min(MEMBER_TIMEOUT_MS, budgetMs);
  const budget = AbortSignal.timeout(budgetMs);
  await forEachLimited(clusters, FAN_OUT, async (cluster) => {
    if (ctx.signal.aborted || bytes > MAX_MERGED_BYTES) return;
    if (budget.aborted) {
      warnings.push(`${type.kind} of cluster ${cluster} are left out: not asked within ${budgetMs / 1000} s of the request`);
      return;
    }
    const own = AbortSignal.timeout(memberMs);
    try {
      const client = await members.client(cluster);
      const signal = AbortSignal.any([ctx.signal, budget, own]);
      const list = await client.json<{ items?: unknown }>(path, { query, signal, maxBytes: MAX_MERGED_BYTES });
      const mine: string[] = [];
      for (const item of Array.isArray(list.items) ? list.items : []) {
        if (typeof item !== 'object' || item === null) continue;
        const o = item as { metadata?: { annotations?: Record<string, string> } };
        o.metadata = { ...o.metadata, annotations: { ...o.metadata?.annotations, [CLUSTER_ANNOTATION]: cluster } };
        const text = JSON.stringify(o);
        bytes += text.length;
        mine.push(text);
      }
      if (bytes > MAX_MERGED_BYTES) return;
      items.set(cluster, mine);
    } catch (e: unknown) {
      const late = budget.aborted || own.aborted;
      warnings.push(`${type.kind} of cluster ${cluster} are left out: ${late ? `no answer within ${(budget.aborted ? budgetMs : memberMs) / 1000} s` : messageOf(e)}`);
    }
  });
  if (ctx.signal.aborted) return;
  if (bytes > MAX_MERGED_BYTES) {
    throw badRequest(`${type.kind} of ${clusters.length} clusters come to more than ${MAX_MERGED_BYTES / 1024 / 1024} MiB: `
      + 'narrow the list with a namespace, a labelSelector or search.clusterpedia.io/clusters, or ask through one cluster\'s path');
  }
  addWarnings(res, warnings.sort());
  const merged = clusters.flatMap((c) => items.get(c) ?? []);
  if (neg.transform === 'Table') {
    const objects = merged.map((text) => JSON.parse(text) as KubeObject);
    const table = buildTable(withClusterColumn(metricsPrinter), objects, {}, { now: new Date(), includeObject: includeObjectPolicy(url) });
    return sendObject(res, 200, inMeta(table, neg.meta), neg.wire, neg.contentType);
  }
  return sendText(res, 200, `{"kind":"${type.kind}List","apiVersion":"${METRICS_GROUP}/${METRICS_VERSION}","metadata":{},"items":[${merged.join(',')}]}`);
}

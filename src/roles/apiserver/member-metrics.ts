// metrics.k8s.io through a cluster's path (--forward-metrics): `kubectl top` against
// …/resources/clusters/<name> reads that member's metrics-server, asked at the time of the request. PodMetrics and
// NodeMetrics are never synced (they cannot be watched, and change with every scrape); they are listed in that
// cluster's discovery so that kubectl finds them, and answered by forwardRead with the member's own body.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { methodNotSupported, notFound } from '../../kube/status.js';
import type { ResourceRequest } from './request-info.js';
import type { TypeInfo } from './catalog.js';
import type { HandlerDeps } from './handler.js';
import type { RequestContext } from './server.js';
import { forwardRead, type MemberConnections } from './member-forward.js';

export const METRICS_GROUP = 'metrics.k8s.io';

const METRICS_TYPES: readonly TypeInfo[] = [
  { group: METRICS_GROUP, version: 'v1beta1', resource: 'nodes', kind: 'NodeMetrics', namespaced: false, singularName: '', shortNames: [], categories: [], verbs: ['get', 'list'] },
  { group: METRICS_GROUP, version: 'v1beta1', resource: 'pods', kind: 'PodMetrics', namespaced: true, singularName: '', shortNames: [], categories: [], verbs: ['get', 'list'] },
];

/** Whether metrics are answered for `cluster`'s path: the option is on, members can be reached, and a cluster is named. */
export function servesMetrics(d: Pick<HandlerDeps, 'options' | 'members'>, cluster: string | undefined): boolean {
  return cluster !== undefined && d.options.forward.metrics && d.members !== undefined;
}

/** A cluster's discovery types with metrics.k8s.io added when it is served there. */
export function withMetrics(types: TypeInfo[], served: boolean): TypeInfo[] {
  return served ? [...types.filter((t) => t.group !== METRICS_GROUP), ...METRICS_TYPES] : types;
}

/** A get or list of PodMetrics or NodeMetrics, answered by the member; a watch is 405, as metrics-server answers it. */
export async function serveMetrics(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, url: URL, t: ResourceRequest & { cluster: string },
  members: MemberConnections): Promise<void> {
  const type = METRICS_TYPES.find((m) => m.version === t.version && m.resource === t.resource);
  if (!type || t.subresource !== undefined || (t.namespace !== undefined && !type.namespaced)) throw notFound();
  if (t.verb === 'watch') throw methodNotSupported('watch', `${t.resource}.${METRICS_GROUP}`);
  return forwardRead(req, res, ctx, t, t.cluster, url.search, members);
}

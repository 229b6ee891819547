// Which authorization attributes a request has: the outer clusterpedia.io resource (reference §1.1), or a path.
import { COLLECTIONS_PREFIX, PEDIACLUSTERS_GROUP, PEDIACLUSTERS_VERSION, RESOURCES_PREFIX, type RequestTarget } from './request-info.js';
import type { Attributes, ResourceAttributes } from './authz.js';

export const GROUP = 'clusterpedia.io';
export const VERSION = 'v1beta1';
const PEDIACLUSTERS_PATH = `/apis/${PEDIACLUSTERS_GROUP}/${PEDIACLUSTERS_VERSION}/pediaclusters`;

/** Paths anyone may read on the secure port: kubelet probes and kube's system:public-info-viewer set. */
export function isPublicPath(pathname: string): boolean {
  return /^\/(healthz|readyz|livez)(\/.*)?$/.test(pathname) || /^\/version\/?$/.test(pathname);
}

/** True when `pathname` is `prefix` or below it. */
function under(pathname: string, prefix: string): boolean {
  return pathname === prefix || pathname.startsWith(`${prefix}/`);
}

/**
 * The attributes a SubjectAccessReview is asked about. As in Clusterpedia, only the outer request is
 * authorized: everything under `…/resources/…` (objects, discovery, version, any cluster) is resource
 * `resources` of clusterpedia.io with the request's verb; the inner kube path is not authorized separately
 * (per-cluster checks are separate, authz-clusters.ts), but for subresources forwarded to members. Paths that are no resource of ours are non-resource
 * requests, as kube treats /apis discovery and /metrics.
 */
export function attributesFor(target: RequestTarget, pathname: string, verb: string): Attributes {
  const r = (resource: string, extra: Partial<ResourceAttributes> = {}): Attributes => ({ resource: { group: GROUP, version: VERSION, resource, verb, ...extra } });
  switch (target.kind) {
    case 'resource':
      // What is forwarded to a member (a pod's log) needs its own grant, `resources/<subresource>`: reading the stored
      // objects is not reading the member. A stored object's status and scale are read as the object.
      return r('resources', target.subresource !== undefined && target.subresource !== 'status' && target.subresource !== 'scale' ? { subresource: target.subresource } : {});
    case 'collection':
      return r('collectionresources', target.name !== undefined ? { name: target.name } : {});
    case 'memberProxy':
      // The member's whole API with clusterpedia's credentials: a grant of its own, per cluster.
      return r('clusters', { subresource: 'proxy', name: target.cluster });
    case 'pediacluster':
      return { resource: { group: PEDIACLUSTERS_GROUP, version: PEDIACLUSTERS_VERSION, resource: 'pediaclusters', verb, ...(target.name !== undefined ? { name: target.name } : {}) } };
    default:
      break;
  }
  if (under(pathname, RESOURCES_PREFIX)) return r('resources');
  if (under(pathname, COLLECTIONS_PREFIX)) return r('collectionresources');
  if (under(pathname, PEDIACLUSTERS_PATH)) return { resource: { group: PEDIACLUSTERS_GROUP, version: PEDIACLUSTERS_VERSION, resource: 'pediaclusters', verb } };
  return { nonResource: { path: pathname, verb } };
}

/** The member cluster a request names in its path (`…/resources/clusters/<c>/…`), if any. */
export function clusterOf(target: RequestTarget): string | undefined {
  return 'cluster' in target ? target.cluster : undefined;
}

/** Per-cluster attributes: resource `clusters` of clusterpedia.io named after the member cluster. */
export function clusterAttributes(cluster: string, verb: string): Attributes {
  return { resource: { group: GROUP, version: VERSION, resource: 'clusters', name: cluster, verb } };
}

const INTERACTIVE = new Set(['exec', 'attach', 'portforward']);

/** A pod's exec, attach or port-forward: a session on a switched connection, authorized as `create`. */
export function isInteractiveSubresource(subresource: string | undefined): boolean {
  return subresource !== undefined && INTERACTIVE.has(subresource);
}

/** The verb of a request: kube's mapping of HTTP methods for resources, the lowercase method for non-resource paths. */
export function requestVerb(method: string | undefined, target: RequestTarget): string {
  const m = (method ?? 'GET').toUpperCase();
  // A pod's exec, attach and port-forward are `create`, over WebSocket's GET too (kube-apiserver since 1.30,
  // AuthorizePodWebsocketUpgradeCreatePermission): reading a pod must not be enough to run commands in it.
  if (target.kind === 'resource' && isInteractiveSubresource(target.subresource)) return 'create';
  if (m === 'GET' || m === 'HEAD') {
    if (target.kind === 'resource' || target.kind === 'collection' || target.kind === 'pediacluster') return target.verb;
    return 'get';
  }
  return methodVerb(m);
}

const METHOD_VERBS: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** kube's verb for a method that does not read (POST create, PUT update, …), else the method in lower case. */
export function methodVerb(method: string | undefined): string {
  return METHOD_VERBS[method ?? ''] ?? (method ?? '').toLowerCase();
}

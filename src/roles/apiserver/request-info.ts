// Turns a request path into what it addresses (reference §1.2–§1.3): which API surface, cluster, and kube RequestInfo.

/** Prefix of the Kubernetes-compatible resources API. */
export const RESOURCES_PREFIX = '/apis/clusterpedia.io/v1beta1/resources';
export const COLLECTIONS_PREFIX = '/apis/clusterpedia.io/v1beta1/collectionresources';
export const PEDIACLUSTERS_GROUP = 'cluster.clusterpedia.io';
export const PEDIACLUSTERS_VERSION = 'v1alpha2';

export type Verb = 'get' | 'list' | 'watch';

/** A request for objects of one resource type through the resources API. */
export interface ResourceRequest {
  kind: 'resource';
  /** The member cluster named in the path (`…/resources/clusters/<c>/…`), if any. */
  cluster?: string;
  verb: Verb;
  group: string;
  version: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  /** A `proxy` subresource's path after `…/proxy`, as sent (the destination's path, trailing slash and all). */
  proxyPath?: string;
}

/** Discovery inside the resources API: /api, /apis, /api/v1, /apis/<g>, /apis/<g>/<v>. */
export interface DiscoveryRequest {
  kind: 'discovery';
  cluster?: string;
  /** 'api' | 'apis' | 'group' | 'groupVersion' */
  level: 'api' | 'apis' | 'group' | 'groupVersion';
  group?: string;
  version?: string;
}

/**
 * A review the caller posts about itself (`kubectl auth can-i [--list]`, `kubectl auth whoami`): a
 * SelfSubjectAccessReview or SelfSubjectRulesReview (authorization.k8s.io/v1) or a SelfSubjectReview
 * (authentication.k8s.io/v1, v1beta1, v1alpha1), at the server's root or under the resources prefix (self-review.ts).
 */
export interface SelfReviewTarget {
  kind: 'selfReview';
  /** `access`: SelfSubjectAccessReview; `rules`: SelfSubjectRulesReview; `subject`: SelfSubjectReview. */
  review: 'access' | 'rules' | 'subject';
  version: string;
  /** Posted under the resources prefix (about member resources), not at the server's root. */
  fleet: boolean;
  /** The member cluster of a `…/resources/clusters/<c>` path. */
  cluster?: string;
}

/** The review a kube path names (`/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, …), if any. */
function selfReviewOf(parts: string[]): Pick<SelfReviewTarget, 'review' | 'version'> | undefined {
  if (parts.length !== 4 || parts[0] !== 'apis') return undefined;
  const [, group, version, resource] = parts as [string, string, string, string];
  if (group === 'authorization.k8s.io' && version === 'v1' && resource === 'selfsubjectaccessreviews') return { review: 'access', version };
  if (group === 'authorization.k8s.io' && version === 'v1' && resource === 'selfsubjectrulesreviews') return { review: 'rules', version };
  if (group === 'authentication.k8s.io' && ['v1', 'v1beta1', 'v1alpha1'].includes(version) && resource === 'selfsubjectreviews') return { review: 'subject', version };
  return undefined;
}

export type RequestTarget =
  | ResourceRequest
  | DiscoveryRequest
  | SelfReviewTarget
  | { kind: 'version'; cluster?: string }
  | { kind: 'health'; check: 'healthz' | 'readyz' | 'livez'; rest: string }
  | { kind: 'metrics' }
  /** /apis, /apis/clusterpedia.io[/v1beta1], /apis/cluster.clusterpedia.io[/v1alpha2]: our own aggregated API's discovery. */
  | { kind: 'rootDiscovery'; path: string }
  /** /openapi/v2, /openapi/v3 and its documents: our own API's schemas (openapi.ts). */
  | { kind: 'rootOpenapi'; path: string }
  | { kind: 'collection'; name?: string; verb: 'get' | 'list' }
  | { kind: 'pediacluster'; name?: string; verb: Verb }
  /** `…/resources/clusters/<c>/proxy/<path>`: any request for the member's own API (Clusterpedia's proxy path). */
  | { kind: 'memberProxy'; cluster: string; path: string }
  /** `…/resources[/clusters/<c>]/openapi/v2` and `/openapi/v3[/…]`: the members' schemas (member-openapi.ts). */
  | { kind: 'openapi'; cluster?: string; path: string }
  | { kind: 'notFound' };

/**
 * Routes a request. `method` is the HTTP method; `watch` tells whether ?watch=true|1 was given.
 * Anything that is not a known path form is `notFound` (answered with a JSON Status, never plain text).
 */
export function parseRequestTarget(pathname: string, watch: boolean): RequestTarget {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  switch (path) {
    case '/version':
      return { kind: 'version' };
    case '/metrics':
      return { kind: 'metrics' };
    case '/apis':
    case '/apis/clusterpedia.io':
    case '/apis/clusterpedia.io/v1beta1':
    case `/apis/${PEDIACLUSTERS_GROUP}`:
    case `/apis/${PEDIACLUSTERS_GROUP}/${PEDIACLUSTERS_VERSION}`:
      return { kind: 'rootDiscovery', path };
    default:
      break;
  }
  const health = /^\/(healthz|readyz|livez)(\/.*)?$/.exec(path);
  if (health) return { kind: 'health', check: health[1] as 'healthz' | 'readyz' | 'livez', rest: health[2] ?? '' };

  const review = selfReviewOf(segments(path));
  if (review) return { kind: 'selfReview', ...review, fleet: false };
  if (path === RESOURCES_PREFIX || path.startsWith(`${RESOURCES_PREFIX}/`)) {
    // (A proxy's own path keeps its trailing slash: the raw path goes along.)
    return parseResourcesPath(path.slice(RESOURCES_PREFIX.length), watch, pathname.slice(RESOURCES_PREFIX.length));
  }
  if (path === COLLECTIONS_PREFIX) return { kind: 'collection', verb: 'list' };
  if (path.startsWith(`${COLLECTIONS_PREFIX}/`)) {
    const rest = segments(path.slice(COLLECTIONS_PREFIX.length));
    if (rest.length === 1) return { kind: 'collection', name: rest[0], verb: 'get' };
    return { kind: 'notFound' };
  }
  const openapi = path.startsWith('/openapi/') ? openApiPath(segments(path)) : undefined;
  if (openapi !== undefined) return { kind: 'rootOpenapi', path: openapi };
  const pc = `/apis/${PEDIACLUSTERS_GROUP}/${PEDIACLUSTERS_VERSION}/pediaclusters`;
  if (path === pc) return { kind: 'pediacluster', verb: watch ? 'watch' : 'list' };
  if (path.startsWith(`${pc}/`)) {
    const rest = segments(path.slice(pc.length));
    if (rest.length === 1) return { kind: 'pediacluster', name: rest[0], verb: watch ? 'watch' : 'get' };
  }
  return { kind: 'notFound' };
}

/** A group or version as a path segment: nothing that could step out of the path once decoded (`/`, `..`). */
const API_SEGMENT = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/**
 * `/openapi/v2`, `/openapi/v3`, `/openapi/v3/api/<version>` or `/openapi/v3/apis/<group>/<version>`, rebuilt from
 * its decoded segments (it goes to the member as is); anything else under `/openapi` is undefined (a 404).
 */
function openApiPath(parts: string[]): string | undefined {
  if (parts[0] !== 'openapi') return undefined;
  const [, v, kind, ...rest] = parts;
  if (v === 'v2' || v === 'v3') {
    if (kind === undefined) return `/openapi/${v}`;
    const gv = kind === 'api' && rest.length === 1 ? rest : kind === 'apis' && rest.length === 2 ? rest : undefined;
    if (v === 'v3' && gv && gv.every((s) => API_SEGMENT.test(s) && !s.includes('..'))) return `/openapi/v3/${kind}/${gv.join('/')}`;
  }
  return undefined;
}

/** The part after `/apis/clusterpedia.io/v1beta1/resources`: optional `/clusters/<c>`, then a kube path. */
function parseResourcesPath(rest: string, watch: boolean, raw: string): RequestTarget {
  let inner = rest;
  let cluster: string | undefined;
  const parts = segments(rest);
  if (parts[0] === 'clusters') {
    // `/resources/clusters`, `/resources/clusters/c1` and their trailing-slash forms are 404 (reference §1.2).
    if (parts.length < 3 || !parts[1]) return { kind: 'notFound' };
    cluster = parts[1];
    inner = `/${parts.slice(2).join('/')}`;
    // Clusterpedia's proxy path: what follows `/proxy` goes to the member as sent.
    const proxied = /^\/*clusters\/+[^/]+\/+proxy(\/.*)?$/.exec(raw);
    if (parts[2] === 'proxy' && proxied) return { kind: 'memberProxy', cluster, path: proxied[1] ?? '/' };
  }
  const openapi = inner.startsWith('/openapi/') ? openApiPath(segments(inner)) : undefined;
  if (openapi !== undefined) return { kind: 'openapi', ...(cluster !== undefined ? { cluster } : {}), path: openapi };
  return parseKubePath(inner, cluster, watch, /^\/*clusters\/+[^/]+(.*)$/.exec(raw)?.[1] ?? raw);
}

/**
 * kube-apiserver's RequestInfo rules for /api and /apis paths, with Clusterpedia's namespace special case. `raw` is the
 * same path as sent (not decoded), where a proxy subresource's own path is read.
 */
export function parseKubePath(inner: string, cluster: string | undefined, watch: boolean, raw = inner): RequestTarget {
  const parts = segments(inner);
  const withCluster = <T extends object>(t: T): T & { cluster?: string } => (cluster === undefined ? t : { ...t, cluster });
  const review = selfReviewOf(parts);
  if (review) return withCluster({ kind: 'selfReview' as const, ...review, fleet: true });
  if (parts.length === 1 && parts[0] === 'version') return withCluster({ kind: 'version' as const });
  let group = '';
  let version: string | undefined;
  let rest: string[];
  if (parts[0] === 'api') {
    if (parts.length === 1) return withCluster({ kind: 'discovery' as const, level: 'api' as const });
    version = parts[1];
    if (version !== 'v1') return { kind: 'notFound' };
    if (parts.length === 2) return withCluster({ kind: 'discovery' as const, level: 'groupVersion' as const, group: '', version });
    rest = parts.slice(2);
  } else if (parts[0] === 'apis') {
    if (parts.length === 1) return withCluster({ kind: 'discovery' as const, level: 'apis' as const });
    group = parts[1] ?? '';
    if (parts.length === 2) return withCluster({ kind: 'discovery' as const, level: 'group' as const, group });
    version = parts[2];
    if (parts.length === 3) return withCluster({ kind: 'discovery' as const, level: 'groupVersion' as const, group, version });
    rest = parts.slice(3);
  } else {
    return { kind: 'notFound' };
  }
  if (!version) return { kind: 'notFound' };

  let verb: Verb = 'get';
  let isWatch = watch;
  if (rest[0] === 'watch') {
    // Deprecated /watch/ path prefix: still a watch.
    isWatch = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  // kube's RequestInfo: `namespaces/<ns>/status` and `…/finalize` are the namespace's own subresources.
  if (rest[0] === 'namespaces' && rest.length >= 3 && !(rest[2] === 'status' || rest[2] === 'finalize')) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource, name, subresource, ...extra] = rest;
  // kube's RequestInfo: only a proxy subresource has more path after it (the destination's).
  if (!resource || (extra.length > 0 && subresource !== 'proxy')) return { kind: 'notFound' };
  verb = name === undefined ? (isWatch ? 'watch' : 'list') : isWatch ? 'watch' : 'get';
  const req: ResourceRequest = { kind: 'resource', verb, group, version, resource };
  if (cluster !== undefined) req.cluster = cluster;
  if (namespace !== undefined) req.namespace = namespace;
  if (name !== undefined) req.name = name;
  if (subresource !== undefined) req.subresource = subresource;
  if (subresource === 'proxy') req.proxyPath = PROXY_PATH.exec(raw)?.[1] ?? '';
  return req;
}

// What follows `…/<resource>/<name>/proxy` in a raw kube path (the structure RequestInfo found, so a namespace or name
// spelled "proxy" is not mistaken for the subresource).
const PROXY_PATH = /^\/+(?:api\/+[^/]+|apis\/+[^/]+\/+[^/]+)(?:\/+namespaces\/+[^/]+)?\/+[^/]+\/+[^/]+\/+proxy(\/.*)?$/;

function segments(p: string): string[] {
  return p.split('/').filter((s) => s !== '').map(safeDecode);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

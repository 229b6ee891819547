// Parses a request path the way kube-apiserver's RequestInfoFactory does (namespaces/<ns>/..., /watch/ legacy prefix, subresources).

export type Route =
  | { kind: 'version' }
  | { kind: 'health'; name: string }
  | { kind: 'api' }
  | { kind: 'apis' }
  | { kind: 'group'; group: string }
  | { kind: 'groupVersion'; group: string; version: string }
  | { kind: 'resource'; group: string; version: string; resource: string; namespace?: string; name?: string; subresource?: string; legacyWatch: boolean; proxyPath?: string }
  | { kind: 'admin'; parts: string[] }
  | { kind: 'openapiV3'; rest: string }
  | { kind: 'openapiV2' }
  | { kind: 'unknown' };

/** Subresources of a namespace that must not be read as a namespaced resource name (kube's namespaceSubresources). */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

export function parseRoute(pathname: string): Route {
  const parts = pathname.split('/').filter((p) => p !== '').map((p) => decodeURIComponent(p));
  const [first, second, third] = parts;
  if (first === 'version' && parts.length === 1) return { kind: 'version' };
  if ((first === 'healthz' || first === 'livez' || first === 'readyz') && parts.length <= 2) return { kind: 'health', name: first };
  if (first === '_sim') return { kind: 'admin', parts: parts.slice(1) };
  if (first === 'openapi' && second === 'v3') return { kind: 'openapiV3', rest: parts.slice(2).join('/') };
  if (first === 'openapi' && second === 'v2' && parts.length === 2) return { kind: 'openapiV2' };
  if (first === 'api') {
    if (parts.length === 1) return { kind: 'api' };
    if (second !== 'v1') return { kind: 'unknown' };
    if (parts.length === 2) return { kind: 'groupVersion', group: '', version: 'v1' };
    return withProxyPath(resourceRoute('', 'v1', parts.slice(2)), pathname);
  }
  if (first === 'apis') {
    if (parts.length === 1) return { kind: 'apis' };
    if (parts.length === 2) return { kind: 'group', group: second as string };
    if (parts.length === 3) return { kind: 'groupVersion', group: second as string, version: third as string };
    return resourceRoute(second as string, third as string, parts.slice(3));
  }
  return { kind: 'unknown' };
}

function resourceRoute(group: string, version: string, input: string[]): Route {
  let rest = input;
  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3 && !NAMESPACE_SUBRESOURCES.has(rest[2] as string)) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource, name, subresource] = rest;
  if (!resource || (rest.length > 3 && subresource !== 'proxy')) return { kind: 'unknown' };
  return {
    kind: 'resource', group, version, resource, legacyWatch,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(subresource !== undefined ? { subresource } : {}),
  };
}

/** A proxy subresource's path after `…/proxy`, as sent (kube passes it on to the destination, trailing slash and all). */
function withProxyPath(route: Route, pathname: string): Route {
  if (route.kind !== 'resource' || route.subresource !== 'proxy') return route;
  const at = pathname.search(/\/proxy(\/|$)/);
  return { ...route, proxyPath: pathname.slice(at + '/proxy'.length) };
}

// Row identity: the unique key (cluster, group, version, resource, namespace, name) as strings for maps.

export interface RowKey {
  cluster: string;
  group: string;
  version: string;
  resource: string;
  namespace: string;
  name: string;
}

/** A map key for a row; NUL cannot occur in Kubernetes names, so the join is unambiguous. */
export function rowKeyString(k: RowKey): string {
  return `${k.cluster}\0${k.group}\0${k.version}\0${k.resource}\0${k.namespace}\0${k.name}`;
}

/** The key of resourceVersions(): "ns/name", or "name" for cluster-scoped objects (what the synchro's informer uses). */
export function namespacedName(namespace: string, name: string): string {
  return namespace === '' ? name : `${namespace}/${name}`;
}

// Many simulated clusters at once, plus the files clients need: kubeconfig text and PediaCluster manifests.
import { stringify } from 'yaml';
import { startSimulatedCluster, type SimCluster, type SimClusterOptions } from './cluster.js';
import { generateCertificates } from './tls.js';

export interface SimFleetOptions extends Omit<SimClusterOptions, 'name' | 'port' | 'pods' | 'http2' | 'aggregatedDiscovery'> {
  /** Per cluster (by index) or for all: serve aggregated discovery (SimClusterOptions.aggregatedDiscovery). */
  aggregatedDiscovery?: boolean | ((index: number) => boolean);
  /** With TLS, which clusters also serve HTTP/2: all (true), none (false, the default), or by index. */
  http2?: boolean | ((index: number) => boolean);
  /** Number of clusters. Default 2. */
  clusters?: number;
  /** Pods per cluster. Default 50. */
  podsPerCluster?: number;
  /** First port; cluster i listens on basePort+i. 0 or absent: free ports. */
  basePort?: number;
  /** Cluster names are `${namePrefix}${i+1}`. Default "sim-". */
  namePrefix?: string;
}

export interface SimFleet {
  clusters: SimCluster[];
  /** Stops every cluster (in parallel). */
  stop(): Promise<void>;
}

/** Starts N clusters; with TLS they share one CA and server certificate (generated once). */
export async function startSimulatedFleet(opts: SimFleetOptions = {}): Promise<SimFleet> {
  const n = opts.clusters ?? 2;
  const tls = opts.tls === true ? await generateCertificates() : opts.tls;
  const { http2, aggregatedDiscovery, ...rest } = opts;
  const clusters: SimCluster[] = [];
  try {
    for (let i = 0; i < n; i++) {
      clusters.push(await startSimulatedCluster({
        ...rest,
        ...(tls ? { tls } : {}),
        http2: typeof http2 === 'function' ? http2(i) : http2 === true,
        aggregatedDiscovery: typeof aggregatedDiscovery === 'function' ? aggregatedDiscovery(i) : aggregatedDiscovery === true,
        name: `${opts.namePrefix ?? 'sim-'}${i + 1}`,
        pods: opts.podsPerCluster ?? 50,
        port: opts.basePort ? opts.basePort + i : 0,
      }));
    }
  } catch (e: unknown) {
    await Promise.all(clusters.map((c) => c.stop()));
    throw e;
  }
  return { clusters, stop: async () => { await Promise.all(clusters.map((c) => c.stop())); } };
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** A kubeconfig (YAML text) whose current context points at the cluster with its CA and credentials. */
export function kubeconfigFor(cluster: SimCluster): string {
  return kubeconfigForAll([cluster]);
}

/** A kubeconfig (YAML text) with a context per cluster, named as the cluster; the first is the current one. */
export function kubeconfigForAll(clusters: SimCluster[]): string {
  const entries = clusters.map((cluster) => {
    const user: Record<string, string> = {};
    if (cluster.token) user.token = cluster.token;
    if (cluster.clientCert) {
      user['client-certificate-data'] = b64(cluster.clientCert.certData);
      user['client-key-data'] = b64(cluster.clientCert.keyData);
    }
    const clusterEntry: Record<string, unknown> = { server: cluster.url };
    if (cluster.caData) clusterEntry['certificate-authority-data'] = b64(cluster.caData);
    else clusterEntry['insecure-skip-tls-verify'] = true;
    return { name: cluster.name, clusterEntry, user };
  });
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: entries.map((e) => ({ name: e.name, cluster: e.clusterEntry })),
    users: entries.map((e) => ({ name: `${e.name}-admin`, user: e.user })),
    contexts: entries.map((e) => ({ name: e.name, context: { cluster: e.name, user: `${e.name}-admin` } })),
    'current-context': entries[0]?.name ?? '',
  });
}

export interface SyncGroup {
  group: string;
  resources: string[];
  versions?: string[];
  eventsInvolvedResources?: string[];
}

/** The common built-ins, in the shape of PediaCluster spec.syncResources. */
export function defaultSyncResources(): SyncGroup[] {
  return [
    { group: '', resources: ['pods', 'services', 'configmaps', 'namespaces', 'nodes', 'secrets', 'serviceaccounts', 'events', 'persistentvolumeclaims', 'persistentvolumes'] },
    { group: 'apps', resources: ['*'] },
    { group: 'batch', resources: ['*'] },
    { group: 'networking.k8s.io', resources: ['ingresses'] },
  ];
}

/**
 * The PediaCluster object for a cluster (cluster.clusterpedia.io/v1alpha2); `spec` adds fields to its spec
 * (`excludeNamespaces`, `syncResourcesRefName`, …).
 */
export function pediaClusterFor(cluster: SimCluster, syncResources: SyncGroup[] = defaultSyncResources(), spec: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'cluster.clusterpedia.io/v1alpha2',
    kind: 'PediaCluster',
    metadata: { name: cluster.name },
    spec: {
      apiserver: cluster.url,
      ...(cluster.caData ? { caData: b64(cluster.caData) } : {}),
      ...(cluster.token ? { tokenData: b64(cluster.token) } : {}),
      ...(cluster.clientCert && !cluster.token ? { certData: b64(cluster.clientCert.certData), keyData: b64(cluster.clientCert.keyData) } : {}),
      syncResources,
      ...spec,
    },
  };
}

/** Multi-document YAML of PediaClusters, the --clusters file format. */
export function pediaClustersYaml(clusters: SimCluster[], syncResources?: SyncGroup[], spec?: Record<string, unknown>): string {
  return clusters.map((c) => stringify(pediaClusterFor(c, syncResources, spec))).join('---\n');
}

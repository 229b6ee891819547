// `clusterpedia show kubeconfig`: a kubeconfig with a context for the whole fleet and one per registered cluster, as
// Clusterpedia's hack/gen-clusterconfigs.sh writes for its users — with a hundred members, nobody writes it by hand.
import { ConfigError } from '../lib/errors.js';
import { readFlagFile } from '../lib/flag-file.js';
import { RESOURCES_PREFIX } from '../roles/apiserver/request-info.js';

export interface KubeconfigOptions {
  /** clusterpedia's address (https://host:8443), or the host cluster's when it is installed as an aggregated API. */
  server: string;
  /** The kubeconfig user every context names (defined in the user's own kubeconfig); none by default. */
  user?: string;
  /** PEM file of the serving certificate's CA, embedded. */
  certificateAuthority?: string;
  insecureSkipTlsVerify?: boolean;
  /** Name of the fleet-wide cluster and context. */
  fleetName: string;
}

interface NamedCluster {
  name: string;
  cluster: Record<string, unknown>;
}

/** The kubeconfig for `clusters` (member names), as a plain object ready for YAML. */
export function fleetKubeconfig(clusters: readonly string[], o: KubeconfigOptions): Record<string, unknown> {
  return kubeconfigFor(o)(clusters);
}

/**
 * The flags checked and the CA file read, once: then the kubeconfig for any list of members. `show kubeconfig` calls
 * this before it opens storage, so a typo in a flag is named before a missing database.
 */
export function kubeconfigFor(o: KubeconfigOptions): (clusters: readonly string[]) => Record<string, unknown> {
  const base = resourcesUrl(o.server);
  const tls: Record<string, unknown> = {};
  if (o.certificateAuthority !== undefined) tls['certificate-authority-data'] = caData(o.certificateAuthority);
  if (o.insecureSkipTlsVerify) tls['insecure-skip-tls-verify'] = true;
  return (clusters) => build(clusters, o, base, tls);
}

function build(clusters: readonly string[], o: KubeconfigOptions, base: string, tls: Record<string, unknown>): Record<string, unknown> {
  if (clusters.includes(o.fleetName)) {
    throw new ConfigError(`--fleet-name: a member cluster is named ${JSON.stringify(o.fleetName)}; give the fleet's context another name`);
  }
  const entries: NamedCluster[] = [
    { name: o.fleetName, cluster: { server: base, ...tls } },
    ...[...clusters].sort().map((name) => ({ name, cluster: { server: `${base}/clusters/${encodeURIComponent(name)}`, ...tls } })),
  ];
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: entries,
    contexts: entries.map((e) => ({ name: e.name, context: { cluster: e.name, ...(o.user ? { user: o.user } : {}) } })),
    'current-context': o.fleetName,
  };
}

/** The resources prefix under `server`, whether it was given or not. */
function resourcesUrl(server: string): string {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new ConfigError(`--server: ${JSON.stringify(server)} is not a URL (https://host:port)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError(`--server: the scheme must be https or http, not ${url.protocol}`);
  if (url.search || url.hash) throw new ConfigError('--server: a URL without query or fragment');
  const path = url.pathname.replace(/\/+$/, '');
  const prefix = path.endsWith(RESOURCES_PREFIX) ? path : `${path}${RESOURCES_PREFIX}`;
  return `${url.origin}${prefix}`;
}

function caData(file: string): string {
  const pem = readFlagFile(file, '--certificate-authority');
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new ConfigError(`--certificate-authority: ${file} holds no PEM certificate`);
  return Buffer.from(pem).toString('base64');
}

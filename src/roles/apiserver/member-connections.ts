// The members' connections of a standalone apiserver, for forwarding (member-forward.ts): a PediaCluster's credentials
// resolved as the synchro resolves them, from the host cluster (the PediaCluster and its Secrets, as Clusterpedia's
// apiserver reads them) or from --clusters files, when a forwarded request first needs them and again once `ttlMs`
// has passed; the client is rebuilt only when the connection changed.
import type { Logger } from '../../lib/log.js';
import { KubeApiError, KubeClient } from '../../kube/client.js';
import { readClusterFiles } from '../../kube/cluster-files.js';
import { readHostSecret, resolveCredentials, type SecretReader } from '../../kube/credentials.js';
import type { PediaCluster, PediaClusterSpec } from '../../kube/pediacluster.js';
import { serviceUnavailable } from '../../kube/status.js';
import { messageOf } from '../../lib/errors.js';
import type { MemberConnections } from './member-forward.js';

/** A PediaCluster's spec by name; undefined when there is none. */
export type ClusterSpecs = (cluster: string) => Promise<PediaClusterSpec | undefined>;

const PEDIACLUSTERS = '/apis/cluster.clusterpedia.io/v1alpha2/pediaclusters';

/** PediaClusters in the host cluster, and the reader of their Secrets in `namespace`. */
export function hostClusters(host: KubeClient, namespace: string): { specs: ClusterSpecs; secrets: SecretReader; release: () => Promise<void> } {
  return {
    release: () => host.close(),
    async specs(cluster) {
      try {
        return (await host.json<PediaCluster>(`${PEDIACLUSTERS}/${encodeURIComponent(cluster)}`)).spec ?? {};
      } catch (e: unknown) {
        if (e instanceof KubeApiError && e.status === 404) return undefined;
        throw e;
      }
    },
    secrets: (ref) => readHostSecret(host, namespace, ref),
  };
}

/** PediaClusters of --clusters files, read again at each resolution. */
export function fileClusters(path: string, log: Logger): ClusterSpecs {
  return async (cluster) => (await readClusterFiles(path, log)).get(cluster)?.spec;
}

interface Entry {
  client: KubeClient;
  fingerprint: string;
  at: number;
}

export class ResolvedMemberConnections implements MemberConnections {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<KubeClient>>();

  constructor(private readonly o: {
    specs: ClusterSpecs;
    secrets?: SecretReader;
    ttlMs: number;
    now?: () => number;
    /** Closes what the specs are read through (the host client). */
    release?: () => Promise<void>;
  }) {}

  /** The PediaCluster's `apiserver`, read as a connection's spec is; the connection's address when it names none. */
  async address(cluster: string): Promise<string> {
    let spec: PediaClusterSpec | undefined;
    try {
      spec = await this.o.specs(cluster);
    } catch (e: unknown) {
      throw serviceUnavailable(`the PediaCluster ${cluster} could not be read: ${messageOf(e)}`);
    }
    if (!spec) throw serviceUnavailable(`cluster ${cluster} has no PediaCluster to take its address from`);
    return spec.apiserver ? spec.apiserver.replace(/\/+$/, '') : (await this.client(cluster)).server;
  }

  client(cluster: string): Promise<KubeClient> {
    const now = (this.o.now ?? Date.now)();
    const e = this.entries.get(cluster);
    if (e && now - e.at < this.o.ttlMs) return Promise.resolve(e.client);
    let p = this.pending.get(cluster);
    if (!p) {
      p = this.resolve(cluster, now).finally(() => this.pending.delete(cluster));
      this.pending.set(cluster, p);
    }
    return p;
  }

  private async resolve(cluster: string, now: number): Promise<KubeClient> {
    let spec: PediaClusterSpec | undefined;
    try {
      spec = await this.o.specs(cluster);
    } catch (e: unknown) {
      throw serviceUnavailable(`the PediaCluster ${cluster} could not be read: ${messageOf(e)}`);
    }
    const old = this.entries.get(cluster);
    if (!spec) {
      this.drop(cluster);
      throw serviceUnavailable(`cluster ${cluster} has no PediaCluster to take its credentials from`);
    }
    let client: KubeClient;
    let fingerprint: string;
    try {
      const conn = await resolveCredentials(spec, this.o.secrets);
      if (old && old.fingerprint === conn.fingerprint) {
        old.at = now;
        return old.client;
      }
      fingerprint = conn.fingerprint;
      client = await KubeClient.create(conn.kubeConfig, { userAgent: 'clusterpedia-apiserver' });
    } catch (e: unknown) {
      // CredentialError messages never quote a secret (credentials.ts); anything else is named by its message alone.
      throw serviceUnavailable(`cluster ${cluster}'s credentials are not usable: ${messageOf(e)}`);
    }
    this.entries.set(cluster, { client, fingerprint, at: now });
    // Requests still streaming on the old connection finish on it.
    old?.client.close().catch(() => undefined);
    return client;
  }

  private drop(cluster: string): void {
    this.entries.get(cluster)?.client.close().catch(() => undefined);
    this.entries.delete(cluster);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.entries.values()].map((e) => e.client.close()));
    this.entries.clear();
    await this.o.release?.();
  }
}

// Clusters from a host cluster: watch PediaClusters and ClusterSyncResources, own them with a finalizer,
// write status back through the status subresource, read authenticationFrom Secrets.
import type { Logger } from 'pino';
import { Backoff } from '../../lib/backoff.js';
import { messageOf } from '../../lib/errors.js';
import { systemClock, type Clock, type Runnable } from '../../lib/lifecycle.js';
import { KubeApiError, type KubeClient } from '../../kube/client.js';
import { runListWatch, type ListWatchHandler } from '../../kube/listwatch.js';
import {
  CLUSTER_API_GROUP_VERSION, pediaClusterLabels, significantStatus, STATUS_REFRESH_MS, SYNCHRO_FINALIZER,
  type ClusterSyncResources, type PediaCluster, type PediaClusterStatus, type SecretKeyRef,
} from '../../kube/pediacluster.js';
import type { KubeObject } from '../../kube/types.js';
import type { ClusterManager } from './cluster-manager.js';
import { readHostSecret, type SecretReader } from '../../kube/credentials.js';

const CLUSTERS_PATH = `/apis/${CLUSTER_API_GROUP_VERSION}/pediaclusters`;
const SYNC_RESOURCES_PATH = `/apis/${CLUSTER_API_GROUP_VERSION}/clustersyncresources`;

export interface HostClusterSourceOptions {
  client: KubeClient;
  manager: Pick<ClusterManager, 'apply' | 'remove' | 'release'>;
  /** Namespace of authenticationFrom Secrets. */
  namespace: string;
  /** Only PediaClusters whose spec.shardingName is this ("" when absent) are this synchro's (SynchroOptions.shardingName). */
  shardingName?: string;
  logger: Logger;
  watchTimeoutSeconds: readonly [number, number];
  /** Re-reads Secrets of clusters that use authenticationFrom this often (a Secret change restarts the synchro). */
  resyncMs: number;
  clock?: Clock;
}

/** Keeps every object of one list/watch in memory: PediaClusters are few, and we need their specs. */
class ObjectCache<T extends KubeObject> implements ListWatchHandler {
  readonly objects = new Map<string, T>();
  private listing: Map<string, T> | undefined;
  synced = false;
  constructor(private readonly onChange: (name: string, obj: T | undefined) => Promise<void>, private readonly onSynced: () => void) {}
  async listStart(): Promise<void> {
    this.listing = new Map();
  }
  async listPage(items: KubeObject[]): Promise<void> {
    for (const i of items) if (i.metadata?.name) this.listing!.set(i.metadata.name, i as T);
  }
  async listEnd(): Promise<void> {
    const listed = this.listing!;
    this.listing = undefined;
    for (const name of [...this.objects.keys()]) {
      if (!listed.has(name)) {
        this.objects.delete(name);
        await this.onChange(name, undefined);
      }
    }
    for (const [name, obj] of listed) {
      this.objects.set(name, obj);
      await this.onChange(name, obj);
    }
    if (!this.synced) {
      this.synced = true;
      this.onSynced();
    }
  }
  async event(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject): Promise<void> {
    const name = obj.metadata?.name;
    if (!name) return;
    if (type === 'DELETED') this.objects.delete(name);
    else this.objects.set(name, obj as T);
    await this.onChange(name, type === 'DELETED' ? undefined : (obj as T));
  }
  async bookmark(): Promise<void> {}
  watching(): void {}
  failed(): void {}
}

/** Back-off of retries of a PediaCluster change that failed: 0.5 s, doubling, up to a minute. */
const HANDLE_RETRY = { initialMs: 500, maxMs: 60_000, jitter: 0 } as const;

export class HostClusterSource implements Runnable {
  readonly name = 'synchro host cluster source';
  private readonly clock: Clock;
  private readonly clusters: ObjectCache<PediaCluster & KubeObject>;
  private readonly syncResources: ObjectCache<ClusterSyncResources & KubeObject>;
  /** Spec (+ deletion state) last handed to the manager, so our own status writes do not re-trigger reconciles. */
  private readonly applied = new Map<string, string>();
  private resolveSyncResourcesReady!: () => void;
  private readonly syncResourcesReady = new Promise<void>((r) => (this.resolveSyncResourcesReady = r));
  private signal: AbortSignal | undefined;
  /** Clusters whose last change failed to be handled: the back-off of their next retry. */
  private readonly retries = new Map<string, Backoff>();
  private readonly lastStatus = new Map<string, { significant: string; at: number }>();
  /** Last seen spec.shardingName of every PediaCluster ("" when absent): this shard's were handed to the manager. */
  private readonly shardOf = new Map<string, string>();
  private readonly shard: string;

  constructor(private readonly o: HostClusterSourceOptions) {
    this.clock = o.clock ?? systemClock;
    this.shard = o.shardingName ?? '';
    this.clusters = new ObjectCache((name, obj) => this.clusterChanged(name, obj), () => undefined);
    this.syncResources = new ObjectCache((name) => this.syncResourcesChanged(name), () => this.resolveSyncResourcesReady());
  }

  async start(signal: AbortSignal): Promise<void> {
    this.signal = signal;
    const log = this.o.logger;
    const loop = (path: string, handler: ListWatchHandler): Promise<unknown> => runListWatch({
      client: this.o.client, path, pageSize: 500, watchTimeoutSeconds: this.o.watchTimeoutSeconds,
      handler, logger: log.child({ gvr: path }), clock: this.clock,
    }, signal);
    const csr = loop(SYNC_RESOURCES_PATH, this.syncResources);
    // References resolve better once ClusterSyncResources are known; do not wait forever if they are not served.
    await Promise.race([this.syncResourcesReady, this.clock.sleep(5_000, signal)]);
    await Promise.all([csr, loop(CLUSTERS_PATH, this.clusters), this.resyncSecrets(signal)]);
  }

  /** Reads one Secret key from the clusterpedia namespace, base64-decoded. */
  readonly readSecret: SecretReader = (ref: SecretKeyRef) => readHostSecret(this.o.client, this.o.namespace, ref, this.signal);

  private async resyncSecrets(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.clock.sleep(this.o.resyncMs, signal);
      if (signal.aborted) break;
      for (const [name, pc] of this.clusters.objects) {
        if (!pc.spec?.authenticationFrom || !this.isOurs(pc)) continue;
        try {
          await this.applyCluster(name, pc);
        } catch (e: unknown) {
          this.failed(name, e);
        }
      }
    }
  }

  private async syncResourcesChanged(name: string): Promise<void> {
    for (const [cluster, pc] of this.clusters.objects) {
      if (pc.spec?.syncResourcesRefName === name && this.isOurs(pc)) await this.applyCluster(cluster, pc);
    }
  }

  /** A live PediaCluster of this shard. */
  private isOurs(pc: PediaCluster & KubeObject): boolean {
    return !pc.metadata.deletionTimestamp && (pc.spec?.shardingName ?? '') === this.shard;
  }

  private async clusterChanged(name: string, pc: (PediaCluster & KubeObject) | undefined): Promise<void> {
    const log = this.o.logger.child({ cluster: name });
    if (!pc) {
      // Gone without our finalizer (forced, or never owned): still remove its rows, if it was this shard's.
      this.applied.delete(name);
      this.lastStatus.delete(name);
      this.retries.delete(name);
      const ours = this.shardOf.get(name) === this.shard;
      this.shardOf.delete(name);
      if (ours) await this.o.manager.remove(name);
      return;
    }
    const specShard = pc.spec?.shardingName ?? '';
    const wasOurs = this.shardOf.get(name) === this.shard;
    this.shardOf.set(name, specShard);
    const state = JSON.stringify([pc.spec, pc.metadata.deletionTimestamp ?? '', (pc.metadata.finalizers ?? []).includes(SYNCHRO_FINALIZER), pc.status?.shardingName ?? null, pediaClusterLabels(pc)]);
    if (this.applied.get(name) === state) return;
    this.applied.set(name, state);
    try {
      if (specShard !== this.shard) {
        // Another shard's. If it was ours, hand it over as Clusterpedia does: stop, keep the rows (the new owner
        // resumes from them), and clear our mark so the new owner's is the only one.
        const marked = this.shard !== '' && pc.status?.shardingName === this.shard;
        if (!wasOurs && !marked) return;
        this.lastStatus.delete(name);
        await this.o.manager.release(name);
        if (marked) await this.clearShardMark(name);
        log.info({ shardingName: specShard }, 'pediacluster moved to another shard; released');
        return;
      }
      if (pc.metadata.deletionTimestamp) {
        if (!(pc.metadata.finalizers ?? []).includes(SYNCHRO_FINALIZER)) return;
        await this.o.manager.remove(name);
        await this.updateFinalizers(name, (f) => f.filter((x) => x !== SYNCHRO_FINALIZER));
        log.info('pediacluster deleted; rows removed and finalizer released');
        return;
      }
      if (!(pc.metadata.finalizers ?? []).includes(SYNCHRO_FINALIZER)) {
        await this.updateFinalizers(name, (f) => (f.includes(SYNCHRO_FINALIZER) ? f : [...f, SYNCHRO_FINALIZER]));
      }
      await this.applyCluster(name, pc);
      this.retries.delete(name);
    } catch (e: unknown) {
      this.failed(name, e);
    }
  }

  /** A cluster's change was not handled: forget its state so that the next event, or a retry with back-off, tries again. */
  private failed(name: string, e: unknown): void {
    this.applied.delete(name);
    if (this.signal?.aborted) return;
    let backoff = this.retries.get(name);
    if (!backoff) this.retries.set(name, (backoff = new Backoff(HANDLE_RETRY)));
    const delayMs = backoff.next();
    this.o.logger.warn({ cluster: name, err: messageOf(e), retryInMs: delayMs }, 'pediacluster change not handled; will retry');
    void this.retryLater(name, backoff, delayMs);
  }

  /**
   * Handles a cluster again after a failure (a finalizer PATCH the host refused, an unreadable Secret): the watch
   * may bring no further event, and a PediaCluster left without its finalizer or stuck Terminating would stay so.
   */
  private async retryLater(name: string, backoff: Backoff, delayMs: number): Promise<void> {
    const signal = this.signal;
    if (!signal) return;
    const attempts = backoff.attempts;
    await this.clock.sleep(delayMs, signal);
    // A newer failure scheduled its own retry; an event handled since then dropped the back-off.
    if (signal.aborted || this.retries.get(name) !== backoff || backoff.attempts !== attempts) return;
    await this.clusterChanged(name, this.clusters.objects.get(name));
  }

  private applyCluster(name: string, pc: PediaCluster): Promise<void> {
    const ref = pc.spec?.syncResourcesRefName;
    const refObj = ref ? this.syncResources.objects.get(ref) : undefined;
    return this.o.manager.apply({
      name,
      spec: pc.spec ?? {},
      refResources: ref ? (refObj ? (refObj.spec?.syncResources ?? []) : null) : undefined,
      ...(refObj?.spec?.excludeNamespaces ? { refExcludeNamespaces: refObj.spec.excludeNamespaces } : {}),
      secrets: this.readSecret,
      source: 'host',
      creationTimestamp: typeof pc.metadata.creationTimestamp === 'string' ? pc.metadata.creationTimestamp : undefined,
      labels: pediaClusterLabels(pc),
      writeStatus: (status) => this.writeStatus(name, status),
    });
  }

  /** Read-modify-write of metadata.finalizers with optimistic concurrency (resourceVersion), retried on conflict. */
  private async updateFinalizers(name: string, edit: (f: string[]) => string[]): Promise<void> {
    await this.withConflictRetry(async () => {
      const cur = await this.o.client.json<PediaCluster>(`${CLUSTERS_PATH}/${encodeURIComponent(name)}`, { signal: this.signal });
      const before = cur.metadata.finalizers ?? [];
      const after = edit(before);
      if (after.length === before.length && after.every((f, i) => f === before[i])) return;
      await this.o.client.json(`${CLUSTERS_PATH}/${encodeURIComponent(name)}`, {
        method: 'PATCH',
        contentType: 'application/merge-patch+json',
        body: { metadata: { finalizers: after, resourceVersion: cur.metadata.resourceVersion } },
        signal: this.signal,
      });
    });
  }

  /**
   * PUT of the status subresource on the latest object, retried on conflict (reference §5.1). Counts and event
   * times change with every event; written back alone they would cost the host a GET and a PUT per cluster per
   * second, so a status whose conditions and per-resource states are unchanged is written at most every 30 s.
   */
  private async writeStatus(name: string, status: PediaClusterStatus): Promise<void> {
    const significant = significantStatus(status);
    const last = this.lastStatus.get(name);
    const now = this.clock.now();
    if (last && last.significant === significant && now - last.at < STATUS_REFRESH_MS) return;
    await this.putStatus(name, status);
    this.lastStatus.set(name, { significant, at: now });
  }

  private putStatus(name: string, status: PediaClusterStatus): Promise<void> {
    // status.shardingName is ours to set (renderStatus puts it in for a named shard): a mark left by a previous
    // owner goes.
    return this.replaceStatus(name, (cur) => (cur.metadata.deletionTimestamp ? undefined : status));
  }

  /** Removes status.shardingName if it is still this shard's (after a hand-over). */
  private clearShardMark(name: string): Promise<void> {
    return this.replaceStatus(name, (cur) => {
      if (cur.status?.shardingName !== this.shard) return undefined;
      const { shardingName: _mark, ...rest } = cur.status;
      return rest;
    });
  }

  /**
   * PUT of the status subresource computed from the latest object (`next` returns undefined to leave it), retried
   * on conflict; a PediaCluster already gone is left alone.
   */
  private async replaceStatus(name: string, next: (cur: PediaCluster) => PediaClusterStatus | undefined): Promise<void> {
    await this.withConflictRetry(async () => {
      let cur: PediaCluster;
      try {
        cur = await this.o.client.json<PediaCluster>(`${CLUSTERS_PATH}/${encodeURIComponent(name)}`, { signal: this.signal });
      } catch (e: unknown) {
        if (e instanceof KubeApiError && e.status === 404) return;
        throw e;
      }
      const status = next(cur);
      if (!status) return;
      await this.o.client.json(`${CLUSTERS_PATH}/${encodeURIComponent(name)}/status`, { method: 'PUT', body: { ...cur, status }, signal: this.signal });
    });
  }

  private async withConflictRetry(fn: () => Promise<void>): Promise<void> {
    const backoff = new Backoff({ initialMs: 100, maxMs: 2_000 });
    for (let attempt = 0; ; attempt++) {
      try {
        await fn();
        return;
      } catch (e: unknown) {
        if (!(e instanceof KubeApiError) || e.status !== 409 || attempt >= 5) throw e;
        await this.clock.sleep(backoff.next(), this.signal);
      }
    }
  }
}

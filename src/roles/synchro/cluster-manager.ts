// The cluster manager: one ClusterSynchro per registered cluster, fed by the file and host sources alike.
import type { KubeClient } from '../../kube/client.js';
import type { Logger } from 'pino';
import { Backoff } from '../../lib/backoff.js';
import { messageOf } from '../../lib/errors.js';
import { aborted, awaitNoting, systemClock, withChildSignal, type Clock, type Runnable } from '../../lib/lifecycle.js';
import type { ClusterGroupResources, ClusterGroupResourcesStatus, Condition, PediaClusterSpec, PediaClusterStatus } from '../../kube/pediacluster.js';
import { StorageError } from '../../storage/errors.js';
import { originRevision } from '../../storage/revision-origin.js';
import type { ClusterStatusRecord, Storage, StorageReader, StorageWriter } from '../../storage/types.js';
import { ClusterSynchro, STOP_NOTE_MS } from './cluster-synchro.js';
import { buildConditions, MESSAGES, type SynchroPhase, type ValidatedState } from './conditions.js';
import { CredentialError, resolveCredentials, type SecretReader } from '../../kube/credentials.js';
import type { SynchroMetrics } from './metrics.js';
import type { ResumePoint } from './resource-synchro.js';
import type { SynchroOptions } from './options.js';
import { Semaphore } from './list-gate.js';
import { StatusWriter } from './status-writer.js';
import type { WriteQueue } from './write-queue.js';
import { kubeTime } from '../../kube/types.js';
import { isDns1123Label } from '../../kube/label-selector.js';

/** A cluster as a source declares it. */
export interface DesiredCluster {
  name: string;
  spec: PediaClusterSpec;
  /** Entries of the referenced ClusterSyncResources; null when spec.syncResourcesRefName names a missing one. */
  refResources?: ClusterGroupResources[] | null;
  /** The referenced ClusterSyncResources' excludeNamespaces, added to the cluster's own. */
  refExcludeNamespaces?: string[];
  /** Secret reader for authenticationFrom (host mode only). */
  secrets?: SecretReader;
  /** Where the cluster came from. */
  source: 'file' | 'host';
  /** When the cluster was registered (metadata.creationTimestamp, or first seen in the file). */
  creationTimestamp?: string;
  /** The PediaCluster's metadata.labels, for label selectors on the read API's pediaclusters. */
  labels?: Record<string, string>;
  /** Writes status back to the source (host mode: the status subresource). */
  writeStatus?: (status: PediaClusterStatus) => Promise<void>;
}

export interface ClusterManagerDeps {
  storage: StorageWriter & Partial<Pick<StorageReader, 'resourceTypes' | 'clusterStatuses' | 'currentRevision'> & Pick<Storage, 'bumpRevision' | 'advanceRevision'>>;
  queue: WriteQueue;
  options: SynchroOptions;
  logger: Logger;
  metrics?: SynchroMetrics;
  clock?: Clock;
  random?: () => number;
}

interface Entry {
  desired: DesiredCluster;
  validated: ValidatedState;
  apiserver?: string;
  synchro?: ClusterSynchro;
  task?: { ac: AbortController; done: Promise<void> };
  conditions?: Condition[];
  /** Restart the synchro and list every resource again, resuming from nothing (storage went back). */
  relist?: boolean;
  /** How many rewinds the manager had seen when `synchro` was made with its resume points (ClusterManager.rewinds). */
  synchroRewinds?: number;
  /** Operations on one cluster run one after the other. */
  op: Promise<void>;
}

export class ClusterManager implements Runnable {
  readonly name = 'synchro cluster manager';
  private readonly clusters = new Map<string, Entry>();
  private readonly status: StatusWriter;
  private readonly clock: Clock;
  private signal: AbortSignal | undefined;
  private readonly listGate: Semaphore;
  /** Times storage was found to have gone back: a synchro made before the latest answers for rows that may be gone. */
  private rewinds = 0;

  constructor(private readonly d: ClusterManagerDeps) {
    this.clock = d.clock ?? systemClock;
    this.listGate = new Semaphore(d.options.listConcurrency);
    this.status = new StatusWriter({ write: (name) => this.writeStatus(name), intervalMs: d.options.statusIntervalMs, logger: d.logger, clock: this.clock });
    d.metrics?.addObjectSource(() => this.objectCounts());
    d.queue.onRewind((highest) => this.relistAll(highest));
  }

  /**
   * Storage went back in time: rows written since the state it went back to are gone, while each watch moved past
   * them. Every cluster restarts from no resume point: it lists, and writes what differs from the rows now stored.
   */
  private relistAll(highest: string): void {
    this.rewinds++;
    // Revisions up to `highest` are issued again from here, for other changes than watchers saw under them: new ones
    // start above it, and watches from the old ones end with 410, so their clients list again.
    const { bumpRevision } = this.d.storage;
    if (bumpRevision) void this.retryStorage('move the revision past the one issued before storage went back', () => bumpRevision.call(this.d.storage, highest)).catch(() => undefined);
    for (const entry of this.clusters.values()) {
      if (!entry.synchro) continue;
      entry.relist = true;
      void this.serial(entry, () => this.reconcile(entry));
    }
  }

  /** The running synchro's connection to a member cluster, if it has one now. */
  memberClient(name: string): KubeClient | undefined {
    return this.clusters.get(name)?.synchro?.connection;
  }

  /** Names of the clusters currently registered. */
  names(): string[] {
    return [...this.clusters.keys()];
  }

  /** Adds or changes a cluster. Resolves once its credentials are resolved and its synchro (re)started. */
  apply(desired: DesiredCluster): Promise<void> {
    let e = this.clusters.get(desired.name);
    if (!e) {
      e = { desired, validated: { ok: true }, op: Promise.resolve() };
      this.clusters.set(desired.name, e);
    }
    const entry = e;
    entry.desired = desired;
    return this.serial(entry, () => this.reconcile(entry));
  }

  /** Removes a cluster: stops its synchro, then deletes its rows and status. Resolves when done. */
  remove(name: string): Promise<void> {
    const entry = this.clusters.get(name);
    if (!entry) return Promise.resolve();
    return this.drop(entry, name, async () => {
      await this.d.queue.purge((o) => o.cluster === name);
      await this.retryStorage('clean cluster', async () => {
        const rows = await this.d.queue.beside(() => this.d.storage.cleanCluster(name));
        await this.d.storage.deleteClusterStatus(name);
        this.d.logger.info({ cluster: name, rows }, 'cluster removed; rows deleted');
      });
    });
  }

  /**
   * Lets go of a cluster another shard now owns: stops its synchro and its status writes, and keeps its rows and
   * stored status for the new owner, which resumes from them. Resolves when done.
   */
  release(name: string): Promise<void> {
    const entry = this.clusters.get(name);
    if (!entry) return Promise.resolve();
    return this.drop(entry, name, async () => {
      // The new owner resumes from the stored status, written before these: they would land after its own writes.
      await this.d.queue.purge((o) => o.cluster === name);
      this.d.logger.info({ cluster: name }, 'cluster handed over to another shard; rows kept');
    });
  }

  /** Unregisters a cluster, stops its synchro and its status writes, then runs `after` (in the cluster's order). */
  private drop(entry: Entry, name: string, after: () => Promise<void>): Promise<void> {
    return this.serial(entry, async () => {
      this.clusters.delete(name);
      await this.stopSynchro(entry);
      await this.status.forget(name);
      await after();
    });
  }

  /** Writes every pending status now. */
  flushStatus(): Promise<void> {
    return this.status.flush();
  }

  async start(parent: AbortSignal): Promise<void> {
    // Every cluster's synchro listens on this signal: more listeners than Node's leak-warning threshold.
    await withChildSignal(parent, (signal) => this.run(signal));
  }

  private async run(signal: AbortSignal): Promise<void> {
    this.signal = signal;
    // Revisions from here on pass every one issued before, even one this process never saw because storage went back
    // while it was not running (a restore, then a restart): clients holding those see the corrections it writes.
    const { advanceRevision } = this.d.storage;
    if (advanceRevision) {
      try {
        await this.retryStorage('move the revision up to the clock', async () => { await advanceRevision.call(this.d.storage, String(originRevision())); });
      } catch {
        return; // stopped while storage was unreachable
      }
    }
    for (const entry of this.clusters.values()) if (entry.synchro && !entry.task) this.launch(entry);
    const writer = new AbortController();
    const statusLoop = this.status.start(writer.signal);
    const probing = this.probeRevisions(signal);
    await aborted(signal);
    await probing;
    await Promise.all([...this.clusters.values()].map((e) => this.serial(e, () => this.stopSynchro(e))));
    writer.abort();
    await statusLoop;
    await this.status.flush();
  }

  /** Every few seconds, whether storage went back while nothing was written (WriteQueue.probeRevision). */
  private async probeRevisions(signal: AbortSignal): Promise<void> {
    const read = this.d.storage.currentRevision?.bind(this.d.storage);
    if (!read) return;
    const everyMs = Math.max(5000, this.d.options.statusIntervalMs * 5);
    while (!signal.aborted) {
      await this.clock.sleep(everyMs, signal);
      if (signal.aborted) break;
      try {
        await this.d.queue.probeRevision(read);
      } catch (e: unknown) {
        // Storage unreachable: the write queue reports it; the next probe tries again.
        this.d.logger.debug({ err: messageOf(e) }, 'cannot read the storage revision');
      }
    }
  }

  private async reconcile(entry: Entry): Promise<void> {
    const { desired } = entry;
    const log = this.d.logger.child({ cluster: desired.name });
    // A file is not checked against the CRD's schema as the host cluster checks a PediaCluster: check its shape here.
    const problem = syncResourcesProblem(desired.spec.syncResources, 'spec.syncResources')
      ?? syncResourcesProblem(desired.refResources ?? undefined, `clustersyncresources ${desired.spec.syncResourcesRefName ?? ''}: spec.syncResources`)
      ?? excludeNamespacesProblem(desired.spec.excludeNamespaces, 'spec.excludeNamespaces')
      ?? excludeNamespacesProblem(desired.refExcludeNamespaces, `clustersyncresources ${desired.spec.syncResourcesRefName ?? ''}: spec.excludeNamespaces`);
    if (problem) return this.invalidate(entry, 'InvalidSyncResources', problem, log);
    let connection;
    try {
      connection = await resolveCredentials(desired.spec, desired.secrets);
    } catch (e: unknown) {
      // Only a verdict on the config invalidates it. A Secret that could not be read (the host cluster unreachable,
      // a 5xx) says nothing about it: a running synchro keeps going, and the source tries again.
      if (!(e instanceof CredentialError)) throw e;
      return this.invalidate(entry, 'InvalidConfig', `invalid cluster config: ${messageOf(e)}`, log);
    }
    entry.apiserver = connection.apiserver;
    entry.validated = desired.refResources === null ? { ok: true, warning: MESSAGES.syncResourceRefNotFound } : { ok: true };
    const resources = [...(desired.spec.syncResources ?? []), ...(desired.refResources ?? [])];
    const excluded = [...(desired.spec.excludeNamespaces ?? []), ...(desired.refExcludeNamespaces ?? [])];
    const all = desired.spec.syncAllCustomResources ?? false;
    const relist = entry.relist === true;
    entry.relist = false;
    const rewinds = this.rewinds;
    if (entry.synchro && entry.synchro.fingerprint === connection.fingerprint && !relist) {
      entry.synchro.setResources(resources, all, excluded);
      this.dirty(desired.name);
      return;
    }
    if (entry.synchro) log.info(relist ? 'restarting the synchro to list every resource again' : 'cluster connection changed; restarting its synchro');
    await this.stopSynchro(entry);
    const old = entry.synchro;
    // After a rewind neither the running synchro's resume points nor the stored status (written after the state storage
    // went back to, perhaps) can be trusted: lists compare the member with the rows now stored.
    const resume = relist ? new Map<string, ResumePoint>() : old ? resumePoints(old.freeze().syncResources) : await this.storedResumePoints(desired.name);
    if (old) {
      // What the old synchro queued and storage has not taken yet goes, once the batch being written is in: the new one
      // resumes from the last committed point, or lists and compares with the rows then stored, so none of it is lost.
      // Kept, a write landing after that comparison brought back an object the member had deleted in between, for
      // good (chaos seed 19002: a relist after PostgreSQL lost its last commits). Frozen first: see freeze().
      old.freeze();
      await this.d.queue.purge((o) => o.cluster === desired.name);
    }
    const synchro = new ClusterSynchro({
      resume,
      name: desired.name,
      connection,
      queue: this.d.queue,
      listGate: this.listGate,
      storage: this.d.storage,
      options: this.d.options,
      logger: log,
      metrics: this.d.metrics,
      clock: this.clock,
      random: this.d.random,
      changed: () => this.dirty(desired.name),
      typesChanged: () => this.status.markDirty(desired.name, true),
      freshened: () => this.status.markStale(desired.name),
    });
    synchro.setResources(resources, all, excluded);
    entry.synchro = synchro;
    entry.synchroRewinds = rewinds;
    // Not once the manager is stopping (a rewind found on the way out relists every cluster): started under a signal
    // already aborted, the synchro would run on for good, and keep the process — a leader that lost its lease and is
    // stopping (chaos seed 19019, split) — from ever exiting. Its status then records no point to resume from.
    if (this.signal && !this.signal.aborted) this.launch(entry);
    this.dirty(desired.name);
  }

  /** Validated=False: the cluster's synchro stops, and its status says why. */
  private async invalidate(entry: Entry, reason: 'InvalidConfig' | 'InvalidSyncResources', message: string, log: Logger): Promise<void> {
    entry.validated = { ok: false, reason, message };
    entry.apiserver = entry.desired.spec.apiserver;
    log.warn({ reason, message }, 'cluster spec is invalid');
    await this.stopSynchro(entry);
    entry.synchro = undefined;
    this.dirty(entry.desired.name);
  }

  /** Committed RVs of the status stored by a previous run (empty when there is none or it cannot be read). */
  private async storedResumePoints(name: string): Promise<Map<string, ResumePoint>> {
    try {
      const read = this.d.storage.clusterStatuses?.();
      const rec = (read && (await this.d.queue.timed(read)))?.get(name);
      const groups = (rec?.status as PediaClusterStatus | undefined)?.syncResources;
      return resumePoints(Array.isArray(groups) ? groups : []);
    } catch (e: unknown) {
      this.d.logger.warn({ cluster: name, err: messageOf(e) }, 'cannot read the stored status; resuming from stored rows');
      return new Map();
    }
  }

  private launch(entry: Entry): void {
    const synchro = entry.synchro!;
    const ac = new AbortController();
    const onAbort = (): void => ac.abort();
    this.signal!.addEventListener('abort', onAbort, { once: true });
    const done = synchro.start(ac.signal).catch((e: unknown) => {
      this.d.logger.error({ cluster: synchro.name, err: messageOf(e) }, 'cluster synchro failed');
    }).finally(() => this.signal?.removeEventListener('abort', onAbort));
    entry.task = { ac, done };
  }

  private async stopSynchro(entry: Entry): Promise<void> {
    const task = entry.task;
    entry.task = undefined;
    if (!task) return;
    task.ac.abort();
    const name = entry.desired.name;
    await awaitNoting(task.done, STOP_NOTE_MS, (waitedMs) => this.d.logger.warn({ cluster: name, waitedMs }, 'cluster synchro asked to stop has not stopped yet'), this.clock);
  }

  private serial(entry: Entry, fn: () => Promise<void>): Promise<void> {
    const next = entry.op.then(fn);
    entry.op = next.catch((e: unknown) => this.d.logger.error({ err: messageOf(e) }, 'cluster operation failed'));
    return next;
  }

  private async retryStorage(what: string, fn: () => Promise<void>): Promise<void> {
    const backoff = new Backoff({ initialMs: 500, maxMs: 15_000 });
    for (;;) {
      try {
        await fn();
        return;
      } catch (e: unknown) {
        if (this.signal?.aborted) throw e;
        this.d.logger.warn({ err: messageOf(e) }, `${what} failed; retrying`);
        await this.clock.sleep(backoff.next(), this.signal);
      }
    }
  }

  private dirty(name: string): void {
    this.status.markDirty(name);
  }

  /** The status of one cluster as both storage (`show clusters`, the read API) and the host cluster see it. */
  renderStatus(name: string): PediaClusterStatus | undefined {
    const entry = this.clusters.get(name);
    if (!entry) return undefined;
    const snap = entry.synchro?.snapshot();
    const phase: SynchroPhase = !entry.validated.ok || !snap ? { phase: 'None' } : snap.synchro;
    const now = kubeTime(this.clock.now());
    const conditions = buildConditions({ validated: entry.validated, synchro: phase, health: snap?.health ?? { status: 'Unknown', message: MESSAGES.waitSynchro } }, entry.conditions, now);
    entry.conditions = conditions;
    return {
      ...(entry.apiserver ? { apiserver: entry.apiserver } : {}),
      ...(snap?.version ? { version: snap.version } : {}),
      ...(snap?.protocol ? { protocol: snap.protocol } : {}),
      conditions,
      syncResources: snap?.syncResources ?? [],
      ...(this.d.options.shardingName ? { shardingName: this.d.options.shardingName } : {}),
    };
  }

  private async writeStatus(name: string): Promise<void> {
    const entry = this.clusters.get(name);
    // A synchro made before storage was last found to have gone back renders resume points past rows that may be gone,
    // and the revision it would be checked against is now one storage holds: written, the next start would resume past
    // them (a write refused, the rewind found, then the retry passing before the relist replaced the synchro). The
    // relist marks the cluster for writing once its new synchro is in place.
    if (entry?.synchro && (entry.synchroRewinds ?? 0) < this.rewinds) return;
    const status = this.renderStatus(name);
    if (!entry || !status) return;
    const record: ClusterStatusRecord = { spec: specSummary(entry.desired), status: status as Record<string, unknown>, updatedAt: new Date(this.clock.now()).toISOString() };
    // The resourceVersions it records are where a restart resumes; they hold for the writes committed up to this
    // revision, so the status is stored only while storage still holds it. Written after storage lost those commits
    // (PostgreSQL back from a crash with synchronous_commit off, before this writer noticed), the next synchro would
    // resume past rows that are gone, for good (chaos seed 19018).
    const requireRevision = this.d.queue.seenRevision;
    // Each destination on its own: while storage is down the host cluster still learns it (Stop/StorageExpection);
    // the failure is thrown afterwards so the write is retried.
    let failed: { e: unknown } | undefined;
    try {
      if (!(await this.d.queue.timed(this.d.storage.putClusterStatus(name, record, { requireRevision })))) {
        // The queue finds the rewind now rather than at its next write, and every synchro lists again.
        const read = this.d.storage.currentRevision?.bind(this.d.storage);
        if (read) await this.d.queue.probeRevision(read).catch(() => undefined);
        throw new StorageError('Unavailable', `storage no longer holds revision ${requireRevision}, which this status was rendered at (it went back); not written`, true);
      }
    } catch (e: unknown) {
      failed = { e };
    }
    await entry.desired.writeStatus?.(status);
    if (failed) throw failed.e;
  }

  private *objectCounts(): Iterable<{ cluster: string; resource: string; count: number }> {
    for (const e of this.clusters.values()) if (e.synchro) yield* e.synchro.objectCounts();
  }
}

/** What is wrong with the shape of a syncResources list (as the CRD's schema would say), or undefined. */
export function syncResourcesProblem(list: unknown, where: string): string | undefined {
  if (list === undefined || list === null) return undefined;
  if (!Array.isArray(list)) return `${where}: must be a list`;
  const strings = (v: unknown): boolean => Array.isArray(v) && v.every((x) => typeof x === 'string');
  for (const [i, g] of (list as unknown[]).entries()) {
    const at = `${where}[${i}]`;
    if (typeof g !== 'object' || g === null || Array.isArray(g)) return `${at}: must be an object with group and resources`;
    const r = g as Record<string, unknown>;
    if (typeof r.group !== 'string') return `${at}.group: must be a string ("" for the core group)`;
    if (!strings(r.resources) || (r.resources as string[]).length === 0) return `${at}.resources: must be a non-empty list of names`;
    for (const f of ['versions', 'eventsInvolvedResources']) {
      if (r[f] !== undefined && !strings(r[f])) return `${at}.${f}: must be a list of strings`;
    }
  }
  return undefined;
}

/** What is wrong with an excludeNamespaces list at `where` (as the CRD's schema would say), or undefined. */
export function excludeNamespacesProblem(list: unknown, where: string): string | undefined {
  if (list === undefined || list === null) return undefined;
  if (!Array.isArray(list)) return `${where}: must be a list of namespace names`;
  for (const [i, ns] of (list as unknown[]).entries()) {
    if (typeof ns !== 'string' || !isDns1123Label(ns)) return `${where}[${i}]: ${JSON.stringify(ns)} is not a namespace name (a DNS-1123 label: lower-case letters, digits and '-', at most 63)`;
  }
  return undefined;
}

/**
 * "group/version/resource" → what a resource synchro carries over from a status' syncResources: the committed RV it
 * resumes from, and its last error (kept after a recovery, so across a restart too).
 */
export function resumePoints(groups: readonly ClusterGroupResourcesStatus[]): Map<string, ResumePoint> {
  const out = new Map<string, ResumePoint>();
  for (const g of groups) {
    for (const r of g.resources ?? []) {
      for (const c of r.syncConditions ?? []) {
        const p: ResumePoint = {
          ...(typeof c.resourceVersion === 'string' && c.resourceVersion ? { resourceVersion: c.resourceVersion } : {}),
          ...(typeof c.fieldSelector === 'string' && c.fieldSelector ? { fieldSelector: c.fieldSelector } : {}),
          ...(c.redacted === true ? { redacted: true } : {}),
          ...(typeof c.lastError === 'string' && c.lastError ? { lastError: c.lastError, ...(typeof c.lastErrorTime === 'string' ? { lastErrorTime: c.lastErrorTime } : {}) } : {}),
        };
        if (p.resourceVersion !== undefined || p.lastError !== undefined || p.redacted) out.set(`${g.group}/${c.version}/${r.name}`, p);
      }
    }
  }
  return out;
}

/**
 * What of a spec may be shown: endpoint and what is synced, never a credential. `creationTimestamp` rides along
 * because the read API serves the record as a PediaCluster and takes its creation time from here.
 */
export function specSummary(d: DesiredCluster): Record<string, unknown> {
  const s = d.spec;
  return {
    ...(s.apiserver ? { apiserver: s.apiserver } : {}),
    syncResources: s.syncResources ?? [],
    ...(s.syncAllCustomResources ? { syncAllCustomResources: true } : {}),
    ...(s.syncResourcesRefName ? { syncResourcesRefName: s.syncResourcesRefName } : {}),
    ...(Array.isArray(s.excludeNamespaces) && s.excludeNamespaces.length > 0 ? { excludeNamespaces: s.excludeNamespaces } : {}),
    ...(d.creationTimestamp ? { creationTimestamp: d.creationTimestamp } : {}),
    // Not a spec field: the read API moves it to metadata.labels (pediaclusters.ts).
    ...(d.labels && Object.keys(d.labels).length > 0 ? { labels: d.labels } : {}),
  };
}

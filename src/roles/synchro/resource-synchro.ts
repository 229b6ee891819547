// One resource of one member cluster: list/watch it (our own loop), diff against the remembered RVs, queue writes.
import type { Logger } from 'pino';
import { Backoff } from '../../lib/backoff.js';
import { messageOf } from '../../lib/errors.js';
import { systemClock, type Clock } from '../../lib/lifecycle.js';
import type { KubeApiError, KubeClient } from '../../kube/client.js';
import { namespacesExcludedBy, type ResourceNames } from '../../kube/pediacluster.js';
import { runListWatch, type ListGate, type ListReason, type ListWatchHandler } from '../../kube/listwatch.js';
import { groupVersionString, kubeTime, type KubeObject } from '../../kube/types.js';
import { UnansweredError } from '../../storage/errors.js';
import { prepareUpsert } from '../../storage/object-columns.js';
import type { PreparedUpsert, ResourceType, StorageWriter } from '../../storage/types.js';
import type { Action } from './coalesce.js';
import type { SynchroMetrics } from './metrics.js';
import { objectKey, prepareObject, redacts, type PruneOptions } from './prune.js';
import { isNewer, VersionMap } from './versions.js';
import type { WriteOwner, WriteQueue } from './write-queue.js';

/** A negotiated resource: what is listed and watched, and the storage type its rows go to (the same GVR here). */
export interface SyncedResource extends ResourceType {
  kind: string;
  namespaced: boolean;
  /** Of a resource kube does not build in: the names the member's discovery gives it (for the status). */
  names?: ResourceNames;
  /**
   * core/v1 events synced for eventsInvolvedResources only: the kinds of involved object kept (sorted). Such a
   * resource lists at every start instead of resuming, so a kind added while the synchro was down is not missed.
   */
  involvedKinds?: readonly string[];
  /**
   * Sent with its lists and watches (spec.excludeNamespaces): only the objects it selects are synced. Recorded with
   * the resume point, so a start under another one lists instead of resuming.
   */
  fieldSelector?: string;
}

export type SyncStatus = 'Pending' | 'Syncing' | 'Stop' | 'Error' | 'Unknown';

/** Per-resource sync state as reported in status.syncResources[].resources[].syncConditions[]. */
export interface ResourceSyncState {
  status: SyncStatus;
  reason: string;
  message: string;
  initialListPhase: boolean;
  lastTransitionTime: string;
  /** Our additions: objects known, and when the last change arrived. */
  count: number;
  lastEventTime?: string;
  /** The last error met (`<reason>: <message>`) and when, kept after the resource recovered from it. */
  lastError?: string;
  lastErrorTime?: string;
  /** The member RV up to which every event is committed to storage: where a restart resumes watching. */
  resourceVersion?: string;
}

/** What a resource synchro takes over from the status of a previous run (or of the synchro it replaces). */
export interface ResumePoint {
  /** The committed member RV to resume watching from. */
  resourceVersion?: string;
  /** The field selector it was reached under: a resource synced under another one lists instead. */
  fieldSelector?: string;
  /** Its rows were stored redacted (--redact-secret-data): a start that stores them otherwise rewrites them all. */
  redacted?: boolean;
  lastError?: string;
  lastErrorTime?: string;
}

/** What a cluster's synchro and each of its resources' synchros are given alike. */
export interface SynchroContext {
  queue: WriteQueue;
  /** Shared by every cluster: limits concurrent lists. */
  listGate?: ListGate;
  logger: Logger;
  metrics?: SynchroMetrics;
  clock?: Clock;
  random?: () => number;
  /** The reported state changed (status writes are coalesced by the caller). */
  changed: () => void;
  /** Only counts and event times moved: written within a few seconds (StatusWriter.markStale). */
  freshened: () => void;
}

export interface ResourceSynchroDeps extends SynchroContext {
  cluster: string;
  resource: SyncedResource;
  client: KubeClient;
  storage: Pick<StorageWriter, 'resourceVersions' | 'cleanResource'>;
  prune: PruneOptions;
  pageSize: number;
  maxListPageBytes?: number;
  watchTimeoutSeconds: readonly [number, number];
  /**
   * From the last status, if any: the committed RV the first run resumes from (without it, it lists), and the last
   * error, kept until a newer one.
   */
  resume?: ResumePoint;
  /** List before watching even when stored rows could be resumed from (what is wanted of the member changed). */
  listFirst?: boolean;
}

/** The collection path of a resource across all namespaces. */
export function collectionPath(r: ResourceType): string {
  return r.group === '' ? `/api/${r.version}/${r.resource}` : `/apis/${r.group}/${r.version}/${r.resource}`;
}

export class ResourceSynchro implements WriteOwner, ListWatchHandler {
  readonly cluster: string;
  readonly type: ResourceType;
  readonly kind: string;
  readonly namespaced: boolean;
  private readonly apiVersion: string;
  private readonly clock: Clock;
  private versions: VersionMap | undefined;
  /** Where to resume the watch: the loop's last RV, or at first start the committed RV of the stored status. */
  private resumeRv: string | undefined;
  private state: ResourceSyncState;
  /** RVs the stream reached, each with the queue position it needs committed: [rv, seq], oldest first. */
  private marks: [string, number][] = [];
  private durableRv: string | undefined;
  /** The signal of the current run: a write waiting for queue space gives up when the run is paused. */
  private signal: AbortSignal | undefined;
  private readonly labels: { cluster: string; resource: string };
  /**
   * Objects outside involvedKinds are not stored (undefined: every object is); nor, once the member refused the field
   * selector, those it would have left out.
   */
  private accepts: ((o: KubeObject) => boolean) | undefined;
  /** The member refused the field selector: lists and watches go without it, and `accepts` applies it. */
  private selectingHere = false;
  readonly involvedKinds: readonly string[] | undefined;
  /** The cluster's logger with this resource's gvr. */
  readonly log: Logger;
  /** Its objects are stored redacted (prune.ts redacts). */
  private readonly redacted: boolean;
  /**
   * The stored rows may have been written with the other redaction (the last status said so, or said nothing): the
   * next list removes them first and writes every object again. Cleared once they are gone.
   */
  private reshape: boolean;

  /** What this synchro was negotiated as. */
  get synced(): SyncedResource {
    return this.d.resource;
  }

  constructor(private readonly d: ResourceSynchroDeps) {
    this.cluster = d.cluster;
    this.type = { group: d.resource.group, version: d.resource.version, resource: d.resource.resource };
    this.kind = d.resource.kind;
    this.namespaced = d.resource.namespaced;
    this.apiVersion = groupVersionString(d.resource.group, d.resource.version);
    this.clock = d.clock ?? systemClock;
    this.log = d.logger;
    this.labels = { cluster: d.cluster, resource: `${d.resource.resource}${d.resource.group ? `.${d.resource.group}` : ''}` };
    this.state = { status: 'Pending', reason: '', message: '', initialListPhase: false, lastTransitionTime: kubeTime(this.clock.now()), count: 0 };
    const before = d.resume;
    if (before?.lastError) {
      this.state.lastError = before.lastError;
      if (before.lastErrorTime) this.state.lastErrorTime = before.lastErrorTime;
    }
    this.redacted = redacts(d.prune, this.apiVersion, this.kind);
    this.reshape = (d.resume?.redacted === true) !== this.redacted;
    this.involvedKinds = d.resource.involvedKinds;
    if (this.involvedKinds) {
      const kinds = new Set(this.involvedKinds);
      this.accepts = (o) => kinds.has(String((o as { involvedObject?: { kind?: unknown } }).involvedObject?.kind));
    }
  }

  get status(): ResourceSyncState {
    // A filtered stream (Events of some kinds) publishes no resume point: it lists at every start anyway, and a later
    // start that keeps every Event must not resume from it, or the Events it filtered out would never come.
    const rv = this.involvedKinds ? undefined : this.durableResourceVersion;
    return { ...this.state, count: this.versions?.size ?? this.state.count, ...(rv ? { resourceVersion: rv } : {}) };
  }

  /** How its stored rows are kept: redacted or not. Until a reshape removed the old rows, as the last status said. */
  get storedRedacted(): boolean {
    return this.reshape ? !this.redacted : this.redacted;
  }

  /**
   * The member RV up to which everything is committed. A bookmark or list RV is usually far newer than any row's
   * RV, so resuming from it after a restart avoids 410 for quiet resources whose rows are all old.
   */
  get durableResourceVersion(): string | undefined {
    const done = this.d.queue.durableSeq;
    while (this.marks.length > 0 && this.marks[0]![1] <= done) this.durableRv = this.marks.shift()![0];
    return this.durableRv;
  }

  /** The stream reached `rv`: durable once everything queued so far is committed. */
  private mark(rv: string): void {
    const seq = this.d.queue.lastSeq;
    const last = this.marks[this.marks.length - 1];
    if (last && last[1] === seq) last[0] = rv;
    else this.marks.push([rv, seq]);
    // Bounded: dropping old marks only makes the reported point lag, never wrong.
    if (this.marks.length > 512) this.marks.splice(0, 256);
  }

  get objectCount(): number {
    return this.versions?.size ?? 0;
  }

  /**
   * Lists/watches until `signal` aborts; called again after a pause, it resumes from the last resourceVersion.
   * The first run seeds the remembered RVs from storage, so a restart neither rewrites unchanged rows nor
   * (when the member still has the RV) relists.
   */
  async run(signal: AbortSignal): Promise<void> {
    this.signal = signal;
    if (!this.versions) {
      const seeded = await this.seed(signal);
      if (!seeded) return;
    }
    const result = await runListWatch({
      client: this.d.client,
      path: collectionPath(this.type),
      pageSize: this.d.pageSize,
      maxPageBytes: this.d.maxListPageBytes,
      listGate: this.d.listGate,
      watchTimeoutSeconds: this.d.watchTimeoutSeconds,
      resumeResourceVersion: this.resumeRv,
      fieldSelector: this.selectingHere ? undefined : this.d.resource.fieldSelector,
      handler: this,
      logger: this.d.logger,
      clock: this.clock,
      random: this.d.random,
    }, signal);
    // A list cut short by the pause leaves rv undefined: the next run lists again, and sweeps again.
    this.resumeRv = result.resourceVersion;
  }

  /** Marks the resource stopped (paused, storage down, shut down). */
  stop(reason: string, message = ''): void {
    this.setState('Stop', reason, message);
  }

  private async seed(signal: AbortSignal): Promise<boolean> {
    const backoff = new Backoff({ initialMs: 500, maxMs: 10_000 });
    let failures = 0;
    // Reads that ran out of time in a row: each gives the next one longer (WriteQueue.timed).
    let timedOut = 0;
    while (!signal.aborted) {
      try {
        const stored = await this.d.queue.timed(this.d.storage.resourceVersions(this.cluster, this.type), timedOut);
        if (failures > 0) this.d.logger.info({ failures }, 'read the stored resource versions; starting');
        this.versions = VersionMap.from(stored);
        // Resume point: the committed RV the last status recorded, else a list. Not the highest RV among the stored
        // rows: a list cut short (a restart during the initial sync) stored only its first pages, in key order, and
        // a watch from the newest of them would never bring the objects of the pages not read.
        const sameSelector = this.d.resume?.fieldSelector === this.d.resource.fieldSelector;
        this.resumeRv = this.involvedKinds || this.d.listFirst || !sameSelector || this.reshape ? undefined : this.d.resume?.resourceVersion;
        this.durableRv = this.resumeRv;
        this.d.logger.debug({ stored: this.versions.size, resumeResourceVersion: this.resumeRv }, 'seeded resource versions from storage');
        return true;
      } catch (e: unknown) {
        timedOut = e instanceof UnansweredError ? timedOut + 1 : 0;
        this.setState('Error', 'StorageExpection', `read stored resource versions: ${messageOf(e)}`);
        const delayMs = backoff.next();
        // The first failure only: an outage would repeat it for every resource of every cluster at each retry.
        if (failures++ === 0) this.d.logger.warn({ err: messageOf(e), delayMs }, 'cannot read the stored resource versions to start from; retrying');
        await this.clock.sleep(delayMs, signal);
      }
    }
    return false;
  }

  async listStart(reason: ListReason): Promise<void> {
    this.d.metrics?.relists.inc({ ...this.labels, reason });
    if (reason === 'rewound') {
      const removed = await this.forgetRows();
      this.d.logger.warn({ removed }, 'removed the stored rows of a member that went back; listing it again');
    } else if (this.reshape) {
      // Stored under the other redaction: the rows go and the list writes each object again (a guard keeps a row
      // against a write of the same resourceVersion, so rewriting in place would change nothing).
      const removed = await this.forgetRows();
      if (removed > 0) this.d.logger.info({ removed, redacted: this.redacted }, 'removed the rows stored under the other --redact-secret-data; listing to store them again');
    }
    this.reshape = false;
    this.versions!.beginSweep();
    this.state.initialListPhase = true;
    this.d.changed();
  }

  /**
   * The stored rows cannot be corrected in place: the member went back behind what storage holds (restored from a
   * backup, or a new cluster at its address), so its objects now carry resourceVersions older than the rows', which the
   * guards against replays would keep; or the rows were stored under the other redaction. The rows go (watchers see
   * them deleted), with whatever is still queued for them, and the list that follows writes the member as it is now.
   * Storage refusing throws: the loop retries the whole relist, this included. Returns the rows removed.
   */
  private async forgetRows(): Promise<number> {
    await this.d.queue.purge((owner) => owner === this);
    const removed = await this.d.queue.beside(() => this.d.storage.cleanResource(this.cluster, this.type));
    this.versions = new VersionMap();
    this.marks = [];
    this.durableRv = undefined;
    return removed;
  }

  async listPage(items: KubeObject[], bytes: number): Promise<void> {
    const versions = this.versions!;
    this.d.metrics?.events.inc({ ...this.labels, type: 'LIST' }, items.length);
    // Taken out of the page as they go: a page held up by a full queue keeps only what it has not queued yet.
    for (let item = items.shift(); item !== undefined; item = items.shift()) {
      const key = objectKey(item);
      const rv = item.metadata?.resourceVersion;
      if (key === undefined || rv === undefined) continue;
      // Not one of ours: unseen by this list, so a stored row of it goes at the end.
      if (this.accepts && !this.accepts(item)) continue;
      const known = versions.get(key);
      if (known === undefined || isNewer(rv, known)) {
        if (!(await this.put(known === undefined ? 'Added' : 'Updated', key, item, rv))) continue;
      }
      // Remembered (and marked seen by this list) only once queued: a write cut short by a pause must not look done.
      versions.touch(key, rv);
    }
    // The count moves through a long initial list as well: the stored status follows it within a few seconds.
    this.d.freshened();
  }

  async listEnd(resourceVersion: string): Promise<void> {
    const versions = this.versions!;
    for (const key of versions.unseen()) {
      // No RV: the deletion happened while we were not watching; the row goes whatever its stored RV.
      await this.d.queue.enqueue({ owner: this, key, action: 'Deleted', bytes: key.length }, this.signal);
      versions.delete(key);
    }
    this.mark(resourceVersion);
    this.state.initialListPhase = false;
    this.watching();
    this.d.changed();
  }

  async event(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: KubeObject, bytes: number): Promise<void> {
    const key = objectKey(object);
    const rv = object.metadata?.resourceVersion;
    if (key === undefined || rv === undefined) return;
    this.d.metrics?.events.inc({ ...this.labels, type });
    this.state.lastEventTime = this.nowIso();
    this.d.freshened();
    const versions = this.versions!;
    if (this.accepts && !this.accepts(object)) {
      this.mark(rv);
      return;
    }
    if (type === 'DELETED') {
      await this.d.queue.enqueue({ owner: this, key, action: 'Deleted', resourceVersion: rv, bytes: key.length }, this.signal);
      versions.delete(key);
    } else {
      const known = versions.get(key);
      // A replayed event (watch resumed from an older RV) carries nothing new.
      if (known === undefined || isNewer(rv, known)) {
        if (await this.put(type === 'ADDED' ? 'Added' : 'Updated', key, object, rv)) versions.set(key, rv);
      }
    }
    this.mark(rv);
  }

  async bookmark(resourceVersion: string): Promise<void> {
    this.mark(resourceVersion);
  }

  watching(): void {
    if (this.state.status !== 'Syncing') this.setState('Syncing', '', '');
  }

  failed(err: KubeApiError, phase: 'list' | 'watch'): void {
    this.d.metrics?.listWatchRestarts.inc({ ...this.labels, phase });
    this.setState('Error', 'ResourceWatchFailed', err.message);
  }

  /**
   * The member refused the excluding selector: its objects then come from every namespace and those of the excluded
   * ones are dropped here, as the member would have (the same objects stored, so the resume point stays valid).
   */
  selectorRefused(): boolean {
    const selector = this.d.resource.fieldSelector;
    const excluded = selector ? new Set(namespacesExcludedBy(selector)) : undefined;
    if (!excluded || excluded.size === 0) return false;
    // Asked once: from here on this synchro's runs send no selector, so the member has none to refuse.
    const before = this.accepts;
    this.accepts = (o) => !excluded.has(o.metadata?.namespace ?? '') && (before === undefined || before(o));
    this.selectingHere = true;
    return true;
  }

  rejected(key: string, resourceVersion: string | undefined, err: unknown): void {
    // Forget the key so the next list writes it again, unless a newer version was seen since.
    if (this.versions && resourceVersion !== undefined && this.versions.get(key) === resourceVersion) this.versions.delete(key);
    this.setState('Error', 'StorageRejected', `storage rejected ${key}: ${messageOf(err)}`);
  }

  /**
   * Queues an upsert, rendered here to what storage will keep: the queue then holds its text, not the parsed tree.
   * False when the object cannot be stored (reported as rejected; the key is not remembered).
   */
  private async put(action: Action, key: string, item: KubeObject, rv: string): Promise<boolean> {
    const object = prepareObject(item, this.cluster, this.apiVersion, this.kind, this.d.prune);
    if (!object) return false;
    let prepared: PreparedUpsert;
    try {
      prepared = prepareUpsert({ cluster: this.cluster, ...this.type, kind: this.kind, object });
    } catch (e: unknown) {
      this.rejected(key, rv, e);
      return false;
    }
    await this.d.queue.enqueue({ owner: this, key, action, object: prepared, resourceVersion: rv, bytes: prepared.template.bytes }, this.signal);
    return true;
  }

  /**
   * Records an error as the resource's last one without changing its state: storage refusing the cluster's writes,
   * which pauses every resource of it at once (reported as Stop while it lasts).
   */
  noteError(reason: string, message: string): void {
    this.state.lastError = message ? `${reason}: ${message}` : reason;
    this.state.lastErrorTime = this.nowIso();
    this.d.changed();
  }

  private setState(status: SyncStatus, reason: string, message: string): void {
    const s = this.state;
    // An error is recorded each time it happens, the same one again included: its time says it is still recurring.
    if (status === 'Error') this.noteError(reason, message);
    if (s.status === status && s.reason === reason && s.message === message) return;
    if (s.status !== status) s.lastTransitionTime = kubeTime(this.clock.now());
    s.status = status;
    s.reason = reason;
    s.message = message;
    this.d.changed();
  }

  /** Event and error times keep their milliseconds (the age `show` prints, "newer than" in tests); transitions are metav1.Time. */
  private nowIso(): string {
    return new Date(this.clock.now()).toISOString();
  }
}

// One member cluster: health monitor, discovery and negotiation, and its resource synchros (paused while unhealthy).
import type { Logger } from 'pino';
import { Backoff } from '../../lib/backoff.js';
import { messageOf } from '../../lib/errors.js';
import { awaitNoting, systemClock, withChildSignal, type Clock } from '../../lib/lifecycle.js';
import { KubeClient } from '../../kube/client.js';
import { discover, discoverGroups, type Discovery, type DiscoveryTags } from '../../kube/discovery.js';
import { excludingSelector, type ClusterGroupResources, type ClusterGroupResourcesStatus, type ClusterResourceSyncCondition, type ResourceNames } from '../../kube/pediacluster.js';
import type { ResourceType, StorageReader, StorageWriter } from '../../storage/types.js';
import type { HealthState, SynchroPhase } from './conditions.js';
import { MESSAGES } from './conditions.js';
import type { ClusterConnection } from '../../kube/credentials.js';
import { probeHealth, serverVersion } from './health.js';
import { negotiate } from './negotiate.js';
import type { SynchroOptions } from './options.js';
import { ResourceSynchro, type ResumePoint, type SyncedResource, type SynchroContext } from './resource-synchro.js';
import { kubeTime } from '../../kube/types.js';

/** How often a wait for a stopping loop, which takes moments, says it still waits. */
export const STOP_NOTE_MS = 30_000;

export interface ClusterSynchroDeps extends SynchroContext {
  name: string;
  connection: ClusterConnection;
  storage: StorageWriter & Partial<Pick<StorageReader, 'resourceTypes' | 'clusterStatuses'>>;
  options: SynchroOptions;
  /** From the previous status, by "group/version/resource": where resource synchros resume, and their last errors. */
  resume?: ReadonlyMap<string, ResumePoint>;
  /**
   * The status names other types (negotiated): worth writing at once, not at the next interval. Discovery lists a type
   * with the names its status gives it, and its first rows come within milliseconds. `changed` when absent.
   */
  typesChanged?: () => void;
}

/** What the status of this cluster shows of its synchro. */
export interface ClusterSynchroSnapshot {
  synchro: SynchroPhase;
  health: HealthState;
  version?: string;
  /** What the member's requests use (undefined until the first one learnt it). */
  protocol?: 'h2' | 'http/1.1';
  syncResources: ClusterGroupResourcesStatus[];
}

/** A resource no longer synced whose rows are being removed, or whose removal storage refused (reference §4.3). */
interface Removing {
  type: ResourceType;
  kind: string;
  namespaced: boolean;
  reason: 'SynchroRemoved' | 'CleanResourceFailed';
  message: string;
  since: string;
}

interface Running {
  synchro: ResourceSynchro;
  /** Set while the resource's list/watch loop runs. */
  loop?: { ac: AbortController; done: Promise<void> };
}

export class ClusterSynchro {
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly random: () => number;
  private phase: SynchroPhase = { phase: 'Pending' };
  private health: HealthState = { status: 'Unknown', message: MESSAGES.waitMonitor };
  private version: string | undefined;
  private frozen: ClusterSynchroSnapshot | undefined;
  /** The protocol as of the last health probe: a change is news for the status. */
  private shownProtocol: 'h2' | 'http/1.1' | undefined;
  private requests: { resources: ClusterGroupResources[]; all: boolean; excludeNamespaces: readonly string[] } = { resources: [], all: false, excludeNamespaces: [] };
  /** Negotiated resources in negotiation order, by "group/version/resource". */
  private readonly resources = new Map<string, Running>();
  /** By "group/version/resource": shown as Stop until their rows are gone. */
  private readonly removing = new Map<string, Removing>();
  private client: KubeClient | undefined;
  private active = false;
  private renegotiate = true;
  private lastDiscovery = 0;
  private discoveryFingerprint = '';
  /** The member's discovery ETags: an unchanged aggregated discovery is a 304 at each poll, not its whole document. */
  private readonly discoveryTags: DiscoveryTags = new Map();
  private orphansCleaned = false;
  /** What the last negotiation wanted, and the group versions it could not read: for a clean-up retried later. */
  private negotiated: { wanted: Map<string, SyncedResource>; unread: Set<string> } | undefined;
  private readonly wake = new Set<() => void>();

  constructor(private readonly d: ClusterSynchroDeps) {
    this.log = d.logger;
    this.clock = d.clock ?? systemClock;
    this.random = d.random ?? Math.random;
  }

  get name(): string {
    return this.d.name;
  }

  get fingerprint(): string {
    return this.d.connection.fingerprint;
  }

  /**
   * Sets what to sync, and the namespaces whose objects are not synced; re-negotiates on the next monitor tick (at once
   * when running).
   */
  setResources(resources: ClusterGroupResources[], syncAllCustomResources: boolean, excludeNamespaces: readonly string[] = []): void {
    const next = { resources, all: syncAllCustomResources, excludeNamespaces: [...new Set(excludeNamespaces)].sort() };
    if (JSON.stringify(next) === JSON.stringify(this.requests)) return;
    this.requests = next;
    this.renegotiate = true;
    for (const w of this.wake) w();
  }

  /**
   * Fixes what `snapshot()` returns from now on: a stopped synchro whose queued writes are purged would otherwise show
   * (and the status store) resume points past the writes dropped, since the queue then looks drained.
   */
  freeze(): ClusterSynchroSnapshot {
    this.frozen ??= this.snapshot();
    return this.frozen;
  }

  snapshot(): ClusterSynchroSnapshot {
    if (this.frozen) return this.frozen;
    const storageDown = !this.d.queue.storageAvailable;
    const groups: ClusterGroupResourcesStatus[] = [];
    const add = (t: ResourceType, shown: { kind: string; namespaced: boolean }, cond: ClusterResourceSyncCondition, names?: ResourceNames): void => {
      let g = groups.find((x) => x.group === t.group);
      if (!g) groups.push((g = { group: t.group, resources: [] }));
      let r = g.resources.find((x) => x.name === t.resource);
      if (!r) g.resources.push((r = { name: t.resource, kind: shown.kind, namespaced: shown.namespaced, syncConditions: [] }));
      if (names && r.singularName === undefined) {
        r.singularName = names.singularName;
        if (names.shortNames.length > 0) r.shortNames = names.shortNames;
        if (names.categories.length > 0) r.categories = names.categories;
      }
      if (r.syncConditions.some((c) => c.version === cond.version)) return;
      r.syncConditions.push(cond);
      r.syncConditions.sort((a, b) => (a.version < b.version ? -1 : a.version > b.version ? 1 : 0));
    };
    for (const [id, { synchro }] of this.resources) {
      const t = synchro.type;
      const st = synchro.status;
      // A resource past its pending start is stopped while storage refuses writes, whatever its own state says.
      const paused = storageDown && st.status !== 'Pending';
      const cond: ClusterResourceSyncCondition = {
        version: t.version,
        status: paused ? 'Stop' : st.status,
        reason: paused ? 'StorageExpection' : st.reason,
        message: paused ? `storage writes failing: ${this.d.queue.storageError}` : st.message,
        initialListPhase: st.initialListPhase,
        lastTransitionTime: st.lastTransitionTime,
        count: st.count,
        ...(st.lastEventTime ? { lastEventTime: st.lastEventTime } : {}),
        ...(st.resourceVersion ? { resourceVersion: st.resourceVersion } : {}),
        ...(synchro.synced.fieldSelector ? { fieldSelector: synchro.synced.fieldSelector } : {}),
        ...(synchro.storedRedacted ? { redacted: true } : {}),
        ...(st.lastError ? { lastError: st.lastError, lastErrorTime: st.lastErrorTime } : {}),
      };
      add(t, synchro, cond, this.negotiated?.wanted.get(id)?.names);
    }
    // A dropped resource stays in the status, stopped, until its rows are gone: a user sees why they are still
    // served, and why they stay when storage refuses to delete them.
    for (const x of this.removing.values()) {
      add(x.type, x, { version: x.type.version, status: 'Stop', reason: x.reason, message: x.message, initialListPhase: false, lastTransitionTime: x.since });
    }
    const protocol = this.client?.protocol;
    return { synchro: this.phase, health: this.health, version: this.version, ...(protocol ? { protocol } : {}), syncResources: groups };
  }

  /** Object counts per resource, for the objects gauge. */
  *objectCounts(): Iterable<{ cluster: string; resource: string; count: number }> {
    for (const { synchro } of this.resources.values()) {
      const t = synchro.type;
      yield { cluster: this.d.name, resource: `${t.resource}${t.group ? `.${t.group}` : ''}/${t.version}`, count: synchro.objectCount };
    }
  }

  /** Runs until `signal` aborts: monitor health, (re)negotiate, run or pause the resource loops. */
  async start(parent: AbortSignal): Promise<void> {
    // Discovery sends a request per group version with this signal: more listeners than Node's warning threshold.
    await withChildSignal(parent, (signal) => this.run(signal));
  }

  private async run(signal: AbortSignal): Promise<void> {
    const backoff = new Backoff({ initialMs: 1000, maxMs: 60_000, random: this.random });
    while (!signal.aborted && !this.client) {
      try {
        this.client = await KubeClient.create(this.d.connection.kubeConfig, { userAgent: 'clusterpedia-synchro', http2: this.d.options.memberHttp2 });
      } catch (e: unknown) {
        this.setPhase({ phase: 'InitialFailed', message: messageOf(e) });
        await this.clock.sleep(backoff.next(), signal);
      }
    }
    if (!this.client) return;
    this.setPhase({ phase: 'Running' });
    const unsubscribe = this.d.queue.onAvailability((available) => {
      if (available) this.d.changed();
      // Every resource of the cluster is held up while storage refuses writes: each keeps it as its last error.
      else for (const { synchro } of this.resources.values()) synchro.noteError('StorageExpection', `storage writes failing: ${this.d.queue.storageError}`);
    });
    let failures = 0;
    // The warning for the current unhealthy spell has been logged (once per spell, running before or not).
    let unhealthyLogged = false;
    try {
      while (!signal.aborted) {
        const health = await probeHealth(this.client, this.d.options.health.timeoutMs, signal);
        if (signal.aborted) break;
        if (health.status === 'True') {
          failures = 0;
          unhealthyLogged = false;
          if (this.health.status !== 'True') {
            this.log.info('member cluster healthy');
            this.version = (await serverVersion(this.client, signal)) ?? this.version;
          }
          this.setHealth(health);
          await this.syncResources(signal);
        } else {
          failures++;
          this.setHealth(health);
          // One failed probe may be a blip; the second in a row pauses the loops (reference §5.5). Said once per spell,
          // also for a member that was never reachable: an operator reading the logs learns of it there, not only in
          // `show clusters`.
          if (failures >= 2) {
            if (!unhealthyLogged) {
              unhealthyLogged = true;
              const why = health.status === 'False' ? { reason: health.reason, message: health.message } : { reason: '' };
              this.log.warn(why, this.active ? 'member cluster unhealthy; pausing resource synchros' : 'member cluster unhealthy');
            }
            if (this.active) await this.pauseAll('Pause', health.message);
          }
        }
        const { intervalMs } = this.d.options.health;
        await this.sleepOrWake(intervalMs + Math.round(this.random() * intervalMs * 0.5), signal);
      }
    } finally {
      unsubscribe();
      await this.pauseAll('', '');
      this.setPhase({ phase: 'Shutdown' });
      this.d.metrics?.removeMember(this.d.name);
      const client = this.client;
      this.client = undefined;
      await client.close();
    }
  }

  /** The connection to the member while the synchro runs (binding forwards `kubectl logs` through it). */
  get connection(): KubeClient | undefined {
    return this.client;
  }

  /** Discovery (when due or asked), negotiation, and making every negotiated resource's loop run. */
  private async syncResources(signal: AbortSignal): Promise<void> {
    const client = this.client!;
    const due = this.clock.now() - this.lastDiscovery >= this.d.options.discoveryIntervalMs;
    if (due || this.renegotiate) {
      try {
        // Cheap poll first: groups and CRD metadata. Full discovery only when they changed or the spec did.
        const poll = await discoverGroups(client, signal, this.discoveryTags);
        const fp = poll.fingerprint;
        this.lastDiscovery = this.clock.now();
        if (fp !== this.discoveryFingerprint || this.renegotiate) {
          const d = await discover(client, signal, { maxPageBytes: this.d.options.maxListPageBytes, ...(poll.read ? { read: poll.read } : {}) });
          // A group version that could not be read is asked again at the next poll, even if nothing else changed.
          this.discoveryFingerprint = d.failed ? '' : fp;
          this.renegotiate = false;
          await this.apply(d, signal);
        }
      } catch (e: unknown) {
        if (signal.aborted) return;
        this.log.warn({ err: messageOf(e) }, 'member discovery failed; keeping the current resources');
      }
      // After the first negotiation, and again at each discovery poll while rows of a dropped resource remain (storage
      // refused their deletion, or their group version could not be read).
      if (!this.orphansCleaned && !signal.aborted) await this.cleanOrphans(signal);
    }
    this.resumeAll();
  }

  /** Negotiates and reconciles the set of resource synchros; removed resources lose their rows. */
  private async apply(d: Discovery, signal: AbortSignal): Promise<void> {
    const result = negotiate(this.requests.resources, this.requests.all, d);
    const fieldSelector = excludingSelector(this.requests.excludeNamespaces);
    if (fieldSelector) for (const r of result.resources) if (r.namespaced) r.fieldSelector = fieldSelector;
    if (result.unmatched.length > 0) this.log.debug({ unmatched: result.unmatched }, 'requested resources not served by the member');
    const wanted = new Map<string, SyncedResource>(result.resources.map((r) => [`${r.group}/${r.version}/${r.resource}`, r]));
    // A resource whose group version discovery could not read this time (a 503 of an aggregated API, a 429) is
    // unknown, not gone: it keeps running and keeps its rows.
    const unread = new Set(d.failed ?? []);
    for (const [id, running] of this.resources) {
      const t = running.synchro.synced;
      if (!wanted.has(id) && unread.has(`${t.group}/${t.version}`)) wanted.set(id, t);
    }
    if (unread.size > 0) this.log.warn({ groupVersions: [...unread] }, 'member discovery could not read some group versions; their resources are kept as they are');
    for (const [id, running] of this.resources) {
      if (wanted.has(id)) continue;
      await this.remove(id, running);
    }
    const kept = new Map(this.resources);
    this.resources.clear();
    for (const [id, r] of wanted) {
      const existing = kept.get(id);
      if (existing && (String(existing.synchro.involvedKinds) !== String(r.involvedKinds) || existing.synchro.synced.fieldSelector !== r.fieldSelector)) {
        // Events of another set of involved kinds (or all of them), other namespaces excluded: a new synchro lists
        // again; the rows stay, and the list's sweep drops those no longer wanted.
        await this.stopLoop(existing);
        await this.d.queue.purge((o) => o === existing.synchro);
        this.resources.set(id, { synchro: this.newResourceSynchro(r, { listFirst: true }) });
        continue;
      }
      this.resources.set(id, existing ?? { synchro: this.newResourceSynchro(r) });
    }
    // Wanted again before its rows went: the new synchro's list sweeps what is stale, and orphan clean-up skips it.
    for (const id of wanted.keys()) this.removing.delete(id);
    this.log.info({ resources: [...wanted.keys()] }, 'negotiated resources');
    this.negotiated = { wanted, unread };
    (this.d.typesChanged ?? this.d.changed)();
  }

  /**
   * Rows of types this cluster no longer syncs (spec changed while we were down) are deleted once at start; those of
   * group versions discovery could not read are left, and looked at again after the next discovery.
   */
  private async cleanOrphans(signal: AbortSignal): Promise<void> {
    if (!this.d.storage.resourceTypes || !this.negotiated) return;
    const { wanted, unread } = this.negotiated;
    try {
      const stored = await this.d.queue.timed(this.d.storage.resourceTypes());
      // Rows already gone (removed by someone else, or a clean-up that did finish) leave nothing to show.
      const left = new Set(stored.filter((t) => t.cluster === this.d.name).map((t) => `${t.group}/${t.version}/${t.resource}`));
      for (const id of this.removing.keys()) if (!left.has(id)) this.removing.delete(id);
      for (const t of stored) {
        if (signal.aborted) return;
        const id = `${t.group}/${t.version}/${t.resource}`;
        if (t.cluster !== this.d.name || wanted.has(id) || unread.has(`${t.group}/${t.version}`)) continue;
        const n = await this.cleanRows(id, t, t);
        if (n !== undefined) this.log.info({ gvr: id, rows: n }, 'removed rows of a resource no longer synced');
      }
      this.orphansCleaned = unread.size === 0 && this.removing.size === 0;
    } catch (e: unknown) {
      this.log.warn({ err: messageOf(e) }, 'could not list the stored resources to clean those no longer synced; will retry');
    }
  }

  /**
   * Deletes the rows of a resource no longer synced, shown as Stop/SynchroRemoved meanwhile; when storage refuses,
   * as Stop/CleanResourceFailed until a later discovery poll succeeds. The number of rows removed, or undefined.
   */
  private async cleanRows(id: string, t: ResourceType, shown: { kind: string; namespaced: boolean }): Promise<number | undefined> {
    const since = this.removing.get(id)?.since ?? kubeTime(this.clock.now());
    this.removing.set(id, { type: t, kind: shown.kind, namespaced: shown.namespaced, reason: 'SynchroRemoved', message: 'the resource synchro is removed; deleting its rows', since });
    this.d.changed();
    try {
      const n = await this.d.queue.beside(() => this.d.storage.cleanResource(this.d.name, t));
      this.removing.delete(id);
      return n;
    } catch (e: unknown) {
      this.orphansCleaned = false;
      this.removing.set(id, { type: t, kind: shown.kind, namespaced: shown.namespaced, reason: 'CleanResourceFailed', message: `remove stored rows: ${messageOf(e)}`, since });
      this.log.warn({ gvr: id, err: messageOf(e) }, 'could not remove rows of a resource no longer synced; will retry');
      return undefined;
    } finally {
      this.d.changed();
    }
  }

  private async remove(id: string, running: Running): Promise<void> {
    await this.stopLoop(running);
    this.resources.delete(id);
    const t = running.synchro.type;
    await this.d.queue.purge((o) => o === running.synchro);
    // Refused rows are left for the orphan clean-up of a later discovery poll.
    const n = await this.cleanRows(id, t, running.synchro);
    if (n !== undefined) this.log.info({ gvr: id, rows: n }, 'resource no longer synced; rows removed');
  }

  private newResourceSynchro(r: SyncedResource, o: { listFirst?: boolean } = {}): ResourceSynchro {
    const gvr = `${r.group}/${r.version}/${r.resource}`;
    return new ResourceSynchro({
      cluster: this.d.name,
      resource: r,
      client: this.client!,
      queue: this.d.queue,
      storage: this.d.storage,
      prune: this.d.options.prune,
      pageSize: this.d.options.pageSize,
      maxListPageBytes: this.d.options.maxListPageBytes,
      listGate: this.d.listGate,
      watchTimeoutSeconds: this.d.options.watchTimeoutSeconds,
      logger: this.log.child({ gvr }),
      metrics: this.d.metrics,
      clock: this.clock,
      random: this.random,
      changed: this.d.changed,
      freshened: this.d.freshened,
      resume: this.d.resume?.get(gvr),
      listFirst: o.listFirst === true,
    });
  }

  private resumeAll(): void {
    this.active = true;
    for (const running of this.resources.values()) {
      if (running.loop) continue;
      const ac = new AbortController();
      const done = running.synchro.run(ac.signal).catch((e: unknown) => {
        // run() retries everything itself; reaching here is a bug worth a loud line, then a restart on the next tick.
        this.log.error({ err: messageOf(e), gvr: running.synchro.type.resource }, 'resource synchro stopped on an error');
      }).finally(() => {
        if (running.loop?.ac === ac) running.loop = undefined;
      });
      running.loop = { ac, done };
    }
  }

  private async pauseAll(reason: string, message: string): Promise<void> {
    this.active = false;
    await Promise.all([...this.resources.values()].map(async (running) => {
      await this.stopLoop(running);
      running.synchro.stop(reason, message);
    }));
  }

  private async stopLoop(running: Running): Promise<void> {
    const loop = running.loop;
    if (!loop) return;
    loop.ac.abort();
    await awaitNoting(loop.done, STOP_NOTE_MS, (waitedMs) => running.synchro.log.warn({ waitedMs }, 'resource synchro asked to stop has not stopped yet'), this.clock);
    running.loop = undefined;
  }

  private setHealth(h: HealthState): void {
    const before = this.health;
    const protocol = this.client?.protocol;
    this.health = h;
    this.d.metrics?.setMember(this.d.name, h.status === 'True', protocol);
    if (before.status !== h.status || before.message !== h.message || protocol !== this.shownProtocol) this.d.changed();
    this.shownProtocol = protocol;
  }

  private setPhase(p: SynchroPhase): void {
    this.phase = p;
    this.d.changed();
  }

  private sleepOrWake(ms: number, signal: AbortSignal): Promise<void> {
    const ac = new AbortController();
    const wake = (): void => ac.abort();
    this.wake.add(wake);
    const onAbort = (): void => ac.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    return this.clock.sleep(ms, ac.signal).finally(() => {
      this.wake.delete(wake);
      signal.removeEventListener('abort', onAbort);
    });
  }
}

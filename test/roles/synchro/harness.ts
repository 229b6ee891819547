// Integration harness: a simulated fleet over real HTTP, a real storage, and the synchro's runnables in-process.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { silentLogger, type Logger } from '../../../src/lib/log.js';
import { runAll } from '../../../src/lib/lifecycle.js';
import type { TurnQueue } from '../../../src/lib/turns.js';
import { defaultSynchroOptions, type SynchroOptions } from '../../../src/roles/synchro/options.js';
import { synchroRunnables, type SynchroParts } from '../../../src/roles/synchro/run.js';
import { pediaClusterFor, startSimulatedFleet, type SimCluster, type SimFleet, type SimObject, type SyncGroup } from '../../../src/sim/index.js';
import { isStorageError } from '../../../src/storage/errors.js';
import { openStorage } from '../../../src/storage/open.js';
import type { ClusterStatusRecord, Storage } from '../../../src/storage/types.js';
import { stringify } from 'yaml';
import { expect } from 'vitest';
import { backupPostgres, backupSqlite } from '../../support/backup.js';

/** A storage backend the suite runs against: a fresh database per harness. */
export interface Backend {
  name: string;
  fresh(): Promise<{ url: string; drop: () => Promise<void> }>;
  /** Copies the database aside; the function returned puts the copy back (test/support/backup.ts). */
  backup(url: string): Promise<() => Promise<void>>;
}

export const sqliteBackend: Backend = {
  name: 'sqlite',
  fresh: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-synchro-db-'));
    return { url: `sqlite:${join(dir, 'db.sqlite')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  },
  backup: backupSqlite,
};

/** What the tests sync: pods and their owners, a namespaced CRD with two versions, a cluster-scoped CRD. */
export const SYNC: SyncGroup[] = [
  { group: '', resources: ['pods'] },
  { group: 'apps', resources: ['deployments', 'replicasets'] },
  { group: 'stable.example.com', resources: ['crontabs'] },
  { group: 'cert-manager.io', resources: ['*'] },
];

/** A member's resource (as the simulator's module API names it) and the GVR its rows are stored under. */
export interface Synced {
  ref: string;
  gvr: { group: string; version: string; resource: string };
}

/** The (resource ref, storage GVR) pairs SYNC yields. */
export const SYNCED = [
  { ref: 'pods', gvr: { group: '', version: 'v1', resource: 'pods' } },
  { ref: 'deployments.apps', gvr: { group: 'apps', version: 'v1', resource: 'deployments' } },
  { ref: 'replicasets.apps', gvr: { group: 'apps', version: 'v1', resource: 'replicasets' } },
  { ref: 'crontabs.stable.example.com', gvr: { group: 'stable.example.com', version: 'v1', resource: 'crontabs' } },
  { ref: 'certificates.cert-manager.io', gvr: { group: 'cert-manager.io', version: 'v1', resource: 'certificates' } },
  { ref: 'clusterissuers.cert-manager.io', gvr: { group: 'cert-manager.io', version: 'v1', resource: 'clusterissuers' } },
] as const;

/** Options that make a test fast: quick health probes, status writes and discovery polls. */
export function testOptions(clustersPath: string | undefined, url: string): SynchroOptions {
  const d = defaultSynchroOptions();
  return {
    ...d,
    storage: { url, migrate: false, initializationTimeoutMs: 0 },
    clustersPath,
    clustersRereadMs: 500,
    clustersDebounceMs: 20,
    pageSize: 50,
    health: { intervalMs: 150, timeoutMs: 1000 },
    discoveryIntervalMs: 300,
    statusIntervalMs: 50,
    queue: { ...d.queue, flushDelayMs: 2, writeTimeoutMs: 3000 },
    metricsPort: 0,
  };
}

/** One resource's sync condition as the stored status has it. */
export interface StoredSyncCondition {
  status: string;
  reason: string;
  message: string;
  initialListPhase: boolean;
  count: number;
  lastEventTime?: string;
  resourceVersion?: string;
  lastError?: string;
  lastErrorTime?: string;
  /** The selector it is synced under (spec.excludeNamespaces). */
  fieldSelector?: string;
  /** Its rows are stored redacted (--redact-secret-data). */
  redacted?: boolean;
}

export class Harness {
  private run: { ac: AbortController; done: Promise<void> } | undefined;
  parts: SynchroParts | undefined;
  registry = new Registry();
  readonly clustersFile: string;

  private constructor(
    readonly fleet: SimFleet,
    readonly storage: Storage,
    readonly url: string,
    private readonly dir: string,
    private readonly drop: () => Promise<void>,
  ) {
    this.clustersFile = join(dir, 'clusters.yaml');
  }

  static async start(backend: Backend, o: { clusters?: number; pods?: number; url?: string; watchBufferEvents?: number; aggregatedDiscovery?: boolean } = {}): Promise<Harness> {
    // TLS with a bearer token: PediaClusters need credentials (reference §4.2), and the CA path gets exercised. The
    // first cluster also speaks HTTP/2, as kube-apiserver does, so its watches share a connection; the others are
    // HTTP/1.1 only (a member behind such a proxy): every suite runs over both transports. The second one serves
    // aggregated discovery, as kube-apiserver 1.27+ does; the first only the legacy documents (`aggregatedDiscovery`:
    // all of them).
    const fleet = await startSimulatedFleet({
      clusters: o.clusters ?? 2, podsPerCluster: o.pods ?? 40, tls: true, http2: (i) => i === 0,
      aggregatedDiscovery: (i) => o.aggregatedDiscovery ?? i === 1,
      ...(o.watchBufferEvents ? { watchBufferEvents: o.watchBufferEvents } : {}),
    });
    // SYNC has no events, leases or nodes: churn's events would take most of its rate without reaching the synchro, and
    // the heartbeats' writes (by the clock) would only move revisions under the tests.
    for (const c of fleet.clusters) {
      c.churn.events.enabled = false;
      c.churn.heartbeats.enabled = false;
    }
    const db = o.url ? { url: o.url, drop: async () => undefined } : await backend.fresh();
    const storage = await openStorage({ url: db.url }, { logger: silentLogger() });
    await storage.migrate();
    const dir = mkdtempSync(join(tmpdir(), 'cp-synchro-'));
    return new Harness(fleet, storage, db.url, dir, db.drop);
  }

  get clusters(): SimCluster[] {
    return this.fleet.clusters;
  }

  /**
   * Writes the clusters file: every fleet cluster (or the given PediaCluster objects) with `sync`. Atomically, as a
   * careful operator does (the source copes with in-place writes too: test/roles/synchro/sharding-file.test.ts).
   */
  writeClusters(objects: Record<string, unknown>[] = this.clusters.map((c) => pediaClusterFor(c, SYNC))): void {
    const tmp = `${this.clustersFile}.tmp`;
    writeFileSync(tmp, objects.map((x) => stringify(x)).join('---\n'));
    renameSync(tmp, this.clustersFile);
  }

  /** Starts the synchro over the clusters file (written first when absent). */
  async startSynchro(overrides: Partial<SynchroOptions> = {}, opts: { withFile?: boolean; turns?: TurnQueue; logger?: Logger } = {}): Promise<SynchroParts> {
    if (opts.withFile !== false) {
      try {
        writeFileSync(this.clustersFile, '', { flag: 'wx' });
        this.writeClusters();
      } catch {
        // Already written by the test.
      }
    }
    const options = { ...testOptions(opts.withFile === false ? undefined : this.clustersFile, this.url), ...overrides };
    this.registry = new Registry();
    const parts = await synchroRunnables(options, { storage: this.storage, logger: opts.logger ?? silentLogger(), registry: this.registry, ...(opts.turns ? { turns: opts.turns } : {}) });
    const ac = new AbortController();
    const done = runAll(parts.runnables, ac.signal).finally(() => parts.close());
    this.run = { ac, done };
    this.parts = parts;
    return parts;
  }

  /**
   * Watches the synchro's calls for storage lease `name`, to take it from under it later: `steal()` gives the lease to
   * `intruder`, as another writer would take it once this one's renewals had been lost past its expiry. Install
   * before startSynchro.
   */
  /**
   * Another writer over the same storage, for the lease `name`. steal(): it takes the lease over, and from then on the
   * synchro's own attempts on it go unanswered, as when its storage stops answering: the leader writes on, unaware,
   * until reveal() lets them through (they find the lease taken) or its renew deadline passes.
   */
  leaseThief(name: string): { holder: () => string; steal: () => Promise<void>; reveal: () => void } {
    const storage = this.storage;
    const acquire = storage.tryAcquireLease.bind(storage);
    let holder = '';
    /** While the synchro's attempts wait: what lets each through. */
    let waiting: (() => void)[] | undefined;
    /** The synchro's attempts under way. */
    const inFlight = new Set<Promise<boolean>>();
    storage.tryAcquireLease = (n, who, ttlMs) => {
      if (n !== name || who === 'intruder') return acquire(n, who, ttlMs);
      holder = who;
      const queue = waiting;
      if (queue) return new Promise<void>((r) => queue.push(r)).then(() => acquire(n, who, ttlMs));
      const attempt = acquire(n, who, ttlMs);
      inFlight.add(attempt);
      void attempt.finally(() => inFlight.delete(attempt)).catch(() => undefined);
      return attempt;
    };
    return {
      holder: () => holder,
      steal: async () => {
        // An attempt already under way ends first: it must not take the lease back between release and acquire (a
        // renewal sent just before the steal once did, in CI).
        waiting = [];
        await Promise.allSettled([...inFlight]);
        await storage.releaseLease(name, holder);
        expect(await acquire(name, 'intruder', 60_000)).toBe(true);
      },
      reveal: () => {
        const queue = waiting ?? [];
        waiting = undefined;
        for (const go of queue) go();
      },
    };
  }

  /** How the running synchro ends by itself: with its error, or undefined. stopSynchro() then has nothing to stop. */
  ended(): Promise<unknown> {
    const run = this.run;
    if (!run) return Promise.resolve(undefined);
    const outcome = run.done.then(() => undefined, (e: unknown) => e);
    this.run = { ac: run.ac, done: outcome.then(() => undefined) };
    return outcome;
  }

  async stopSynchro(): Promise<void> {
    const run = this.run;
    this.run = undefined;
    if (!run) return;
    run.ac.abort();
    await run.done;
  }

  async close(): Promise<void> {
    await this.stopSynchro();
    await this.fleet.stop();
    await this.storage.close();
    await this.drop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Current status record of a cluster from storage. */
  async status(cluster: string): Promise<ClusterStatusRecord | undefined> {
    return (await this.storage.clusterStatuses()).get(cluster);
  }

  /** The stored sync condition of one resource of a cluster (its first version's), pods by default. */
  async syncCondition(cluster: string, group = '', resource = 'pods'): Promise<StoredSyncCondition | undefined> {
    const groups = ((await this.status(cluster))?.status.syncResources ?? []) as { group: string; resources: { name: string; syncConditions: StoredSyncCondition[] }[] }[];
    return groups.find((g) => g.group === group)?.resources.find((r) => r.name === resource)?.syncConditions[0];
  }

  async condition(cluster: string, type: string): Promise<{ status: string; reason: string; message: string } | undefined> {
    const rec = await this.status(cluster);
    const conds = (rec?.status.conditions ?? []) as { type: string; status: string; reason: string; message: string }[];
    return conds.find((c) => c.type === type);
  }

  /** Stored objects of one cluster and type, by key, normalised back to the member's view (member RV restored). */
  async stored(cluster: string, gvr: { group: string; version: string; resource: string }): Promise<Map<string, SimObject>> {
    const page = await this.storage.list({ types: { kind: 'one', ...gvr }, clusters: { op: 'in', values: [cluster] } });
    const out = new Map<string, SimObject>();
    for await (const row of page.rows) {
      const obj = JSON.parse(row.object) as SimObject;
      const ann = obj.metadata.annotations ?? {};
      obj.metadata.resourceVersion = ann['shadow.clusterpedia.io/resource-version'];
      delete ann['shadow.clusterpedia.io/resource-version'];
      out.set(row.namespace ? `${row.namespace}/${row.name}` : row.name, obj);
    }
    return out;
  }

  /** The member's objects as the synchro must store them: pruned, annotated, with kind/apiVersion of the synced version. */
  expected(c: SimCluster, ref: string, apiVersion: string): Map<string, SimObject> {
    const out = new Map<string, SimObject>();
    for (const o of c.snapshot(ref)) {
      delete o.metadata.managedFields;
      const ann = { ...(o.metadata.annotations ?? {}) };
      delete ann['kubectl.kubernetes.io/last-applied-configuration'];
      ann['shadow.clusterpedia.io/cluster-name'] = c.name;
      o.metadata.annotations = ann;
      o.apiVersion = apiVersion;
      out.set(o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name!, o);
    }
    return out;
  }

  /** Differences between the member and storage for every synced type of `c` (empty when converged). */
  async diff(c: SimCluster, synced: readonly Synced[] = SYNCED): Promise<string[]> {
    const problems: string[] = [];
    for (const { ref, gvr } of synced) {
      const want = this.expected(c, ref, gvr.group ? `${gvr.group}/${gvr.version}` : gvr.version);
      const got = await this.stored(c.name, gvr);
      for (const [k, w] of want) {
        const g = got.get(k);
        if (!g) problems.push(`${c.name} ${ref} ${k}: missing`);
        else if (g.metadata.resourceVersion !== w.metadata.resourceVersion) problems.push(`${c.name} ${ref} ${k}: rv ${g.metadata.resourceVersion} != ${w.metadata.resourceVersion}`);
        else if (JSON.stringify(sortKeys(g)) !== JSON.stringify(sortKeys(w))) problems.push(`${c.name} ${ref} ${k}: object differs`);
      }
      for (const k of got.keys()) if (!want.has(k)) problems.push(`${c.name} ${ref} ${k}: not in member`);
    }
    return problems;
  }

  /**
   * Storage stopped taking writes under churn: waits until the write queue notices, lets the members go on changing
   * a while, then checks the queue kept within its bound (40 entries in these tests) and that each cluster's pods
   * status says Stop/StorageExpection. Returns the pods condition's message (the reason writes fail).
   */
  async expectWritesPaused(parts: SynchroParts, describe: string): Promise<string> {
    await waitFor(() => !parts.queue.storageAvailable, 15_000, () => `writes did not notice ${describe}`);
    await new Promise((r) => setTimeout(r, 1500));
    expect(parts.queue.depth).toBeLessThanOrEqual(40);
    const [c1] = this.clusters;
    const pods = parts.manager.renderStatus(c1!.name)!.syncResources!.find((g) => g.group === '')!.resources.find((r) => r.name === 'pods')!;
    expect(pods.syncConditions[0]).toMatchObject({ status: 'Stop', reason: 'StorageExpection' });
    return pods.syncConditions[0]!.message ?? '';
  }

  /** After a storage outage: the first cluster's pods sync again and keep the outage as their last error. */
  async expectOutageRemembered(): Promise<void> {
    const [c1] = this.clusters;
    const pods = (): Promise<StoredSyncCondition | undefined> => this.syncCondition(c1!.name);
    // The status stored before the outage said Syncing too (none could be stored during it): wait for a newer one.
    await waitFor(async () => {
      const p = await pods();
      return p?.status === 'Syncing' && p.lastError !== undefined;
    }, 10_000, () => 'pods not syncing with a last error after the outage');
    expect((await pods())?.lastError).toMatch(/^StorageExpection: storage writes failing: \S/);
  }

  /** Waits until storage equals every member exactly. */
  async converged(timeoutMs = 20_000, clusters = this.clusters, synced: readonly Synced[] = SYNCED): Promise<void> {
    let last: string[] = [];
    await waitFor(async () => {
      try {
        last = (await Promise.all(clusters.map((c) => this.diff(c, synced)))).flat();
      } catch (e: unknown) {
        // This harness's own read meeting a database that restarts under a test (a session ended under it): asked again.
        if (!isStorageError(e) || !e.retryable) throw e;
        last = [`storage read failed: ${e.message}`];
      }
      return last.length === 0;
    }, timeoutMs, () => `not converged: ${last.slice(0, 5).join('; ')} (${last.length} differences)`);
  }

  /**
   * Collection GETs (lists, not watches) of a resource path the synchro sent since `since`, without the one-object
   * reads that check where the member is before a watch resumes (`probes`).
   */
  lists(c: SimCluster, path: string, since = 0): number {
    return c.requestLog.entries((r) => r.path === path && !r.watch && r.method === 'GET' && r.startedAt >= since && !isProbe(r.params)).length;
  }

  /** Lists of one object without a continue token: where the member is, asked before resuming a watch (listwatch.ts). */
  probes(c: SimCluster, path: string, since = 0): number {
    return c.requestLog.entries((r) => r.path === path && !r.watch && r.method === 'GET' && r.startedAt >= since && isProbe(r.params)).length;
  }

  watches(c: SimCluster, path: string, since = 0): { resourceVersion: string }[] {
    return c.requestLog.entries((r) => r.path === path && r.watch && r.startedAt >= since).map((r) => ({ resourceVersion: r.params.resourceVersion ?? '' }));
  }
}

export function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]));
  return v;
}

/** Polls `cond` every 25 ms until true, or fails with `describe()` after `timeoutMs`. */
export async function waitFor(cond: () => Promise<boolean> | boolean, timeoutMs = 10_000, describe: () => string = () => 'condition not met'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await cond()) return;
    if (Date.now() > deadline) throw new Error(`timed out: ${describe()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A fresh database per harness on the test PostgreSQL server (test/support/postgres.ts). */
export const postgresBackend: Backend = {
  name: 'postgres',
  fresh: async () => {
    const { freshPostgresDatabase } = await import('../../support/postgres.js');
    return freshPostgresDatabase('synchro');
  },
  backup: backupPostgres,
};

function isProbe(params: Record<string, string | undefined>): boolean {
  return params.limit === '1' && params.continue === undefined;
}

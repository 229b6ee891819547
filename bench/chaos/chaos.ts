// One chaos run: a simulated fleet with steady churn, clusterpedia (the built bundle) syncing it into SQLite or
// PostgreSQL, informer-style watch clients on clusterpedia, a seeded fault schedule; then churn stops, every fault is
// lifted, and the run waits for convergence and compares storage (API and storage module) and the watchers with every
// member object by object.
import { execFileSync } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { createWriteStream, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PediaClusterStatus } from '../../src/kube/pediacluster.js';
import { sleep } from '../../src/lib/lifecycle.js';
import { pediaClustersYaml, startSimulatedFleet, type SimCluster, type SimFleet } from '../../src/sim/index.js';
import { rngFor } from '../../src/sim/prng.js';
import { BUNDLE_NODE, ensureBundle } from '../../test/support/bundle.js';
import { freePort } from '../../test/support/postgres-server.js';
import { openRunStorage, type RunStorage } from './backend.js';
import { Clusterpedia } from './clusterpedia.js';
import { Injector, type InjectedFault } from './inject.js';
import type { ChaosOptions } from './options.js';
import { countByKind, planFaults, speaksHttp2, type FaultKind } from './schedule.js';
import { addDiff, diffKeys, diffTotal, emptyDiff, memberRevisions, memberState, syncedTypes, watchedView, type Diff, type FleetState, type SyncedType, type WatchedView } from './state.js';
import { RevisionTracker } from './revision-tracker.js';
import { readHttp, readStorage } from './stored.js';
import { Watcher, type WatcherStats } from './watcher.js';

export interface WatcherResult {
  name: string;
  resource: string;
  objects: number;
  diff: Diff;
  stats: WatcherStats;
}

export interface ChaosResult {
  options: ChaosOptions;
  /** The flags clusterpedia ran with, beyond clusters, storage and ports (split: per role). */
  bindingFlags: string[];
  /** Each process of clusterpedia: restarts, kills, exits after losing the synchro lease. */
  processes: { name: string; restarts: number; kills: number; leadershipLostExits: number }[];
  outDir: string;
  startedAt: string;
  /** Objects in the members before churn, and at the end. */
  objectsInitial: number;
  objectsFinal: number;
  /** Member changes made during the run (sum of member revision increments). */
  memberChanges: number;
  /** Watches the members closed because clusterpedia had stopped reading them (kube's unresponsive watcher). */
  watchesClosedUnresponsive: number;
  initialSyncMs: number;
  faultsPlanned: number;
  faultsByKind: Record<FaultKind, number>;
  faultErrors: number;
  /** kill -9 faults that found the storage writer inside a transaction. */
  killsMidTransaction: number;
  /** kill -9 right after a PostgreSQL stop: the next start finds no database. */
  killsWhileDatabaseDown: number;
  restarts: number;
  /** The final SIGTERM needed SIGKILL after the grace period. */
  shutdownHung: boolean;
  unplannedExits: { process: string; atMs: number; code: number | null; signal: string | null; lastLines: string[] }[];
  errorLogLines: Record<string, number>;
  /** From the end of the chaos phase (churn stopped, last fault lifted) to convergence; undefined if it never came. */
  convergeMs: number | undefined;
  /** From the end of the chaos phase to the check that verified convergence (full reads of every type take time). */
  verifiedMs: number | undefined;
  /** Storage as served by the API vs the members. */
  httpDiff: Diff;
  /** Storage read directly with the storage module vs the members (duplicates counted here too). */
  storageDiff: Diff;
  storageChecks: { foreignRows: string[]; rvColumnMismatches: string[]; countDrift: string[] };
  watchers: WatcherResult[];
  totalMs: number;
  passed: boolean;
}

export interface ChaosDeps {
  /** Progress lines (stderr in the CLI, silent in tests unless asked). */
  progress: (line: string) => void;
  signal: AbortSignal;
  /** Called with each started clusterpedia process supervisor, so a process-exit hook can kill it. */
  onClusterpedia?: (c: Clusterpedia) => void;
}

export async function runChaos(o: ChaosOptions, deps: ChaosDeps): Promise<ChaosResult> {
  const t0 = Date.now();
  const clock = (): number => Date.now() - t0;
  const say = (s: string): void => deps.progress(`[chaos ${o.backend} ${(clock() / 1000).toFixed(1)}s] ${s}`);
  const outDir = o.outDir ?? mkdtempSync(join(tmpdir(), `cp-chaos-${o.backend}-`));
  mkdirSync(outDir, { recursive: true });
  const chaosLog = createWriteStream(join(outDir, 'chaos.jsonl'), { flags: 'a' });
  const event = (e: Record<string, unknown>): void => {
    chaosLog.write(`${JSON.stringify({ atMs: clock(), ...e })}\n`);
  };
  const cleanups: (() => Promise<void> | void)[] = [];
  const bundle = ensureBundle();
  const types = syncedTypes();
  const injected: InjectedFault[] = [];
  let fleet: SimFleet | undefined;
  try {
    event({ phase: 'start', options: { ...o, bindingFlags: o.bindingFlags.join(' ') } });
    const storage: RunStorage = await openRunStorage(o.backend, outDir, o.asyncCommit);
    cleanups.push(() => storage.close());
    // TLS, and every other member also speaks HTTP/2 (as kube-apiserver does): faults hit both transports. Members 0
    // and 1 of every four serve aggregated discovery (kube 1.27+), the others the legacy documents: each transport
    // meets both.
    fleet = await startSimulatedFleet({
      clusters: o.clusters, podsPerCluster: o.pods, seed: o.seed, token: 'chaos-token', bookmarkIntervalMs: 5_000, tls: true, http2: speaksHttp2,
      aggregatedDiscovery: (i) => i % 4 < 2,
    });
    const f = fleet;
    cleanups.push(() => f.stop());
    // With exclusions, every other member refuses field selectors on ConfigMaps (as an aggregated API without them
    // would): the synchro lists and watches those without its selector and leaves the excluded namespaces out itself.
    if (o.excludeNamespaces.length > 0) f.clusters.forEach((c, i) => i % 2 === 1 && c.faults.refuseFieldSelectors('/api/v1/configmaps'));
    const clustersFile = join(outDir, 'clusters.yaml');
    writeFileSync(clustersFile, pediaClustersYaml(f.clusters, undefined, o.excludeNamespaces.length > 0 ? { excludeNamespaces: o.excludeNamespaces } : {}));
    const excluded = new Set(o.excludeNamespaces);
    const views = o.watchers.map((ref) => watchedView(ref, types));
    // Churn relabels a pod now and then, so that label-selected watchers see objects leave and enter their selector.
    for (const c of f.clusters) c.churn.relabelShare = RELABEL_SHARE;
    const initialMembers = await memberState(f.clusters, types, views, excluded);
    const objectsInitial = countObjects(initialMembers, types);
    const revisionsAtStart = f.clusters.reduce((n, c) => n + c.revision, 0);
    say(`fleet: ${o.clusters} members, ${objectsInitial} objects in ${types.length} types; storage ${storage.url}; logs in ${outDir}`);

    // A change log of ~10 s of churn (not 200,000 revisions; compacted every 30 s): a watcher kept away by a
    // watcher-pause falls out of it and must relist on 410, as informers do.
    const flags = [...o.bindingFlags, '--change-log-retention', String(Math.max(200, o.clusters * o.churnPerCluster * 10))];
    const { processes, bases, bindingFlags } = await deployment(o, { bundle, outDir, clock, clustersFile, storageUrl: storage.url, flags });
    const base = bases[0]!;
    for (const p of processes) {
      deps.onClusterpedia?.(p);
      cleanups.push(() => p.stop());
    }
    await Promise.all(processes.map((p) => p.start(60_000)));
    say(`clusterpedia: ${processes.map((p) => p.name).join(', ')}`);

    const watchAc = new AbortController();
    // Each watcher listens on it once while it runs, and once more while it waits (a backoff, a pause): bounded by
    // the watchers, past Node's default of 10 with six of them.
    setMaxListeners(10 + 2 * views.length, watchAc.signal);
    const watchers = views.map((v, i) => new Watcher(`watcher-${i + 1}`, v, bases, rngFor('chaos-watcher', o.seed, i), [500, 0, 250, 100][i % 4]!));
    const watcherRuns = watchers.map((w) => w.run(watchAc.signal));
    cleanups.push(async () => {
      watchAc.abort();
      await Promise.all(watcherRuns);
    });

    // Initial sync: members are still, so this is the plain sync's time.
    const initial = await waitConverged({ bases, types, watchers, members: async () => initialMembers, deadlineMs: o.convergeTimeoutMs, signal: deps.signal, say });
    if (initial.convergedAt === undefined) throw new Error(`initial sync did not converge within ${o.convergeTimeoutMs} ms: ${describe(initial.last)}`);
    const initialSyncMs = initial.convergedAt;
    say(`initial sync converged in ${(initialSyncMs / 1000).toFixed(1)} s`);
    event({ phase: 'initial-sync', ms: initialSyncMs });

    // Chaos phase: churn everywhere, faults at their planned times.
    const plan = planFaults({ seed: o.seed, backend: o.backend, clusters: o.clusters, watchers: watchers.length, durationMs: o.durationMs, count: o.faults, only: o.only, processes: processes.length });
    const injector = new Injector({
      clusters: f.clusters, processes, storage, watchers, clock,
      record: (x) => {
        injected.push(x);
        // atMs: since the run started; chaosMs: the planned time within the chaos phase; lagMs: applied late by.
        event({ fault: x.fault.kind, ...x.fault, kind: undefined, chaosMs: x.plannedAtMs, lagMs: x.atMs - phaseAt - x.plannedAtMs, result: x.result });
      },
    });
    cleanups.push(() => injector.dispose());
    const phaseStart = Date.now();
    const phaseAt = clock();
    for (const c of f.clusters) c.churn.start(o.churnPerCluster);
    event({ phase: 'chaos', faults: plan.length, durationMs: o.durationMs });
    say(`chaos phase: ${plan.length} faults over ${Math.round(o.durationMs / 1000)} s, churn ${o.churnPerCluster} events/s per member`);
    let nextProgress = 30_000;
    for (const p of plan) {
      while (Date.now() - phaseStart < p.atMs && !deps.signal.aborted) {
        await sleep(Math.min(250, p.atMs - (Date.now() - phaseStart)), deps.signal);
        if (Date.now() - phaseStart >= nextProgress) {
          nextProgress += 30_000;
          say(`${injected.length} faults applied, ${restarts(processes)} restarts, ${processes.reduce((n, p) => n + p.unplannedExits.length, 0)} unplanned exits, serving=${processes.map((p) => `${p.name}:${p.isServing}${p.leading ? ' (leader)' : ''}`).join(',')}`);
        }
      }
      if (deps.signal.aborted) throw new Error('aborted');
      injector.apply(p);
    }
    while (Date.now() - phaseStart < o.durationMs && !deps.signal.aborted) await sleep(Math.min(250, o.durationMs - (Date.now() - phaseStart)), deps.signal);
    if (deps.signal.aborted) throw new Error('aborted');

    // End: churn stops, every fault is lifted, the members hold still. Convergence is timed from here to the last
    // moment anything still changed (storage revision, a watcher's map, clusterpedia coming back), once verified.
    for (const c of f.clusters) c.churn.stop();
    const tracker = new RevisionTracker(base);
    tracker.start();
    cleanups.push(() => tracker.stop());
    await injector.liftAll();
    const endOfChaos = Date.now();
    event({ phase: 'faults-lifted', faultsApplied: injected.length });
    say(`churn stopped, all faults lifted (${injected.length} applied); waiting for convergence`);
    const members = new StillMembers(f.clusters, types, views, excluded);
    const final = await waitConverged({ bases, types, watchers, members: () => members.get(), deadlineMs: o.convergeTimeoutMs, signal: deps.signal, say, directUrl: storage.url });
    const lastMove = Math.max(endOfChaos, tracker.lastChangeAt, ...processes.map((p) => Math.max(p.servingSince, p.leaderSince)), ...watchers.map((w) => w.lastChangeAt));
    const convergeMs = final.convergedAt === undefined ? undefined : lastMove - endOfChaos;
    const verifiedMs = final.convergedAt === undefined ? undefined : Date.now() - endOfChaos;
    event({ phase: 'converged', convergeMs: convergeMs ?? null, verifiedAfterMs: final.convergedAt === undefined ? null : Date.now() - endOfChaos });
    say(convergeMs === undefined ? `NOT converged within ${o.convergeTimeoutMs} ms: ${describe(final.last)}`
      : `converged ${(convergeMs / 1000).toFixed(1)} s after the last fault (verified after ${((Date.now() - endOfChaos) / 1000).toFixed(1)} s)`);

    // What clusterpedia says of itself when it did not get there: every cluster's status (per resource: state, reason,
    // message) and its metrics, beside the logs.
    if (convergeMs === undefined) await dumpSelf(base, outDir, say);

    // The final comparison, every way, whatever the wait gave.
    const membersFinal = await members.get();
    const http = final.last.http;
    const direct = await readStorage(storage.url, types);
    const storageDiff = emptyDiff();
    for (const t of types) addDiff(storageDiff, diffKeys(`storage ${t.ref}`, membersFinal.get(t.ref)!, direct.state.get(t.ref)!, direct.duplicates.get(t.ref)));
    storageDiff.extra += direct.foreignRows.length;
    storageDiff.stale += direct.rvColumnMismatches.length;
    const watcherResults: WatcherResult[] = watchers.map((w) => ({
      name: w.name, resource: w.view.ref, objects: w.items.size, stats: w.stats,
      diff: diffKeys(`${w.name} ${w.view.ref}`, membersFinal.get(w.view.ref)!, w.items),
    }));
    // Graceful shutdown is part of the test: SIGTERM must end the process within its grace period.
    await tracker.stop();
    watchAc.abort();
    await Promise.all(watcherRuns);
    await Promise.all(processes.map((p) => p.stop()));
    const shutdownHung = processes.some((p) => p.shutdownHung);
    const unplannedExits = processes.flatMap((p) => p.unplannedExits.map((x) => ({ process: p.name, atMs: x.atMs, code: x.code, signal: x.signal, lastLines: x.tail.slice(-8) })));
    const errorLogLines: Record<string, number> = {};
    for (const p of processes) for (const [m, c] of p.errorLines) errorLogLines[m] = (errorLogLines[m] ?? 0) + c;
    const byKind = countByKind(injected.map((x) => x.fault));
    const passed = convergeMs !== undefined && diffTotal(http) === 0 && diffTotal(storageDiff) === 0 && direct.countDrift.length === 0
      && watcherResults.every((w) => diffTotal(w.diff) === 0 && w.stats.outOfOrder === 0) && unplannedExits.length === 0 && !shutdownHung;
    const result: ChaosResult = {
      options: o, bindingFlags, outDir, startedAt: new Date(t0).toISOString(),
      processes: processes.map((p) => ({ name: p.name, restarts: p.incarnations - 1, kills: p.kills, leadershipLostExits: p.leadershipLostExits })),
      objectsInitial, objectsFinal: countObjects(membersFinal, types),
      memberChanges: f.clusters.reduce((n, c) => n + c.revision, 0) - revisionsAtStart,
      watchesClosedUnresponsive: f.clusters.reduce((n, c) => n + c.unresponsiveWatchesClosed, 0),
      initialSyncMs,
      faultsPlanned: plan.length, faultsByKind: byKind,
      faultErrors: injected.filter((x) => x.result.error !== undefined).length,
      killsMidTransaction: injected.filter((x) => x.result.midTransaction === true).length,
      killsWhileDatabaseDown: injected.filter((x) => x.result.killedPid !== undefined).length,
      restarts: restarts(processes),
      shutdownHung,
      unplannedExits,
      errorLogLines,
      convergeMs, verifiedMs, httpDiff: http, storageDiff,
      storageChecks: { foreignRows: direct.foreignRows.slice(0, 10), rvColumnMismatches: direct.rvColumnMismatches.slice(0, 10), countDrift: direct.countDrift.slice(0, 10) },
      watchers: watcherResults,
      totalMs: clock(),
      passed,
    };
    event({ phase: 'result', result: { ...result, options: undefined } });
    writeFileSync(join(outDir, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
    return result;
  } finally {
    for (const c of cleanups.reverse()) {
      try {
        await c();
      } catch (e: unknown) {
        deps.progress(`[chaos] cleanup failed: ${String(e)}`);
      }
    }
    await new Promise<void>((r) => chaosLog.end(() => r()));
  }
}

/** Of churn's operations, the share that relabels a pod (the rest as the simulator's churn does them). */
const RELABEL_SHARE = 0.05;

const restarts = (ps: readonly Clusterpedia[]): number => ps.reduce((n, p) => n + p.incarnations - 1, 0);

/**
 * clusterpedia's processes, not started yet. binding: one process. split (the multi-replica deployment): two synchros
 * (one writes, the other waits for the lease) and two apiservers over one storage; each role gets the flags it takes.
 */
async function deployment(o: ChaosOptions, d: { bundle: string; outDir: string; clock: () => number; clustersFile: string; storageUrl: string; flags: string[] }): Promise<{
  processes: Clusterpedia[]; bases: string[]; bindingFlags: string[];
}> {
  const common = { bundle: d.bundle, cwd: d.outDir, clock: d.clock };
  if (o.topology === 'binding') {
    const port = await freePort();
    const args = ['binding', '--clusters', d.clustersFile, '--storage', d.storageUrl, '--secure-port', '0', '--insecure-port', String(port), ...d.flags];
    return { processes: [new Clusterpedia({ ...common, name: 'binding', logFile: join(d.outDir, 'clusterpedia.log'), args })], bases: [`http://127.0.0.1:${port}`], bindingFlags: d.flags };
  }
  const synchroFlags = flagsTakenBy(d.bundle, 'synchro', d.flags);
  const apiserverFlags = flagsTakenBy(d.bundle, 'apiserver', d.flags);
  const processes: Clusterpedia[] = [];
  for (let i = 1; i <= 2; i++) {
    const args = ['synchro', '--clusters', d.clustersFile, '--storage', d.storageUrl, '--metrics-host', '127.0.0.1', '--metrics-port', String(await freePort()), ...synchroFlags];
    processes.push(new Clusterpedia({ ...common, name: `synchro-${i}`, logFile: join(d.outDir, `synchro-${i}.log`), args, readyLine: (l) => l.includes('"msg":"synchro metrics listening"') }));
  }
  const bases: string[] = [];
  for (let i = 1; i <= 2; i++) {
    const port = await freePort();
    const args = ['apiserver', '--storage', d.storageUrl, '--secure-port', '0', '--insecure-port', String(port), ...apiserverFlags];
    processes.push(new Clusterpedia({ ...common, name: `apiserver-${i}`, logFile: join(d.outDir, `apiserver-${i}.log`), args }));
    bases.push(`http://127.0.0.1:${port}`);
  }
  return { processes, bases, bindingFlags: [`synchro: ${synchroFlags.join(' ')};`, `apiserver: ${apiserverFlags.join(' ')}`] };
}

/** Of `--flag value` pairs, those the role's `--help` lists. */
function flagsTakenBy(bundle: string, role: 'synchro' | 'apiserver', flags: readonly string[]): string[] {
  const help = execFileSync(BUNDLE_NODE, [bundle, role, '--help'], { encoding: 'utf8' });
  const taken = new Set([...help.matchAll(/^\s+(--[a-z0-9-]+)/gm)].map((m) => m[1]));
  const out: string[] = [];
  for (let i = 0; i < flags.length; i += 2) if (taken.has(flags[i])) out.push(flags[i]!, flags[i + 1]!);
  return out;
}

/** The members' objects, re-read only when a member's revision moved (they hold still once churn stops). */
class StillMembers {
  private state: FleetState | undefined;
  private at = '';
  constructor(private readonly clusters: readonly SimCluster[], private readonly types: readonly SyncedType[], private readonly views: readonly WatchedView[], private readonly excluded: ReadonlySet<string>) {}
  async get(): Promise<FleetState> {
    for (let i = 0; i < 5; i++) {
      const before = memberRevisions(this.clusters);
      if (this.state && before === this.at) return this.state;
      const state = await memberState(this.clusters, this.types, this.views, this.excluded);
      if (memberRevisions(this.clusters) === before) {
        this.state = state;
        this.at = before;
      }
    }
    if (!this.state) throw new Error('the members kept changing after churn stopped');
    return this.state;
  }
}

/** The members' objects: the synced types' (a selector's view holds some of them again). */
function countObjects(s: FleetState, types: readonly SyncedType[]): number {
  return types.reduce((n, t) => n + (s.get(t.ref)?.size ?? 0), 0);
}

interface Check {
  http: Diff;
  watchers: Diff;
  direct?: Diff;
  error?: string;
}

const describe = (c: Check): string =>
  c.error ?? `api ${fmt(c.http)}; watchers ${fmt(c.watchers)}${c.direct ? `; storage ${fmt(c.direct)}` : ''}; e.g. ${[...c.http.samples, ...c.watchers.samples].slice(0, 4).join(' | ')}`;
const fmt = (d: Diff): string => `missing ${d.missing} extra ${d.extra} stale ${d.stale} duplicates ${d.duplicates}`;

/**
 * Polls until the API serves exactly the members (every type, paged) and every watcher's map equals the members;
 * with `directUrl`, the storage read directly must agree too. Bounded by `deadlineMs`.
 */
async function waitConverged(a: {
  bases: readonly string[]; types: SyncedType[]; watchers: Watcher[]; members: () => Promise<FleetState>; deadlineMs: number; signal: AbortSignal;
  say: (s: string) => void; directUrl?: string;
}): Promise<{ convergedAt: number | undefined; last: Check }> {
  const start = Date.now();
  let last: Check = { http: emptyDiff(), watchers: emptyDiff(), error: 'not checked yet' };
  let nextSay = 15_000;
  while (Date.now() - start < a.deadlineMs && !a.signal.aborted) {
    const members = await a.members();
    // Watchers first: cheap, in memory.
    const watchers = emptyDiff();
    for (const w of a.watchers) addDiff(watchers, diffKeys(`${w.name} ${w.view.ref}`, members.get(w.view.ref)!, w.items));
    try {
      // Every apiserver in turn, each a full read: converged only when all of them serve the members.
      const http = emptyDiff();
      for (const base of a.bases) {
        const read = await readHttp(base, a.types, a.signal);
        const name = a.bases.length === 1 ? 'api' : `api ${new URL(base).port}`;
        for (const t of a.types) addDiff(http, diffKeys(`${name} ${t.ref}`, members.get(t.ref)!, read.state.get(t.ref)!, read.duplicates.get(t.ref)));
        if (diffTotal(http) > 0) break;
      }
      last = { http, watchers };
      if (diffTotal(http) === 0 && diffTotal(watchers) === 0) {
        if (!a.directUrl) return { convergedAt: Date.now() - start, last };
        const direct = await readStorage(a.directUrl, a.types);
        const d = emptyDiff();
        for (const t of a.types) addDiff(d, diffKeys(`storage ${t.ref}`, members.get(t.ref)!, direct.state.get(t.ref)!, direct.duplicates.get(t.ref)));
        last.direct = d;
        if (diffTotal(d) === 0) return { convergedAt: Date.now() - start, last };
      }
    } catch (e: unknown) {
      last = { http: emptyDiff(), watchers, error: String(e) };
    }
    if (Date.now() - start >= nextSay) {
      nextSay += 15_000;
      a.say(`not converged yet: ${describe(last)}`);
    }
    await sleep(1_000, a.signal);
  }
  return { convergedAt: undefined, last };
}

/** Writes clusterpedia's PediaCluster statuses and metrics into `outDir`, and says which resources are not Synced. */
async function dumpSelf(base: string, outDir: string, say: (line: string) => void): Promise<void> {
  try {
    const res = await fetch(`${base}/apis/cluster.clusterpedia.io/v1alpha2/pediaclusters`, { signal: AbortSignal.timeout(10_000) });
    const text = await res.text();
    writeFileSync(join(outDir, 'pediaclusters.json'), text);
    const list = JSON.parse(text) as { items?: { metadata?: { name?: string }; status?: PediaClusterStatus }[] };
    const notSynced = (list.items ?? []).flatMap((c) => (c.status?.syncResources ?? []).flatMap((g) => g.resources.flatMap((r) => r.syncConditions
      .filter((sc) => sc.status !== 'Syncing' || sc.reason || sc.initialListPhase)
      .map((sc) => `${c.metadata?.name}/${r.name}: ${sc.status} ${sc.reason ?? ''} ${sc.message ?? ''}${sc.initialListPhase ? ' (initial list)' : ''}`.trim()))));
    say(`clusterpedia's own view: ${notSynced.length} resources not syncing${notSynced.length ? `, e.g. ${notSynced.slice(0, 6).join(' | ')}` : ''}`);
    const metrics = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(10_000) });
    writeFileSync(join(outDir, 'metrics.txt'), await metrics.text());
  } catch (e: unknown) {
    say(`could not read clusterpedia's own view: ${e instanceof Error ? e.message : String(e)}`);
  }
}

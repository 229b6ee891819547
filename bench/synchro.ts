// Synchro benchmark: initial sync of a simulated fleet into SQLite and PostgreSQL (objects/s beside the raw-insert
// ceiling of the same rows), the synchro's peak RSS, and steady churn with the event→row delay. Results: BENCHMARKS.md.
// Scale with env: BENCH_CLUSTERS (100), BENCH_PODS (10000), BENCH_BACKENDS (sqlite,postgres), BENCH_CHURN_EPS (5000),
// BENCH_CHURN_SECONDS (30), BENCH_RAW_ROWS (300000), BENCH_CHURN_PACED (1: changes made ahead and released to the
// watchers at the rate; 0: made live by the simulator's churn timer, which its CPU caps), BENCH_SYNCHRO_NODE_ARGS,
// BENCH_SNAPSHOT_SECONDS (a heap snapshot of the synchro that many seconds into the churn; needs
// BENCH_SYNCHRO_NODE_ARGS="--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=…"), BENCH_AGGREGATED_DISCOVERY (1: the
// members serve aggregated discovery, as kube-apiserver 1.27+ does; 0, the default: legacy documents only), BENCH_TLS
// (1: the members serve HTTPS with HTTP/2 beside HTTP/1.1, as kube-apiserver does; 0, the default: plain HTTP/1.1).
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { silentLogger } from '../src/lib/log.js';
import type { SimObject } from '../src/sim/index.js';
import { openStorage } from '../src/storage/open.js';
import type { Storage, UpsertObject } from '../src/storage/types.js';
import { freePort, startPostgres, type PostgresServer } from '../test/support/postgres-server.js';
import { envNumber } from './env.js';

const CLUSTERS = envNumber('BENCH_CLUSTERS', 100);
const PODS = envNumber('BENCH_PODS', 10_000);
const CHURN_EPS = envNumber('BENCH_CHURN_EPS', 5000);
const CHURN_SECONDS = envNumber('BENCH_CHURN_SECONDS', 30);
const CHURN_PACED = envNumber('BENCH_CHURN_PACED', 1) === 1;
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'sqlite,postgres').split(',').filter(Boolean);
/** The ceiling is a rate: measured on at most this many rows (the same shape and batch size as the sync). */
const RAW_ROWS = envNumber('BENCH_RAW_ROWS', 300_000);
const SNAPSHOT_SECONDS = envNumber('BENCH_SNAPSHOT_SECONDS', 0);
const mb = (n: number): number => Math.round(n / 1_048_576);
/** Outstanding marks read per poll of storage (every 5 ms), oldest first. */
const POLLED_MARKS = 16;
/**
 * How often the synchro's /metrics is read, at least. A fleet's exposition is large (every cluster × resource);
 * rendering it took ~4 ms of the synchro's event loop at 100 members, so scraping it every 20–50 ms took a tenth of
 * the loop being measured. At 1,000 members it is ~0.9 MB and a scrape took ~35 ms, with prom-client's process
 * metrics listing thousands of sockets and descriptors: every 250 ms that was a third of the synchro's main-thread
 * CPU during the sync (a CPU profile, 2026-12-07). So the pause after a scrape is also at least SCRAPE_COST times
 * what the scrape took: the harness costs the synchro at most ~5 % (Prometheus scrapes every 15–60 s).
 */
const SCRAPE_MS = 250;
const SCRAPE_COST = 20;

/** The simulator child and a request/reply helper over IPC. */
class Sim {
  private waiters = new Map<string, ((m: Record<string, unknown>) => void)[]>();
  /** Marks of paced churn, as the simulator releases them. */
  onMarked: (m: Record<string, unknown>) => void = () => undefined;
  private constructor(readonly child: ChildProcess) {
    child.on('message', (m: Record<string, unknown>) => {
      if (m.cmd === 'marked') return this.onMarked(m);
      const key = m.cmd === 'mark' ? `mark:${String(m.i)}` : String(m.cmd);
      this.waiters.get(key)?.shift()?.(m);
    });
  }

  static async start(file: string): Promise<{ sim: Sim; ready: Record<string, unknown> }> {
    const child = fork(new URL('./synchro-sim.ts', import.meta.url).pathname, [], {
      execArgv: ['--import', 'tsx', '--max-old-space-size=12288'],
      env: { ...process.env, BENCH_CLUSTERS: String(CLUSTERS), BENCH_PODS: String(PODS), BENCH_CLUSTERS_FILE: file },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const sim = new Sim(child);
    const ready = await sim.wait('ready');
    return { sim, ready };
  }

  wait(key: string): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const list = this.waiters.get(key) ?? [];
      list.push(resolve);
      this.waiters.set(key, list);
      this.child.once('exit', (code) => reject(new Error(`simulator exited (${code})`)));
      this.child.setMaxListeners(0);
    });
  }

  request(msg: { cmd: string; [k: string]: unknown }): Promise<Record<string, unknown>> {
    const p = this.wait(msg.cmd === 'mark' ? `mark:${String(msg.i)}` : msg.cmd);
    this.child.send(msg);
    return p;
  }
}

interface Db {
  url: string;
  drop(): Promise<void>;
}

async function freshDb(backend: string, pg: PostgresServer | undefined, n: number): Promise<Db> {
  if (backend === 'sqlite') {
    const dir = mkdtempSync(join(os.tmpdir(), 'cp-bench-synchro-'));
    return { url: `sqlite:${join(dir, 'db.sqlite')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const admin = postgres(pg!.url, { max: 1, onnotice: () => undefined });
  const name = `bench_synchro_${n}`;
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(pg!.url);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const a = postgres(pg!.url, { max: 1, onnotice: () => undefined });
      await a.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

async function open(url: string): Promise<Storage> {
  const s = await openStorage({ url }, { logger: silentLogger() });
  await s.migrate();
  return s;
}

function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

/** Reads a Prometheus counter/gauge family from the synchro's /metrics, summing series that match `labels`. */
function metric(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-z_]+)(\{([^}]*)\})? ([0-9.e+-]+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries((m[3] ?? '').split(',').filter(Boolean).map((kv) => { const i = kv.indexOf('='); return [kv.slice(0, i), kv.slice(i + 2, -1)]; }));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[4]);
  }
  return sum;
}

const GC_KINDS = ['minor', 'major', 'incremental', 'weakcb'] as const;

/** The event loop's GC pauses so far, by kind, from prom-client's default metrics. */
function gcPauses(text: string): Record<(typeof GC_KINDS)[number], { seconds: number; count: number }> {
  const of = (kind: string): { seconds: number; count: number } => ({
    seconds: metric(text, 'nodejs_gc_duration_seconds_sum', { kind }),
    count: metric(text, 'nodejs_gc_duration_seconds_count', { kind }),
  });
  return { minor: of('minor'), major: of('major'), incremental: of('incremental'), weakcb: of('weakcb') };
}

/**
 * VmRSS, VmHWM (peak) and RssAnon of a process, from /proc, in bytes. RssAnon leaves out file-backed pages:
 * SQLite maps the database file (mmap_size), and those pages count in RSS though the kernel can drop them.
 */
function rssOf(pid: number): { rss: number; peak: number; anon: number; file: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string): number => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM'), anon: kb('RssAnon'), file: kb('RssFile') };
}

/** User plus system CPU seconds a process (or its main thread) has used so far, from /proc (clock ticks of 1/100 s). */
function cpuSecondsOf(pid: number, mainThreadOnly = false): number {
  // The task whose id is the pid is the main thread: JavaScript and SQLite; the others are V8's GC and libuv helpers.
  const stat = readFileSync(mainThreadOnly ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * The synchro as users run it: bin/clusterpedia (the bundle with the synchro's node flags; the image's ENTRYPOINT), or
 * src/main.ts through tsx when BENCH_TSX=1, in its own process.
 */
function startSynchro(url: string, clustersFile: string, metricsPort: number): ChildProcess {
  const bundle = new URL('../dist/clusterpedia.mjs', import.meta.url).pathname;
  const bin = new URL('../bin/clusterpedia', import.meta.url).pathname;
  const useTsx = process.env.BENCH_TSX === '1' || !existsSync(bundle);
  const args = ['synchro', '--storage', url, '--clusters', clustersFile, '--metrics-port', String(metricsPort), '--metrics-host', '127.0.0.1', '--log-level', 'warn', '--log-format', 'json'];
  const stdio: ['ignore', 'ignore', 'inherit'] = ['ignore', 'ignore', 'inherit'];
  if (useTsx) return spawn(process.execPath, ['--import', 'tsx', new URL('../src/main.ts', import.meta.url).pathname, ...args], { stdio });
  // BENCH_SYNCHRO_NODE_ARGS: node flags for the synchro alone, which node refuses in NODE_OPTIONS (`--cpu-prof
  // --cpu-prof-dir=/tmp/prof`, say); the bundle is then started as bin/clusterpedia starts it, with them added.
  const extra = process.env.BENCH_SYNCHRO_NODE_ARGS?.split(' ').filter(Boolean);
  if (!extra?.length) return spawn(bin, args, { stdio });
  return spawn(process.execPath, ['--no-warnings', '--max-semi-space-size=4', ...extra, bundle, ...args], {
    stdio, env: { ...process.env, MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2' },
  });
}

/** Initial sync then churn, the synchro in its own process; this one only watches its metrics and storage. */
async function syncRun(backend: string, db: Db, sim: Sim, clustersFile: string, expected: number): Promise<Record<string, unknown>> {
  const storage = await open(db.url);
  const port = await freePort();
  const child = startSynchro(db.url, clustersFile, port);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let lastScrapeMs = 0;
  const scrape = async (): Promise<string> => {
    const started = performance.now();
    try {
      return await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    } catch {
      return '';
    } finally {
      lastScrapeMs = performance.now() - started;
    }
  };
  /** The pause before the next scrape. */
  const scrapePause = (): number => Math.max(SCRAPE_MS, SCRAPE_COST * lastScrapeMs);
  let peakSync = 0;
  let peakChurn = 0;
  let peakAnon = 0;
  let phase: 'sync' | 'churn' = 'sync';
  const sampler = setInterval(() => {
    try {
      const { rss, anon } = rssOf(child.pid!);
      peakAnon = Math.max(peakAnon, anon);
      if (phase === 'sync') peakSync = Math.max(peakSync, rss);
      else peakChurn = Math.max(peakChurn, rss);
    } catch {
      // exited
    }
  }, 100);
  const t0 = performance.now();
  let text = '';
  // Done when every member object is written, or when nothing moved for 20 s with the queue empty: the simulator's
  // count can exceed what it serves (it has been seen to serve one pod name twice in 1M), and the synchro stores
  // each key once.
  let written = 0;
  let lastProgress = t0;
  const syncHeapPeak = { used: 0, total: 0, external: 0 };
  for (;;) {
    text = await scrape();
    syncHeapPeak.used = Math.max(syncHeapPeak.used, metric(text, 'nodejs_heap_size_used_bytes'));
    syncHeapPeak.total = Math.max(syncHeapPeak.total, metric(text, 'nodejs_heap_size_total_bytes'));
    syncHeapPeak.external = Math.max(syncHeapPeak.external, metric(text, 'nodejs_external_memory_bytes'));
    const w = metric(text, 'clusterpedia_synchro_rows_total', { outcome: 'written' });
    if (w > written) {
      written = w;
      lastProgress = performance.now();
    }
    if (written >= expected) break;
    if (written > 0 && performance.now() - lastProgress > 20_000 && metric(text, 'clusterpedia_synchro_queue_entries') === 0) break;
    if (child.exitCode !== null) throw new Error(`synchro exited with ${child.exitCode}`);
    if (performance.now() - t0 > 3_600_000) throw new Error('initial sync stalled');
    await new Promise((r) => setTimeout(r, scrapePause()));
  }
  const syncSeconds = (lastProgress - t0) / 1000;
  const stored = (await storage.counts()).reduce((n, x) => n + x.count, 0);
  const afterSync = rssOf(child.pid!);
  const rssAfterSync = afterSync.rss;
  const syncMetricsBytes = text.length;

  // Churn: the fleet changes at CHURN_EPS events/s; every 100 ms one marked change is timed from member to row.
  phase = 'churn';
  const received = (t: string): number => metric(t, 'clusterpedia_synchro_events_total') - metric(t, 'clusterpedia_synchro_events_total', { type: 'LIST' });
  const eventsBefore = received(text);
  const expiredListsBefore = metric(text, 'clusterpedia_synchro_lists_total', { reason: 'expired' });
  const statsBefore = await sim.request({ cmd: 'stats' });
  const made = CHURN_PACED ? await sim.request({ cmd: 'prechurn', rate: CHURN_EPS, seconds: CHURN_SECONDS }) : undefined;
  const releasedP = CHURN_PACED ? sim.wait('released') : undefined;
  await sim.request(CHURN_PACED ? { cmd: 'release', rate: CHURN_EPS } : { cmd: 'churn', rate: CHURN_EPS });
  const snapshot = SNAPSHOT_SECONDS > 0 ? setTimeout(() => child.kill('SIGUSR2'), SNAPSHOT_SECONDS * 1000) : undefined;
  const cpuBefore = { synchro: cpuSecondsOf(child.pid!), synchroMain: cpuSecondsOf(child.pid!, true), sim: cpuSecondsOf(sim.child.pid!), harness: cpuSecondsOf(process.pid) };
  const gcBefore = gcPauses(await scrape());
  // How far the synchro falls behind: its write queue, sampled.
  let queuePeak = 0;
  // Where the memory is when it peaks: V8 heap (used, reserved) and external memory (Buffers), from prom-client's
  // default metrics, sampled with the queue.
  const heapPeak = { used: 0, total: 0, external: 0 };
  let queueSampler: NodeJS.Timeout | undefined;
  const sampleQueue = (): void => {
    void scrape().then((t) => {
      queuePeak = Math.max(queuePeak, metric(t, 'clusterpedia_synchro_queue_entries'));
      heapPeak.used = Math.max(heapPeak.used, metric(t, 'nodejs_heap_size_used_bytes'));
      heapPeak.total = Math.max(heapPeak.total, metric(t, 'nodejs_heap_size_total_bytes'));
      heapPeak.external = Math.max(heapPeak.external, metric(t, 'nodejs_external_memory_bytes'));
      if (queueSampler !== undefined) queueSampler = setTimeout(sampleQueue, scrapePause());
    });
  };
  queueSampler = setTimeout(sampleQueue, scrapePause());
  // How late the simulator is: from asking for a mark to the simulator applying it (its event loop's lag).
  const simLag: number[] = [];
  const delays: number[] = [];
  const outstanding = new Set<{ cluster: string; namespace: string; name: string; rv: number; at: number }>();
  const tc = performance.now();
  let i = 0;
  let polling = false;
  // A mark's row can only come with a commit: its gets wait for the storage revision to move, or for a new mark. Every
  // 5 ms they had cost up to 3,200 gets a second for a synchro committing 3–5 batches a second, a quarter of a core of
  // the harness and as much of the PostgreSQL server, on the cores the synchro is measured on.
  let checkedAt = '';
  let marksAdded = false;
  /** A mark as the simulator reports it (made or released), outstanding until its row is in storage. */
  const track = (r: Record<string, unknown>): void => {
    outstanding.add({ cluster: String(r.cluster), namespace: String(r.namespace), name: String(r.name), rv: Number(r.rv), at: Number(r.at) });
    marksAdded = true;
  };
  const poller = setInterval(() => {
    if (polling) return;
    polling = true;
    void (async () => {
      const head = await storage.currentRevision();
      if (head === checkedAt && !marksAdded) return;
      checkedAt = head;
      marksAdded = false;
      // The oldest marks first, a bounded number per poll: a synchro that falls behind leaves hundreds outstanding,
      // and reading every one every 5 ms took the harness a core, taken from the synchro it measures (its rows commit
      // about in mark order; a younger mark found late counts a little long).
      for (const m of [...outstanding].slice(0, POLLED_MARKS)) {
        const row = await storage.get({ cluster: m.cluster, group: 'apps', version: 'v1', resource: 'deployments', namespace: m.namespace, name: m.name });
        if (row && Number(row.resourceVersion) >= m.rv && outstanding.delete(m)) delays.push(Date.now() - m.at);
      }
    })().finally(() => { polling = false; });
  }, 5);
  let released: Record<string, unknown> | undefined;
  if (releasedP) {
    // Paced: the marks were made with the changes and are stamped as the simulator releases them.
    sim.onMarked = track;
    released = await releasedP;
    sim.onMarked = () => undefined;
  }
  while (!releasedP && performance.now() - tc < CHURN_SECONDS * 1000) {
    const asked = Date.now();
    const r = await sim.request({ cmd: 'mark', i: i++ });
    simLag.push(Number(r.at) - asked);
    track(r);
    await new Promise((res) => setTimeout(res, 100));
  }
  const churnSeconds = (performance.now() - tc) / 1000;
  const churnCores = {
    synchro: (cpuSecondsOf(child.pid!) - cpuBefore.synchro) / churnSeconds,
    synchroMain: (cpuSecondsOf(child.pid!, true) - cpuBefore.synchroMain) / churnSeconds,
    sim: (cpuSecondsOf(sim.child.pid!) - cpuBefore.sim) / churnSeconds,
    harness: (cpuSecondsOf(process.pid) - cpuBefore.harness) / churnSeconds,
  };
  clearTimeout(queueSampler);
  queueSampler = undefined;
  clearTimeout(snapshot);
  const gcAfter = gcPauses(await scrape());
  if (!CHURN_PACED) await sim.request({ cmd: 'churn', rate: 0 });
  // What the synchro had taken in by the end of the churn: a synchro that falls behind catches up afterwards.
  const receivedByEnd = received(await scrape());
  const statsAfter = await sim.request({ cmd: 'stats' });
  const drainStart = performance.now();
  while (performance.now() - drainStart < 60_000) {
    // The marks are watched in storage (every 5 ms); the queue only once they are all in.
    if (outstanding.size === 0) {
      text = await scrape();
      if (metric(text, 'clusterpedia_synchro_queue_entries') === 0) break;
    }
    await new Promise((r) => setTimeout(r, outstanding.size === 0 ? scrapePause() : 20));
  }
  if (outstanding.size > 0) text = await scrape();
  clearInterval(poller);
  clearInterval(sampler);
  const catchUpSeconds = (performance.now() - drainStart) / 1000;
  const statsCaughtUp = await sim.request({ cmd: 'stats' });
  const eventsAfter = received(text);
  const peak = rssOf(child.pid!).peak;
  child.kill('SIGTERM');
  await exited;
  await storage.close();
  return {
    backend,
    memberObjects: expected,
    objects: written,
    stored,
    initialSyncSeconds: +syncSeconds.toFixed(1),
    objectsPerSecond: Math.round(written / syncSeconds),
    rssPeakSyncMB: mb(peakSync),
    rssAfterSyncMB: mb(rssAfterSync),
    metricsKB: Math.round(syncMetricsBytes / 1024),
    // What the RSS after the sync is made of: anonymous / file-backed; the main thread's V8 heap and external memory
    // (the peaks over the sync, from /metrics; the writer thread's heap is in the anonymous part, not in these).
    afterSyncAnonFileMB: `${mb(afterSync.anon)} / ${mb(afterSync.file)}`,
    syncHeapUsedTotalExternalPeakMB: `${mb(syncHeapPeak.used)} / ${mb(syncHeapPeak.total)} / ${mb(syncHeapPeak.external)}`,
    rssPeakChurnMB: mb(peakChurn),
    rssHighWaterMB: mb(peak),
    rssAnonPeakMB: mb(peakAnon),
    churnMode: CHURN_PACED ? 'paced' : 'live',
    // Paced: the events the watchers were given over the release; live: the changes the members made.
    memberEventsPerSecond: released ? Math.round(Number(released.events) / Number(released.seconds)) : Math.round((Number(statsAfter.revisions) - Number(statsBefore.revisions)) / churnSeconds),
    ...(made ? { churnMadeAheadEvents: Number(made.events), churnMadeAheadSeconds: Number(made.seconds) } : {}),
    churnSeconds: +churnSeconds.toFixed(1),
    receivedEventsPerSecond: Math.round((receivedByEnd - eventsBefore) / churnSeconds),
    receivedEvents: eventsAfter - eventsBefore,
    catchUpSeconds: +catchUpSeconds.toFixed(1),
    // Watches the members closed because the synchro had stopped reading them (kube's unresponsive watcher), and the
    // lists that followed a 410 when it watched again from too old a point.
    watchesClosedByMembers: Number(statsCaughtUp.unresponsiveWatchesClosed) - Number(statsBefore.unresponsiveWatchesClosed),
    listsOnExpired: metric(text, 'clusterpedia_synchro_lists_total', { reason: 'expired' }) - expiredListsBefore,
    meanWriteBatch: Math.round(metric(text, 'clusterpedia_synchro_write_batch_size_sum') / Math.max(1, metric(text, 'clusterpedia_synchro_write_batch_size_count'))),
    marks: delays.length,
    unmatchedMarks: outstanding.size,
    delayP50ms: percentile(delays, 50),
    delayP99ms: percentile(delays, 99),
    delayMaxms: percentile(delays, 100),
    churnQueuePeak: queuePeak,
    churnHeapUsedPeakMB: mb(heapPeak.used),
    churnHeapTotalPeakMB: mb(heapPeak.total),
    churnExternalPeakMB: mb(heapPeak.external),
    churnSynchroCores: +churnCores.synchro.toFixed(2),
    churnSynchroMainThreadCores: +churnCores.synchroMain.toFixed(2),
    churnSimulatorCores: +churnCores.sim.toFixed(2),
    churnHarnessCores: +churnCores.harness.toFixed(2),
    // The event loop's garbage-collection pauses over the churn (prom-client's nodejs_gc_duration_seconds, by kind):
    // share of the churn's wall time, and how many. V8's helper threads' share is in churnSynchroCores only.
    churnGcPauses: Object.fromEntries(GC_KINDS.map((k) => [k, `${((gcAfter[k].seconds - gcBefore[k].seconds) / churnSeconds * 100).toFixed(1)} % (${gcAfter[k].count - gcBefore[k].count})`])),
    simulatorLagP50ms: percentile(simLag, 50),
    simulatorLagP99ms: percentile(simLag, 99),
  };
}

/** The ceiling: the same number of rows, shaped like the simulator's pods, written straight through storage.write. */
async function rawInsert(db: Db, sample: SimObject[], n: number): Promise<{ rows: number; seconds: number; rowsPerSecond: number }> {
  const storage = await open(db.url);
  let seconds = 0;
  for (let i = 0; i < n; i += 1000) {
    const batch: UpsertObject[] = [];
    for (let j = i; j < Math.min(n, i + 1000); j++) {
      const base = sample[j % sample.length]!;
      const cluster = `cluster-${j % CLUSTERS}`;
      const meta = { ...base.metadata, name: `${base.metadata.name}-${j}`, uid: `uid-${j}`, annotations: { ...(base.metadata.annotations ?? {}), 'shadow.clusterpedia.io/cluster-name': cluster } };
      delete (meta as { managedFields?: unknown }).managedFields;
      batch.push({ cluster, group: '', version: 'v1', resource: 'pods', kind: 'Pod', object: { ...base, apiVersion: 'v1', kind: 'Pod', metadata: meta } as UpsertObject['object'] });
    }
    const t = performance.now();
    await storage.write({ upserts: batch, deletes: [] });
    seconds += (performance.now() - t) / 1000;
  }
  await storage.close();
  return { rows: n, seconds: +seconds.toFixed(1), rowsPerSecond: Math.round(n / seconds) };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(os.tmpdir(), 'cp-bench-synchro-files-'));
  const clustersFile = join(dir, 'clusters.yaml');
  const { sim, ready } = await Sim.start(clustersFile);
  const pg = BACKENDS.includes('postgres') ? await startPostgres() : undefined;
  const results: Record<string, unknown>[] = [];
  try {
    const sample = (await sim.request({ cmd: 'sample', n: 500 })).sample as SimObject[];
    let n = 0;
    for (const backend of BACKENDS) {
      const expected = Number((await sim.request({ cmd: 'stats' })).objects);
      const syncDb = await freshDb(backend, pg, n++);
      // Dropped however the run ends: a failed one left its SQLite file (hundreds of MB at this scale) behind.
      const sync = await syncRun(backend, syncDb, sim, clustersFile, expected).finally(() => syncDb.drop());
      const rawDb = await freshDb(backend, pg, n++);
      const raw = await rawInsert(rawDb, sample, Math.min(expected, RAW_ROWS)).finally(() => rawDb.drop());
      const r = { ...sync, rawRowsPerSecond: raw.rowsPerSecond, ratioToRaw: +(Number(sync.objectsPerSecond) / raw.rowsPerSecond).toFixed(2) };
      process.stderr.write(`${JSON.stringify(r)}\n`);
      results.push(r);
    }
  } finally {
    await sim.request({ cmd: 'stop' }).catch(() => undefined);
    sim.child.kill();
    pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  console.log(JSON.stringify({
    date: new Date().toISOString().slice(0, 10),
    machine: `${cpu}, ${os.cpus().length} cores, ${mb(os.totalmem())} MB RAM, Node ${process.version}`,
    clusters: CLUSTERS, podsPerCluster: PODS, churnEventsPerSecond: CHURN_EPS, churnSeconds: CHURN_SECONDS,
    simulatorStartSeconds: ready.startSeconds, results,
  }, null, 2));
}

main().catch((e: unknown) => {
  process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});

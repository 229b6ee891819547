// Overload run: many concurrent clients and open watches against the bundle's apiserver with inflight limits, while
// storage changes underneath. Every answer must be 200 or 429 (with Retry-After), no request may hang, watches are
// accepted or refused with 429, memory stays bounded, and the server answers normally afterwards.
import { Agent } from 'undici';
import { manyListenersController } from '../../../src/lib/lifecycle.js';
import { silentLogger } from '../../../src/lib/log.js';
import { openStorage } from '../../../src/storage/open.js';
import type { Storage } from '../../../src/storage/types.js';
import { clusterName, NAMESPACES, type DatasetShape } from '../dataset.js';
import { inFlightAfter } from '../fuzz/run.js';
import { startTarget } from '../fuzz/target.js';
import { Rng } from '../fuzz/prng.js';

const P = '/apis/clusterpedia.io/v1beta1/resources';
const C = '/apis/clusterpedia.io/v1beta1/collectionresources';
/** A request that has no status line after this long is a hang. */
const HANG_MS = 30_000;

export interface OverloadOptions {
  clients: number;
  watches: number;
  durationMs: number;
  maxRequestsInflight: number;
  maxWatchesInflight: number;
  /** Config maps changed per second during the load (watch traffic). */
  writesPerSecond: number;
  seed: number;
  shape?: DatasetShape;
  progress?: (line: string) => void;
}

export interface LatencySummary {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

export interface OverloadReport {
  options: Omit<OverloadOptions, 'progress'>;
  serverArgs: string[];
  objects: number;
  durationMs: number;
  requests: number;
  /** Status code (or 'hang' / 'error:<code>') → count, non-watch requests. */
  byStatus: Record<string, number>;
  ok: LatencySummary;
  rejected: LatencySummary;
  /** 200s per second over the load. */
  throughput: number;
  watches: { accepted: number; rejected: number; other: Record<string, number>; withEvents: number; eventWatchers: number; events: number; cutEarly: number };
  retryAfterMissing: number;
  /** Problems worth failing for (5xx, hangs, errors, missing Retry-After, watches closed early). */
  problems: string[];
  rss: { startMiB: number; peakMiB: number; endMiB: number };
  after: { statuses: number[]; maxMs: number; watchStatus: number };
  crashed: boolean;
  serverLogProblems: string[];
  writes: number;
}

function summary(xs: number[]): LatencySummary {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number): number => (s.length ? (s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] as number) : NaN);
  return { count: s.length, p50: at(50), p99: at(99), max: s.length ? (s[s.length - 1] as number) : NaN };
}

/**
 * The request mix of a client: paged lists with selectors, small unpaged lists, gets, tables, discovery, collections,
 * and every pod unpaged. That list (2,000 pods with the default shape: more than a page read at once) streams from a
 * cursor across event-loop turns, so requests really overlap: on SQLite every other answer is written within one turn
 * (reads are synchronous), and without it the inflight limit is never reached however many clients there are.
 */
function nextPath(rng: Rng): { path: string; accept?: string } {
  const c = clusterName(rng.range(0, 4));
  return rng.weighted<() => { path: string; accept?: string }>([
    [30, () => ({ path: `${P}/api/v1/pods?limit=50${rng.chance(0.5) ? `&labelSelector=${encodeURIComponent(`tier=${rng.pick(['frontend', 'backend'])}`)}` : ''}` })],
    [10, () => ({ path: `${P}/clusters/${c}/apis/apps/v1/deployments` })],
    [10, () => {
      const d = rng.range(0, 79);
      return { path: `${P}/clusters/${c}/api/v1/namespaces/${NAMESPACES[d % NAMESPACES.length]}/configmaps/app-${d}-config` };
    }],
    [10, () => ({ path: `${P}/api/v1/pods?limit=100&fieldSelector=${encodeURIComponent(`status.phase=${rng.pick(['Running', 'Pending'])}`)}`, accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' })],
    [10, () => ({ path: rng.pick(['/apis', `${P}/apis`, `${P}/api/v1`, `${P}/apis/apps/v1`, `${P}/clusters/${c}/apis`]) })],
    [10, () => ({ path: `${C}/any?groups=apps&limit=20` })],
    [10, () => ({ path: `${P}/apis/apps/v1/replicasets?limit=20&orderby=${encodeURIComponent('created_at desc')}` })],
    [5, () => ({ path: rng.pick(['/version', '/healthz', '/readyz']) })],
    [5, () => ({ path: `${P}/api/v1/namespaces?clusters=${c}` })],
    [5, () => ({ path: `${P}/api/v1/pods` })],
  ])();
}

async function sleep(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

/** Changes config maps at a steady rate so that accepted watches carry events. */
async function writer(storage: Storage, perSecond: number, until: () => boolean): Promise<number> {
  let n = 0;
  const interval = 1000 / Math.max(perSecond, 0.001);
  while (!until() && perSecond > 0) {
    const d = n % 80;
    const cluster = clusterName(n % 5);
    await storage.write({
      upserts: [{
        cluster, group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap',
        object: {
          apiVersion: 'v1', kind: 'ConfigMap',
          metadata: { name: `app-${d}-config`, namespace: 'default', uid: `load-${cluster}-${d}`, resourceVersion: String(10_000_000 + n), creationTimestamp: '2024-01-01T00:00:00Z', labels: { app: `app-${d}` }, annotations: { 'shadow.clusterpedia.io/cluster-name': cluster } },
          data: { 'config.yaml': `generation: ${n}\n` },
        },
      }],
      deletes: [],
    });
    n++;
    await sleep(interval);
  }
  return n;
}

export async function runOverload(o: OverloadOptions): Promise<OverloadReport> {
  const target = await startTarget({
    ...(o.shape ? { shape: o.shape } : {}),
    args: ['--max-requests-inflight', String(o.maxRequestsInflight), '--max-watches-inflight', String(o.maxWatchesInflight)],
  });
  const { progress, ...options } = o;
  const report: OverloadReport = {
    options, serverArgs: target.args, objects: target.objects, durationMs: 0, requests: 0, byStatus: {}, ok: summary([]), rejected: summary([]), throughput: 0,
    watches: { accepted: 0, rejected: 0, other: {}, withEvents: 0, eventWatchers: 0, events: 0, cutEarly: 0 }, retryAfterMissing: 0, problems: [],
    rss: { startMiB: target.memory().rssMiB, peakMiB: 0, endMiB: 0 }, after: { statuses: [], maxMs: 0, watchStatus: 0 }, crashed: false, serverLogProblems: [], writes: 0,
  };
  const problem = (s: string): void => {
    if (report.problems.length < 50) report.problems.push(s);
  };
  const clientAgent = new Agent({ connections: o.clients + 8, pipelining: 1, headersTimeout: HANG_MS, bodyTimeout: HANG_MS, keepAliveTimeout: 30_000 });
  const watchAgent = new Agent({ connections: o.watches + 8, pipelining: 1, headersTimeout: HANG_MS, bodyTimeout: 0, keepAliveTimeout: 30_000 });
  const storage = await openStorage({ url: target.storageUrl }, { logger: silentLogger() });
  const rssSampler = setInterval(() => {
    const m = target.memory();
    if (m.peakMiB > report.rss.peakMiB) report.rss.peakMiB = m.peakMiB;
  }, 250);
  try {
    // 1. Open every watch at once; keep the accepted ones reading until the end.
    const rev = await storage.currentRevision();
    // One signal ends every watch: it has one listener per watch, on purpose.
    const stopWatches = manyListenersController();
    const watchDone: Promise<void>[] = [];
    const opened = await Promise.all(Array.from({ length: o.watches }, async (_, i) => {
      const onConfigMaps = i % 2 === 0;
      const path = onConfigMaps
        ? `${P}/api/v1/configmaps?watch=true&resourceVersion=${rev}&allowWatchBookmarks=true&timeoutSeconds=${Math.ceil(o.durationMs / 1000) + 120}`
        : `${P}/${i % 4 === 1 ? 'api/v1/pods' : 'apis/apps/v1/deployments'}?watch=true&resourceVersion=${rev}&labelSelector=${encodeURIComponent(`app=app-${i % 80}`)}`;
      try {
        const r = await watchAgent.request({ origin: target.origin, path, method: 'GET', signal: stopWatches.signal });
        if (r.statusCode === 200) {
          report.watches.accepted++;
          if (onConfigMaps) report.watches.eventWatchers++;
          watchDone.push((async () => {
            let events = 0;
            try {
              for await (const chunk of r.body as AsyncIterable<Buffer>) events += chunk.toString('utf8').split('\n').filter((l) => l.includes('"type"')).length;
              // The server ended a watch we had not closed: only its timeout (longer than the run) may do that.
              report.watches.cutEarly++;
            } catch {
              // our own hang-up at the end
            }
            report.watches.events += events;
            if (events > 0) report.watches.withEvents++;
          })());
          return 200;
        }
        if (r.statusCode === 429) {
          report.watches.rejected++;
          if (!r.headers['retry-after']) report.retryAfterMissing++;
        } else report.watches.other[r.statusCode] = (report.watches.other[r.statusCode] ?? 0) + 1;
        await r.body.dump();
        return r.statusCode;
      } catch (e: unknown) {
        const code = (e as { code?: string }).code ?? 'error';
        report.watches.other[code] = (report.watches.other[code] ?? 0) + 1;
        return 0;
      }
    }));
    void opened;
    progress?.(`watches: ${report.watches.accepted} accepted, ${report.watches.rejected} refused with 429, other ${JSON.stringify(report.watches.other)}`);

    // 2. Clients in closed loops for the duration, with storage changing underneath.
    const started = Date.now();
    const deadline = started + o.durationMs;
    const writes = writer(storage, o.writesPerSecond, () => Date.now() >= deadline);
    const okMs: number[] = [];
    const rejectedMs: number[] = [];
    const root = new Rng(o.seed);
    let lastProgress = started;
    const client = async (rng: Rng): Promise<void> => {
      while (Date.now() < deadline) {
        const { path, accept } = nextPath(rng);
        const t0 = performance.now();
        const ac = new AbortController();
        const hang = setTimeout(() => ac.abort(), HANG_MS);
        let key: string;
        try {
          const r = await clientAgent.request({ origin: target.origin, path, method: 'GET', headers: accept ? { accept } : {}, signal: ac.signal });
          await r.body.dump({ limit: Number.MAX_SAFE_INTEGER });
          const ms = performance.now() - t0;
          key = String(r.statusCode);
          if (r.statusCode === 200) okMs.push(ms);
          else if (r.statusCode === 429) {
            rejectedMs.push(ms);
            const retry = Number(r.headers['retry-after']);
            if (!retry) report.retryAfterMissing++;
            // Back off as client-go does on 429, shortened so the server stays saturated.
            await sleep(Math.min(retry || 1, 1) * 1000 * (0.05 + rng.next() * 0.2));
          } else problem(`${r.statusCode} for ${path}`);
        } catch (e: unknown) {
          key = ac.signal.aborted ? 'hang' : `error:${(e as { code?: string }).code ?? 'unknown'}`;
          problem(`${key} for ${path}`);
        } finally {
          clearTimeout(hang);
        }
        report.requests++;
        report.byStatus[key] = (report.byStatus[key] ?? 0) + 1;
        if (progress && Date.now() - lastProgress > 10_000) {
          lastProgress = Date.now();
          progress(`${report.requests} requests, ${Math.round(okMs.length / ((Date.now() - started) / 1000))} ok/s, rss ${target.memory().rssMiB.toFixed(0)} MiB, ${JSON.stringify(report.byStatus)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: o.clients }, () => client(root.fork())));
    report.durationMs = Date.now() - started;
    report.writes = await writes;
    report.ok = summary(okMs);
    report.rejected = summary(rejectedMs);
    report.throughput = okMs.length / (report.durationMs / 1000);
    // Let the last changes reach the watches (the feed polls), then hang up.
    await sleep(1500);
    report.crashed = !target.alive();
    stopWatches.abort();
    await Promise.all(watchDone);
    if (report.watches.cutEarly) problem(`${report.watches.cutEarly} accepted watches were ended by the server during the run`);
    if (report.retryAfterMissing) problem(`${report.retryAfterMissing} 429 answers without Retry-After`);
    // Every client has gone: nothing may stay in flight (a slot never given back shrinks --max-requests-inflight).
    const left = await inFlightAfter(clientAgent, target.origin);
    if (left.requests || left.watches) problem(`${left.requests} requests and ${left.watches} watches still in flight after every client had gone`);

    // 3. Afterwards the server answers normally.
    await sleep(500);
    for (const path of [`${P}/api/v1/pods?limit=10`, `${P}/apis/apps/v1/deployments?limit=5`, `${C}/any?groups=apps&limit=5`, '/readyz', `${P}/api`]) {
      const t0 = performance.now();
      const r = await clientAgent.request({ origin: target.origin, path, method: 'GET' });
      await r.body.dump();
      report.after.statuses.push(r.statusCode);
      report.after.maxMs = Math.max(report.after.maxMs, performance.now() - t0);
    }
    const w = await watchAgent.request({ origin: target.origin, path: `${P}/api/v1/configmaps?watch=true&timeoutSeconds=1&resourceVersion=${await storage.currentRevision()}`, method: 'GET' });
    report.after.watchStatus = w.statusCode;
    await w.body.dump();
    report.rss.endMiB = target.memory().rssMiB;
    report.rss.peakMiB = Math.max(report.rss.peakMiB, target.memory().peakMiB);
    report.crashed = !target.alive();
    report.serverLogProblems = target.problems().slice(0, 30);
  } finally {
    clearInterval(rssSampler);
    await storage.close();
    await clientAgent.close().catch(() => undefined);
    await watchAgent.destroy().catch(() => undefined);
    await target.stop();
  }
  return report;
}

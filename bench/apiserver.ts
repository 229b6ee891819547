// Apiserver benchmark: at 1M stored pods, the storage benchmark's list queries through HTTP beside the same queries on
// storage (ratio), an unpaged 100,000-pod list and kubectl paging through it (time, apiserver peak RSS), and 200
// concurrent clients for 30 s. The apiserver is the shipped bundle in its own process. Writes "## Apiserver" of
// BENCHMARKS.md. Env: BENCH_ROWS (1000000), BENCH_DB (SQLite file: reused when it holds data, else built and kept),
// BENCH_BACKENDS (sqlite; sqlite,postgres), BENCH_CLIENTS (200), BENCH_LOAD_SECONDS (30), BENCH_LIST_PODS (100000),
// BENCH_WRITE (1; 0 prints only), BENCH_BUNDLE (another build of the bundle, to compare a change; implies BENCH_WRITE=0),
// CLUSTERPEDIA_BENCH_POSTGRES_URL (else a throwaway server on a loopback port).
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { silentLogger } from '../src/lib/log.js';
import { openStorage } from '../src/storage/open.js';
import { startPostgres, type PostgresServer } from '../test/support/postgres-server.js';
import { ensureDataset } from './apiserver-data.js';
import { newAgent } from './apiserver-http.js';
import { addServerTimes, measureLatencies } from './apiserver-latency.js';
import { addKubectlPages, kubectlList, storageList, unpagedList } from './apiserver-list.js';
import { addLoadServerTimes, runLoad } from './apiserver-load.js';
import { BUNDLE, cpuSecondsOf, memoryOf, MemorySampler, startApiserver, type Apiserver } from './apiserver-process.js';
import { bigListClusters, clustersSelector, querySet, tokenOfPage } from './apiserver-queries.js';
import { report, type BackendResult } from './apiserver-report.js';
import { machine, replaceSection } from './storage-report.js';
import { envNumber } from './env.js';

const ROWS = envNumber('BENCH_ROWS', 1_000_000);
const CLIENTS = envNumber('BENCH_CLIENTS', 200);
const LOAD_SECONDS = envNumber('BENCH_LOAD_SECONDS', 30);
const LIST_PODS = envNumber('BENCH_LIST_PODS', 100_000);
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'sqlite').split(',').filter(Boolean);
/** Above the 200 clients so none is refused with 429 (the apiserver's default, stated explicitly). */
const MAX_INFLIGHT = Math.max(400, CLIENTS * 2);
const MB = 1_048_576;
/** A build to compare with the shipped one; its figures never go to BENCHMARKS.md. */
const BUNDLE_UNDER_TEST = process.env.BENCH_BUNDLE ?? BUNDLE;
const WRITE = process.env.BENCH_WRITE !== '0' && BUNDLE_UNDER_TEST === BUNDLE;

/** What the figures cannot say themselves (the dated ones were measured once, by hand, beside a run of this harness). */
const NOTES = [
  'The machine is small and shared: the harness (client, kubectl) and PostgreSQL run on the same 2 cores as the apiserver, and earlier runs had other tests beside them (the load averages above say how busy it was). One more trap, seen in a run at a636075 that is not reported: right after the PostgreSQL benchmark had loaded 4.5 GB, the SQLite file was no longer in the OS page cache and the first 0.1 % label matches read from disk (storage p99 812 ms, HTTP p99 715 ms); the run above came after one warming run. The latency part interleaves storage and HTTP sample by sample, alternating which goes first, so both sides see the same contention; the ratios are the comparable figures, the absolute milliseconds are not a quiet machine\'s.',
  '**HTTP overhead.** The two sides do not do the same work: storage hands back each row; the apiserver also parses the URL and selectors, checks access, renders the list envelope, moves ~2.2 MB per page through the socket and logs the request. Since 6d91d87 a JSON page served as stored on SQLite is read joined (`listJoined`, `src/storage/README.md`): the page\'s ids, sizes and sort keys first, then one `group_concat` of the objects in that order, so the page arrives as one buffer and goes to the socket as it is — no row objects, no Buffer per row, no copy into 64 KB chunks. Unlimited lists that turn out to hold at most 1,000 rows are joined too (a6d4fe6; the probe costs ~2.5 ms on the 100,000-pod list, which then streams as before). That read takes about two thirds of the storage benchmark\'s row read of the same page (the "served" column), so the apiserver answers a 500-row page in about the time storage alone needs to hand back its rows (0.88–1.41× in the runs at 0ef9385, 0.97–1.17× in those at a6d4fe6). What remains over the served read (1.2–2.0×; "served" is read in the harness right after the same rows, so its caches are often warm) is moving 2.2 MB through loopback (`writev`, where the sender\'s syscall also does the receiver\'s TCP work) and the per-request fixed costs. Those fixed costs decide small answers: a CPU profile of 2,000 owner searches (24 pods, 100 KB; 2026-11-30) put per request ~0.26 ms in `writev`, ~0.17 ms in routing, access checks and the request\'s own bookkeeping, ~0.07 ms in the log line and ~0.26 ms in GC (profiler-inflated), against 0.8 ms for the query on storage: the owner search stays at ~2.1–2.3×. Timed inside the apiserver (2026-11-30, 0ef9385, 2,000 owner searches of random clusters and Deployments one after another): 47 µs from dispatch to the handler, 70 µs parsing options and checking access, 640 µs in `listJoined`, 260 µs sending the 100 KB (one `writev` on loopback, where the sender\'s syscall also runs the receiver\'s TCP), 23 µs after it and 48 µs for the log line (p50s). The same loop without the harness\'s own storage reads between the requests gave a server p50 of 1.2 ms instead of 1.6 ms: with the harness working in between, each request finds the apiserver idle and its caches cold. A single get was 0.5–0.7 ms (4×); sending the stored text as it is instead of parsing and serialising it, and reusing the get\'s prepared statement, brought it to 0.4 ms (an A/B on the same file: 0.6–0.7 → 0.4 ms), which against storage\'s 0.1 ms is still 6×. A CPU profile of 4,000 gets one after another (2026-12-01, a 121,000-row file) put ~470 µs of the apiserver\'s CPU on each: ~130 µs inside the one `writev` of its 4.3 KB answer, ~50 µs the storage read, ~36 µs the log line (redaction included), the rest Node\'s HTTP parsing, routing and GC. This machine is a nested Firecracker guest with page-table isolation, where a syscall costs several times what it does on bare metal: the fixed costs, not the query, decide the ratio of answers this small. GC changed shape: with few JS objects per page, scavenges are rare and the dead page buffers (external memory) are reclaimed by mark-compacts instead (`--trace-gc`, 400 one-namespace pages: 20 scavenges and 27 mark-compacts, against 44 and 49 with a Buffer per row; 8.7 against 14.9 ms per request from the client in that A/B).',
  '**RSS and SQLite\'s mmap.** RSS is VmRSS of the apiserver. Until commit 2178e65 every SQLite connection mapped up to 256 MiB of the database file (`mmap_size`): file-backed pages the kernel can drop, but counted in RSS once per mapping — the 100,000-pod JSON list then peaked at 442 MB (303 MB of it file-backed) and the 200-client run at 1.8 GB (825 MB file). Read connections no longer map the file (`src/storage/sqlite/connection.ts`; since 873adfb the writer does not either), at no measured cost in list latency. The anonymous part is ~170 MB on SQLite and ~130 MB on PostgreSQL while streaming 100,000 pods with `--heap-growing-percent 50` (~140–210 MB on either without it); under 200 concurrent clients it is the pages in flight (200 clients: below). The streaming peak depends mostly on what the process did before it: a probe (2026-11-30) that starts the apiserver and lists the 100,000 pods at once peaked at 169–170 MB both at 7f30c40 and with bytes at 02f44c7; after 300 limit-500 pages first, the process already sat at 248–254 MB (V8\'s old generation grown with page garbage not yet collected) and peaked at 248–296 MB, again for both builds. In this benchmark the list follows the latency part, so the 193 MB (7f30c40) and 259 MB (02f44c7) are two draws of that heap state rather than a difference between the builds. A smaller young generation did not help (`--max-semi-space-size=4` raised the peak to 339 MB: list pages promoted before they die); a tighter old generation did: `--heap-growing-percent 50` (now the default) left the probe at 203–204 MB after the 300 pages and peaking at 206–210 MB, and in this benchmark the streaming peaks went from 259 to 215 MB (SQLite) and 263 to 177 MB (PostgreSQL).',
  '**200 clients.** On SQLite the apiserver\'s one thread is the bottleneck: 130–174 requests/s at 6.5–7.8 ms of CPU each with joined pages (~111/s at 10.8 ms before them). Until f5c3b8a the outstanding requests waited unread in the kernel\'s socket buffers (`ss` showed ~180 of the 200 server sockets holding an unread request) and were picked up unevenly: some clients completed 1–2 requests in 30 s while others completed 50–90, a client p99 of ~30 s while the server-side p99 (from dispatch) stayed under 35 ms. A plain Node `http` server reproduces it (2026-11-30: 8 ms of synchronous work and a 2.2 MB body per request, 200 undici clients for 15 s: 1 to 18 answers per client, p99 16.6 s); started straight from the parser, the synchronous stretches ran back to back in the same turn of the event loop, and deferring each to `setImmediate` did not change it (1 to 15, p99 16.6 s). Letting one request start per turn, in arrival order, puts the loop\'s poll between any two: the plain server then served every client 9–10 times at p99 1.9 s with the same throughput, and the apiserver (f5c3b8a, 0ef9385) 19–27 times each, client p99 1.8–2.3 s, max 2.6–3.1 s — about the ~1.3 s it takes to serve one request of each of the 200 clients, plus the variance of the mix. One per turn starved the binding role, though, where the synchro\'s page parsing and write batches fill each turn: reads during an initial sync fell from 61–70 to 10 per second. Since b6240c3 (`src/lib/turns.ts`) a turn starts queued work while a budget lasts — 10 ms, or half of what other work took in the turn before, up to 100 ms — and the binding\'s write batches take turns in the same queue: binding reads 55/s (p50 129 ms), and here 173.9 requests/s with every client served 24–35 times, client p99 3.1 s. Since requests are now read as they arrive, `--max-requests-inflight` counts them and sheds the excess with 429 (`npm run overload`, RELIABILITY.md). `/healthz`, `/readyz`, `/livez` and `/metrics` skip the queue. On PostgreSQL the database is the bottleneck (pool of 10 connections, ~42 pages/s); the apiserver reads every request at once and they queue in order for a connection, so clients are served evenly (6–8 requests each) and even a get waits seconds behind the lists. Memory grows with concurrency: every in-flight list holds its whole page (pages of up to 1,000 rows are read at once). On SQLite a joined page is one ~2 MB buffer, and the 200-client peak went from 572–645 MB (a Buffer per row plus the 64 KB copies made of them) to 232–237 MB; `--max-requests-inflight` is the only bound.',
  '**PostgreSQL lists over several clusters.** The 100,000-pod list (10 clusters) starts after 43 ms through HTTP and 25 ms on storage directly (SQLite: 4–20 ms), where it took ~0.4 s and ~0.5 s at 858b386 and ~3.4 s and ~4.4 s before 0184ed8. With `cluster = ANY(…)` PostgreSQL 15 cannot keep `resources_key`\'s order, so it planned a parallel seq scan and a Sort of the whole rows, `object::text` included, with the default 4 MB `work_mem` (EXPLAIN, 2026-11-30); a limited page instead walked the index in order, fetching and discarding every row of the clusters in between. Each cluster\'s ordered list is now read in turn on one snapshot until the page is full (`src/storage/README.md`, "Several clusters"): at 200,000 pods in 100 clusters a 500-row page of two late clusters went 83 → 34 ms, and the first row of an unlimited list of 10 clusters 886 → 17 ms. The ~0.4 s left at 1.1 M rows (17 ms at 200,000) was the cursor: postgres.js\'s protocol-level cursor is planned for the whole result, and PostgreSQL chose to read the first cluster\'s 10,000 pods through `resources_owner` and sort them, 47 MB spilled to disk, before the first row (EXPLAIN ANALYZE: 420 ms). A cursor declared in SQL (`DECLARE … CURSOR`, then `FETCH`) is planned for its first rows (`cursor_tuple_fraction`) and walks `resources_key` in order: 6.5 ms to the first 100 rows, and the whole cluster 575 against 675 ms (2bdf000). Through the apiserver, two runs each on the same server: first byte 470–555 → 59–95 ms, total JSON 7.0–8.3 → 6.9–7.8 s, Table 10.5–11.1 → 9.5–10.2 s.',
  '**kubectl.** `kubectl get --chunk-size 500` fetches pages one after another through client-go\'s default client-side rate limiter (5 requests/s after a burst of 10, counted from kubectl\'s own `-v=4` lines), so 200 pages take at least ~38 s however fast the server is; the apiserver\'s share is the server-side sum above.',
];

interface Target {
  url: string;
  version: string;
  /** Drops what this run created (a SQLite file not asked to be kept, a throwaway PostgreSQL server). */
  cleanup(): Promise<void>;
}

async function sqliteTarget(dir: string): Promise<Target> {
  const keep = process.env.BENCH_DB;
  const file = keep ?? join(dir, 'bench.db');
  const db = new Database(':memory:');
  const version = (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  db.close();
  return { url: `sqlite:${file}`, version, cleanup: async () => undefined };
}

async function postgresTarget(): Promise<Target> {
  let server: PostgresServer | undefined;
  let base = process.env.CLUSTERPEDIA_BENCH_POSTGRES_URL;
  if (!base) {
    server = await startPostgres();
    base = server.url;
  }
  const admin = postgres(base, { max: 1, onnotice: () => undefined });
  try {
    // An external server keeps the database between runs (the data set takes minutes to write); a throwaway one goes.
    const exists = await admin`SELECT 1 FROM pg_database WHERE datname = 'clusterpedia_bench_apiserver'`;
    if (exists.length === 0) await admin.unsafe('CREATE DATABASE clusterpedia_bench_apiserver');
    const v = await admin<{ v: string }[]>`SELECT current_setting('server_version') AS v`;
    const u = new URL(base);
    u.pathname = '/clusterpedia_bench_apiserver';
    // A throwaway server also stops on its own if the harness dies early (startPostgres).
    return { url: u.toString(), version: v[0]?.v ?? '?', cleanup: async () => server?.stop() };
  } catch (e: unknown) {
    server?.stop();
    throw e;
  } finally {
    await admin.end();
  }
}

async function runBackend(backend: string, target: Target, dir: string): Promise<BackendResult> {
  const dataset = await ensureDataset(target.url, ROWS);
  const loadBefore = os.loadavg()[0] ?? 0;
  const storage = await openStorage({ url: target.url }, { logger: silentLogger() });
  let api: Apiserver | undefined;
  const agent = newAgent(CLIENTS + 8);
  try {
    const page200 = await tokenOfPage(storage, 200);
    const queries = querySet(dataset, page200);
    api = await startApiserver(target.url, dir, ['--max-requests-inflight', String(MAX_INFLIGHT)], BUNDLE_UNDER_TEST);
    const pid = api.pid;
    const idleRss = memoryOf(pid)?.rss ?? 0;

    process.stderr.write(`${backend}: latency, storage beside HTTP\n`);
    const latMem = new MemorySampler(pid).start();
    const latency = await measureLatencies(storage, agent, api.base, queries);
    const latencyPeak = latMem.stop();

    const clusters = bigListClusters(dataset, LIST_PODS);
    const selector = clustersSelector(clusters);
    const bigListPods = clusters.length * dataset.podsPerCluster;
    process.stderr.write(`${backend}: unpaged list of ${bigListPods} pods, JSON and Table; kubectl\n`);
    const lists = [
      await storageList(storage, clusters, bigListPods),
      await unpagedList(agent, api.base, pid, selector, false, bigListPods),
      await unpagedList(agent, api.base, pid, selector, true, bigListPods),
      // As kubectl and client-go ask for it: compressed past 128 KiB, zlib on libuv's pool.
      await unpagedList(agent, api.base, pid, selector, false, bigListPods, true),
      await kubectlList(api.base, pid, selector, bigListPods),
    ];
    for (const l of lists) process.stderr.write(`  ${l.what}: ${l.seconds.toFixed(1)} s, first ${l.ttfbMs.toFixed(0)} ms, ${l.items} pods, peak RSS ${Math.round(l.memory.rss / MB)} MB\n`);

    process.stderr.write(`${backend}: ${CLIENTS} clients for ${LOAD_SECONDS} s\n`);
    const loadMem = new MemorySampler(pid).start();
    const cpu0 = cpuSecondsOf(pid);
    const load = await runLoad(agent, api.base, queries, CLIENTS, LOAD_SECONDS);
    const loadCpuSeconds = cpuSecondsOf(pid) - cpu0;
    const loadPeak = loadMem.stop();
    process.stderr.write(`  ${load.perSecond.toFixed(1)} req/s, p99 ${load.p99.toFixed(0)} ms, errors ${load.errors}\n`);

    // The request log is complete once the process has flushed and exited.
    await api.stop();
    const log = api.requests();
    addServerTimes(latency, log);
    addLoadServerTimes(load, log);
    addKubectlPages(lists, log);
    return {
      backend, version: target.version, dataset, bigListPods, bigListClusters: clusters.length, idleRssMB: idleRss / MB,
      latency, latencyPeakRssMB: latencyPeak.rss / MB, lists, load, loadPeak: { rss: loadPeak.rss, anon: loadPeak.anon, file: loadPeak.file }, loadCpuSeconds,
      loadavg: [loadBefore, os.loadavg()[0] ?? 0],
    };
  } finally {
    await api?.stop();
    await agent.close();
    await storage.close();
  }
}

async function main(): Promise<void> {
  // Ctrl-C or SIGTERM: exit through process.exit so the 'exit' listeners stop the apiserver, kubectl and PostgreSQL.
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => process.exit(130));
  const started = new Date();
  const dir = mkdtempSync(join(os.tmpdir(), 'cp-bench-apiserver-'));
  const results: BackendResult[] = [];
  try {
    for (const backend of BACKENDS) {
      const target = backend === 'postgres' ? await postgresTarget() : await sqliteTarget(dir);
      try {
        const r = await runBackend(backend === 'postgres' ? 'PostgreSQL' : 'SQLite', target, dir);
        results.push(r);
      } finally {
        await target.cleanup();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // Paths and URLs are this machine's: only say that they were set.
  const settings = Object.keys(process.env).filter((k) => /^BENCH_/.test(k) && k !== 'BENCH_WRITE').sort()
    .map((k) => (k === 'BENCH_DB' || k === 'BENCH_BUNDLE' ? `${k}=…` : `${k}=${process.env[k] ?? ''}`));
  if (process.env.CLUSTERPEDIA_BENCH_POSTGRES_URL) settings.push('CLUSTERPEDIA_BENCH_POSTGRES_URL=…');
  let commit = '';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: new URL('..', import.meta.url).pathname, encoding: 'utf8' }).trim();
  } catch {
    // not a git checkout: the date alone
  }
  const text = report(results, { date: `${started.toISOString().slice(0, 10)}${commit ? ` at commit ${commit}` : ''}`, machine: machine(), maxInflight: MAX_INFLIGHT, clients: CLIENTS, loadSeconds: LOAD_SECONDS, notes: NOTES, settings });
  process.stdout.write(`${text}\n`);
  process.stderr.write(`${JSON.stringify(results, null, 1)}\n`);
  if (WRITE) replaceSection(new URL('../BENCHMARKS.md', import.meta.url).pathname, '## Apiserver', text);
}

main().catch((e: unknown) => {
  process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exitCode = 1;
});

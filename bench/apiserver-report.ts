// The "## Apiserver" section of BENCHMARKS.md from one run's results: a table per part, targets marked met / not met.
import type { Dataset } from './apiserver-data.js';
import type { LatencyRow } from './apiserver-latency.js';
import type { BigList } from './apiserver-list.js';
import type { LoadResult } from './apiserver-load.js';
import { fmt } from './storage-report.js';

export interface BackendResult {
  backend: string;
  version: string;
  dataset: Dataset;
  bigListPods: number;
  bigListClusters: number;
  idleRssMB: number;
  latency: LatencyRow[];
  latencyPeakRssMB: number;
  lists: BigList[];
  load: LoadResult;
  loadPeak: { rss: number; anon: number; file: number };
  loadCpuSeconds: number;
  /** 1-minute load average of the machine before and after this backend's parts (2 cores: 2.0 = busy). */
  loadavg: [number, number];
}

export interface RunInfo {
  date: string;
  machine: string;
  maxInflight: number;
  clients: number;
  loadSeconds: number;
  notes: string[];
  /** The BENCH_* settings of this run that differ from the defaults, as `NAME=value`. */
  settings: string[];
}

/** MB in these tables are MiB, as /proc counts them (kB = KiB) and as the synchro section reports. */
const MB = 1_048_576;
const mb = (n: number): string => fmt(n / MB);
const ms = (n: number | undefined): string => (n === undefined ? 'n/a' : fmt(n, 1));
const ratio = (a: number | undefined, b: number): string => (a === undefined || !(b > 0) ? 'n/a' : `${fmt(a / b, 2)}×`);
const verdict = (ok: boolean): string => (ok ? '**met**' : '**not met**');

/** Worst server/storage ratio over the queries that return a page (the get is a single row: noted apart). */
function worstRatio(rows: LatencyRow[], p: 'p50' | 'p99'): { value: number; id: string } {
  let worst = { value: 0, id: '' };
  for (const r of rows) {
    if (!r.server) continue;
    const v = r.server[p] / r.storage[p];
    if (v > worst.value) worst = { value: v, id: r.id };
  }
  return worst;
}

function backendSection(r: BackendResult, info: RunInfo): string[] {
  const L: string[] = [];
  const d = r.dataset;
  L.push(`### ${r.backend} ${r.version}`);
  L.push('');
  L.push(`Data: ${fmt(d.rows)} rows = ${fmt(d.clusters * d.podsPerCluster)} pods (${d.clusters} clusters × ${fmt(d.podsPerCluster)}, 20 namespaces, ~4.3 KB each) + ${fmt(2 * d.clusters * d.deployments)} Deployments and ReplicaSets, written by the storage benchmark's generator through \`storage.write()\`${d.buildSeconds ? ` (${fmt(d.buildSeconds)} s in this run)` : ' (by an earlier run of this harness, reused)'}. Machine load average (1 min) ${fmt(r.loadavg[0], 1)} before, ${fmt(r.loadavg[1], 1)} after. Apiserver RSS idle after start: ${fmt(r.idleRssMB)} MB.`);
  L.push('');
  L.push('#### List latency, HTTP beside storage (ms)');
  L.push('');
  L.push('Storage: `storage.get`/`list` in the harness process, every row of the page read (the storage benchmark\'s read; the ratios are against it). Served: the storage call the apiserver itself makes for a JSON list, in the harness process too — `listJoined` where the backend joins a page\'s objects (SQLite), else the same rows. HTTP server: the `ms` of the apiserver\'s own request log line (handler start to the body flushed to the socket). HTTP client: request to last byte on loopback (undici, keep-alive). Same drawn parameters on every side, sample by sample, alternating which goes first.');
  L.push('');
  L.push('| query | rows | bytes | storage p50 | storage p99 | served p50 | HTTP server p50 | HTTP server p99 | HTTP client p50 | HTTP client p99 | ratio p50 (server / storage) | ratio p99 | server / served p50 |');
  L.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const q of r.latency) {
    L.push(`| ${q.name}${q.mismatches ? ` (**${q.mismatches} mismatched answers**)` : ''} | ${fmt(q.rows)} | ${fmt(q.bytes)} | ${ms(q.storage.p50)} | ${ms(q.storage.p99)} | ${ms(q.served?.p50)} | ${ms(q.server?.p50)} | ${ms(q.server?.p99)} | ${ms(q.client.p50)} | ${ms(q.client.p99)} | ${ratio(q.server?.p50, q.storage.p50)} | ${ratio(q.server?.p99, q.storage.p99)} | ${q.served ? ratio(q.server?.p50, q.served.p50) : '—'} |`);
  }
  L.push('');
  L.push(`#### Unpaged list of ${fmt(r.bigListPods)} pods (${r.bigListClusters} clusters, \`labelSelector=search.clusterpedia.io/clusters in (…)\`) and kubectl over it`);
  L.push('');
  L.push('| what | time | first byte (row) | bytes | pods | apiserver peak RSS | of which anon / file | apiserver CPU |');
  L.push('|---|---|---|---|---|---|---|---|');
  for (const l of r.lists) {
    const memory = Number.isFinite(l.memory.rss) ? `${mb(l.memory.rss)} MB | ${mb(l.memory.anon)} / ${mb(l.memory.file)} MB | ${fmt(l.cpuSeconds, 1)} s` : '— | — | —';
    L.push(`| ${l.what}${l.ok ? '' : ` (**failed**${l.note ? `: ${l.note}` : ''})`} | ${fmt(l.seconds, 1)} s | ${Number.isFinite(l.ttfbMs) ? `${fmt(l.ttfbMs)} ms` : '—'} | ${fmt(l.bytes / 1e6, 1)} MB | ${fmt(l.items)} | ${memory} |`);
  }
  for (const l of r.lists) {
    if (l.pages) L.push('', `kubectl: ${fmt(l.throttledSeconds ?? NaN, 1)} s of the ${fmt(l.seconds, 1)} s waiting on its own client-side rate limit (client-go's default 5 requests/s after a burst of 10: ${fmt(l.pages.n)} pages cannot take less than ~${fmt(Math.max(0, l.pages.n - 10) / 5)} s), ${fmt(l.clientCpuSeconds ?? NaN, 1)} s of its own CPU; its ${fmt(l.pages.n)} list requests took ${fmt(l.pages.sumMs / 1000, 1)} s on the server in all (p50 ${ms(l.pages.p50)} ms, p99 ${ms(l.pages.p99)} ms per page of 500 rows as a Table).`);
  }
  L.push('');
  const ld = r.load;
  L.push(`#### ${ld.clients} concurrent clients for ${info.loadSeconds} s (\`--max-requests-inflight ${info.maxInflight}\`)`);
  L.push('');
  L.push('Each client has its own keep-alive connection and loops over the query mix above (one query in seven a get). Latencies are client side and include queueing; server side from the request log.');
  L.push('');
  L.push('| requests | requests/s | MB/s | p50 | p99 | max | errors | apiserver peak RSS (anon / file) | apiserver CPU per request |');
  L.push('|---|---|---|---|---|---|---|---|---|');
  const kinds = Object.entries(ld.errorKinds).map(([k, n]) => `${k}: ${n}`).join(', ');
  L.push(`| ${fmt(ld.requests)} | ${fmt(ld.perSecond, 1)} | ${fmt(ld.mbPerSecond)} | ${fmt(ld.p50)} ms | ${fmt(ld.p99)} ms | ${fmt(ld.max)} ms | ${fmt(ld.errors)}${kinds ? ` (${kinds})` : ''} | ${mb(r.loadPeak.rss)} MB (${mb(r.loadPeak.anon)} / ${mb(r.loadPeak.file)}) | ${fmt((1000 * r.loadCpuSeconds) / Math.max(1, ld.requests), 1)} ms |`);
  L.push('');
  L.push(`Requests completed per client: min ${ld.perClient.min}, median ${ld.perClient.median}, max ${ld.perClient.max}. The harness itself used ${fmt(ld.harnessCpuSeconds, 1)} s of CPU reading the bodies (${fmt((100 * ld.harnessCpuSeconds) / ld.seconds)} % of a core).`);
  L.push('');
  L.push(`Per query: ${ld.perQuery.map((q) => `${q.id} ${fmt(q.requests)} req, client p50/p99 ${fmt(q.p50)}/${fmt(q.p99)} ms, server p50/p99 ${ms(q.server?.p50)}/${ms(q.server?.p99)} ms`).join('; ')}.`);
  L.push('');
  L.push('#### Targets');
  L.push('');
  const pages = r.latency.filter((q) => q.id !== 'get');
  const w50 = worstRatio(pages, 'p50');
  const w99 = worstRatio(pages, 'p99');
  const get = r.latency.find((q) => q.id === 'get');
  const limited = r.latency.filter((q) => q.limit500);
  const worstServer = Math.max(...limited.map((q) => q.server?.p99 ?? Infinity));
  const worstClient = Math.max(...limited.map((q) => q.client.p99));
  const json = r.lists.find((l) => l.what === 'unpaged list, JSON');
  L.push('| target | measured | |');
  L.push('|---|---|---|');
  L.push(`| HTTP overhead ≤ 1.5× storage (lists; server p50 / storage p50) | worst ${fmt(w50.value, 2)}× (${w50.id}); p99 worst ${fmt(w99.value, 2)}× (${w99.id})${get?.server ? `; single get ${ratio(get.server.p50, get.storage.p50)} (${ms(get.server.p50)} vs ${ms(get.storage.p50)} ms)` : ''} | ${verdict(w50.value <= 1.5)}${w99.value > 1.5 && w50.value <= 1.5 ? ' at p50, not at p99' : ''} |`);
  L.push(`| every filtered limit-500 list p99 ≤ 100 ms | worst server p99 ${ms(worstServer)} ms, client p99 ${ms(worstClient)} ms | ${verdict(worstServer <= 100 && worstClient <= 100)} |`);
  L.push(`| apiserver RSS ≤ 250 MB while streaming the ${fmt(r.bigListPods)}-pod list | ${json ? `${mb(json.memory.rss)} MB (anon ${mb(json.memory.anon)} MB, file-backed ${mb(json.memory.file)} MB)` : 'n/a'} | ${verdict(json !== undefined && json.ok && json.memory.rss <= 250 * MB)} |`);
  L.push(`| 200 concurrent clients, errors 0 | ${fmt(ld.errors)} errors in ${fmt(ld.requests)} requests | ${verdict(ld.errors === 0 && ld.clients >= 200)} |`);
  return L;
}

export function report(results: BackendResult[], info: RunInfo): string {
  const L: string[] = [];
  L.push(`\`npm run bench:apiserver\` (builds the bundle; \`bench/apiserver.ts\`, scaled by \`BENCH_ROWS\` (1000000 pods), \`BENCH_DB\` (a SQLite file to reuse, or to build and keep), \`BENCH_BACKENDS\` (sqlite), \`BENCH_CLIENTS\` (200), \`BENCH_LOAD_SECONDS\` (30), \`BENCH_LIST_PODS\` (100000); \`BENCH_WRITE=0\` leaves this file alone). The apiserver runs as shipped — \`node dist/clusterpedia.mjs apiserver --storage … --secure-port 0 --insecure-port <port> --max-requests-inflight ${info.maxInflight}\`, default log level (one JSON line per request, to a file) — in its own process; the harness queries it over loopback HTTP with undici and samples its \`/proc/<pid>/status\` every 50 ms (VmHWM reset at each part's start through \`clear_refs\`).`);
  L.push('');
  L.push(`Measured ${info.date}${info.settings.length ? ` with ${info.settings.map((x) => `\`${x}\``).join(' ')}` : ''}. Machine: ${info.machine}.`);
  L.push('');
  for (const r of results) L.push(...backendSection(r, info), '');
  if (info.notes.length) {
    L.push('Reading the figures:');
    L.push('');
    for (const n of info.notes) L.push(`- ${n}`);
  }
  return L.join('\n');
}

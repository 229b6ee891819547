// The HTTP fuzzer: a seeded stream of hostile requests at the bundle's apiserver, with memory sampled, the storage
// fingerprinted before and after, and SQL-injection probes. Used by the short vitest run and by `npm run fuzz`.
import os from 'node:os';
import { Agent } from 'undici';
import type { DatasetShape, StorageFingerprint } from '../dataset.js';
import { generate, TokenPool, type FuzzCase, type HttpCase } from './generate.js';
import { Rng } from './prng.js';
import { runInjectionProbes, type ProbeResult } from './probes.js';
import { sendHttp, sendRaw, sendSlowRead, type Outcome } from './send.js';
import { startTarget } from './target.js';

export interface FuzzOptions {
  seed: number;
  requests: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** Of which at most this many slow ones (slowloris, stalled or trickling readers). */
  slowConcurrency: number;
  /** Extra apiserver flags. */
  serverArgs?: string[];
  /** An empty PostgreSQL database to serve from; default a fresh SQLite file. */
  postgresUrl?: string;
  shape?: DatasetShape;
  /** Progress lines (the bench prints them; the test stays quiet). */
  progress?: (line: string) => void;
}

export interface FuzzReport {
  seed: number;
  requests: number;
  backend: 'sqlite' | 'postgres';
  objects: number;
  serverArgs: string[];
  durationMs: number;
  /** '2xx', '4xx', …, 'dropped', 'hang', 'client', 'abandoned' → count. */
  byClass: Record<string, number>;
  /** Exact status codes → count. */
  byStatus: Record<string, number>;
  /** Generator label → count. */
  byLabel: Record<string, number>;
  fiveXX: number;
  hangs: number;
  /** Connections closed without an answer where one was due (oversized uploads excepted). */
  unexpectedDrops: number;
  /** Drops of requests the server may refuse by closing (bodies of MiBs, headers past 16 KiB). */
  toleratedDrops: number;
  violations: number;
  /** First problems found, for the report and the assertion message. */
  problems: string[];
  crashed: boolean;
  serverLogProblems: string[];
  rss: { startMiB: number; peakMiB: number; endMiB: number; afterProbesMiB: number; /** RSS after each tenth of the requests. */ timeline: number[] };
  storage: { before: StorageFingerprint; after: StorageFingerprint; unchanged: boolean };
  probes: ProbeResult;
  /** A plain list answered normally after the run. */
  healthyAfter: boolean;
  /**
   * Requests and watches the apiserver still had in flight once every client of the stream had gone (its own gauge,
   * waited for up to 10 s): a request whose client left must end and give back its --max-requests-inflight slot.
   */
  leftInFlight: { requests: number; watches: number };
  machine: string;
  date: string;
}

function droppable(c: HttpCase): boolean {
  const headerBytes = Object.entries(c.headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0) + c.path.length;
  return (c.body !== undefined && c.body.length > 64 * 1024) || headerBytes > 15_000 || Object.keys(c.headers).length > 1000;
}

function classOf(o: Outcome): string {
  if (o.status !== undefined) return `${Math.floor(o.status / 100)}xx`;
  return o.error ?? 'abandoned';
}

export async function runFuzz(opts: FuzzOptions): Promise<FuzzReport> {
  const target = await startTarget({
    ...(opts.shape ? { shape: opts.shape } : {}), ...(opts.serverArgs ? { args: opts.serverArgs } : {}), ...(opts.postgresUrl ? { postgresUrl: opts.postgresUrl } : {}),
  });
  const agent = new Agent({ connections: opts.concurrency * 2, pipelining: 1, headersTimeout: 60_000, bodyTimeout: 60_000, keepAliveTimeout: 10_000 });
  const report: FuzzReport = {
    seed: opts.seed, requests: 0, backend: target.backend, objects: target.objects, serverArgs: target.args, durationMs: 0, byClass: {}, byStatus: {}, byLabel: {},
    fiveXX: 0, hangs: 0, unexpectedDrops: 0, toleratedDrops: 0, violations: 0, problems: [], crashed: false, serverLogProblems: [],
    rss: { startMiB: target.memory().rssMiB, peakMiB: 0, endMiB: 0, afterProbesMiB: 0, timeline: [] },
    storage: { before: await target.fingerprint(), after: { counts: {}, checksum: '' }, unchanged: false },
    probes: { probes: 0, failures: [], baselinesMatched: 0, baselines: 0, podCounts: [] },
    healthyAfter: false, leftInFlight: { requests: 0, watches: 0 }, machine: machine(), date: new Date().toISOString(),
  };
  const problem = (s: string): void => {
    if (report.problems.length < 100) report.problems.push(s);
  };
  const rng = new Rng(opts.seed);
  const pool = new TokenPool();
  let next = 0;
  let slow = 0;
  const slowWaiters: (() => void)[] = [];
  const started = Date.now();
  let lastProgress = started;
  try {
    const worker = async (): Promise<void> => {
      while (next < opts.requests && target.alive()) {
        const i = next++;
        const c: FuzzCase = generate(rng, pool);
        const isSlow = c.kind === 'slow-read' || (c.kind === 'raw' && c.delayMs > 0);
        if (isSlow) {
          while (slow >= opts.slowConcurrency) await new Promise<void>((r) => slowWaiters.push(r));
          slow++;
        }
        let o: Outcome;
        try {
          o = c.kind === 'http' ? await sendHttp(agent, target.origin, c) : c.kind === 'raw' ? await sendRaw(target.port, c) : await sendSlowRead(target.port, c);
        } finally {
          if (isSlow) {
            slow--;
            slowWaiters.shift()?.();
          }
        }
        report.requests++;
        if (report.requests % Math.max(1, Math.floor(opts.requests / 10)) === 0) report.rss.timeline.push(Math.round(target.memory().rssMiB));
        report.byLabel[c.label] = (report.byLabel[c.label] ?? 0) + 1;
        const cls = classOf(o);
        report.byClass[cls] = (report.byClass[cls] ?? 0) + 1;
        if (o.status !== undefined) report.byStatus[o.status] = (report.byStatus[o.status] ?? 0) + 1;
        const where = c.kind === 'raw' ? `${c.label} ${JSON.stringify(c.chunks.map((b) => b.toString('latin1')).join('').slice(0, 160))}` : `${c.label} ${'method' in c ? c.method : 'GET'} ${c.path.slice(0, 300)}`;
        if (o.status !== undefined && o.status >= 500) {
          report.fiveXX++;
          problem(`#${i} ${o.status}: ${where}`);
        }
        if (o.error === 'hang') {
          report.hangs++;
          problem(`#${i} hang: ${where}`);
        }
        if (o.error === 'dropped' || o.error === 'client') {
          if (c.kind === 'http' && droppable(c)) report.toleratedDrops++;
          else {
            report.unexpectedDrops++;
            problem(`#${i} ${o.error} (${o.detail}): ${where}`);
          }
        }
        for (const v of o.violations) {
          report.violations++;
          problem(`#${i} ${v}: ${where}`);
        }
        if (o.continueToken && c.kind === 'http') pool.add(c.path.replace(/([?&])continue=[^&]*&?/, '$1').replace(/[?&]$/, ''), o.continueToken);
        if (opts.progress && Date.now() - lastProgress > 10_000) {
          lastProgress = Date.now();
          const m = target.memory();
          opts.progress(`${report.requests} requests, ${Math.round(report.requests / ((Date.now() - started) / 1000))}/s, rss ${m.rssMiB.toFixed(0)} MiB (peak ${m.peakMiB.toFixed(0)}), ${JSON.stringify(report.byClass)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: opts.concurrency }, () => worker()));
    report.durationMs = Date.now() - started;
    report.rss.endMiB = target.memory().rssMiB;
    report.crashed = !target.alive();
    if (!report.crashed) {
      report.leftInFlight = await inFlightAfter(agent, target.origin);
      report.probes = await runInjectionProbes(agent, target.origin);
      report.rss.afterProbesMiB = target.memory().rssMiB;
      const r = await agent.request({ origin: target.origin, path: '/apis/clusterpedia.io/v1beta1/resources/api/v1/pods?limit=10', method: 'GET' });
      const body = (await r.body.json()) as { items?: unknown[] };
      report.healthyAfter = r.statusCode === 200 && body.items?.length === 10;
      report.storage.after = await target.fingerprint();
      report.storage.unchanged = report.storage.after.checksum === report.storage.before.checksum
        && JSON.stringify(report.storage.after.counts) === JSON.stringify(report.storage.before.counts);
    }
    report.rss.peakMiB = target.memory().peakMiB;
    report.crashed = report.crashed || !target.alive();
    report.serverLogProblems = target.problems().slice(0, 50);
  } finally {
    await agent.close().catch(() => undefined);
    await target.stop();
  }
  return report;
}

/** One kind of the apiserver's in-flight gauge in a /metrics exposition (0 when absent). */
export function inflightGauge(metrics: string, kind: 'request' | 'watch'): number {
  return Number(new RegExp(`^clusterpedia_apiserver_inflight_requests\\{kind="${kind}"\\} (\\d+)`, 'm').exec(metrics)?.[1] ?? 0);
}

/** The apiserver's in-flight gauge once it settles at zero, or as it stands after 10 s (the asking request not counted). */
export async function inFlightAfter(agent: Agent, origin: string): Promise<{ requests: number; watches: number }> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const r = await agent.request({ origin, path: '/metrics', method: 'GET' });
    const text = await r.body.text();
    const now = { requests: Math.max(0, inflightGauge(text, 'request') - 1), watches: inflightGauge(text, 'watch') };
    if ((now.requests === 0 && now.watches === 0) || Date.now() > deadline) return now;
    await new Promise((res) => setTimeout(res, 200));
  }
}

export function machine(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}, ${os.type()} ${os.release()}`;
}

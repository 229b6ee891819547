// Load part: N concurrent clients (one keep-alive connection each) loop over the query mix for a fixed time; every
// answer must be a whole 200 (429 and 5xx count as errors). Latencies are client side: they include queueing.
import type { Agent } from 'undici';
import { fetchBody } from './apiserver-http.js';
import type { RequestLog } from './apiserver-process.js';
import type { BenchQuery } from './apiserver-queries.js';
import { rng } from './env.js';
import { percentile } from './storage-report.js';

export interface LoadResult {
  clients: number;
  seconds: number;
  requests: number;
  perSecond: number;
  /** Megabytes per second of response bodies. */
  mbPerSecond: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  /** Error kinds and their counts: HTTP status, `cut` (incomplete body) or the client error's code. */
  errorKinds: Record<string, number>;
  /** Requests completed per client: min, median, max (how evenly the server shared itself). */
  perClient: { min: number; median: number; max: number };
  /** The harness's own CPU seconds during the load (it reads every body on the same machine). */
  harnessCpuSeconds: number;
  /** Per query: requests and client-side p50/p99 (server-side filled from the request log later). */
  perQuery: { id: string; requests: number; p50: number; p99: number; server?: { p50: number; p99: number } }[];
}

const UA = 'bench-apiserver/load/';

/** Runs `clients` loops for `seconds`; requests started before the deadline are awaited (each bounded by the agent's timeouts). */
export async function runLoad(agent: Agent, base: string, queries: BenchQuery[], clients: number, seconds: number): Promise<LoadResult> {
  const samples: { id: string; ms: number }[] = [];
  const errorKinds: Record<string, number> = {};
  let bytes = 0;
  const fail = (kind: string): void => {
    errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
  };
  const perClient: number[] = new Array<number>(clients).fill(0);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  const client = async (c: number): Promise<void> => {
    const r = rng(1000 + c);
    for (let i = 0; performance.now() < deadline; i++) {
      const q = queries[(c + i) % queries.length];
      if (!q) return;
      const s = q.sample(r, i);
      const started = performance.now();
      try {
        const h = await fetchBody(agent, base + s.path, { userAgent: UA + q.id, list: q.id !== 'get' });
        bytes += h.bytes;
        if (h.status !== 200) fail(String(h.status));
        else if (!h.complete) fail('cut');
      } catch (e: unknown) {
        fail((e as { code?: string }).code ?? 'client error');
      }
      samples.push({ id: q.id, ms: performance.now() - started });
      perClient[c] = (perClient[c] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, c) => client(c)));
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const counts = [...perClient].sort((a, b) => a - b);
  const all = samples.map((s) => s.ms);
  const errors = Object.values(errorKinds).reduce((a, b) => a + b, 0);
  return {
    clients, seconds: elapsed, requests: samples.length, perSecond: samples.length / elapsed, mbPerSecond: bytes / 1e6 / elapsed,
    p50: percentile(all, 50), p99: percentile(all, 99), max: percentile(all, 100), errors, errorKinds,
    perClient: { min: counts[0] ?? 0, median: percentile(counts, 50), max: counts[counts.length - 1] ?? 0 },
    harnessCpuSeconds: (cpu.user + cpu.system) / 1e6,
    perQuery: queries.map((q) => {
      const ms = samples.filter((s) => s.id === q.id).map((s) => s.ms);
      return { id: q.id, requests: ms.length, p50: percentile(ms, 50), p99: percentile(ms, 99) };
    }),
  };
}

/** Server-side quantiles per query of the load, from the apiserver's request log. */
export function addLoadServerTimes(r: LoadResult, log: RequestLog[]): void {
  for (const q of r.perQuery) {
    const ms = log.filter((l) => l.ua === UA + q.id).map((l) => l.ms);
    if (ms.length > 0) q.server = { p50: percentile(ms, 50), p99: percentile(ms, 99) };
  }
}

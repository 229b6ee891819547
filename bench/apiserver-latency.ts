// Latency part: each query of the storage benchmark on storage directly and through the apiserver's HTTP, sample by
// sample with the same drawn parameters, alternating which side goes first, so load from other work on the machine
// falls on both sides alike. Server-side durations come from the apiserver's own request log (matched by User-Agent).
import type { Agent } from 'undici';
import type { StorageReader } from '../src/storage/types.js';
import { fetchBody, POD_MARKERS } from './apiserver-http.js';
import type { RequestLog } from './apiserver-process.js';
import type { BenchQuery } from './apiserver-queries.js';
import { rng } from './env.js';
import { percentile } from './storage-report.js';

export interface Quantiles {
  p50: number;
  p99: number;
}

export interface LatencyRow {
  id: string;
  name: string;
  limit500: boolean;
  samples: number;
  /** Mean rows per sample read on storage. */
  rows: number;
  /** Mean response bytes. */
  bytes: number;
  storage: Quantiles;
  /** The storage call the apiserver itself makes for the JSON list (listJoined where the backend joins); lists only. */
  served?: Quantiles;
  /** Client side: request start to last byte read, on loopback. */
  client: Quantiles;
  /** Server side, filled from the request log once the apiserver stopped (its `ms`: handler start to body flushed). */
  server?: Quantiles;
  /** Samples whose HTTP answer was not 200, not whole, or held a different number of pods than storage read. */
  mismatches: number;
}

const time = async <T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> => {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
};

const userAgent = (q: BenchQuery, i: number | 'warm'): string => `bench-apiserver/latency/${q.id}/${i}`;

/** Runs every query `samples` times on both sides (after 3 warm-up draws each). */
export async function measureLatencies(storage: StorageReader, agent: Agent, base: string, queries: BenchQuery[]): Promise<LatencyRow[]> {
  const out: LatencyRow[] = [];
  for (const [k, q] of queries.entries()) {
    const r = rng(7 + k);
    for (let i = 0; i < 3; i++) {
      const s = q.sample(r, i);
      await s.storage(storage);
      await fetchBody(agent, base + s.path, { userAgent: userAgent(q, 'warm') });
    }
    const st: number[] = [];
    const sv: number[] = [];
    const cl: number[] = [];
    let rows = 0;
    let bytes = 0;
    let mismatches = 0;
    for (let i = 0; i < q.samples; i++) {
      const s = q.sample(r, i);
      const onStorage = (): Promise<{ ms: number; value: number }> => time(() => s.storage(storage));
      const overHttp = (): ReturnType<typeof fetchBody> => fetchBody(agent, base + s.path, { userAgent: userAgent(q, i), count: POD_MARKERS, list: q.id !== 'get' });
      const served = s.served;
      const asServed = served ? (): Promise<{ ms: number; value: number }> => time(() => served(storage)) : undefined;
      let a: { ms: number; value: number };
      let h: Awaited<ReturnType<typeof fetchBody>>;
      let v: { ms: number; value: number } | undefined;
      if (i % 2 === 0) {
        a = await onStorage();
        v = await asServed?.();
        h = await overHttp();
      } else {
        h = await overHttp();
        v = await asServed?.();
        a = await onStorage();
      }
      st.push(a.ms);
      if (v) {
        sv.push(v.ms);
        if (v.value !== a.value) mismatches++;
      }
      cl.push(h.ms);
      rows += a.value;
      bytes += h.bytes;
      if (h.status !== 200 || !h.complete || h.count !== a.value) mismatches++;
    }
    out.push({
      id: q.id, name: q.name, limit500: q.limit500, samples: q.samples, rows: Math.round(rows / q.samples), bytes: Math.round(bytes / q.samples),
      storage: { p50: percentile(st, 50), p99: percentile(st, 99) }, ...(sv.length ? { served: { p50: percentile(sv, 50), p99: percentile(sv, 99) } } : {}), client: { p50: percentile(cl, 50), p99: percentile(cl, 99) }, mismatches,
    });
    process.stderr.write(`  ${q.id}: storage p50 ${st.length ? percentile(st, 50).toFixed(1) : '-'} ms, http client p50 ${percentile(cl, 50).toFixed(1)} ms, mismatches ${mismatches}\n`);
  }
  return out;
}

/** Fills in the server-side quantiles from the apiserver's request log (the measured samples only, not warm-ups). */
export function addServerTimes(rows: LatencyRow[], log: RequestLog[]): void {
  for (const row of rows) {
    const prefix = `bench-apiserver/latency/${row.id}/`;
    const ms = log.filter((l) => l.ua?.startsWith(prefix) && !l.ua.endsWith('/warm')).map((l) => l.ms);
    if (ms.length > 0) row.server = { p50: percentile(ms, 50), p99: percentile(ms, 99) };
  }
}

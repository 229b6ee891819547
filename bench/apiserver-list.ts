// Big-list part: one unpaged list of ~100,000 pods (JSON, then as a Table) read to the last byte, and the real
// kubectl paging through the same pods with --chunk-size 500, each with the apiserver's memory sampled every 50 ms.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from 'undici';
import { kubectlPath } from '../test/support/kubectl.js';
import { fetchBody, POD_MARKERS, TABLE_ACCEPT } from './apiserver-http.js';
import { cpuSecondsOf, MemorySampler, type RequestLog } from './apiserver-process.js';
import type { StorageReader } from '../src/storage/types.js';
import { percentile } from './storage-report.js';

export interface PeakMemory {
  rss: number;
  anon: number;
  file: number;
}

export interface BigList {
  what: string;
  seconds: number;
  ttfbMs: number;
  bytes: number;
  /** Pods (JSON items or Table rows) counted in the body, or lines kubectl printed without its header. */
  items: number;
  ok: boolean;
  /** The apiserver's CPU seconds during it. */
  cpuSeconds: number;
  memory: PeakMemory;
  /** kubectl only: its own CPU seconds (last /proc sample before it exited). */
  clientCpuSeconds?: number;
  /** kubectl only: seconds it waited on its own client-side rate limit (client-go's default 5 requests/s, burst 10). */
  throttledSeconds?: number;
  /** kubectl only: its list requests as the apiserver logged them (count, server-side p50/p99 and sum, ms). */
  pages?: { n: number; p50: number; p99: number; sumMs: number };
  note?: string;
}

function peak(m: ReturnType<MemorySampler['stop']>): PeakMemory {
  return { rss: m.rss, anon: m.anon, file: m.file };
}

/** The same selection read on storage directly in the harness (every row, streamed from the cursor): the baseline. */
export async function storageList(storage: StorageReader, clusters: string[], expected: number): Promise<BigList> {
  const t0 = performance.now();
  const page = await storage.list({ types: { kind: 'one', group: '', version: 'v1', resource: 'pods' }, clusters: { op: 'in', values: clusters }, objectBytes: true });
  let first = NaN;
  let rows = 0;
  let bytes = 0;
  for await (const row of page.rows) {
    if (rows === 0) first = performance.now() - t0;
    rows++;
    bytes += row.bytes?.length ?? Buffer.byteLength(row.object);
  }
  return {
    what: 'the same rows read on storage directly (harness process)', seconds: (performance.now() - t0) / 1000, ttfbMs: first, bytes, items: rows,
    ok: rows === expected, cpuSeconds: NaN, memory: { rss: NaN, anon: NaN, file: NaN },
  };
}

/** GET of the whole selection without a limit, read to the last byte; `table` asks kubectl's Table form. */
export async function unpagedList(agent: Agent, base: string, pid: number, selector: string, table: boolean, expected: number, gzip = false): Promise<BigList> {
  const url = `${base}/api/v1/pods?${new URLSearchParams({ labelSelector: selector }).toString()}`;
  const mem = new MemorySampler(pid).start();
  const cpu0 = cpuSecondsOf(pid);
  try {
    const h = await fetchBody(agent, url, {
      userAgent: `bench-apiserver/biglist/${table ? 'table' : 'json'}${gzip ? '-gzip' : ''}`, list: true, count: table ? ['{"cells":['] : POD_MARKERS,
      ...(table ? { accept: TABLE_ACCEPT } : {}), gzip,
    });
    const what = table ? 'unpaged list as a Table (kubectl\'s Accept)' : 'unpaged list, JSON';
    return {
      what: gzip ? `${what}, gzip accepted (bytes as received)` : what, seconds: h.ms / 1000, ttfbMs: h.ttfbMs, bytes: h.bytes, items: h.count,
      ok: h.status === 200 && h.complete && h.count === expected && h.gzipped === gzip, cpuSeconds: cpuSecondsOf(pid) - cpu0, memory: peak(mem.stop()),
    };
  } finally {
    mem.stop();
  }
}

/** `kubectl get pods -A --chunk-size 500 -l <selector>` against the apiserver; its output lines are counted, not kept. */
export async function kubectlList(base: string, pid: number, selector: string, expected: number, timeoutMs = 15 * 60_000): Promise<BigList> {
  const cacheDir = mkdtempSync(join(tmpdir(), 'cp-bench-kubectl-'));
  const mem = new MemorySampler(pid).start();
  const cpu0 = cpuSecondsOf(pid);
  const t0 = performance.now();
  try {
    // -v=4 makes kubectl log each wait on its client-side rate limiter: those waits are summed, not the server's time.
    const args = [`--server=${base}`, `--cache-dir=${cacheDir}`, '--request-timeout=0', '-v=4', 'get', 'pods', '-A', '--chunk-size', '500', '-l', selector];
    const r = await new Promise<{ code: number | null; lines: number; bytes: number; stderr: string; cpu: number; throttled: number }>((resolve, reject) => {
      const child = spawn(kubectlPath(), args, { env: { ...process.env, KUBECONFIG: '/dev/null' }, stdio: ['ignore', 'pipe', 'pipe'] });
      const killOnExit = (): void => {
        child.kill('SIGKILL');
      };
      process.once('exit', killOnExit);
      child.once('exit', () => process.off('exit', killOnExit));
      // kubectl's own CPU: /proc/<pid>/stat is gone once it exits, so keep the last reading.
      let cpu = 0;
      const cpuTimer = setInterval(() => {
        const c = child.pid ? cpuSecondsOf(child.pid) : NaN;
        if (Number.isFinite(c)) cpu = c;
      }, 50);
      let lines = 0;
      let bytes = 0;
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => {
        bytes += d.length;
        for (let at = d.indexOf(10); at >= 0; at = d.indexOf(10, at + 1)) lines++;
      });
      let throttled = 0;
      let partial = '';
      child.stderr.on('data', (d: Buffer) => {
        const text = partial + d.toString();
        const lines = text.split('\n');
        partial = lines.pop() ?? '';
        for (const l of lines) {
          const w = /Waited for ([0-9.]+)(ms|s|µs|us) due to client-side throttling/.exec(l);
          if (w) throttled += Number(w[1]) * (w[2] === 's' ? 1 : w[2] === 'ms' ? 1e-3 : 1e-6);
          else stderr = (stderr + l + '\n').slice(-2000);
        }
      });
      const t = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.on('error', (e) => {
        clearTimeout(t);
        clearInterval(cpuTimer);
        reject(e);
      });
      child.on('close', (code) => {
        clearTimeout(t);
        clearInterval(cpuTimer);
        resolve({ code, lines, bytes, stderr, cpu, throttled });
      });
    });
    const seconds = (performance.now() - t0) / 1000;
    return {
      what: '`kubectl get pods -A --chunk-size 500`', seconds, ttfbMs: NaN, bytes: r.bytes, items: Math.max(0, r.lines - 1), ok: r.code === 0 && r.lines - 1 === expected,
      cpuSeconds: cpuSecondsOf(pid) - cpu0, memory: peak(mem.stop()), clientCpuSeconds: r.cpu, throttledSeconds: r.throttled, ...(r.code === 0 ? {} : { note: `exit ${r.code}: ${r.stderr.trim().split('\n').slice(-3).join(' / ')}` }),
    };
  } finally {
    mem.stop();
    rmSync(cacheDir, { recursive: true, force: true });
  }
}

/** Fills in kubectl's list requests as the apiserver logged them (User-Agent kubectl/…, path …/pods). */
export function addKubectlPages(lists: BigList[], log: RequestLog[]): void {
  const k = lists.find((l) => l.clientCpuSeconds !== undefined);
  if (!k) return;
  const ms = log.filter((l) => l.ua?.startsWith('kubectl') && l.path.endsWith('/pods')).map((l) => l.ms);
  if (ms.length > 0) k.pages = { n: ms.length, p50: percentile(ms, 50), p99: percentile(ms, 99), sumMs: ms.reduce((a, b) => a + b, 0) };
}

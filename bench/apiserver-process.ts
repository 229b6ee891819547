// The apiserver under test: the shipped bundle in its own process (so its RSS is its own), its memory from /proc,
// and its per-request log lines (server-side durations) read back from the file its stdout went to.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../test/support/postgres-server.js';

/** The shipped bundle (`node build.mjs`). */
export const BUNDLE = new URL('../dist/clusterpedia.mjs', import.meta.url).pathname;

/** Memory of a process from /proc/<pid>/status, bytes. RssFile is mostly SQLite's mapped database file. */
export interface Memory {
  rss: number;
  hwm: number;
  anon: number;
  file: number;
}

export function memoryOf(pid: number): Memory | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kb = (k: string): number => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM'), anon: kb('RssAnon'), file: kb('RssFile') };
}

/** CPU time a process used so far (user + system), seconds; clock ticks assumed 100/s (Linux's USER_HZ). */
export function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name, which may itself hold spaces: utime and stime are 14th and 15th.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return NaN;
  }
}

/** Peaks of a process's memory over a phase: /proc sampled every `everyMs`, plus VmHWM reset at the start when allowed. */
export class MemorySampler {
  private timer: NodeJS.Timeout | undefined;
  private peak: Memory = { rss: 0, hwm: 0, anon: 0, file: 0 };
  private hwmReset = false;
  samples = 0;

  constructor(private readonly pid: number, private readonly everyMs = 50) {}

  start(): this {
    // Writing 5 to clear_refs resets VmHWM (Linux ≥ 4.0), so the kernel's own peak covers only this phase.
    try {
      writeFileSync(`/proc/${this.pid}/clear_refs`, '5');
      this.hwmReset = true;
    } catch {
      this.hwmReset = false;
    }
    this.sample();
    this.timer = setInterval(() => this.sample(), this.everyMs);
    return this;
  }

  private sample(): void {
    const m = memoryOf(this.pid);
    if (!m) return;
    this.samples++;
    this.peak = { rss: Math.max(this.peak.rss, m.rss), hwm: m.hwm, anon: Math.max(this.peak.anon, m.anon), file: Math.max(this.peak.file, m.file) };
  }

  /** Peak RSS (the larger of the samples and, when it was reset, VmHWM), peak anonymous and file-backed parts. */
  stop(): { rss: number; anon: number; file: number; hwmReset: boolean; samples: number } {
    if (this.timer) clearInterval(this.timer);
    this.sample();
    const rss = this.hwmReset ? Math.max(this.peak.rss, this.peak.hwm) : this.peak.rss;
    return { rss, anon: this.peak.anon, file: this.peak.file, hwmReset: this.hwmReset, samples: this.samples };
  }
}

/** One 'request' log line of the apiserver: what it logged for each finished request. */
export interface RequestLog {
  path: string;
  query?: string;
  code: number;
  ms: number;
  ua?: string;
}

export interface Apiserver {
  child: ChildProcess;
  pid: number;
  port: number;
  /** The list API root: `http://127.0.0.1:<port>/apis/clusterpedia.io/v1beta1/resources`. */
  base: string;
  /** Request log lines written so far (pino flushes asynchronously: complete only after stop()). */
  requests(): RequestLog[];
  /** SIGTERM, then SIGKILL after 20 s; idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts `node dist/clusterpedia.mjs apiserver` (or another build of it, to compare) on a loopback port with stdout (JSON logs, default level info: one
 * line per request, as shipped) going to a file in `dir`, and waits until /readyz answers 200 (60 s at most).
 */
export async function startApiserver(storageUrl: string, dir: string, extra: string[] = [], bundle = BUNDLE): Promise<Apiserver> {
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run node build.mjs first`);
  const port = await freePort();
  const logFile = join(dir, `apiserver-${port}.log`);
  const out = openSync(logFile, 'w');
  const args = [bundle, 'apiserver', '--storage', storageUrl, '--migrate', 'true', '--secure-port', '0', '--insecure-port', String(port), '--log-format', 'json', ...extra];
  // BENCH_NODE_ARGS: flags for node itself (e.g. `--cpu-prof --cpu-prof-dir=…`, which NODE_OPTIONS refuses).
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, ...args], { stdio: ['ignore', out, out] });
  closeSync(out);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // If the harness exits early (an error, or Ctrl-C turned into process.exit by bench/apiserver.ts), take the child along.
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  void exited.then(() => process.off('exit', killOnExit));
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return exited;
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(t);
    }
  };
  const tail = (): string => readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n');
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`apiserver exited (${child.exitCode}) at start:\n${tail()}`);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/readyz`);
      await r.arrayBuffer();
      if (r.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`apiserver not ready within 60 s:\n${tail()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    pid: child.pid ?? 0,
    port,
    base: `http://127.0.0.1:${port}/apis/clusterpedia.io/v1beta1/resources`,
    requests: () => parseRequests(readFileSync(logFile, 'utf8')),
    stop,
  };
}

function parseRequests(text: string): RequestLog[] {
  const out: RequestLog[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes('"msg":"request"')) continue;
    try {
      const l = JSON.parse(line) as RequestLog & { msg: string };
      out.push({ path: l.path, code: l.code, ms: l.ms, ...(l.query ? { query: l.query } : {}), ...(l.ua ? { ua: l.ua } : {}) });
    } catch {
      // a line cut by a kill: ignored
    }
  }
  return out;
}

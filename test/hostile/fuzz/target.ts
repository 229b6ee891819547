// The system under test: the built bundle's apiserver as a child process over a SQLite file filled with the data
// set, with its resident memory sampled from /proc.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BundleProcess } from '../../support/bundle.js';
import { freePort } from '../../support/postgres-server.js';
import { DEFAULT_SHAPE, fillStorage, fingerprintPostgres, fingerprintSqlite, type DatasetShape, type StorageFingerprint } from '../dataset.js';

export interface Target {
  proc: BundleProcess;
  pid: number;
  port: number;
  origin: string;
  /** The storage URL the apiserver serves (a SQLite file, or the PostgreSQL database given). */
  storageUrl: string;
  backend: 'sqlite' | 'postgres';
  objects: number;
  /** Row counts and a checksum of every table of the storage. */
  fingerprint(): Promise<StorageFingerprint>;
  args: string[];
  /** Current and peak (VmHWM, kernel-tracked) resident set size of the child, MiB. */
  memory(): { rssMiB: number; peakMiB: number };
  /** Log lines at level error or above, and anything on stderr. */
  problems(): string[];
  alive(): boolean;
  stop(): Promise<number | null>;
}

function statusField(pid: number, field: string): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/**
 * Fills the storage (a fresh SQLite file, or the empty PostgreSQL database `postgresUrl`) with the data set and
 * starts the bundle's apiserver over it.
 */
export async function startTarget(opts: { shape?: DatasetShape; args?: string[]; postgresUrl?: string } = {}): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), 'clusterpedia-hostile-'));
  const dbPath = join(dir, 'storage.db');
  const storageUrl = opts.postgresUrl ?? `sqlite:${dbPath}`;
  const objects = await fillStorage(storageUrl, opts.shape ?? DEFAULT_SHAPE);
  const port = await freePort();
  const args = ['apiserver', '--storage', storageUrl, '--secure-port', '0', '--insecure-port', String(port), '--log-level', 'warn', ...(opts.args ?? [])];
  const proc = BundleProcess.start(args, { cwd: dir });
  const pid = proc.child.pid as number;
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const r = await fetch(`${origin}/readyz`);
      await r.arrayBuffer();
      if (r.status === 200) break;
    } catch {
      // not listening yet
    }
    if (proc.child.exitCode !== null) throw new Error(`apiserver exited (${proc.child.exitCode}):\n${proc.raw.slice(-20).join('\n')}`);
    if (Date.now() > deadline) throw new Error(`apiserver not ready within 30 s:\n${proc.raw.slice(-20).join('\n')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    proc, pid, port, origin, storageUrl, objects,
    backend: opts.postgresUrl ? 'postgres' : 'sqlite',
    fingerprint: () => (opts.postgresUrl ? fingerprintPostgres(opts.postgresUrl) : Promise.resolve(fingerprintSqlite(dbPath))),
    args: args.map((a, i) => (args[i - 1] === '--storage' ? (a.startsWith('sqlite:') ? 'sqlite:<file>' : 'postgres://<database>') : args[i - 1] === '--insecure-port' ? '<port>' : a)),
    memory: () => ({ rssMiB: statusField(pid, 'VmRSS'), peakMiB: statusField(pid, 'VmHWM') }),
    problems: () => [
      ...proc.lines.filter((l) => typeof l.level === 'number' && l.level >= 50).map((l) => JSON.stringify(l).slice(0, 500)),
      ...proc.raw.filter((l) => !l.startsWith('{')).map((l) => l.slice(0, 500)),
    ],
    alive: () => proc.child.exitCode === null && proc.child.signalCode === null,
    stop: async () => {
      const code = await proc.stop();
      rmSync(dir, { recursive: true, force: true });
      return code;
    },
  };
}

// The storage of a run and the faults on it: a SQLite file or a throwaway PostgreSQL server that can be stopped and
// started without blocking the driver (the members live in this process), and a probe that tells when clusterpedia's
// writer is inside a transaction (so kill -9 lands mid-transaction).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { backupPostgres, backupSqlite } from '../../test/support/backup.js';
import { findPgBin, startPostgres, type PostgresServer } from '../../test/support/postgres-server.js';
import { WRITE_LOCK } from '../../src/storage/postgres/write.js';
import type { Backend } from './options.js';

const run = promisify(execFile);

export interface RunStorage {
  backend: Backend;
  url: string;
  /** True when clusterpedia's writer holds the write lock right now. Never throws (a failed probe says false). */
  writerBusy(): boolean | Promise<boolean>;
  /** PostgreSQL only: stop the server (`fast`: clients disconnected, `immediate`: no shutdown checkpoint, crash recovery at start). */
  stopServer(mode: 'fast' | 'immediate'): Promise<void>;
  startServer(): Promise<void>;
  /** Copies the database aside; the function returned puts the copy back in place (test/support/backup.ts). */
  backup(): Promise<() => Promise<void>>;
  readonly serverDown: boolean;
  /** Probes that failed (connection refused while restarting...), and the last such error. */
  readonly probeErrors: { count: number; last?: string };
  close(): Promise<void>;
}

export async function openRunStorage(backend: Backend, dir: string, asyncCommit = false): Promise<RunStorage> {
  return backend === 'sqlite' ? sqliteStorage(join(dir, 'clusterpedia.db')) : postgresStorage(asyncCommit);
}

function sqliteStorage(file: string): RunStorage {
  let probe: Database.Database | undefined;
  const probeErrors: { count: number; last?: string } = { count: 0 };
  return {
    backend: 'sqlite',
    url: `sqlite:${file}`,
    writerBusy(): boolean {
      try {
        // busy_timeout 0: BEGIN IMMEDIATE fails at once with SQLITE_BUSY while another connection holds the write lock.
        probe ??= new Database(file, { timeout: 0 });
        probe.exec('BEGIN IMMEDIATE');
        probe.exec('ROLLBACK');
        return false;
      } catch (e: unknown) {
        const code = (e as { code?: unknown }).code;
        if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return true;
        probeErrors.count++;
        probeErrors.last = String(e);
        return false;
      }
    },
    stopServer: () => Promise.reject(new Error('SQLite has no server')),
    startServer: () => Promise.resolve(),
    backup: () => backupSqlite(`sqlite:${file}`),
    serverDown: false,
    probeErrors,
    async close(): Promise<void> {
      probe?.close();
      probe = undefined;
    },
  };
}

async function postgresStorage(asyncCommit: boolean): Promise<RunStorage> {
  const server: PostgresServer = await startPostgres();
  const bin = findPgBin()!;
  const data = join(server.dir, 'data');
  // test/support's server runs with synchronous_commit=off: an immediate stop then loses transactions already
  // reported committed. A deployment runs the default, on, and this server restarts with it on unless the run asks
  // for those losses (`asyncCommit`: storage that goes back in time by a few hundred milliseconds at each immediate
  // stop). fsync stays off, as the machine itself never crashes here (the OS keeps what was written).
  const opts = `-p ${server.port} -k ${server.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=${asyncCommit ? 'off' : 'on'} -c full_page_writes=off -c max_connections=300`;
  const pgctl = async (args: string[]): Promise<void> => {
    const cmd = join(bin, 'pg_ctl');
    if (process.getuid?.() === 0) await run('runuser', ['-u', 'postgres', '--', cmd, ...args]);
    else await run(cmd, args);
  };
  const startWithOpts = (): Promise<void> => pgctl(['-D', data, '-l', join(server.dir, 'server.log'), '-w', '-t', '60', '-o', opts, 'start']);
  await pgctl(['-D', data, '-m', 'fast', '-w', 'stop']);
  await startWithOpts();
  let down = false;
  // Stops and starts run one after the other, in the order asked: the schedule spaces them by their planned times,
  // but a stop and a start each take seconds on a loaded machine, and a stop that overtook the start before it left
  // the server down for good (the start then found `down` cleared by the one before and did nothing).
  let serverOps: Promise<void> = Promise.resolve();
  const serially = (op: () => Promise<void>): Promise<void> => {
    const next = serverOps.then(op);
    serverOps = next.catch(() => undefined);
    return next;
  };
  let probe: postgres.Sql | undefined;
  const probeErrors: { count: number; last?: string } = { count: 0 };
  const state = {
    probeErrors,
    backend: 'postgres' as const,
    url: server.url,
    get serverDown(): boolean {
      return down;
    },
    async writerBusy(): Promise<boolean> {
      if (down) return false;
      try {
        probe ??= postgres(server.url, { max: 1, onnotice: () => undefined, connect_timeout: 2, idle_timeout: 5 });
        // The storage's writers serialise on one transaction-level advisory lock: granted = a write transaction is open.
        const rows = await probe`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = ${WRITE_LOCK} AND objsubid = 1 LIMIT 1`;
        return rows.length > 0;
      } catch (e: unknown) {
        probeErrors.count++;
        probeErrors.last = String(e);
        await probe?.end({ timeout: 0 }).catch(() => undefined);
        probe = undefined;
        return false;
      }
    },
    stopServer(mode: 'fast' | 'immediate'): Promise<void> {
      return serially(async () => {
        await probe?.end({ timeout: 0 }).catch(() => undefined);
        probe = undefined;
        down = true;
        await pgctl(['-D', data, '-m', mode, '-w', 'stop']);
      });
    },
    startServer(): Promise<void> {
      return serially(async () => {
        if (!down) return;
        await startWithOpts();
        down = false;
      });
    },
    backup: () => backupPostgres(server.url),
    async close(): Promise<void> {
      await probe?.end({ timeout: 0 }).catch(() => undefined);
      server.stop();
    },
  };
  return state;
}

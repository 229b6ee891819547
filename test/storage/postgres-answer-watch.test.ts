// Connections that will not be answered, against the test server (src/storage/postgres/answer-watch.ts; the watch's
// decisions one by one: answer-watch.test.ts). A backend stopped with SIGSTOP keeps its socket open and reads nothing:
// the request sits unread, the session stays 'idle' — a request lost on the way, as the server sees it. The test signals
// the server's processes, so it runs where they do (the throwaway server, the CI machine as root).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStorageError } from '../../src/storage/errors.js';
import { sleep } from '../../src/lib/lifecycle.js';
import { openStorage } from '../../src/storage/open.js';
import { createPool, type Pg } from '../../src/storage/postgres/connection.js';
import { resolveStorageTarget, type PostgresConnection } from '../../src/storage/storage-config.js';
import type { Storage } from '../../src/storage/types.js';
import { recordingLogger } from '../support/log.js';
import { forwarder, freshPostgresDatabase } from '../support/postgres.js';
import { freePort } from '../support/postgres-server.js';

interface LogLine { level: number; msg: string; reason?: string }

const QUICK = { askAfterMs: 1_000, giveUpMs: 60_000, tickMs: 200 };

function connection(url: string, max = 1): PostgresConnection {
  const t = resolveStorageTarget({ url, env: {} });
  if (t.dialect !== 'postgres') throw new Error(`not a postgres URL: ${url}`);
  return { ...t.connection, max };
}

/** What `p` came to within `ms`: its value, its error's code and message, or 'pending'. */
async function within<T>(p: Promise<T>, ms: number): Promise<{ value?: T; code?: string; message?: string } | 'pending'> {
  return Promise.race([
    p.then((value) => ({ value }), (e: unknown) => ({ code: (e as { code?: string }).code, message: e instanceof Error ? e.message : String(e) })),
    sleep(ms).then(() => 'pending' as const),
  ]);
}

async function backendPid(sql: Pg): Promise<number> {
  const [row] = await sql.unsafe('SELECT pg_backend_pid() AS pid');
  return Number((row as unknown as { pid: number }).pid);
}

/** Runs `fn` with the backends `pids` stopped, continuing them whatever happens. */
async function withStopped<T>(pids: number[], fn: () => Promise<T>): Promise<T> {
  for (const pid of pids) process.kill(pid, 'SIGSTOP');
  try {
    return await fn();
  } finally {
    for (const pid of pids) process.kill(pid, 'SIGCONT');
  }
}

/** The pool answers again (the first statement after a closed connection may meet it closing: retried, as storage's callers do). */
async function answersAgain(sql: Pg): Promise<unknown> {
  for (let i = 0; ; i++) {
    try {
      return (await sql.unsafe(`SELECT 'again' AS v`))[0];
    } catch (e: unknown) {
      if (i >= 3) throw e;
      await sleep(100);
    }
  }
}

describe('PostgreSQL connections that will not be answered', () => {
  let db: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  beforeAll(async () => { db = await freshPostgresDatabase('cp_answer'); });
  afterAll(async () => { await db.drop(); });

  it('a statement whose request the server never reads fails within seconds, not after TCP gives up; the pool goes on', async () => {
    const log = recordingLogger<LogLine>();
    const sql = createPool(connection(db.url), { logger: log.logger, answerWatch: QUICK });
    try {
      const pid = await backendPid(sql);
      await sleep(500); // the next request written in a later tick than the last answer read: known to wait
      const started = Date.now();
      const outcome = await withStopped([pid], () => within(sql.unsafe('SELECT 1 AS v'), 15_000));
      expect(outcome).toMatchObject({ code: 'ETIMEDOUT', message: expect.stringMatching(/no answer from PostgreSQL .*it waits for an answer while the server's session is idle/) });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(log.lines.find((l) => l.msg === 'closing a PostgreSQL connection that will not be answered')).toMatchObject({ level: 40, reason: expect.stringMatching(/session is idle/) });
      expect(await answersAgain(sql)).toEqual({ v: 'again' });
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('without the watch the same statement is still waiting (control)', async () => {
    const sql = createPool(connection(db.url), { answerWatch: false });
    try {
      const pid = await backendPid(sql);
      await sleep(500);
      const outcome = await withStopped([pid], () => within(sql.unsafe('SELECT 1 AS v'), 3_000));
      expect(outcome).toBe('pending');
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('a statement the server is working on is left to finish however long it is silent; the server was asked', async () => {
    const log = recordingLogger<LogLine>();
    const sql = createPool(connection(db.url), { logger: log.logger, answerWatch: { askAfterMs: 500, giveUpMs: 1_000, tickMs: 100 } });
    const admin = createPool(connection(db.url), { answerWatch: false });
    try {
      await backendPid(sql);
      await sleep(300);
      const sleeping = sql.unsafe('SELECT pg_sleep(3) AS v');
      await sleep(1_800);
      const checks = await admin.unsafe(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'clusterpedia (connection check)' AND datname = current_database()`);
      expect((checks[0] as unknown as { n: number }).n).toBe(1);
      await expect(sleeping).resolves.toHaveLength(1); // past the give-up time too: the server vouched for it
      expect(log.lines.filter((l) => l.level >= 40)).toEqual([]);
    } finally {
      await sql.end({ timeout: 1 });
      await admin.end({ timeout: 1 });
    }
  });

  it('behind a proxy whose server side went quiet (the ports the server sees are not ours) it is closed after the give-up time', async () => {
    const port = await freePort();
    const proxy = await forwarder(port, db.url);
    const u = new URL(db.url);
    u.hostname = '127.0.0.1';
    u.port = String(port);
    const sql = createPool(connection(u.toString()), { answerWatch: { askAfterMs: 500, giveUpMs: 2_500, tickMs: 100 } });
    try {
      await backendPid(sql);
      await sleep(300);
      proxy.silence();
      const started = Date.now();
      const outcome = await within(sql.unsafe('SELECT 1 AS v'), 15_000);
      expect(outcome).toMatchObject({ code: 'ETIMEDOUT', message: expect.stringMatching(/waited \d+ s for an answer and the server could not be asked about it/) });
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_400);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await sql.end({ timeout: 1 });
      await proxy.stop();
    }
  });

  it('through storage: the call fails as Unavailable (retryable) instead of hanging, and the next one is answered', async () => {
    const closed: string[] = [];
    const storage: Storage = await openStorage({ url: db.url }, { logger: recordingLogger().logger, postgresAnswerWatch: QUICK, onConnectionClosed: (r) => closed.push(r) });
    const admin = createPool(connection(db.url), { answerWatch: false });
    try {
      await storage.migrate();
      await storage.ping();
      await sleep(500);
      const rows = await admin.unsafe(`SELECT pid FROM pg_stat_activity WHERE application_name = 'clusterpedia' AND datname = current_database() AND pid <> pg_backend_pid()`);
      const pids = rows.map((r) => Number((r as unknown as { pid: number }).pid));
      expect(pids.length).toBeGreaterThan(0);
      const outcome = await withStopped(pids, () => Promise.race([
        storage.currentRevision().then(() => 'answered' as const, (e: unknown) => e),
        sleep(15_000).then(() => 'pending' as const),
      ]));
      expect(isStorageError(outcome) ? { code: outcome.code, retryable: outcome.retryable, message: outcome.message } : outcome)
        .toMatchObject({ code: 'Unavailable', retryable: true, message: expect.stringMatching(/no answer from PostgreSQL/) });
      expect(closed).toEqual(['idle_session']); // what the roles' clusterpedia_storage_connections_closed_total counts
      for (let i = 0; ; i++) {
        try {
          expect(await storage.currentRevision()).toMatch(/^\d+$/);
          break;
        } catch (e: unknown) {
          expect(isStorageError(e) && e.retryable).toBe(true);
          if (i >= 3) throw e;
          await sleep(100);
        }
      }
    } finally {
      await storage.close();
      await admin.end({ timeout: 1 });
    }
  });

  it('a server reached over a Unix-domain socket (host a directory) is connected as postgres.js does it', async () => {
    const admin = createPool(connection(db.url), { answerWatch: false });
    let directory: string;
    try {
      const [row] = await admin.unsafe('SHOW unix_socket_directories');
      directory = String((row as unknown as { unix_socket_directories: string }).unix_socket_directories).split(',')[0]?.trim() ?? '';
    } finally {
      await admin.end({ timeout: 1 });
    }
    expect(directory).toMatch(/^\//);
    // As a config file's `dsn: host=/var/run/postgresql …` gives it.
    const sql = createPool({ ...connection(db.url), host: directory }, { answerWatch: QUICK });
    try {
      const [row] = await sql.unsafe('SELECT inet_client_addr() IS NULL AS local');
      expect(row).toEqual({ local: true });
    } finally {
      await sql.end({ timeout: 1 });
    }
  });
});

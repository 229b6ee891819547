// openStorageWaiting: a role's start waits for a database that cannot be reached yet (a PostgreSQL starting or failing
// over), gives up after --storage-initialization-timeout with the reason, and fails at once on what waiting cannot fix.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorageWaiting } from '../../src/storage/open.js';
import { freeLoopbackPort } from '../support/certs.js';
import { recordingLogger } from '../support/log.js';
import { forwarder, freshPostgresDatabase, type Forwarder } from '../support/postgres.js';

interface LogLine {
  level: number;
  msg: string;
  err?: string;
  attempt?: number;
  retryInMs?: number;
}

// The test server trusts loopback (no password asked); one in the URL must still stay out of every line.
const PASSWORD = 'pw-never-logged-7f3a';

describe('openStorageWaiting (PostgreSQL)', () => {
  let db: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  beforeAll(async () => { db = await freshPostgresDatabase('cp_wait'); });
  afterAll(async () => { await db.drop(); });

  /** The test database's URL, pointed at another loopback port, with a password the logs must never show. */
  function atPort(port: number, database?: string): string {
    const u = new URL(db.url);
    u.hostname = '127.0.0.1';
    u.port = String(port);
    if (!u.password) u.password = PASSWORD;
    if (database) u.pathname = `/${database}`;
    return u.toString();
  }

  it('waits for a database that comes up, then opens and readies it', async () => {
    const port = await freeLoopbackPort();
    const log = recordingLogger<LogLine>();
    let prepared = 0;
    let proxy: Forwarder | undefined;
    // The database comes up after the second failed attempt, however long the attempts take on a busy machine (a
    // timer at 2.5 s met the second attempt late, once, when the whole suite ran).
    const retries = (): LogLine[] => log.lines.filter((l) => l.msg === 'storage not ready; trying again');
    const late = setInterval(() => {
      if (retries().length < 2) return;
      clearInterval(late);
      void forwarder(port, db.url).then((s) => { proxy = s; });
    }, 50);
    try {
      const storage = await openStorageWaiting({ url: atPort(port) }, { logger: log.logger }, { timeoutMs: 30_000, signal: new AbortController().signal }, async (s) => {
        await s.migrate();
        prepared++;
      });
      expect(storage).toBeDefined();
      expect(prepared).toBe(1);
      // Migrated through the late port: the schema is there and a read answers.
      expect(await storage?.currentRevision()).toMatch(/^\d+$/);
      await storage?.close();
    } finally {
      clearInterval(late);
      await proxy?.stop();
    }
    const warns = retries();
    expect(warns.length).toBeGreaterThanOrEqual(2);
    expect(warns[0]?.err).toMatch(/unreachable/);
    // Back-off: each wait at least as long as the one before (1 s doubling, up to 10 s).
    const delays = warns.map((w) => w.retryInMs ?? 0);
    for (let i = 1; i < delays.length; i++) expect(delays[i] ?? 0).toBeGreaterThanOrEqual(delays[i - 1] ?? 0);
    expect(log.lines.some((l) => l.msg === 'storage ready')).toBe(true);
    expect(log.text()).not.toContain(new URL(atPort(port)).password);
  });

  it('gives up after the timeout, naming the last reason and the flag', async () => {
    const log = recordingLogger<LogLine>();
    const started = Date.now();
    const err: unknown = await openStorageWaiting({ url: atPort(await freeLoopbackPort()) }, { logger: log.logger }, { timeoutMs: 2500, signal: new AbortController().signal })
      .then(() => undefined, (e: unknown) => e);
    expect(err).toMatchObject({ code: 'Unavailable', message: expect.stringMatching(/unreachable.*gave up after [23]s of trying \(--storage-initialization-timeout\)/) });
    expect(Date.now() - started).toBeGreaterThanOrEqual(2400);
    expect(log.lines.filter((l) => l.msg === 'storage not ready; trying again').length).toBeGreaterThanOrEqual(2);
    expect(`${log.text()}\n${(err as Error).message}`).not.toContain(PASSWORD);
  });

  it('a timeout of 0 tries once', async () => {
    const log = recordingLogger<LogLine>();
    const err: unknown = await openStorageWaiting({ url: atPort(await freeLoopbackPort()) }, { logger: log.logger }, { timeoutMs: 0, signal: new AbortController().signal })
      .then(() => undefined, (e: unknown) => e);
    expect(err).toMatchObject({ code: 'Unavailable', message: expect.stringMatching(/tried once/) });
    expect(log.lines.some((l) => l.msg === 'storage not ready; trying again')).toBe(false);
  });

  it('what waiting cannot fix fails at once: a database that does not exist', async () => {
    const log = recordingLogger<LogLine>();
    const real = new URL(db.url);
    const started = Date.now();
    const err: unknown = await openStorageWaiting({ url: atPort(Number(real.port), 'no_such_database_here') }, { logger: log.logger }, { timeoutMs: 30_000, signal: new AbortController().signal })
      .then(() => undefined, (e: unknown) => e);
    expect(err).toMatchObject({ code: 'Unavailable', retryable: false, message: expect.stringMatching(/no_such_database_here/) });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(log.lines.some((l) => l.msg === 'storage not ready; trying again')).toBe(false);
  });

  it('a stop while waiting ends the wait: nothing opened, no error', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const started = Date.now();
    const storage = await openStorageWaiting({ url: atPort(await freeLoopbackPort()) }, { logger: recordingLogger<LogLine>().logger }, { timeoutMs: 60_000, signal: ac.signal });
    expect(storage).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

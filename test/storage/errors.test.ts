// Driver errors are mapped once, at the dialect edge, into StorageError {code, retryable, cause}.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/lib/log.js';
import { isStorageError } from '../../src/storage/errors.js';
import { openStorage } from '../../src/storage/open.js';
import { mapPostgresError } from '../../src/storage/postgres/errors.js';
import { WRITE_LOCK } from '../../src/storage/postgres/write.js';
import { mapSqliteError } from '../../src/storage/sqlite/errors.js';
import { freshPostgresDatabase } from '../support/postgres.js';
import { pod } from './fixtures.js';

function thrownBy(f: () => unknown): unknown {
  try {
    f();
  } catch (e: unknown) {
    return e;
  }
  throw new Error('expected a throw');
}

describe('sqlite errors', () => {
  it('a write blocked by another process past busy_timeout is Unavailable and retryable; it succeeds once the lock is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-busy-'));
    try {
      const s = await openStorage({ url: `sqlite:${join(dir, 'x.db')}` }, { logger: silentLogger(), busyTimeoutMs: 50 });
      await s.migrate();
      const other = new Database(join(dir, 'x.db'));
      other.exec('BEGIN IMMEDIATE');
      const e: unknown = await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'a' })], deletes: [] }).then(() => undefined, (x: unknown) => x);
      expect(e).toMatchObject({ code: 'Unavailable', retryable: true });
      expect((e as { cause?: { code?: string } }).cause?.code).toMatch(/^SQLITE_BUSY/);
      other.exec('ROLLBACK');
      other.close();
      expect(await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'a' })], deletes: [] })).toMatchObject({ written: 1 });
      await s.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('real better-sqlite3 errors: full disk → Unavailable retryable, constraint → Conflict, missing table → SchemaMismatch, corrupt → Internal', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT)');
    db.pragma('max_page_count = 2');
    const full = mapSqliteError(thrownBy(() => db.prepare('INSERT INTO t VALUES (?, ?)').run('a', 'x'.repeat(100_000))), 'write');
    expect(full).toMatchObject({ code: 'Unavailable', retryable: true });
    db.pragma('max_page_count = 1000');
    db.prepare('INSERT INTO t VALUES (?, ?)').run('b', 'y');
    expect(mapSqliteError(thrownBy(() => db.prepare('INSERT INTO t VALUES (?, ?)').run('b', 'y')), 'write')).toMatchObject({ code: 'Conflict', retryable: false });
    expect(mapSqliteError(thrownBy(() => db.prepare('SELECT * FROM resources').all()), 'list')).toMatchObject({ code: 'SchemaMismatch', retryable: false });
    // Subqueries nested past the parser's depth (an owner search 336 generations deep, before the API bounded it):
    // a request too big for storage, a 400, not an internal error.
    for (const depth of [100, 400]) { // "Expression tree is too large", then "Recursion limit"
      let nested = 'SELECT 1';
      for (let i = 0; i < depth; i++) nested = `SELECT k FROM t WHERE v IN (${nested})`;
      expect(mapSqliteError(thrownBy(() => db.prepare(nested).all()), 'list'), `depth ${depth}`).toMatchObject({ code: 'Invalid', retryable: false });
    }
    db.close();
    expect(mapSqliteError(Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' }), 'list')).toMatchObject({ code: 'Internal', retryable: false });
    expect(mapSqliteError(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' }), 'write')).toMatchObject({ code: 'Unavailable', retryable: true });
    const mapped = mapSqliteError(new Error('x'), 'w');
    expect(isStorageError(mapped) && mapSqliteError(mapped, 'again')).toBe(mapped);
  });
});

describe('postgres errors', () => {
  it('SQLSTATE and connection codes', () => {
    const m = (code: string) => mapPostgresError(Object.assign(new Error(`error ${code}`), { code }), 'op');
    for (const c of ['ECONNREFUSED', 'ECONNRESET', 'CONNECTION_CLOSED', 'CONNECT_TIMEOUT', '57P01', '57P03', '53300', '08006', '08001', '57014', '57P05', '25P03']) {
      expect(m(c), c).toMatchObject({ code: 'Unavailable', retryable: true });
    }
    // This process out of descriptors or memory for a new connection: it passes, so 503 and retried.
    for (const c of ['EMFILE', 'ENFILE', 'ENOMEM']) {
      expect(m(c), c).toMatchObject({ code: 'Unavailable', retryable: true });
      expect(m(c).message, c).toContain('no new database connection');
    }
    expect(m('40001')).toMatchObject({ code: 'Conflict', retryable: true });
    expect(m('40P01')).toMatchObject({ code: 'Conflict', retryable: true });
    expect(m('23505')).toMatchObject({ code: 'Conflict', retryable: false });
    expect(m('28P01')).toMatchObject({ code: 'Unavailable', retryable: false });
    expect(m('42P01')).toMatchObject({ code: 'SchemaMismatch', retryable: false });
    expect(m('42601')).toMatchObject({ code: 'Internal', retryable: false });
    expect(m('42601').cause).toBeInstanceOf(Error);
  });

  it('a server that terminates the session during a write: Unavailable, retryable; the next write succeeds', async () => {
    const db = await freshPostgresDatabase('cp_errors');
    const admin = postgres(db.url, { max: 1, onnotice: () => {} });
    const s = await openStorage({ url: db.url }, { logger: silentLogger() });
    try {
      await s.migrate();
      // Hold the writers' advisory lock so the write waits inside its transaction, then kill its session.
      await admin`SELECT pg_advisory_lock(${WRITE_LOCK})`;
      const pending = s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'a' })], deletes: [] }).then(() => undefined, (x: unknown) => x);
      const deadline = Date.now() + 10_000;
      let killed = 0;
      while (killed === 0 && Date.now() < deadline) {
        const r = await admin`SELECT pg_terminate_backend(pid) AS k FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`;
        killed = r.length;
        if (killed === 0) await new Promise((r) => setTimeout(r, 20));
      }
      expect(killed).toBe(1);
      expect(await pending).toMatchObject({ code: 'Unavailable', retryable: true });
      await admin`SELECT pg_advisory_unlock(${WRITE_LOCK})`;
      expect(await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'a' })], deletes: [] })).toMatchObject({ written: 1 });
    } finally {
      await s.close();
      await admin.end();
      await db.drop();
    }
  });
});

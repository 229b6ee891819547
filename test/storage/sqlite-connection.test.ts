// The writer connection's file layout: page size for new files, and a checkpoint interval in bytes whatever the
// page size of the file it opens.
import Database from 'better-sqlite3';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openConnection, ReadPool } from '../../src/storage/sqlite/connection.js';

describe('sqlite writer connection', () => {
  const dirs: string[] = [];
  const file = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-sqlite-conn-'));
    dirs.push(dir);
    return join(dir, 'db.sqlite');
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('creates files with 4 KiB pages and checkpoints every 64 MiB of WAL', () => {
    const f = file();
    const db = openConnection(f, 1000, 'writer');
    db.exec('CREATE TABLE t (x)');
    expect(db.pragma('page_size', { simple: true })).toBe(4096);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(16384);
    db.close();
  });

  it('keeps the page size of an existing file, and still checkpoints every 64 MiB of WAL', () => {
    const f = file();
    const old = new Database(f);
    old.pragma('page_size = 16384');
    old.pragma('journal_mode = WAL');
    old.exec('CREATE TABLE t (x)');
    old.close();
    const db = openConnection(f, 1000, 'writer');
    expect(db.pragma('page_size', { simple: true })).toBe(16384);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(4096);
    db.close();
  });

  it('read pool: a connection that cannot be opened (the open-files limit) makes the request wait for one in use, not fail', async () => {
    const f = file();
    const w = openConnection(f, 1000, 'writer');
    w.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1)');
    const pool = new ReadPool(f, 1000, 4);
    const first = await pool.acquire();
    expect(first.prepare('SELECT x FROM t').pluck().get()).toBe(1);
    // From here a new connection cannot be opened: its directory is gone from the path (as with EMFILE, any open fails).
    const moved = `${f.slice(0, f.lastIndexOf('/'))}-moved`;
    renameSync(f.slice(0, f.lastIndexOf('/')), moved);
    dirs.push(moved);
    let second: Database.Database | undefined;
    const waiting = pool.acquire().then((db) => { second = db; });
    await new Promise((r) => setTimeout(r, 20));
    expect(second).toBeUndefined();
    pool.release(first);
    await waiting;
    expect(second).toBe(first);
    expect(second?.prepare('SELECT x FROM t').pluck().get()).toBe(1);
    pool.release(first);
    pool.close();
    w.close();
  });
});

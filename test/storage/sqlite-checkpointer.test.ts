// WAL checkpoints on a worker thread: the database file fills while the writer's own checkpoint is only a backstop,
// a failed worker hands checkpoints back to the writer, and close leaves a complete file and no WAL.
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/lib/log.js';
import { Checkpointer } from '../../src/storage/sqlite/checkpointer.js';
import { openConnection, setWalAutocheckpoint } from '../../src/storage/sqlite/connection.js';

const MB = 1024 * 1024;

async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('sqlite checkpointer', () => {
  const dirs: string[] = [];
  const open: { db: Database.Database; cp: Checkpointer }[] = [];
  afterEach(async () => {
    for (const o of open.splice(0)) {
      await o.cp.close();
      if (o.db.open) o.db.close();
    }
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  function setup(module?: string): { file: string; db: Database.Database; cp: Checkpointer; write: (n: number) => void } {
    const dir = mkdtempSync(join(tmpdir(), 'cp-sqlite-ckpt-'));
    dirs.push(dir);
    const file = join(dir, 'db.sqlite');
    const db = openConnection(file, 1000, 'writer');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)');
    const cp = new Checkpointer({ file, busyTimeoutMs: 1000, setAutocheckpoint: (bytes) => setWalAutocheckpoint(db, bytes), logger: silentLogger(), ownBytes: 64 * MB, backstopBytes: 256 * MB, intervalMs: 50, ...(module ? { module } : {}) });
    open.push({ db, cp });
    const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
    const write = (n: number): void => {
      db.transaction(() => {
        for (let i = 0; i < n; i++) insert.run('x'.repeat(4000));
      })();
      cp.committed();
    };
    return { file, db, cp, write };
  }

  it('copies committed pages into the database file from the worker; the writer only keeps a backstop', async () => {
    const { file, db, write } = setup();
    const before = statSync(file).size;
    write(500);
    // 2 MB sit in the WAL: far below either of the writer's thresholds, so only the worker can move them.
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe((256 * MB) / 4096);
    await until(() => statSync(file).size > before + MB);
    // Writes go on while it works; each is checkpointed in turn.
    for (let i = 0; i < 5; i++) write(100);
    await until(() => statSync(file).size > before + 3 * MB);
    const reader = new Database(file, { readonly: true });
    expect((reader.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n).toBe(1000);
    reader.close();
  });

  it('hands checkpoints back to the writer when the worker cannot run', async () => {
    const { db, write } = setup('/nonexistent/better-sqlite3.js');
    write(10);
    await until(() => db.pragma('wal_autocheckpoint', { simple: true }) === (64 * MB) / 4096);
    write(10);
    expect((db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n).toBe(20);
  });

  it('close stops the worker first, so the writer closes last and removes the WAL', async () => {
    const { file, db, cp, write } = setup();
    write(200);
    await cp.close();
    db.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
    const reader = new Database(file, { readonly: true });
    expect((reader.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n).toBe(200);
    reader.close();
  });
});

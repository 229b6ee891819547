// A store whose tables are emptied under a read (a restore in progress) is unavailable for a moment, never at revision
// 0: a list answered "resourceVersion 0" made an informer watch from "any" and get every object again as ADDED. On
// PostgreSQL a list's snapshot locks the tables it reads first, so it waits for a restore instead, and a restore for it.
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { isStorageError } from '../../src/storage/errors.js';
import type { Storage } from '../../src/storage/types.js';
import { drain, pod, PODS } from './fixtures.js';
import { postgresHarness } from './harness-postgres.js';
import { sqliteHarness } from './harness-sqlite.js';

async function expectUnavailable(p: Promise<unknown>): Promise<void> {
  const e: unknown = await p.then(() => undefined, (x: unknown) => x);
  expect(isStorageError(e) && e.code === 'Unavailable' && e.retryable, String(e)).toBe(true);
  expect(String(e)).toMatch(/no revision/);
}

async function fill(s: Storage): Promise<void> {
  await s.migrate();
  await s.write({ upserts: [pod({ cluster: 'c', namespace: 'ns', name: 'a' }), pod({ cluster: 'c', namespace: 'ns', name: 'b' })], deletes: [] });
}

/** A filled PostgreSQL store, an admin connection to it, and its revision, for `body`. */
async function withFilledPostgres(body: (storage: Storage, admin: postgres.Sql, revision: string) => Promise<void>): Promise<void> {
  const h = await postgresHarness();
  const admin = postgres(h.url, { max: 1, onnotice: () => {} });
  try {
    await fill(h.storage);
    await body(h.storage, admin, await h.storage.currentRevision());
  } finally {
    await admin.end();
    await h.cleanup();
  }
}

describe('head revision missing', () => {
  it('sqlite: list, currentRevision and changesSince say unavailable, and answer again once it is back', async () => {
    const h = await sqliteHarness();
    try {
      await fill(h.storage);
      const revision = await h.storage.currentRevision();
      const db = new Database(h.file);
      try {
        db.prepare(`DELETE FROM meta WHERE key = 'revision'`).run();
        await expectUnavailable(h.storage.currentRevision());
        await expectUnavailable(h.storage.list({ types: PODS }).then(drain));
        await expectUnavailable(h.storage.changesSince(revision, { types: { kind: 'all' } }, 10));
        db.prepare(`INSERT INTO meta (key, value) VALUES ('revision', ?)`).run(revision);
      } finally {
        db.close();
      }
      expect((await drain(await h.storage.list({ types: PODS }))).map((r) => r.name)).toEqual(['a', 'b']);
    } finally {
      await h.cleanup();
    }
  });

  it('postgres: a list that begins during a TRUNCATE-and-reload waits for it and reads what it restored', async () => {
    await withFilledPostgres(async (storage, admin, revision) => {
      let release: () => void = () => {};
      const held = new Promise<void>((r) => { release = r; });
      let truncated: () => void = () => {};
      const isTruncated = new Promise<void>((r) => { truncated = r; });
      // The restore: TRUNCATE takes its lock at once; the reload commits only when released.
      const restore = admin.begin(async (tx) => {
        await tx.unsafe('CREATE TEMP TABLE saved_meta AS TABLE meta');
        await tx.unsafe('CREATE TEMP TABLE saved_resources AS TABLE resources');
        await tx.unsafe('TRUNCATE meta, resources');
        truncated();
        await held;
        await tx.unsafe('INSERT INTO meta SELECT * FROM saved_meta');
        await tx.unsafe('INSERT INTO resources SELECT * FROM saved_resources');
      });
      await isTruncated;
      let answered = false;
      const read = storage.list({ types: PODS }).then(async (page) => {
        answered = true;
        return { revision: page.revision, names: (await drain(page)).map((r) => r.name) };
      });
      await new Promise((r) => setTimeout(r, 300));
      expect(answered).toBe(false);
      release();
      await restore;
      // Its snapshot is taken once the restore committed: the reloaded rows, at their revision.
      expect(await read).toEqual({ revision, names: ['a', 'b'] });
    });
  });

  it('postgres: a restore that empties resources after a list read its head revision waits for the list, which reads every row', async () => {
    await withFilledPostgres(async (storage, admin, revision) => {
      // Unlimited: the snapshot is open and its revision read; the rows are read when drained.
      const page = await storage.list({ types: PODS });
      let restored = false;
      // Emptying resources alone (or before meta): the list holds meta already, not resources.
      const restore = admin.begin(async (tx) => {
        await tx.unsafe('CREATE TEMP TABLE saved_resources AS TABLE resources');
        await tx.unsafe('TRUNCATE resources');
        await tx.unsafe('INSERT INTO resources SELECT * FROM saved_resources');
      }).then(() => { restored = true; });
      await new Promise((r) => setTimeout(r, 300));
      expect(restored).toBe(false);
      expect(page.revision).toBe(revision);
      expect((await drain(page)).map((r) => r.name)).toEqual(['a', 'b']);
      await restore;
      expect((await drain(await storage.list({ types: PODS }))).map((r) => r.name)).toEqual(['a', 'b']);
    });
  });
});

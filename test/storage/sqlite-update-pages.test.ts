// Which pages an update dirties on SQLite. SQLite rewrites the entries of every index whose columns an UPDATE sets,
// even to the values they had; at a million rows each such entry is a random page read and a page written to the WAL.
// An update that keeps uid, owner and creation time must leave resources_owner and resources_created alone, and one
// that changes them must move their entries. Read from the WAL itself: each frame names the page it holds.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openConnection, type Db } from '../../src/storage/sqlite/connection.js';
import { migrateSqlite } from '../../src/storage/sqlite/migrate.js';
import { applyBatch } from '../../src/storage/sqlite/write.js';
import type { UpsertObject } from '../../src/storage/types.js';
import { collapseBatch } from '../../src/storage/write-plan.js';
import { obj } from './fixtures.js';

const PODS = 3000;

function pod(i: number, rv: number, change: { owner?: string; created?: string; uid?: string } = {}): UpsertObject {
  return obj('pods', {
    cluster: 'c1',
    namespace: `ns-${i % 7}`,
    name: `pod-${String(i).padStart(5, '0')}`,
    uid: change.uid ?? `uid-pod-${i}`,
    owner: change.owner ?? `uid-rs-${(i * 7919) % 1000}`,
    created: change.created ?? new Date(Date.UTC(2024, 0, 1) + ((i * 104729) % 100_000) * 1000).toISOString(),
    rv: String(rv),
    labels: { app: `app-${i % 50}` },
    fields: { status: { phase: rv % 2 ? 'Running' : 'Pending', podIP: `10.0.${i >> 8}.${i & 255}` } },
  });
}

/** Page numbers of the frames in the WAL that belong to its current generation. */
function walPages(file: string): Set<number> {
  const wal = readFileSync(`${file}-wal`);
  const pageSize = wal.readUInt32BE(8);
  const salt1 = wal.readUInt32BE(16);
  const salt2 = wal.readUInt32BE(20);
  const pages = new Set<number>();
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    if (wal.readUInt32BE(at + 8) !== salt1 || wal.readUInt32BE(at + 12) !== salt2) break;
    pages.add(wal.readUInt32BE(at));
  }
  return pages;
}

function indexPages(db: Db, name: string): Set<number> {
  const rows = db.prepare('SELECT pageno FROM dbstat WHERE name = ?').raw(true).all(name) as [number][];
  return new Set(rows.map((r) => r[0]));
}

describe('sqlite: pages an update dirties', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  function setup(): { db: Db; file: string; write: (objs: UpsertObject[]) => Set<number> } {
    const dir = mkdtempSync(join(tmpdir(), 'cp-sqlite-upd-'));
    dirs.push(dir);
    const file = join(dir, 'db.sqlite');
    const db = openConnection(file, 1000, 'writer');
    db.pragma('wal_autocheckpoint = 0');
    migrateSqlite(db, false);
    const write = (objs: UpsertObject[]): Set<number> => {
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.transaction(() => applyBatch(db, collapseBatch({ upserts: objs, deletes: [] }), Date.now()))();
      return walPages(file);
    };
    write(Array.from({ length: PODS }, (_, i) => pod(i, 2 * i + 10)));
    return { db, file, write };
  }

  const every = (n: number, from: number): number[] => Array.from({ length: n }, (_, k) => (k * 61 + from) % PODS);

  it('a status update leaves the owner and creation-time indexes untouched', () => {
    const { db, write } = setup();
    const owner = indexPages(db, 'resources_owner');
    const created = indexPages(db, 'resources_created');
    expect(owner.size).toBeGreaterThan(10);
    expect(created.size).toBeGreaterThan(5);

    const dirtied = write(every(40, 3).map((i) => pod(i, 100_000 + 2 * i + 1)));
    expect(dirtied.size).toBeGreaterThan(0);
    expect([...dirtied].filter((p) => owner.has(p))).toEqual([]);
    expect([...dirtied].filter((p) => created.has(p))).toEqual([]);
    const stored = db.prepare(`SELECT count(*) FROM resources WHERE object LIKE '%"Running"%'`).pluck().get() as number;
    expect(stored).toBeGreaterThan(0);
    db.close();
  });

  it('an update that changes the owner or the creation time moves those index entries', () => {
    const { db, write } = setup();
    const changed = every(40, 5);
    const dirtied = write(changed.map((i) => pod(i, 200_000 + i, { owner: `uid-new-owner-${i}`, created: '2030-01-01T00:00:00Z' })));
    const owner = indexPages(db, 'resources_owner');
    const created = indexPages(db, 'resources_created');
    expect([...dirtied].filter((p) => owner.has(p)).length).toBeGreaterThan(0);
    expect([...dirtied].filter((p) => created.has(p)).length).toBeGreaterThan(0);
    // Found through the new values, not the old ones.
    const byOwner = db.prepare(`SELECT count(*) FROM resources INDEXED BY resources_owner WHERE cluster = 'c1' AND owner_uid LIKE 'uid-new-owner-%'`).pluck();
    expect(byOwner.get()).toBe(changed.length);
    const newest = db
      .prepare(`SELECT name FROM resources INDEXED BY resources_created WHERE "group" = '' AND version = 'v1' AND resource = 'pods' ORDER BY created_at DESC LIMIT ?`)
      .pluck()
      .all(changed.length) as string[];
    expect(newest.sort()).toEqual(changed.map((i) => `pod-${String(i).padStart(5, '0')}`).sort());
    db.close();
  });

  it('a new uid under the same name (the object was recreated) moves its owner entry', () => {
    const { db, write } = setup();
    write([pod(17, 300_000, { uid: 'uid-recreated' })]);
    const row = db.prepare(`SELECT count(*) FROM resources INDEXED BY resources_owner WHERE cluster = 'c1' AND owner_uid = ? AND uid = 'uid-recreated'`).pluck();
    expect(row.get(`uid-rs-${(17 * 7919) % 1000}`)).toBe(1);
    db.close();
  });
});

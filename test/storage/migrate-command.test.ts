// `clusterpedia migrate`: prints the plan, applies it once, and reports bad input and unreachable storage.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Command } from 'commander';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { newMigrateCommand } from '../../src/cmd/migrate.js';
import { silentLogger } from '../../src/lib/log.js';
import { openStorage } from '../../src/storage/open.js';
import postgres from 'postgres';
import type { Storage, StoredJsonObject, UpsertObject } from '../../src/storage/types.js';
import { freshPostgresDatabase } from '../support/postgres.js';
import { pod } from './fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-migrate-cmd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** Runs `clusterpedia migrate <args>` through a fresh command tree and returns what it printed. */
async function migrate(...args: string[]): Promise<string> {
  const out: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => {
    out.push(String(s));
    return true;
  });
  const root = new Command('clusterpedia').option('--log-level <level>', '', 'silent').option('--log-format <f>', '', 'json').exitOverride();
  root.addCommand(newMigrateCommand());
  try {
    await root.parseAsync(['node', 'clusterpedia', '--log-level', 'silent', 'migrate', ...args]);
  } finally {
    vi.restoreAllMocks();
  }
  return out.join('');
}

const PG_ALL = '0000_init, 0001_event_involved_uid, 0002_object_json, 0003_change_prev_labels, 0004_selectable_fields, 0005_object_lz4';

function storage(url: string): Promise<Storage> {
  return openStorage({ url }, { logger: silentLogger() });
}

describe('clusterpedia migrate', () => {
  it('sqlite: dry run prints the plan and changes nothing; then applies once; then is up to date', async () => {
    const url = `sqlite:${join(dir, 'a.db')}`;
    const all = '0000_init, 0001_event_involved_uid, 0002_change_prev_labels, 0003_selectable_fields, 0004_fields_before_object';
    expect(await migrate('--storage', url, '--dry-run')).toBe(`would migrate schema version 0 → 5: ${all}\n`);
    expect(await migrate('--storage', url, '--dry-run')).toBe(`would migrate schema version 0 → 5: ${all}\n`);
    expect(await migrate('--storage', url)).toBe(`schema version 0 → 5: ${all}\n`);
    expect(await migrate('--storage', url)).toBe('schema is up to date (version 5)\n');
  });

  it('sqlite: the upgrade to version 2 gives Events written before it their involved object in owner_uid', async () => {
    const url = `sqlite:${join(dir, 'upgrade.db')}`;
    await migrate('--storage', url);
    const storage = await openStorage({ url }, { logger: silentLogger() });
    try {
      const p = { cluster: 'c', group: '', version: 'v1', resource: 'pods', kind: 'Pod', object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', uid: 'uid-p' } } };
      const e = { cluster: 'c', group: '', version: 'v1', resource: 'events', kind: 'Event', object: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'p.1', namespace: 'ns', uid: 'uid-e' }, involvedObject: { kind: 'Pod', uid: 'uid-p' } } };
      await storage.write({ upserts: [p, e], deletes: [] });
    } finally {
      await storage.close();
    }
    // Back to how version 1 left such a row: no owner, and no later migration recorded (nor their columns).
    const db = new Database(join(dir, 'upgrade.db'));
    db.prepare(`UPDATE resources SET owner_uid = '' WHERE resource = 'events'`).run();
    for (const drop of [`changes DROP COLUMN prev_labels`, `changes DROP COLUMN prev_fields`, `resources DROP COLUMN fields`]) db.prepare(`ALTER TABLE ${drop}`).run();
    db.prepare(`DELETE FROM __drizzle_migrations WHERE rowid IN (SELECT rowid FROM __drizzle_migrations ORDER BY rowid DESC LIMIT 4)`).run();
    db.close();
    expect(await migrate('--storage', url)).toBe('schema version 1 → 5: 0001_event_involved_uid, 0002_change_prev_labels, 0003_selectable_fields, 0004_fields_before_object\n');
    const after = await openStorage({ url }, { logger: silentLogger() });
    try {
      expect((await after.involvedEvents('c', ['uid-p'])).get('uid-p')?.map((x) => (JSON.parse(x) as { metadata: { name: string } }).metadata.name)).toEqual(['p.1']);
    } finally {
      await after.close();
    }
  });

  it('sqlite: the upgrade to version 5 puts fields before the object and keeps every row as it was, ids and indexes included', async () => {
    const file = join(dir, 'reorder.db');
    const url = `sqlite:${file}`;
    await migrate('--storage', url);
    let s = await storage(url);
    const pod = (name: string, phase: string, node?: string, rv = '1') => ({ cluster: 'c', group: '', version: 'v1', resource: 'pods', kind: 'Pod',
      object: { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: rv, labels: { app: name } }, spec: node ? { nodeName: node } : {}, status: { phase } } });
    await s.write({ upserts: [pod('a', 'Running', 'n1'), pod('b', 'Pending'), pod('c', 'Running', 'n2')], deletes: [] });
    await s.close();
    // Back to how 0003 left the table: `fields` appended after `object` (one row from before it, with none).
    const db = new Database(file);
    const rows = (): unknown[] => db.prepare('SELECT * FROM resources ORDER BY id').all();
    const columns = (): string[] => (db.prepare('PRAGMA table_info(resources)').all() as { name: string }[]).map((c) => c.name);
    const indexes = (): string[] => (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'resources' ORDER BY name`).all() as { name: string }[]).map((r) => r.name);
    const saved = db.prepare('SELECT id, fields FROM resources').all() as { id: number; fields: string | null }[];
    db.prepare('ALTER TABLE resources DROP COLUMN fields').run();
    db.prepare('ALTER TABLE resources ADD fields text').run();
    for (const r of saved) db.prepare('UPDATE resources SET fields = ? WHERE id = ?').run(r.id === saved[1]!.id ? null : r.fields, r.id);
    db.prepare(`DELETE FROM __drizzle_migrations WHERE rowid IN (SELECT rowid FROM __drizzle_migrations ORDER BY rowid DESC LIMIT 1)`).run();
    expect(columns().slice(-2)).toEqual(['object', 'fields']);
    const before = rows();
    const indexesBefore = indexes();
    expect(indexesBefore.length).toBeGreaterThanOrEqual(5);
    db.close();

    expect(await migrate('--storage', url)).toBe('schema version 4 → 5: 0004_fields_before_object\n');
    const after = new Database(file, { readonly: true });
    try {
      const cols = (after.prepare('PRAGMA table_info(resources)').all() as { name: string }[]).map((c) => c.name);
      expect(cols.slice(-2)).toEqual(['fields', 'object']);
      // Every row, every column (ids too: change-log entries join on them), compared by name.
      expect(after.prepare('SELECT * FROM resources ORDER BY id').all()).toEqual(before);
      expect((after.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'resources' ORDER BY name`).all() as { name: string }[]).map((r) => r.name)).toEqual(indexesBefore);
      expect(after.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE name = '__new_resources'`).get()).toEqual({ n: 0 });
      // The upgrade took the planner's statistics of the rebuilt table again.
      expect((after.prepare(`SELECT count(*) AS n FROM sqlite_stat1 WHERE tbl = 'resources'`).get() as { n: number }).n).toBeGreaterThan(0);
    } finally {
      after.close();
    }
    s = await storage(url);
    try {
      const names = async (phase: string): Promise<string[]> => {
        const out: string[] = [];
        for await (const r of (await s.list({ types: { kind: 'one', group: '', version: 'v1', resource: 'pods' }, fields: [{ path: [{ name: 'status' }, { name: 'phase' }], operator: '=', values: [phase], absentAs: '' }] })).rows) out.push(r.name);
        return out;
      };
      expect(await names('Running')).toEqual(['a', 'c']);
      expect(await names('Pending')).toEqual(['b']);
      await s.write({ upserts: [pod('b', 'Running', 'n1', '2')], deletes: [] });
      expect(await names('Running')).toEqual(['a', 'b', 'c']);
    } finally {
      await s.close();
    }
  });

  it('postgres through --storage-config with the password from DB_PASSWORD', async () => {
    const db = await freshPostgresDatabase('cp_migrate_cmd');
    try {
      const u = new URL(db.url);
      const cfg = join(dir, 'pg.yaml');
      writeFileSync(cfg, `type: postgres\nhost: ${u.hostname}\nport: ${u.port}\nuser: ${u.username}\ndatabase: ${u.pathname.slice(1)}\n`);
      vi.stubEnv('DB_PASSWORD', 'unused-with-trust-auth');
      expect(await migrate('--storage-config', cfg)).toBe(`schema version 0 → 6: ${PG_ALL}\n`);
      expect(await migrate('--storage', 'sqlite:ignored-because-config-wins.db', '--storage-config', cfg)).toBe('schema is up to date (version 6)\n');
    } finally {
      vi.unstubAllEnvs();
      await db.drop();
    }
  });

  it('postgres: the upgrade to version 3 keeps every object and label set, now as the text it was written as', async () => {
    const db = await freshPostgresDatabase('cp_migrate_json');
    const sqlOf = postgres(db.url, { max: 1, onnotice: () => {} });
    try {
      expect(await migrate('--storage', db.url)).toBe(`schema version 0 → 6: ${PG_ALL}\n`);
      // Back to how version 2 left the tables: jsonb columns, the later migrations not recorded (the columns of the
      // fourth and fifth go once the writes below, which this clusterpedia makes with them, are done).
      await sqlOf.unsafe(`ALTER TABLE changes ALTER COLUMN object TYPE jsonb USING object::jsonb`);
      await sqlOf.unsafe(`ALTER TABLE resources ALTER COLUMN labels TYPE jsonb USING labels::jsonb, ALTER COLUMN object TYPE jsonb USING object::jsonb`);
      await sqlOf.unsafe(`DELETE FROM drizzle.__drizzle_migrations WHERE id IN (SELECT id FROM drizzle.__drizzle_migrations ORDER BY id DESC LIMIT 4)`);
      const objects: StoredJsonObject[] = [0, 1, 2].map((i) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${i}`, namespace: 'ns', uid: `u${i}`, resourceVersion: '1', labels: { app: `a${i}`, 'x.io/k': 'v' } }, spec: { n: [i, true, null] } }));
      const before = storage(db.url);
      const origin = await (await before).currentRevision();
      try {
        await (await before).write({ upserts: objects.map((object) => ({ cluster: 'c', group: '', version: 'v1', resource: 'pods', kind: 'Pod', object })), deletes: [] });
        await (await before).write({ upserts: [], deletes: [{ cluster: 'c', group: '', version: 'v1', resource: 'pods', namespace: 'ns', name: 'p2' }] });
      } finally {
        await (await before).close();
      }
      expect((await sqlOf.unsafe(`SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'resources'::regclass AND attname = 'object'`))[0]?.t).toBe('jsonb');
      await sqlOf.unsafe(`ALTER TABLE changes DROP COLUMN prev_labels, DROP COLUMN prev_fields`);
      await sqlOf.unsafe(`ALTER TABLE resources DROP COLUMN fields`);
      expect(await migrate('--storage', db.url)).toBe('schema version 2 → 6: 0002_object_json, 0003_change_prev_labels, 0004_selectable_fields, 0005_object_lz4\n');
      const types = await sqlOf.unsafe(`SELECT attrelid::regclass::text AS tbl, attname, format_type(atttypid, atttypmod) AS t FROM pg_attribute
        WHERE attrelid IN ('resources'::regclass, 'changes'::regclass) AND attname IN ('object', 'labels') ORDER BY 1, 2`);
      expect(types.map((r) => `${r.tbl}.${r.attname} ${r.t}`)).toEqual(['changes.object json', 'resources.labels json', 'resources.object json']);
      const after = await storage(db.url);
      try {
        const page = await after.list({ types: { kind: 'one', group: '', version: 'v1', resource: 'pods' }, labels: [{ key: 'x.io/k', operator: 'exists', values: [] }] });
        const got: unknown[] = [];
        const essentials = (o: StoredJsonObject): unknown => ({ name: o.metadata.name, labels: o.metadata.labels, spec: o['spec'] });
        for await (const r of page.rows) got.push(essentials(JSON.parse(r.object) as StoredJsonObject));
        expect(got).toEqual(objects.slice(0, 2).map(essentials));
        // The deleted object's last state is still in the change log, and a watch from before the deletion gets it.
        const changes = await after.changesSince(origin, { types: { kind: 'one', group: '', version: 'v1', resource: 'pods' } }, 100);
        const deleted = changes.expired ? [] : changes.changes.filter((c) => c.type === 'DELETED');
        expect(deleted.map((c) => (JSON.parse(c.row.object) as { metadata: { name: string } }).metadata.name)).toEqual(['p2']);
        // Status updates leave the label rows alone (same row versions): the stored labels text is the text written,
        // so the writer sees they did not change. Under jsonb it read `{"app": "a0", …}` and rewrote them on every
        // update; rows converted by the migration hold that rendering, so their first update rewrites them once.
        const labelRows = (): Promise<string[]> => sqlOf.unsafe(`SELECT key || '=' || value || ' ' || xmin::text AS r FROM resource_labels ORDER BY 1`).then((rs) => rs.map((r) => String(r.r)));
        const statusUpdate = (rv: string, phase: string) => after.write({
          upserts: [{ cluster: 'c', group: '', version: 'v1', resource: 'pods', kind: 'Pod', object: { ...objects[0]!, metadata: { ...objects[0]!.metadata, resourceVersion: rv }, status: { phase } } }],
          deletes: [],
        });
        await statusUpdate('2', 'Pending');
        const rowsBefore = await labelRows();
        await statusUpdate('3', 'Running');
        expect((await after.get({ cluster: 'c', group: '', version: 'v1', resource: 'pods', namespace: 'ns', name: 'p0' }))?.object).toContain('"phase":"Running"');
        expect(await labelRows()).toEqual(rowsBefore);
        expect(rowsBefore).toHaveLength(4);
      } finally {
        await after.close();
      }
    } finally {
      await sqlOf.end();
      await db.drop();
    }
  });

  it('postgres: the upgrade to version 6 compresses objects written from then on with lz4 and leaves those stored before as they are, readable', async () => {
    const db = await freshPostgresDatabase('cp_migrate_lz4');
    const sqlOf = postgres(db.url, { max: 1, onnotice: () => {} });
    // Big enough to be compressed (~6 KB of repetitive text).
    const bigPod = (name: string, rv = '1'): UpsertObject => pod({ cluster: 'c', namespace: 'ns', name, rv, annotations: { note: `${name} `.repeat(1500) } });
    const compression = async (): Promise<string[]> =>
      (await sqlOf.unsafe(`SELECT name || ' ' || coalesce(pg_column_compression(object), 'none') AS r FROM resources ORDER BY name`)).map((r) => String(r.r));
    try {
      await migrate('--storage', db.url);
      // Back to version 5: the columns compressed with the server's default (pglz), the migration not recorded.
      await sqlOf.unsafe(`ALTER TABLE resources ALTER COLUMN object SET COMPRESSION pglz`);
      await sqlOf.unsafe(`ALTER TABLE changes ALTER COLUMN object SET COMPRESSION pglz`);
      await sqlOf.unsafe(`DELETE FROM drizzle.__drizzle_migrations WHERE id IN (SELECT id FROM drizzle.__drizzle_migrations ORDER BY id DESC LIMIT 1)`);
      let s = await storage(db.url);
      await s.write({ upserts: [bigPod('before')], deletes: [] });
      await s.close();
      expect(await compression()).toEqual(['before pglz']);
      expect(await migrate('--storage', db.url)).toBe('schema version 5 → 6: 0005_object_lz4\n');
      s = await storage(db.url);
      try {
        await s.write({ upserts: [bigPod('after')], deletes: [] });
        expect(await compression()).toEqual(['after lz4', 'before pglz']);
        for (const name of ['before', 'after']) {
          const got = await s.get({ cluster: 'c', group: '', version: 'v1', resource: 'pods', namespace: 'ns', name });
          expect((JSON.parse(got?.object ?? '{}') as StoredJsonObject).metadata.annotations?.['note']).toBe(`${name} `.repeat(1500));
        }
        // The next write of a row stored before compresses it anew.
        await s.write({ upserts: [bigPod('before', '2')], deletes: [] });
        expect(await compression()).toEqual(['after lz4', 'before lz4']);
      } finally {
        await s.close();
      }
    } finally {
      await sqlOf.end();
      await db.drop();
    }
  });

  for (const dialect of ['sqlite', 'postgres'] as const) {
    it(`${dialect}: the upgrades that keep the labels and fields a change replaced leave the change log readable; entries after them carry them`, async () => {
      const db = dialect === 'sqlite' ? { url: `sqlite:${join(dir, 'prev-labels.db')}`, drop: async () => {} } : await freshPostgresDatabase('cp_migrate_prev');
      const last = dialect === 'sqlite' ? 'version 2 → 5: 0002_change_prev_labels, 0003_selectable_fields, 0004_fields_before_object' : 'version 3 → 6: 0003_change_prev_labels, 0004_selectable_fields, 0005_object_lz4';
      const podAt = (rv: string, app: string, status: Record<string, string>) => ({ cluster: 'c', group: '', version: 'v1', resource: 'pods', kind: 'Pod',
        object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', uid: 'u', resourceVersion: rv, labels: { app } }, status } });
      try {
        await migrate('--storage', db.url);
        let s = await storage(db.url);
        const origin = await s.currentRevision();
        await s.write({ upserts: [podAt('1', 'x', { phase: 'Pending' })], deletes: [] });
        await s.write({ upserts: [podAt('2', 'y', { phase: 'Pending' })], deletes: [] });
        await s.close();
        const rawSql = async (q: string): Promise<void> => {
          if (dialect === 'sqlite') {
            const raw = new Database(join(dir, 'prev-labels.db'));
            raw.prepare(q).run();
            raw.close();
          } else {
            const raw = postgres(db.url, { max: 1, onnotice: () => {} });
            await raw.unsafe(q);
            await raw.end();
          }
        };
        // Back to the schema before both: no columns, the migrations not recorded.
        const undo = ['ALTER TABLE changes DROP COLUMN prev_labels', 'ALTER TABLE changes DROP COLUMN prev_fields', 'ALTER TABLE resources DROP COLUMN fields'];
        for (const q of undo) await rawSql(q);
        await rawSql(dialect === 'sqlite' ? `DELETE FROM __drizzle_migrations WHERE rowid IN (SELECT rowid FROM __drizzle_migrations ORDER BY rowid DESC LIMIT 3)`
          : `DELETE FROM drizzle.__drizzle_migrations WHERE id IN (SELECT id FROM drizzle.__drizzle_migrations ORDER BY id DESC LIMIT 3)`);
        expect(await migrate('--storage', db.url)).toBe(`schema ${last}\n`);
        s = await storage(db.url);
        const pods = { kind: 'one', group: '', version: 'v1', resource: 'pods' } as const;
        const phase = (value: string) => [{ path: [{ name: 'status' }, { name: 'phase' }], operator: '=' as const, values: [value], absentAs: '' }];
        const names = async (value: string): Promise<string[]> => {
          const out: string[] = [];
          for await (const r of (await s.list({ types: pods, fields: phase(value) })).rows) out.push(r.name);
          return out;
        };
        try {
          // A field selector on a field label reads the row's fields, or, for a row from before that has none, the object.
          expect(await names('Pending')).toEqual(['p']);
          expect(await names('Running')).toEqual([]);
          // The row from before has no fields: its first change keeps its labels and says nothing of its fields.
          await s.write({ upserts: [podAt('3', 'z', { phase: 'Pending' })], deletes: [] });
          await s.write({ upserts: [podAt('4', 'z', { phase: 'Running' })], deletes: [] });
          // Now it has them, and the selector reads them, not the object: told otherwise, it answers otherwise.
          expect(await names('Running')).toEqual(['p']);
          await rawSql(`UPDATE resources SET fields = '{"status":{"phase":"Told"}}'`);
          expect(await names('Told')).toEqual(['p']);
          await rawSql(`UPDATE resources SET fields = '{"status":{"phase":"Running"}}'`);
          // A status update that leaves labels and field-label values as they were keeps nothing more.
          await s.write({ upserts: [podAt('5', 'z', { phase: 'Running', hostIP: '10.0.0.1' })], deletes: [] });
          await s.write({ upserts: [], deletes: [{ cluster: 'c', group: '', version: 'v1', resource: 'pods', namespace: 'ns', name: 'p' }] });
          const r = await s.selectorHistory(origin, await s.currentRevision(), { types: { kind: 'one', group: '', version: 'v1', resource: 'pods' } }, 100);
          expect(r.expired ? [] : r.entries.map((e) => `${e.type} ${e.prevLabels ?? '-'} ${e.prevFields ?? '-'}`)).toEqual([
            'ADDED - -', 'MODIFIED - -', 'MODIFIED {"app":"y"} -', 'MODIFIED {"app":"z"} {"status":{"phase":"Pending"}}', 'MODIFIED - -',
            'DELETED {"app":"z"} {"status":{"phase":"Running"}}',
          ]);
        } finally {
          await s.close();
        }
      } finally {
        await db.drop();
      }
    });
  }

  it('a bad config is a ConfigError (exit 2 in main); an unreachable database a retryable Unavailable (exit 1) once the wait is over', async () => {
    const cfg = join(dir, 'mysql.yaml');
    writeFileSync(cfg, 'type: mysql\nhost: db\ndatabase: clusterpedia\npassword: hunter2\n');
    const bad: unknown = await migrate('--storage-config', cfg).then(() => undefined, (e: unknown) => e);
    expect(bad).toMatchObject({ code: 'ConfigError', message: expect.stringMatching(/mysql is not supported/) });
    expect((bad as Error).message).not.toContain('hunter2');
    const down: unknown = await migrate('--storage', 'postgres://u:hunter2@127.0.0.1:1/db?connect_timeout=2', '--storage-initialization-timeout', '0').then(() => undefined, (e: unknown) => e);
    expect(down).toMatchObject({ code: 'Unavailable', retryable: true, message: expect.stringMatching(/unreachable.*tried once/) });
    expect((down as Error).message).not.toContain('hunter2');
  });
});
